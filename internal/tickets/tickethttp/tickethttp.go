// Package tickethttp serves the ticket API of tickets-api.md over HTTP:
// /tickets/v1 and the compatibility alias /v1/task-generation/jobs. The
// handlers are thin: they authenticate, decode, call tickets.Service and
// write the spec's shapes; every error leaves through writeError, which
// maps the domain's codes to HTTP statuses.
package tickethttp

import (
	"errors"
	"log/slog"
	"mime"
	"net"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/google/uuid"

	"github.com/foresight-dev/foresight/internal/httpjson"
	"github.com/foresight-dev/foresight/internal/netguard"
	"github.com/foresight-dev/foresight/internal/ratelimit"
	"github.com/foresight-dev/foresight/internal/requestbody"
	"github.com/foresight-dev/foresight/internal/requestid"
	"github.com/foresight-dev/foresight/internal/tickets"
)

// Config configures the handler.
type Config struct {
	// PublicURL is the base URL clients see, without a trailing slash.
	PublicURL string
	// MaxBodyBytes bounds request bodies (request_too_large beyond).
	MaxBodyBytes int64
	// Limiter limits requests per API key.
	Limiter *ratelimit.Limiter
	// Resolver looks up callback_url host names at submission; nil is
	// net.DefaultResolver.
	Resolver netguard.Resolver
	Log      *slog.Logger
}

type handler struct {
	svc *tickets.Service
	cfg Config
	mux *http.ServeMux
}

// New returns the handler of every ticket endpoint.
func New(svc *tickets.Service, cfg Config) http.Handler {
	if cfg.Log == nil {
		cfg.Log = slog.New(slog.DiscardHandler)
	}
	if cfg.Limiter == nil {
		cfg.Limiter = ratelimit.New(0, 0)
	}
	if cfg.Resolver == nil {
		cfg.Resolver = net.DefaultResolver
	}
	cfg.PublicURL = strings.TrimSuffix(cfg.PublicURL, "/")
	mux := http.NewServeMux()
	h := &handler{svc: svc, cfg: cfg, mux: mux}
	mux.Handle("POST /tickets/v1/jobs", h.authed(tickets.ScopeSubmit, h.submit))
	mux.Handle("POST /v1/task-generation/jobs", h.authed(tickets.ScopeSubmit, h.submit))
	mux.Handle("GET /tickets/v1/jobs", h.authed(tickets.ScopeRead, h.list))
	mux.Handle("GET /tickets/v1/jobs/{job_id}", h.authed(tickets.ScopeRead, h.ofJob(h.get)))
	mux.Handle("DELETE /tickets/v1/jobs/{job_id}", h.authed(tickets.ScopeCancel, h.ofJob(h.cancel)))
	mux.Handle("GET /tickets/v1/jobs/{job_id}/result", h.authed(tickets.ScopeRead, h.ofJob(h.result)))
	mux.Handle("GET /tickets/v1/schema", h.authed(tickets.ScopeRead, h.schema))
	mux.HandleFunc("/tickets/v1/", h.notFound)
	mux.HandleFunc("/v1/task-generation/", h.notFound)
	return mux
}

type authedFunc func(w http.ResponseWriter, r *http.Request, p tickets.Principal)

// authed authenticates the bearer key, checks scope and the key's rate,
// then calls next.
func (h *handler) authed(scope tickets.Scope, next authedFunc) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		key, ok := bearer(r)
		if !ok {
			h.writeError(w, r, tickets.Errorf(tickets.CodeUnauthorized, "The Authorization header must be \"Bearer <API key>\"."))
			return
		}
		p, err := h.svc.Authenticate(r.Context(), key)
		if err != nil {
			h.writeError(w, r, err)
			return
		}
		if err := p.Authorize(scope); err != nil {
			h.writeError(w, r, err)
			return
		}
		if ok, wait := h.cfg.Limiter.Allow(p.KeyID); !ok {
			h.writeError(w, r, &tickets.Error{Code: tickets.CodeRateLimited, RetryAfter: wait,
				Message: "Too many requests for this API key; retry after the time in Retry-After."})
			return
		}
		next(w, r, p)
	})
}

// bearer returns the token of an "Authorization: Bearer <token>" header.
func bearer(r *http.Request) (string, bool) {
	scheme, token, ok := strings.Cut(r.Header.Get("Authorization"), " ")
	if !ok || !strings.EqualFold(scheme, "Bearer") {
		return "", false
	}
	token = strings.TrimSpace(token)
	return token, token != "" && len(token) <= 512
}

// jobAccepted is the tickets.job.v1 answer to a submission.
type jobAccepted struct {
	SchemaVersion string         `json:"schema_version"`
	JobID         string         `json:"job_id"`
	Status        tickets.Status `json:"status"`
	StatusURL     string         `json:"status_url"`
	ResultURL     string         `json:"result_url"`
	CreatedAt     time.Time      `json:"created_at"`
}

func (h *handler) submit(w http.ResponseWriter, r *http.Request, p tickets.Principal) {
	body, err := h.readJSONBody(w, r)
	if err != nil {
		h.writeError(w, r, err)
		return
	}
	sub, err := tickets.ParseSubmission(body)
	if err != nil {
		h.writeError(w, r, err)
		return
	}
	if err := tickets.CheckCallbackHost(r.Context(), h.cfg.Resolver, sub); err != nil {
		h.writeError(w, r, err)
		return
	}
	j, err := h.svc.Submit(r.Context(), p, sub)
	if err != nil {
		h.writeError(w, r, err)
		return
	}
	statusURL := h.cfg.PublicURL + "/tickets/v1/jobs/" + j.ID
	w.Header().Set("Location", statusURL)
	httpjson.Write(w, http.StatusAccepted, jobAccepted{
		SchemaVersion: tickets.JobSchemaVersion,
		JobID:         j.ID,
		Status:        j.Status,
		StatusURL:     statusURL,
		ResultURL:     statusURL + "/result",
		CreatedAt:     j.CreatedAt.UTC(),
	})
}

// readJSONBody reads a JSON request body of at most MaxBodyBytes, sent
// within requestbody.ReadLarge's time.
func (h *handler) readJSONBody(w http.ResponseWriter, r *http.Request) ([]byte, error) {
	mt, _, err := mime.ParseMediaType(r.Header.Get("Content-Type"))
	if err != nil || mt != "application/json" {
		return nil, tickets.Errorf(tickets.CodeInvalidRequest, "The request body must be JSON with Content-Type: application/json.")
	}
	tooLarge := tickets.Errorf(tickets.CodeRequestTooLarge, "The request body is larger than %d bytes.", h.cfg.MaxBodyBytes)
	if r.ContentLength > h.cfg.MaxBodyBytes {
		return nil, tooLarge
	}
	body, err := requestbody.ReadLarge(w, r, h.cfg.MaxBodyBytes)
	if errors.Is(err, requestbody.ErrTooLarge) {
		return nil, tooLarge
	}
	if err != nil {
		return nil, tickets.Errorf(tickets.CodeInvalidRequest, "The request body could not be read (it must arrive at %d KiB/s or faster).", requestbody.MinRate>>10)
	}
	return body, nil
}

type jobList struct {
	Jobs       []tickets.JobRecord `json:"jobs"`
	NextCursor *string             `json:"next_cursor"`
}

func (h *handler) list(w http.ResponseWriter, r *http.Request, p tickets.Principal) {
	q := r.URL.Query()
	limit := 20
	if v := q.Get("limit"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil {
			h.writeError(w, r, tickets.Errorf(tickets.CodeInvalidRequest, "limit must be an integer between 1 and 100."))
			return
		}
		limit = n
	}
	jobs, next, err := h.svc.List(r.Context(), p, tickets.Status(q.Get("status")), limit, q.Get("cursor"))
	if err != nil {
		h.writeError(w, r, err)
		return
	}
	out := jobList{Jobs: make([]tickets.JobRecord, len(jobs))}
	for i, j := range jobs {
		out.Jobs[i] = j.Record()
	}
	if next != "" {
		out.NextCursor = &next
	}
	httpjson.Write(w, http.StatusOK, out)
}

type jobFunc func(w http.ResponseWriter, r *http.Request, p tickets.Principal, id string)

// ofJob calls next with the canonical form of the {job_id} path value, or
// answers invalid_request when it is not a UUID.
func (h *handler) ofJob(next jobFunc) authedFunc {
	return func(w http.ResponseWriter, r *http.Request, p tickets.Principal) {
		raw := r.PathValue("job_id")
		u, err := uuid.Parse(raw)
		if err != nil || len(raw) != 36 {
			h.writeError(w, r, tickets.Errorf(tickets.CodeInvalidRequest, "job_id must be a UUID such as 123e4567-e89b-12d3-a456-426614174000."))
			return
		}
		next(w, r, p, u.String())
	}
}

func (h *handler) get(w http.ResponseWriter, r *http.Request, p tickets.Principal, id string) {
	j, err := h.svc.Get(r.Context(), p, id)
	if err != nil {
		h.writeError(w, r, err)
		return
	}
	if !j.Status.Terminal() {
		httpjson.SetRetryAfter(w, time.Second)
	}
	httpjson.Write(w, http.StatusOK, j.Record())
}

func (h *handler) cancel(w http.ResponseWriter, r *http.Request, p tickets.Principal, id string) {
	j, err := h.svc.Cancel(r.Context(), p, id)
	if err != nil {
		h.writeError(w, r, err)
		return
	}
	httpjson.Write(w, http.StatusOK, j.Record())
}

func (h *handler) result(w http.ResponseWriter, r *http.Request, p tickets.Principal, id string) {
	j, result, err := h.svc.Result(r.Context(), p, id)
	switch {
	case err != nil:
		h.writeError(w, r, err)
	case result != nil:
		httpjson.WriteRaw(w, http.StatusOK, result)
	case j.Status.Terminal():
		httpjson.Write(w, http.StatusOK, j.Record())
	default:
		httpjson.SetRetryAfter(w, time.Second)
		httpjson.Write(w, http.StatusAccepted, errorBody{Error: tickets.ErrorObject{Code: tickets.CodeInvalidRequest,
			Message: "The result is not ready: the job is " + string(j.Status) + " (stage " + string(j.Stage) + "). Poll status_url."}})
	}
}

type schemaResponse struct {
	InputSchemaVersion  string `json:"input_schema_version"`
	ResultSchemaVersion string `json:"result_schema_version"`
	SchemaJSON          string `json:"schema_json"`
}

func (h *handler) schema(w http.ResponseWriter, r *http.Request, _ tickets.Principal) {
	httpjson.Write(w, http.StatusOK, schemaResponse{
		InputSchemaVersion:  tickets.InputSchemaVersion,
		ResultSchemaVersion: tickets.ResultSchemaVersion,
		SchemaJSON:          tickets.ResultSchemaJSON(),
	})
}

// notFound answers paths no endpoint serves (404) and methods a path does
// not take (405 with Allow), in the spec's error shape.
func (h *handler) notFound(w http.ResponseWriter, r *http.Request) {
	var allowed []string
	for _, m := range []string{http.MethodGet, http.MethodPost, http.MethodDelete} {
		probe := r.Clone(r.Context())
		probe.Method = m
		if _, pattern := h.mux.Handler(probe); strings.HasPrefix(pattern, m+" ") {
			allowed = append(allowed, m)
		}
	}
	if len(allowed) > 0 {
		w.Header().Set("Allow", strings.Join(allowed, ", "))
		h.writeError(w, r, &tickets.Error{Code: codeWrongMethod,
			Message: r.URL.Path + " does not take " + r.Method + "; it takes " + strings.Join(allowed, ", ") + "."})
		return
	}
	h.writeError(w, r, &tickets.Error{Code: codeNoRoute, Message: "There is no endpoint " + r.Method + " " + r.URL.Path + "."})
}

// codeNoRoute (404) and codeWrongMethod (405) leave as invalid_request.
const (
	codeNoRoute     tickets.Code = "no_route"
	codeWrongMethod tickets.Code = "wrong_method"
)

type errorBody struct {
	Error tickets.ErrorObject `json:"error"`
}

// statuses maps each domain code to its HTTP status (docs/decisions.md, "Contract details"). Codes
// missing here are internal errors.
var statuses = map[tickets.Code]int{
	tickets.CodeInvalidRequest:  http.StatusBadRequest,
	tickets.CodeRequestTooLarge: http.StatusBadRequest,
	tickets.CodeUnauthorized:    http.StatusUnauthorized,
	tickets.CodeKeyExpired:      http.StatusUnauthorized,
	tickets.CodeKeyRevoked:      http.StatusUnauthorized,
	tickets.CodeForbidden:       http.StatusForbidden,
	tickets.CodeClientSuspended: http.StatusForbidden,
	tickets.CodeFeatureDisabled: http.StatusForbidden,
	tickets.CodeJobNotFound:     http.StatusNotFound,
	codeNoRoute:                 http.StatusNotFound,
	codeWrongMethod:             http.StatusMethodNotAllowed,
	tickets.CodeNotCancellable:  http.StatusConflict,
	tickets.CodeRateLimited:     http.StatusTooManyRequests,
	tickets.CodeQueueFull:       http.StatusTooManyRequests,
	tickets.CodeStorageError:    http.StatusInternalServerError,
}

// wireCodes renames the codes that are not in the spec's list.
var wireCodes = map[tickets.Code]tickets.Code{
	tickets.CodeNotCancellable: tickets.CodeInvalidRequest,
	codeNoRoute:                tickets.CodeInvalidRequest,
	codeWrongMethod:            tickets.CodeInvalidRequest,
}

// writeError writes err in the spec's error body. An answer of status 500
// or above is logged with its cause and the request id; internal details
// are never sent.
func (h *handler) writeError(w http.ResponseWriter, r *http.Request, err error) {
	code := tickets.ErrorCode(err)
	status, known := statuses[code]
	if !known {
		code, status = tickets.CodeInternalError, http.StatusInternalServerError
	}
	if status >= 500 {
		h.cfg.Log.ErrorContext(r.Context(), "ticket API error", "method", r.Method, "path", r.URL.Path, "status", status,
			requestid.Attr(r.Context()), "err", err)
	}
	var e *tickets.Error
	if errors.As(err, &e) && e.RetryAfter > 0 {
		httpjson.SetRetryAfter(w, e.RetryAfter)
	}
	if status == http.StatusUnauthorized {
		w.Header().Set("WWW-Authenticate", `Bearer realm="foresight-tickets"`)
	}
	msg := tickets.ErrorMessage(err)
	if status == http.StatusInternalServerError && code == tickets.CodeInternalError {
		msg = "Internal error."
	}
	if wire, ok := wireCodes[code]; ok {
		code = wire
	}
	httpjson.Write(w, status, errorBody{Error: tickets.ErrorObject{Code: code, Message: msg}})
}
