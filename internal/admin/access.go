package admin

import (
	"context"
	"crypto/sha256"
	"crypto/subtle"
	"errors"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/google/uuid"

	"github.com/foresight-dev/foresight/internal/betting"
	"github.com/foresight-dev/foresight/internal/httpjson"
)

// CodeForbidden is the problem code of a request the caller's credential
// may not make (403).
const CodeForbidden = "forbidden"

// principal is who sent an admin request: platform staff with the admin
// token (operatorID empty), or an operator's staff with one of its
// credentials.
type principal struct {
	operatorID   string
	name         string
	credentialID string
	expiresAt    *time.Time
}

func (p principal) admin() bool { return p.operatorID == "" }

type principalKey struct{}

// principalOf returns the authenticated caller of r.
func principalOf(r *http.Request) principal {
	p, _ := r.Context().Value(principalKey{}).(principal)
	return p
}

// access is what an operator credential may do on a route; the admin
// token may do everything.
type access int

const (
	// staffOnly closes the route to operator credentials (403). It is
	// the access of every route missing from routeAccess.
	//lint:ignore U1000 the zero value: what a missing route gets, never named
	staffOnly access = iota
	// shared opens the route to every operator credential: data every
	// operator sees alike (the catalog), or no data at all.
	shared
	// ownPath opens the route when its {op} is the credential's operator;
	// another operator is 404, like an unknown one.
	ownPath
	// ownQuery opens the route for the credential's operator: a missing
	// operator_id query parameter becomes the credential's operator,
	// another one is 404, like an unknown one.
	ownQuery
	// ownBet opens the route when the bet {id} is of the credential's
	// operator; another operator's bet is 404, like an unknown one.
	ownBet
	// ownList opens a list route; the handler lists the credential's own
	// operator only.
	ownList
)

// routeAccess is the admin API's authorization table: for each route
// pattern, as registered on the mux, what an operator credential may do
// there. A route that is not in the table is closed to operator
// credentials (staffOnly) until someone decides otherwise and adds it:
// every catalog write (the catalog is shared by every operator), creating
// operators, credentials, and the ticket service among them.
var routeAccess = map[string]access{
	"GET /admin/v1/whoami":                        shared,
	"GET /admin/v1/events":                        shared,
	"GET /admin/v1/events/{id}":                   shared,
	"GET /admin/v1/markets/{id}/price-history":    ownQuery,
	"GET /admin/v1/operators":                     ownList,
	"GET /admin/v1/operators/{op}":                ownPath,
	"PATCH /admin/v1/operators/{op}":              ownPath, // its commercial settings only: see operatorRequest.commercialOnly
	"GET /admin/v1/exposure":                      ownQuery,
	"GET /admin/v1/bettors":                       ownQuery,
	"GET /admin/v1/bets":                          ownQuery,
	"GET /admin/v1/bets/totals":                   ownQuery,
	"GET /admin/v1/bets/{id}/wallet-transactions": ownBet,
	"GET /admin/v1/audit":                         ownQuery, // the entries of the credential's operator only
	"/admin/v1/":                                  shared,   // the 404 of an unknown path
	// The cashier of a bundled operator: its staff credit, debit and read
	// their own bettors' balances. The house result and Verify stay with
	// platform staff.
	"POST /admin/v1/operators/{op}/bettors/{bettor}/deposits":    ownPath,
	"POST /admin/v1/operators/{op}/bettors/{bettor}/withdrawals": ownPath,
	"GET /admin/v1/operators/{op}/bettors/{bettor}/statement":    ownPath,
	"POST /admin/v1/operators/{op}/sessions":                     ownPath,
}

// authenticate puts the caller in the request's context (see caller); a
// request without a valid token gets 401, the same answer for a missing,
// wrong, revoked or expired one. Each 401 counts against the client
// address's failure budget; once the address has used it up, its wrong
// tokens get 429 rate_limited with Retry-After instead. A valid token is
// served whatever its address's budget.
func (h *handler) authenticate(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		p, ok, err := h.caller(r)
		if err != nil {
			h.writeError(w, r, err)
			return
		}
		if !ok {
			if refused, wait := h.failures.Failed(r); refused {
				httpjson.SetRetryAfter(w, wait)
				h.writeError(w, r, problem(http.StatusTooManyRequests, CodeRateLimited,
					"Too many wrong tokens from this address; retry after the time in Retry-After."))
				return
			}
			w.Header().Set("WWW-Authenticate", `Bearer realm="foresight-admin"`)
			h.writeError(w, r, problem(http.StatusUnauthorized, CodeUnauthorized, "The admin token or operator key is missing, wrong, revoked or expired."))
			return
		}
		next.ServeHTTP(w, r.WithContext(context.WithValue(r.Context(), principalKey{}, p)))
	})
}

// caller returns who the request's bearer token is: the admin token
// (compared in constant time, over hashes so that the length does not leak
// either) or a live operator credential. ok is false for any other token;
// err is a storage failure.
func (h *handler) caller(r *http.Request) (p principal, ok bool, err error) {
	scheme, token, found := strings.Cut(r.Header.Get("Authorization"), " ")
	if !found || !strings.EqualFold(scheme, "Bearer") {
		return principal{}, false, nil
	}
	token = strings.TrimSpace(token)
	sum := sha256.Sum256([]byte(token))
	if subtle.ConstantTimeCompare(sum[:], h.tokenHash[:]) == 1 {
		return principal{name: "platform staff"}, true, nil
	}
	c, err := h.credentials.Authenticate(r.Context(), token)
	if errors.Is(err, betting.ErrCredentialRefused) {
		return principal{}, false, nil
	}
	if err != nil {
		return principal{}, false, err
	}
	return principal{operatorID: c.OperatorID, name: c.Name, credentialID: c.ID, expiresAt: c.ExpiresAt}, true, nil
}

// authorize applies routeAccess to operator credentials before mux serves
// the request.
func (h *handler) authorize(mux *http.ServeMux) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		p := principalOf(r)
		if p.admin() {
			mux.ServeHTTP(w, r)
			return
		}
		_, pattern := mux.Handler(r)
		if pattern == "" {
			// No route: the mux answers 404 or 405 by itself.
			mux.ServeHTTP(w, r)
			return
		}
		switch routeAccess[pattern] {
		case shared, ownList:
		case ownPath:
			if op := pathSegment(r, "/admin/v1/operators/"); op != p.operatorID {
				h.writeError(w, r, noOperator(op))
				return
			}
		case ownQuery:
			q := r.URL.Query()
			switch op := q.Get("operator_id"); op {
			case p.operatorID:
			case "":
				q.Set("operator_id", p.operatorID)
				r.URL.RawQuery = q.Encode()
			default:
				h.writeError(w, r, noOperator(op))
				return
			}
		case ownBet:
			id := pathSegment(r, "/admin/v1/bets/")
			if uuid.Validate(id) != nil {
				h.writeError(w, r, problem(http.StatusNotFound, CodeNotFound, "No such resource: "+r.URL.Path+"."))
				return
			}
			if _, err := h.placement.Bet(r.Context(), betting.Bettor{OperatorID: p.operatorID}, id); err != nil {
				h.writeError(w, r, err)
				return
			}
		default:
			h.writeError(w, r, problem(http.StatusForbidden, CodeForbidden,
				"An operator credential may not call "+pattern+"; platform staff use the admin token for it."))
			return
		}
		mux.ServeHTTP(w, r)
	})
}

// noOperator is the 404 of an operator that the caller may not see: the
// same answer as for an operator that does not exist.
func noOperator(id string) error {
	return &betting.Error{Code: betting.ErrNotFound, Message: "no operator " + id}
}

// pathSegment returns the path segment after prefix, unescaped as
// ServeMux unescapes a wildcard (mux.Handler does not set path values).
func pathSegment(r *http.Request, prefix string) string {
	rest, _ := strings.CutPrefix(r.URL.EscapedPath(), prefix)
	seg, _, _ := strings.Cut(rest, "/")
	v, err := url.PathUnescape(seg)
	if err != nil {
		return seg
	}
	return v
}

// commercialOnly refuses a change an operator credential may not make to
// its operator: anything but the margin, the limits per currency and the
// odds tolerance. The name, the integration, the partner URLs, the casino
// ids, the currencies and the signing secret stay with platform staff:
// they are how the platform reaches, trusts and accounts to the operator,
// and a wrong value there breaks every bettor's bets at once.
func (req operatorRequest) commercialOnly() error {
	var fields []string
	for _, f := range []struct {
		name string
		set  bool
	}{
		{"id", req.ID != nil}, {"name", req.Name != nil}, {"integration", req.Integration != nil},
		{"wallet_url", req.WalletURL != nil}, {"signing_secret", req.SigningSecret != nil}, {"jwks_url", req.JWKSURL != nil},
		{"session_url", req.SessionURL != nil}, {"casino_ids", req.CasinoIDs != nil}, {"currencies", req.Currencies != nil},
	} {
		if f.set {
			fields = append(fields, f.name)
		}
	}
	if len(fields) == 0 {
		return nil
	}
	return problem(http.StatusForbidden, CodeForbidden, "An operator credential may change margin, limits and odds_tolerance only; "+
		strings.Join(fields, ", ")+" stay with platform staff.")
}

// whoami answers who the caller is.
func (h *handler) whoami(w http.ResponseWriter, r *http.Request) {
	p := principalOf(r)
	out := Whoami{Kind: "admin", Name: p.name}
	if !p.admin() {
		out = Whoami{Kind: "operator", OperatorID: p.operatorID, Name: p.name, CredentialID: p.credentialID, ExpiresAt: p.expiresAt}
	}
	httpjson.Write(w, http.StatusOK, out)
}
