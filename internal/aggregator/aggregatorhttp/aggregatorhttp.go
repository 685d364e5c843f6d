// Package aggregatorhttp serves the aggregator integration over HTTP: the
// launcher and round-details calls aggregators make
// (/v2/agg_provider.Launcher/Real, …/Launcher/Demo, …/Round/Details), the
// session exchange of the game's frontend (POST /api/v1/sessions) and the
// public keys of the session tokens (GET /.well-known/jwks.json).
//
// Launcher and details requests are authenticated before anything else by
// X-REQUEST-SIGN, the lowercase hex HMAC-SHA256 of the raw body: the
// aggregator is the operator whose signing secret produced it (compared in
// constant time against each aggregator's). A request no aggregator signed
// is 403; when the aggregators cannot be read, the answer is the call's 500,
// logged like every other.
//
// Each call keeps the error body the spec gives it (the launcher's
// {"error": code}, Round/Details' wallet-style body, the session
// exchange's problem details); the platform's error codes map to them in
// one table per call, and every answer of status 500 or above is logged
// with its cause and the request id.
package aggregatorhttp

import (
	"bytes"
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"time"

	"github.com/foresight-dev/foresight/internal/aggregator"
	"github.com/foresight-dev/foresight/internal/betting"
	"github.com/foresight-dev/foresight/internal/betting/walletcall"
	"github.com/foresight-dev/foresight/internal/clientaddr"
	"github.com/foresight-dev/foresight/internal/httpjson"
	"github.com/foresight-dev/foresight/internal/ratelimit"
	"github.com/foresight-dev/foresight/internal/requestbody"
	"github.com/foresight-dev/foresight/internal/requestid"
)

// MaxBody is the largest launcher or details request read (64 KiB).
const MaxBody = 64 << 10

// Paths of the aggregator's calls.
const (
	PathLauncherReal = "/v2/agg_provider.Launcher/Real"
	PathLauncherDemo = "/v2/agg_provider.Launcher/Demo"
	PathRoundDetails = "/v2/agg_provider.Round/Details"
)

// Options configure the handlers.
type Options struct {
	// LauncherRate is launcher requests per second per client IP address
	// (the gateway's limit; 5 in production), and session exchanges per
	// second per client IP address, counted apart; 0 disables both
	// limits.
	LauncherRate float64
	// DetailsRate is Round/Details requests per second per client IP
	// address, in bursts of as many; 0 disables the limit.
	DetailsRate float64
	// TrustedProxies are the reverse proxies whose X-Forwarded-For names
	// the client IP address the limits count; zero trusts none.
	TrustedProxies clientaddr.Proxies
	Log            *slog.Logger
}

type handler struct {
	svc     *aggregator.Service
	catalog *betting.Service
	// launches, details and sessions count the launcher's requests, the
	// Round/Details requests and the session exchanges per client IP
	// address.
	launches, details, sessions *ratelimit.Limiter
	log                         *slog.Logger
}

// Register adds the routes to mux.
func Register(mux *http.ServeMux, svc *aggregator.Service, catalog *betting.Service, opts Options) {
	burst := max(1, int(opts.LauncherRate))
	h := &handler{svc: svc, catalog: catalog, launches: ratelimit.New(opts.LauncherRate, burst),
		details:  ratelimit.New(opts.DetailsRate, max(1, int(opts.DetailsRate))),
		sessions: ratelimit.New(opts.LauncherRate, burst), log: opts.Log}
	if h.log == nil {
		h.log = slog.New(slog.DiscardHandler)
	}
	mux.Handle("POST "+PathLauncherReal, limited(h.launches, opts.TrustedProxies, tooManyRequests, http.HandlerFunc(h.launcherReal)))
	mux.Handle("POST "+PathLauncherDemo, limited(h.launches, opts.TrustedProxies, tooManyRequests, http.HandlerFunc(h.launcherDemo)))
	// Round/Details reads a body before it knows the caller: without a
	// limit, one address could keep thousands of handlers reading
	// trickled bodies over HTTP/2.
	mux.Handle("POST "+PathRoundDetails, limited(h.details, opts.TrustedProxies, tooManyRequests, http.HandlerFunc(h.roundDetails)))
	// The exchange is open to anyone and writes to the database before
	// it knows the token: without a limit, a flood of made-up tokens
	// slowed every bet on SQLite.
	mux.Handle("POST /api/v1/sessions", limited(h.sessions, opts.TrustedProxies, tooManySessions, http.HandlerFunc(h.startSession)))
	mux.HandleFunc("GET /.well-known/jwks.json", h.jwks)
}

// limited counts requests per client IP address (proxies.LimitKey: an
// IPv6 client by its /64) in limit:
// past it, the answer is refuse's (429), with Retry-After in whole seconds
// rounded up.
func limited(limit *ratelimit.Limiter, proxies clientaddr.Proxies, refuse func(http.ResponseWriter), next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if ok, wait := limit.Allow(proxies.LimitKey(r)); !ok {
			httpjson.SetRetryAfter(w, wait)
			refuse(w)
			return
		}
		next.ServeHTTP(w, r)
	})
}

// tooManyRequests is the gateway's 429 body, {"message": "Too many
// requests"}, for the launcher and Round/Details.
func tooManyRequests(w http.ResponseWriter) {
	httpjson.Write(w, http.StatusTooManyRequests, map[string]string{"message": "Too many requests"})
}

// tooManySessions is the session exchange's 429: problem details, like
// its other errors.
func tooManySessions(w http.ResponseWriter) {
	httpjson.WriteProblem(w, http.StatusTooManyRequests, "Too many session requests from this address; retry after Retry-After seconds.")
}

// Why signed refused a request; any other error of signed is internal.
var (
	// errUnreadableBody: the body is too large, unreadable or not sent
	// within requestbody.Within.
	errUnreadableBody = errors.New("aggregator: request body unreadable")
	// errNotSigned: X-REQUEST-SIGN is missing or malformed, or no
	// aggregator's secret signed the body.
	errNotSigned = errors.New("aggregator: request not signed by a known aggregator")
)

// signed reads the body and returns it with the aggregator whose secret
// signed it. The error is errUnreadableBody or errNotSigned when the
// request is refused, and any other error when the aggregators could not
// be read (the caller answers 500 and logs it). A missing or malformed
// X-REQUEST-SIGN is refused before the body is read.
func (h *handler) signed(w http.ResponseWriter, r *http.Request) (body []byte, op betting.Operator, err error) {
	sig, err := hex.DecodeString(r.Header.Get("X-REQUEST-SIGN"))
	if err != nil || len(sig) != sha256.Size {
		return nil, op, errNotSigned
	}
	body, err = requestbody.Read(w, r, MaxBody)
	if err != nil {
		return nil, op, errUnreadableBody
	}
	ops, err := h.catalog.CachedIntegration(r.Context(), betting.IntegrationAggregator)
	if err != nil {
		return body, op, fmt.Errorf("aggregator: listing operators: %w", err)
	}
	for _, o := range ops {
		if hmac.Equal(walletcall.MAC(o.SigningSecret, body), sig) {
			return body, o, nil
		}
	}
	return body, op, errNotSigned
}

// launchBody is a Launcher/Real or Launcher/Demo request. Unknown fields
// are accepted (aggregators send more than they must); ip and client_type
// are read only to refuse a value of the wrong type.
type launchBody struct {
	CasinoID   string    `json:"casino_id"`
	Game       string    `json:"game"`
	Locale     string    `json:"locale"`
	IP         string    `json:"ip"`
	ClientType string    `json:"client_type"`
	SessionID  *string   `json:"session_id"`
	URLs       *struct{} `json:"urls"`
	Account    *struct {
		ID       string `json:"id"`
		Currency string `json:"currency"`
	} `json:"account"`
}

func decodeStrict(body []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(body))
	if err := dec.Decode(v); err != nil {
		return err
	}
	if dec.More() {
		return errors.New("data after the JSON object")
	}
	if _, err := dec.Token(); err != io.EOF {
		return errors.New("data after the JSON object")
	}
	return nil
}

// answer is a status and an error body of one of the API's shapes.
type answer struct {
	status int
	// code is the launcher's error; apiCode and message are Round/Details';
	// message alone is the session exchange's problem detail (no body
	// when empty).
	code, apiCode, message string
	// warn logs the answer as a warning: a partner failed, not Foresight.
	warn bool
}

// launcherInternal is the launcher's answer to an internal failure.
var launcherInternal = answer{status: http.StatusInternalServerError, code: "internal_error"}

// launcherAnswers maps the platform's error codes to the launcher's
// answers; any other error is launcherInternal.
var launcherAnswers = map[betting.ErrorCode]answer{
	betting.ErrInvalid:   {status: http.StatusBadRequest, code: "invalid_request"},
	betting.ErrForbidden: {status: http.StatusForbidden, code: "forbidden"},
}

// detailsInternal is Round/Details' answer to an internal failure: 500
// internal, api_code 503.
var detailsInternal = answer{status: http.StatusInternalServerError, code: "internal", apiCode: "503", message: "Service is unavailable."}

// detailsAnswers maps the platform's error codes to Round/Details'
// answers; any other error is detailsInternal.
var detailsAnswers = map[betting.ErrorCode]answer{
	betting.ErrNotFound: {status: http.StatusBadRequest, code: "invalid_argument", apiCode: "404", message: "Not found."},
}

// sessionAnswers maps the platform's error codes to the session
// exchange's answers; any other error is 500 problem+json.
var sessionAnswers = map[betting.ErrorCode]answer{
	betting.ErrUnauthorized: {status: http.StatusUnauthorized},
	betting.ErrUnavailable: {status: http.StatusBadGateway, warn: true,
		message: "The casino's wallet did not give the player's balance; the game cannot start. Launch it again."},
}

// answerOf returns the answer of err in table, or internal when its code
// is not there. An internal answer is logged as an error, a table's answer
// marked warn as a warning, each with the cause and the request id.
func (h *handler) answerOf(r *http.Request, table map[betting.ErrorCode]answer, internal answer, err error, attrs ...any) answer {
	if a, ok := table[betting.ErrorCodeOf(err)]; ok {
		if a.warn {
			h.logFailure(r, slog.LevelWarn, a.status, err, attrs...)
		}
		return a
	}
	h.logFailure(r, slog.LevelError, internal.status, err, attrs...)
	return internal
}

// logFailure writes the one log line of an answer of status 500 or above:
// the call, the status, the cause and the request id.
func (h *handler) logFailure(r *http.Request, level slog.Level, status int, err error, attrs ...any) {
	ctx := r.Context()
	h.log.Log(ctx, level, "aggregator API error", append([]any{"method", r.Method, "path", r.URL.Path, "status", status,
		requestid.Attr(ctx), "err", err}, attrs...)...)
}

// launcherError writes the launcher error body, {"error": code}.
func launcherError(w http.ResponseWriter, status int, code string) {
	httpjson.Write(w, status, map[string]string{"error": code})
}

func (h *handler) launcherReal(w http.ResponseWriter, r *http.Request) { h.launch(w, r, false) }
func (h *handler) launcherDemo(w http.ResponseWriter, r *http.Request) { h.launch(w, r, true) }

func (h *handler) launch(w http.ResponseWriter, r *http.Request, demo bool) {
	body, op, err := h.signed(w, r)
	switch {
	case errors.Is(err, errUnreadableBody):
		launcherError(w, http.StatusBadRequest, "invalid_request")
		return
	case errors.Is(err, errNotSigned):
		launcherError(w, http.StatusForbidden, "forbidden")
		return
	case err != nil:
		h.logFailure(r, slog.LevelError, launcherInternal.status, err)
		launcherError(w, launcherInternal.status, launcherInternal.code)
		return
	}
	var req launchBody
	if err := decodeStrict(body, &req); err != nil {
		launcherError(w, http.StatusBadRequest, "invalid_request")
		return
	}
	lr := aggregator.LaunchRequest{CasinoID: req.CasinoID, Game: req.Game, Locale: req.Locale, SessionID: req.SessionID, URLs: req.URLs}
	if req.Account != nil {
		lr.Account = &aggregator.Account{ID: req.Account.ID, Currency: req.Account.Currency}
	}
	var launchURL string
	if demo {
		launchURL, err = h.svc.Demo(r.Context(), op, lr)
	} else {
		launchURL, err = h.svc.Real(r.Context(), op, lr)
	}
	if err != nil {
		a := h.answerOf(r, launcherAnswers, launcherInternal, err, "operator_id", op.ID)
		launcherError(w, a.status, a.code)
		return
	}
	httpjson.Write(w, http.StatusOK, map[string]string{"launch_url": launchURL})
}

// twirpError writes the wallet-style error body of Round/Details.
func twirpError(w http.ResponseWriter, status int, code, apiCode, message string) {
	httpjson.Write(w, status, map[string]any{"code": code, "msg": message, "meta": map[string]string{"api_code": apiCode, "api_message": message}})
}

func (h *handler) roundDetails(w http.ResponseWriter, r *http.Request) {
	body, op, err := h.signed(w, r)
	switch {
	case errors.Is(err, errUnreadableBody):
		twirpError(w, http.StatusBadRequest, "invalid_argument", "400", "Invalid request.")
		return
	case errors.Is(err, errNotSigned):
		launcherError(w, http.StatusForbidden, "forbidden")
		return
	case err != nil:
		h.logFailure(r, slog.LevelError, detailsInternal.status, err)
		twirpError(w, detailsInternal.status, detailsInternal.code, detailsInternal.apiCode, detailsInternal.message)
		return
	}
	var req struct {
		CasinoID string  `json:"casino_id"`
		RoundID  *string `json:"round_id"`
		Locale   string  `json:"locale"`
	}
	if err := decodeStrict(body, &req); err != nil || req.RoundID == nil || *req.RoundID == "" {
		twirpError(w, http.StatusBadRequest, "invalid_argument", "400", "Invalid request.")
		return
	}
	d, err := h.svc.Details(r.Context(), op, *req.RoundID, aggregator.DetailsLocale(req.Locale, r.Header.Get("Accept-Language")))
	if err != nil {
		a := h.answerOf(r, detailsAnswers, detailsInternal, err, "operator_id", op.ID, "round_id", *req.RoundID)
		twirpError(w, a.status, a.code, a.apiCode, a.message)
		return
	}
	httpjson.Write(w, http.StatusOK, d)
}

// startSession exchanges a launch token for a session token: 200
// {auth_token, expires_at}; 400 problem for a malformed body; 401 with no
// body for an unknown, used or expired token; 502 problem when the
// aggregator's Player/Balance fails (the session does not start).
func (h *handler) startSession(w http.ResponseWriter, r *http.Request) {
	var req struct {
		SessionRequestID string `json:"session_request_id"`
	}
	body, err := requestbody.Read(w, r, MaxBody)
	if err != nil || decodeStrict(body, &req) != nil || req.SessionRequestID == "" {
		httpjson.WriteProblem(w, http.StatusBadRequest, "The body must be {\"session_request_id\": \"…\"}.")
		return
	}
	ctx, cancel := context.WithTimeout(r.Context(), 10*time.Second)
	defer cancel()
	s, err := h.svc.StartSession(ctx, req.SessionRequestID)
	if err == nil {
		httpjson.Write(w, http.StatusOK, s)
		return
	}
	a := h.answerOf(r, sessionAnswers, answer{status: http.StatusInternalServerError, message: "The session could not start."}, err)
	if a.message == "" {
		w.WriteHeader(a.status)
		return
	}
	httpjson.WriteProblem(w, a.status, a.message)
}

func (h *handler) jwks(w http.ResponseWriter, _ *http.Request) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "public, max-age=300")
	_, _ = w.Write(h.svc.Keys().JWKS())
}
