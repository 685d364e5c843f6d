// Package admin serves the admin API (/admin/v1) that operators of
// Foresight, the backoffice, the `foresight admin` CLI and tests use to set
// up the world, and provides the Go client the CLI is built on. Requests
// carry the admin token, or an operator credential on the routes open to
// it (routeAccess), as a bearer token; errors are RFC 9457 problem details
// with a code member.
package admin

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/google/uuid"

	"github.com/foresight-dev/foresight/internal/audit"
	"github.com/foresight-dev/foresight/internal/betting"
	"github.com/foresight-dev/foresight/internal/clientaddr"
	"github.com/foresight-dev/foresight/internal/cursor"
	"github.com/foresight-dev/foresight/internal/httpjson"
	"github.com/foresight-dev/foresight/internal/ledger"
	"github.com/foresight-dev/foresight/internal/money"
	"github.com/foresight-dev/foresight/internal/ratelimit"
	"github.com/foresight-dev/foresight/internal/requestbody"
	"github.com/foresight-dev/foresight/internal/requestid"
	"github.com/foresight-dev/foresight/internal/tickets"
)

// Problem is an RFC 9457 problem details body with a stable code.
type Problem struct {
	Type   string `json:"type"`
	Title  string `json:"title"`
	Status int    `json:"status"`
	Detail string `json:"detail"`
	Code   string `json:"code"`
}

func (p *Problem) Error() string { return p.Code + ": " + p.Detail }

func problem(status int, code, detail string) *Problem {
	return &Problem{Type: "about:blank", Title: http.StatusText(status), Status: status, Detail: detail, Code: code}
}

// Admin problem codes.
const (
	CodeInvalidRequest = "invalid_request"
	CodeUnauthorized   = "unauthorized"
	CodeNotFound       = "not_found"
	CodeRateLimited    = "rate_limited"
	CodeInternal       = "internal_error"
)

type handler struct {
	tickets     *tickets.Service
	betting     *betting.Service
	placement   *betting.Placement
	credentials *betting.Credentials
	ledger      *ledger.Ledger
	audit       *audit.Trail
	sessions    BundledSessions
	tokenHash   [32]byte
	failures    *ratelimit.FailureGuard
	proxies     clientaddr.Proxies
	log         *slog.Logger
}

// Options configure the admin handler.
type Options struct {
	// Log receives internal errors; nil discards them.
	Log *slog.Logger
	// Ledger is the ledger of the operators whose balances Foresight
	// keeps; nil answers its routes 404.
	Ledger *ledger.Ledger
	// Audit is the audit trail that records staff actions; nil records
	// nothing and answers GET /admin/v1/audit 404.
	Audit *audit.Trail
	// Sessions opens the sessions of bundled operators' bettors; nil
	// answers its route 404.
	Sessions BundledSessions
	// FailedSignIns counts wrong tokens per client address: once an
	// address has used up its budget, its wrong tokens are answered 429
	// rate_limited with Retry-After instead of 401 until the budget
	// refills; its valid tokens are served. Nil never refuses.
	FailedSignIns *ratelimit.FailureGuard
	// TrustedProxies are the reverse proxies whose X-Forwarded-For names
	// the client address the audit trail records; zero trusts none.
	TrustedProxies clientaddr.Proxies
}

// New returns the /admin/v1 handler. token is the admin bearer token;
// credentials are the operator credentials it also accepts, each on the
// routes routeAccess opens to it.
func New(token string, ticketService *tickets.Service, bettingService *betting.Service, placement *betting.Placement, credentials *betting.Credentials, opts Options) http.Handler {
	log := opts.Log
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	h := &handler{tickets: ticketService, betting: bettingService, placement: placement, credentials: credentials, ledger: opts.Ledger, sessions: opts.Sessions,
		tokenHash: sha256.Sum256([]byte(token)), failures: opts.FailedSignIns, proxies: opts.TrustedProxies, log: log}
	h.audit = opts.Audit
	mux := http.NewServeMux()
	mux.HandleFunc("POST /admin/v1/ticket-clients", h.createClient)
	mux.HandleFunc("GET /admin/v1/ticket-clients", listPage(h, h.readClients, clientID, toClientJSON))
	mux.HandleFunc("GET /admin/v1/ticket-clients/{id}", h.ids(h.getClient))
	mux.HandleFunc("PATCH /admin/v1/ticket-clients/{id}", h.ids(h.updateClient))
	mux.HandleFunc("POST /admin/v1/ticket-clients/{id}/keys", h.ids(h.createKey))
	mux.HandleFunc("GET /admin/v1/ticket-clients/{id}/keys", h.ids(listWhole(h, "id", h.tickets.ListKeys, keyID, toKeyListItem)))
	mux.HandleFunc("DELETE /admin/v1/ticket-clients/{id}/keys/{key_id}", h.ids(h.revokeKey))
	mux.HandleFunc("GET /admin/v1/ticket-jobs", h.listTicketJobs)
	mux.HandleFunc("GET /admin/v1/ticket-jobs/{id}", h.ids(h.getTicketJob))
	h.bettingRoutes(mux)
	h.credentialRoutes(mux)
	h.ledgerRoutes(mux)
	mux.HandleFunc("GET /admin/v1/audit", h.listAudit())
	mux.HandleFunc("/admin/v1/", func(w http.ResponseWriter, r *http.Request) {
		h.writeError(w, r, problem(http.StatusNotFound, CodeNotFound, "There is no endpoint "+r.Method+" "+r.URL.Path+"."))
	})
	return h.authenticate(h.authorize(mux))
}

// ids answers 404 for path ids that are not UUIDs (no resource has one),
// so that stores never see them.
func (h *handler) ids(next http.HandlerFunc) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		for _, name := range []string{"id", "key_id"} {
			if v := r.PathValue(name); v != "" && uuid.Validate(v) != nil {
				h.writeError(w, r, tickets.ErrNotFound)
				return
			}
		}
		next(w, r)
	}
}

func clientID(c tickets.Client) string { return c.ID }

func toClientJSON(c tickets.Client) TicketClient {
	return TicketClient{ID: c.ID, Name: c.Name, Suspended: c.Suspended, TicketsEnabled: c.TicketsEnabled, CreatedAt: c.CreatedAt.UTC()}
}

// keyListItem always carries revoked_at, null when the key is live.
type keyListItem struct {
	TicketKey
	RevokedAt *time.Time `json:"revoked_at"`
}

func toKeyJSON(k tickets.APIKey) TicketKey {
	scopes := make([]string, len(k.Scopes))
	for i, s := range k.Scopes {
		scopes[i] = string(s)
	}
	return TicketKey{ID: k.ID, ClientID: k.ClientID, Scopes: scopes, ExpiresAt: k.ExpiresAt, RevokedAt: k.RevokedAt, CreatedAt: k.CreatedAt.UTC()}
}

type list[T any] struct {
	Items      []T     `json:"items"`
	NextCursor *string `json:"next_cursor"`
}

// listWhole is the handler of a list read whole: read returns the items
// of the parent whose id is the path value parent, and the answer is the
// page pageAfter makes of them with the request's cursor and limit.
func listWhole[T, J any](h *handler, parent string, read func(ctx context.Context, parentID string) ([]T, error), id func(T) string, toJSON func(T) J) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		limit, err := pageLimit(r)
		if err != nil {
			h.writeError(w, r, err)
			return
		}
		items, err := read(r.Context(), r.PathValue(parent))
		if err != nil {
			h.writeError(w, r, err)
			return
		}
		httpjson.Write(w, http.StatusOK, pageAfter(items, id, r.URL.Query().Get("cursor"), limit, toJSON))
	}
}

// listPage is the handler of a cursor-paged list: read returns the items
// of the request's page, at most limit of them (the page's limit plus one,
// which tells whether more follow), and the answer is the page pageOf
// makes of them with next's cursor.
func listPage[T, J any](h *handler, read func(r *http.Request, limit int) ([]T, error), next func(T) string, toJSON func(T) J) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		limit, err := pageLimit(r)
		if err != nil {
			h.writeError(w, r, err)
			return
		}
		items, err := read(r, limit+1)
		if err != nil {
			h.writeError(w, r, err)
			return
		}
		httpjson.Write(w, http.StatusOK, pageOf(items, limit, next, toJSON))
	}
}

// requireQuery answers invalid_request when one of the query parameters
// names is missing, and passes the request to next otherwise.
func (h *handler) requireQuery(next http.HandlerFunc, names ...string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		for _, n := range names {
			if r.URL.Query().Get(n) == "" {
				h.writeError(w, r, problem(http.StatusBadRequest, CodeInvalidRequest, n+" is required."))
				return
			}
		}
		next(w, r)
	}
}

// pageAfter pages a list read whole: the items after the one whose id is
// cursor (from the first when cursor is empty), at most limit of them,
// with the id of the last one as the next cursor when more follow.
func pageAfter[T, J any](items []T, id func(T) string, cursor string, limit int, toJSON func(T) J) list[J] {
	out := list[J]{Items: []J{}}
	var last string
	for _, it := range items {
		if cursor != "" {
			if id(it) == cursor {
				cursor = ""
			}
			continue
		}
		if len(out.Items) == limit {
			out.NextCursor = &last
			break
		}
		out.Items = append(out.Items, toJSON(it))
		last = id(it)
	}
	return out
}

// pageCursor reads the cursor of a list paged newest first: the position
// (creation time, id) the page starts after, zero for the first page. A
// cursor Encode did not make is an invalid_request problem.
func pageCursor(r *http.Request) (time.Time, string, error) {
	c := r.URL.Query().Get("cursor")
	if c == "" {
		return time.Time{}, "", nil
	}
	at, id, ok := cursor.Decode(c)
	if !ok {
		return time.Time{}, "", problem(http.StatusBadRequest, CodeInvalidRequest, "cursor is not valid.")
	}
	return at, id, nil
}

// pageOf is the page of items read with a limit of limit+1: the first
// limit of them as toJSON writes them and, when more follow, the cursor
// next makes of the last of those.
func pageOf[T, J any](items []T, limit int, next func(T) string, toJSON func(T) J) list[J] {
	out := list[J]{Items: []J{}}
	items, c := cursor.Page(items, limit, next)
	if c != "" {
		out.NextCursor = &c
	}
	for _, it := range items {
		out.Items = append(out.Items, toJSON(it))
	}
	return out
}

// asIs is the toJSON of pageOf for items the API shows as they are.
func asIs[T any](it T) T { return it }

// seqCursor reads the cursor of a list paged by sequence number: 0 when
// there is none, an invalid_request problem when it is not a number of at
// least min.
func seqCursor(r *http.Request, min int64) (int64, error) {
	c := r.URL.Query().Get("cursor")
	if c == "" {
		return 0, nil
	}
	seq, err := strconv.ParseInt(c, 10, 64)
	if err != nil || seq < min {
		return 0, problem(http.StatusBadRequest, CodeInvalidRequest, "cursor must be the next_cursor of a previous page.")
	}
	return seq, nil
}

func (h *handler) createClient(w http.ResponseWriter, r *http.Request) {
	var req struct {
		Name *string `json:"name"`
	}
	if err := decodeNamed(w, r, &req, &req.Name); err != nil {
		h.writeError(w, r, err)
		return
	}
	c, err := h.tickets.CreateClient(r.Context(), *req.Name)
	if err != nil {
		h.writeError(w, r, err)
		return
	}
	h.record(r, audit.Entry{Action: audit.TicketClientCreated, TargetKind: audit.TargetTicketClient, TargetID: c.ID,
		After: clientAudit(c, audit.SecretSet)})
	out := toClientJSON(c)
	out.WebhookSecret = c.WebhookSecret
	httpjson.Write(w, http.StatusCreated, out)
}

func (h *handler) readClients(r *http.Request, limit int) ([]tickets.Client, error) {
	return h.tickets.ListClients(r.Context(), r.URL.Query().Get("cursor"), limit)
}

func (h *handler) getClient(w http.ResponseWriter, r *http.Request) {
	c, err := h.tickets.GetClient(r.Context(), r.PathValue("id"))
	h.reply(w, r, http.StatusOK, toClientJSON(c), err)
}

func (h *handler) updateClient(w http.ResponseWriter, r *http.Request) {
	var req struct {
		Suspended      *bool `json:"suspended"`
		TicketsEnabled *bool `json:"tickets_enabled"`
	}
	if err := decode(w, r, &req); err != nil {
		h.writeError(w, r, err)
		return
	}
	before, err := h.tickets.GetClient(r.Context(), r.PathValue("id"))
	if err != nil {
		h.writeError(w, r, err)
		return
	}
	c, err := h.tickets.UpdateClient(r.Context(), r.PathValue("id"), tickets.ClientUpdate{Suspended: req.Suspended, TicketsEnabled: req.TicketsEnabled})
	if err != nil {
		h.writeError(w, r, err)
		return
	}
	h.record(r, audit.Entry{Action: audit.TicketClientUpdated, TargetKind: audit.TargetTicketClient, TargetID: c.ID,
		Before: clientAudit(before, ""), After: clientAudit(c, "")})
	httpjson.Write(w, http.StatusOK, toClientJSON(c))
}

func (h *handler) createKey(w http.ResponseWriter, r *http.Request) {
	var req struct {
		Scopes    []tickets.Scope `json:"scopes"`
		ExpiresAt *time.Time      `json:"expires_at"`
	}
	if err := decode(w, r, &req); err != nil {
		h.writeError(w, r, err)
		return
	}
	k, key, err := h.tickets.CreateKey(r.Context(), r.PathValue("id"), req.Scopes, req.ExpiresAt)
	if err != nil {
		h.writeError(w, r, err)
		return
	}
	h.record(r, audit.Entry{Action: audit.TicketKeyCreated, TargetKind: audit.TargetTicketKey, TargetID: k.ID, After: keyAudit(k)})
	out := toKeyJSON(k)
	out.Key = key
	httpjson.Write(w, http.StatusCreated, out)
}

func keyID(k tickets.APIKey) string { return k.ID }

func toKeyListItem(k tickets.APIKey) keyListItem {
	return keyListItem{TicketKey: toKeyJSON(k), RevokedAt: k.RevokedAt}
}

// revokeKey revokes a key; the audit trail records the first revocation
// only (revoking again changes nothing).
func (h *handler) revokeKey(w http.ResponseWriter, r *http.Request) {
	before, found := h.keyOf(r)
	if err := h.tickets.RevokeKey(r.Context(), r.PathValue("id"), r.PathValue("key_id")); err != nil {
		h.writeError(w, r, err)
		return
	}
	if after, ok := h.keyOf(r); found && ok && before.RevokedAt == nil {
		h.record(r, audit.Entry{Action: audit.TicketKeyRevoked, TargetKind: audit.TargetTicketKey, TargetID: after.ID,
			Key: audit.TicketKeyRevoked + ":" + after.ID, Before: keyAudit(before), After: keyAudit(after)})
	}
	w.WriteHeader(http.StatusNoContent)
}

func pageLimit(r *http.Request) (int, error) {
	v := r.URL.Query().Get("limit")
	if v == "" {
		return 20, nil
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < 1 || n > 100 {
		return 0, problem(http.StatusBadRequest, CodeInvalidRequest, "limit must be an integer between 1 and 100.")
	}
	return n, nil
}

// checkOneOf accepts v, the value of the query parameter name, when it is
// empty (no filter) or one of allowed; anything else is an invalid_request
// problem that lists allowed.
func checkOneOf(name, v string, allowed []string) error {
	if v == "" || slices.Contains(allowed, v) {
		return nil
	}
	return problem(http.StatusBadRequest, CodeInvalidRequest, name+" must be one of "+strings.Join(allowed, ", ")+".")
}

// queryTime reads the query parameter name as an RFC 3339 time: the zero
// time when it is absent, an invalid_request problem when it is not a time.
func queryTime(q url.Values, name string) (time.Time, error) {
	v := q.Get(name)
	if v == "" {
		return time.Time{}, nil
	}
	t, err := time.Parse(time.RFC3339Nano, v)
	if err != nil {
		return time.Time{}, problem(http.StatusBadRequest, CodeInvalidRequest, name+" must be an RFC 3339 time, like 2026-05-01T14:03:00Z.")
	}
	return t, nil
}

// decode reads a JSON body of at most 1 MiB, sent within
// requestbody.ReadLarge's time (26 s), into v, rejecting unknown
// fields and trailing data.
func decode(w http.ResponseWriter, r *http.Request, v any) error {
	body, err := requestbody.ReadLarge(w, r, 1<<20)
	if err != nil {
		return problem(http.StatusBadRequest, CodeInvalidRequest, "The request body is unreadable, larger than 1 MiB, or slower than 64 KiB/s to arrive.")
	}
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return problem(http.StatusBadRequest, CodeInvalidRequest, bodyErrorDetail(err))
	}
	if dec.More() {
		return problem(http.StatusBadRequest, CodeInvalidRequest, "The request body has data after the JSON value.")
	}
	return nil
}

// decodeNamed is decode of a body whose "name" is required: name points at
// v's field for it, and a body without one is an invalid_request problem.
func decodeNamed(w http.ResponseWriter, r *http.Request, v any, name **string) error {
	if err := decode(w, r, v); err != nil {
		return err
	}
	if *name == nil {
		return problem(http.StatusBadRequest, CodeInvalidRequest, "name is required.")
	}
	return nil
}

// bodyErrorDetail words the JSON decoder's refusal of a request body for
// the client, naming the field at fault where the decoder knows it and
// never a Go type: a decimal field's own rule, a field of the wrong type,
// an unknown field, JSON that does not parse, an empty body. An error of
// a field's own reader (an amount, a time) keeps its text, which names
// the value but not the field.
func bodyErrorDetail(err error) string {
	var wrongType *json.UnmarshalTypeError
	var syntax *json.SyntaxError
	var badTime *time.ParseError
	switch {
	case errors.As(err, &wrongType) && wrongType.Field == "":
		return "The request body must be a JSON object."
	case errors.As(err, &wrongType) && wrongType.Type == decimalFieldType:
		return decimalFieldDetail(wrongType.Field)
	case errors.As(err, &wrongType):
		return wrongType.Field + " has the wrong type."
	case strings.HasPrefix(err.Error(), unknownFieldPrefix):
		// encoding/json's only report of an unknown field is this text.
		name, unquoteErr := strconv.Unquote(strings.TrimPrefix(err.Error(), unknownFieldPrefix))
		if unquoteErr != nil {
			return "The request body has an unknown field."
		}
		return "unknown field " + name + "."
	case errors.As(err, &syntax), errors.Is(err, io.ErrUnexpectedEOF):
		return "The request body is not valid JSON."
	case errors.Is(err, io.EOF):
		return "The request body is empty; it must be a JSON object."
	case errors.Is(err, money.ErrInvalidAmount):
		return "The request body is not valid: " + err.Error() + "."
	case errors.As(err, &badTime):
		return "A time in the request body is not RFC 3339, like 2026-05-01T14:03:00Z."
	default:
		return "The request body has a value of the wrong form."
	}
}

// unknownFieldPrefix starts encoding/json's error for a field the
// request's type does not have (Decoder.DisallowUnknownFields).
const unknownFieldPrefix = "json: unknown field "

// ticketStatuses maps the ticket service's error codes to the admin API's
// statuses and problem codes; any other code is 500 internal_error.
var ticketStatuses = map[tickets.Code]problemStatus{
	tickets.CodeInvalidRequest: {http.StatusBadRequest, CodeInvalidRequest},
}

// problemStatus is the status and problem code the admin API answers for
// an error code of a service it calls (ticketStatuses, bettingStatuses,
// ledgerStatuses).
type problemStatus struct {
	status int
	code   string
}

// writeError answers err as a Problem: a *Problem as it is; the ticket
// store's not-found; the codes of the services through their tables
// (ticketStatuses, bettingStatuses, ledgerStatuses), each with the error's
// message; anything else 500 internal_error, logged with its cause and the
// request id.
func (h *handler) writeError(w http.ResponseWriter, r *http.Request, err error) {
	var p *Problem
	var te *tickets.Error
	var be *betting.Error
	var le *ledger.Error
	switch {
	case errors.As(err, &p):
	case errors.Is(err, tickets.ErrNotFound):
		p = problem(http.StatusNotFound, CodeNotFound, "No such resource: "+r.URL.Path+".")
	case errors.As(err, &te) && ticketStatuses[te.Code].code != "":
		s := ticketStatuses[te.Code]
		p = problem(s.status, s.code, te.Message)
	case errors.As(err, &be) && bettingStatuses[be.Code].code != "":
		s := bettingStatuses[be.Code]
		p = problem(s.status, s.code, be.Message)
	case errors.As(err, &le) && ledgerStatuses[le.Code].code != "":
		s := ledgerStatuses[le.Code]
		p = problem(s.status, s.code, le.Message)
	default:
		p = problem(http.StatusInternalServerError, CodeInternal, "Internal error.")
	}
	if p.Status >= http.StatusInternalServerError {
		ctx := r.Context()
		h.log.ErrorContext(ctx, "admin API error", "method", r.Method, "path", r.URL.Path, "status", p.Status, requestid.Attr(ctx), "err", err)
	}
	httpjson.WriteProblemBody(w, p.Status, p)
}

// reply writes v with status, or the problem of err when err is not nil
// (v, made of the zero values a failed read returns, is then dropped).
func (h *handler) reply(w http.ResponseWriter, r *http.Request, status int, v any, err error) {
	if err != nil {
		h.writeError(w, r, err)
		return
	}
	httpjson.Write(w, status, v)
}
