// Package bettorhttp serves the bettor API (/api/v1) of
// bettor-and-operator-api.md: every request carries an operator-minted
// RS256 JWT; a failed authentication answers 401 with no body. Errors are
// problem+json (type, title, status, detail), except where the spec asks
// for text/plain; the platform's error codes map to statuses in one table
// (statuses), and every answer of status 500 or above is logged with its
// cause and the request id, never shown to the bettor.
package bettorhttp

import (
	"cmp"
	"context"
	"crypto/sha256"
	"errors"
	"log/slog"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/google/uuid"

	"github.com/foresight-dev/foresight/internal/betting"
	"github.com/foresight-dev/foresight/internal/cursor"
	"github.com/foresight-dev/foresight/internal/httpjson"
	"github.com/foresight-dev/foresight/internal/money"
	"github.com/foresight-dev/foresight/internal/ratelimit"
	"github.com/foresight-dev/foresight/internal/requestid"
)

// Bettor is the authenticated bettor of a request.
type Bettor struct {
	Operator betting.Operator
	betting.Bettor
	// SessionID is the aggregator session of the token (a demo session's
	// own random id); empty on the standalone path.
	SessionID string
	// Demo is a demo session: it has no bettor id, reads the catalog and
	// places no bet.
	Demo bool
	// ReadBalance, when set, reads the balance from the wallet at each
	// profile read (the aggregator path); nil shows the balance the
	// wallet's last answer reported.
	ReadBalance func(ctx context.Context) (money.Amount, error)
	// ExpiresAt is the token's exp; the zero time is a token without one.
	ExpiresAt time.Time
	// token is the bearer token the request authenticated with.
	token string
}

// limitKey names who a per-bettor limit counts (stream connections in a
// row, bets and balance reads in progress): the operator and the bettor's
// id; a demo session, which has no bettor id, by its own session id, or by
// its token when the token carries none (minted before demo tokens did).
// Without it every demo player of an aggregator shared one budget.
func (b Bettor) limitKey() string {
	if !b.Demo {
		return b.Operator.ID + "\x00" + b.ID
	}
	if b.SessionID != "" {
		return b.Operator.ID + "\x00demo\x00" + b.SessionID
	}
	sum := sha256.Sum256([]byte(b.token))
	return b.Operator.ID + "\x00demo-token\x00" + string(sum[:])
}

// Authenticator checks a bearer token and returns its bettor; any error
// answers 401.
type Authenticator func(ctx context.Context, token string) (Bettor, error)

type handler struct {
	svc       *betting.Service
	placement *betting.Placement
	auth      Authenticator
	// streams counts the open streams of each token (by its SHA-256).
	streams            *ratelimit.InFlight[[sha256.Size]byte]
	placing            *ratelimit.InFlight[string]
	balanceReads       *ratelimit.InFlight[string]
	streamConnects     *ratelimit.Limiter
	streamWriteTimeout time.Duration
	errors             errorWriter
}

// Options configures the /api/v1 handler.
type Options struct {
	// MaxPlacementsInProgress is how many bets of one bettor may be in
	// progress at once, from the reading of their bodies to their
	// answers; one more is answered 429 with Retry-After before its body
	// is read. 0 sets no cap. Without one, a bettor token kept 25,000
	// placements over HTTP/2 reading bodies sent a byte at a time, for
	// the 3 s each may take.
	MaxPlacementsInProgress int
	// Log receives the failures answered with a status of 500 or above;
	// nil discards them.
	Log *slog.Logger
	// StreamWriteTimeout bounds the writes of an odds stream: each gets
	// at least half of it (DefaultStreamWriteTimeout when zero).
	StreamWriteTimeout time.Duration
	// StreamConnectRate is how many odds streams a bettor may open a
	// second in this process once StreamConnectBurst streams were opened
	// in a row; one more is 429 with Retry-After. Zero or less: no limit.
	StreamConnectRate  float64
	StreamConnectBurst int
	// PlacementTimeLimit bounds a placement request, its body's reading
	// included (DefaultPlacementTimeLimit, the spec's 3 s, when zero).
	// Tests on a busy machine set more.
	PlacementTimeLimit time.Duration
}

// New returns the /api/v1 handler.
func New(svc *betting.Service, placement *betting.Placement, auth Authenticator, o Options) http.Handler {
	h := &handler{svc: svc, placement: placement, auth: auth, streams: ratelimit.NewInFlight[[sha256.Size]byte](MaxStreamsPerToken),
		placing:            ratelimit.NewInFlight[string](o.MaxPlacementsInProgress),
		balanceReads:       ratelimit.NewInFlight[string](MaxBalanceReadsInProgress),
		streamConnects:     ratelimit.New(o.StreamConnectRate, o.StreamConnectBurst),
		streamWriteTimeout: cmp.Or(o.StreamWriteTimeout, DefaultStreamWriteTimeout), errors: newErrorWriter(o.Log)}
	mux := http.NewServeMux()
	mux.Handle("GET /api/v1/events", h.authed(h.listEvents))
	mux.Handle("GET /api/v1/events/{id}", h.authed(h.getEvent))
	mux.Handle("GET /api/v1/markets/{id}/price-history", h.authed(h.priceHistory))
	mux.Handle("POST /api/v1/bettor/bets", withDeadline(cmp.Or(o.PlacementTimeLimit, DefaultPlacementTimeLimit), h.authed(h.placeBet)))
	mux.Handle("GET /api/v1/bettor/bets", h.authed(h.listBets))
	mux.Handle("GET /api/v1/bettor/bets/{id}", h.authed(h.getBet))
	mux.Handle("GET /api/v1/bettor/portfolio", h.authed(h.portfolio))
	mux.Handle("GET /api/v1/auth/me", h.authed(h.me))
	mux.Handle("GET /api/v1/odds/stream", h.authed(h.stream))
	mux.HandleFunc("/api/v1/", func(w http.ResponseWriter, r *http.Request) {
		httpjson.WriteProblem(w, http.StatusNotFound, "There is no endpoint "+r.Method+" "+r.URL.Path+".")
	})
	return mux
}

type authedFunc func(w http.ResponseWriter, r *http.Request, b Bettor)

func (h *handler) authed(next authedFunc) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		scheme, token, ok := strings.Cut(r.Header.Get("Authorization"), " ")
		if !ok || !strings.EqualFold(scheme, "Bearer") || token == "" {
			w.WriteHeader(http.StatusUnauthorized)
			return
		}
		b, err := h.auth(r.Context(), strings.TrimSpace(token))
		if errors.Is(err, errBadToken) {
			w.WriteHeader(http.StatusUnauthorized) // the spec's 401: no body, no Content-Type
			return
		}
		if err != nil {
			h.errors.internal(w, r, err, "The bettor could not be authenticated now; try again.")
			return
		}
		b.token = strings.TrimSpace(token)
		next(w, r, b)
	})
}

type eventList struct {
	Items      []betting.EventView `json:"items"`
	NextCursor *string             `json:"next_cursor"`
}

// eventStatuses are the values of the status filter of GET /api/v1/events.
var eventStatuses = []string{string(betting.StatusOpen), string(betting.StatusSuspended), string(betting.StatusResolved), string(betting.StatusCancelled)}

func (h *handler) listEvents(w http.ResponseWriter, r *http.Request, b Bettor) {
	q := r.URL.Query()
	limit := 20
	if v := q.Get("limit"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 || n > 100 {
			httpjson.WriteProblem(w, http.StatusBadRequest, "limit must be an integer between 1 and 100.")
			return
		}
		limit = n
	}
	f := betting.EventFilter{Category: strings.ToLower(q.Get("category")), Status: betting.MarketStatus(strings.ToLower(q.Get("status"))), Limit: limit + 1}
	if f.Category != "" && !slices.Contains(betting.Categories, f.Category) {
		httpjson.WriteProblem(w, http.StatusBadRequest, "category must be one of "+strings.Join(betting.Categories, ", ")+".")
		return
	}
	if f.Status != "" && !slices.Contains(eventStatuses, string(f.Status)) {
		httpjson.WriteProblem(w, http.StatusBadRequest, "status must be one of "+strings.Join(eventStatuses, ", ")+".")
		return
	}
	if !readCursor(w, q, &f.BeforeCreatedAt, &f.BeforeID) {
		return
	}
	events, err := h.svc.ListEvents(r.Context(), f)
	if err != nil {
		h.errors.write(w, r, err)
		return
	}
	out := eventList{Items: []betting.EventView{}}
	events, next := cursor.Page(events, limit, func(e betting.Event) string { return cursor.Encode(e.CreatedAt, e.ID) })
	if next != "" {
		out.NextCursor = &next
	}
	for _, e := range events {
		out.Items = append(out.Items, betting.View(b.Operator, e, q.Get("locale")))
	}
	httpjson.Write(w, http.StatusOK, out)
}

func (h *handler) getEvent(w http.ResponseWriter, r *http.Request, b Bettor) {
	id, ok := pathUUID(w, r)
	if !ok {
		return
	}
	e, err := h.svc.CachedEvent(r.Context(), id)
	if err != nil {
		h.errors.write(w, r, err)
		return
	}
	httpjson.Write(w, http.StatusOK, betting.View(b.Operator, e, r.URL.Query().Get("locale")))
}

// withDeadline bounds the whole request, authentication included.
func withDeadline(d time.Duration, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ctx, cancel := context.WithTimeout(r.Context(), d)
		defer cancel()
		next.ServeHTTP(w, r.WithContext(ctx))
	})
}

// pathUUID returns the {id} path value in canonical form, or answers 400
// in text/plain as the spec says.
func pathUUID(w http.ResponseWriter, r *http.Request) (string, bool) {
	id := r.PathValue("id")
	u, err := uuid.Parse(id)
	if err != nil || len(id) != 36 {
		writeText(w, http.StatusBadRequest, "id must be a UUID")
		return "", false
	}
	return u.String(), true
}

func writeText(w http.ResponseWriter, status int, text string) {
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	w.WriteHeader(status)
	w.Write([]byte(text + "\n"))
}

// statuses maps the platform's error codes to the bettor API's statuses;
// any other error is 500.
var statuses = map[betting.ErrorCode]int{
	betting.ErrInvalid:     http.StatusBadRequest,
	betting.ErrNotFound:    http.StatusNotFound,
	betting.ErrConflict:    http.StatusConflict,
	betting.ErrRateLimited: http.StatusTooManyRequests,
}

// errorWriter answers errors in the bettor API's problem body.
type errorWriter struct{ log *slog.Logger }

func newErrorWriter(log *slog.Logger) errorWriter {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	return errorWriter{log: log}
}

// write answers err: the status of its code with its client-safe message
// (and Retry-After, in whole seconds rounded up, when the error says when
// to try again), or 500 "Internal error." (logged) for a code the table
// lacks.
func (e errorWriter) write(w http.ResponseWriter, r *http.Request, err error) {
	if status, ok := statuses[betting.ErrorCodeOf(err)]; ok {
		var be *betting.Error
		if errors.As(err, &be) && be.RetryAfter > 0 {
			httpjson.SetRetryAfter(w, be.RetryAfter)
		}
		httpjson.WriteProblem(w, status, betting.ErrorMessage(err))
		return
	}
	e.internal(w, r, err, "Internal error.")
}

// internal answers 500 with detail (client-safe) and logs err, its
// cause, with the request id.
func (e errorWriter) internal(w http.ResponseWriter, r *http.Request, err error, detail string) {
	ctx := r.Context()
	e.log.ErrorContext(ctx, "bettor API error", "method", r.Method, "path", r.URL.Path, "status", http.StatusInternalServerError,
		requestid.Attr(ctx), "err", err)
	httpjson.WriteProblem(w, http.StatusInternalServerError, detail)
}

// readCursor reads the query's cursor, when it has one, into before and
// id; one that is not valid is answered 400 and makes it return false.
func readCursor(w http.ResponseWriter, q url.Values, before *time.Time, id *string) bool {
	c := q.Get("cursor")
	if c == "" {
		return true
	}
	at, cid, ok := cursor.Decode(c)
	if !ok {
		httpjson.WriteProblem(w, http.StatusBadRequest, "cursor is not valid.")
		return false
	}
	*before, *id = at, cid
	return true
}
