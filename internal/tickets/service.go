package tickets

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"github.com/google/uuid"

	cursorpkg "github.com/foresight-dev/foresight/internal/cursor"
	"github.com/foresight-dev/foresight/internal/ratelimit"
)

// Config holds the service's tunables.
type Config struct {
	// JobLifetime is the distance from creation to expires_at.
	JobLifetime time.Duration
	// MaxActiveJobs bounds a client's queued and processing jobs
	// (queue_full beyond it).
	MaxActiveJobs int
	// MaxPendingCallbacks bounds a client's jobs whose callback is owed
	// (a callback_url, neither delivered nor failed for good): a
	// submission with a callback_url beyond it gets queue_full; 0 turns
	// the bound off.
	MaxPendingCallbacks int
	// CallbackPendingAtMost is how long after its job's last update a
	// callback can still be owed (the callback schedule with a margin); an
	// older one, whose delivery's record a store failure lost, no longer
	// counts toward MaxPendingCallbacks. 0 counts every one.
	CallbackPendingAtMost time.Duration
	// CancelPollInterval is how often a running job checks the store for a
	// cancellation requested on another node.
	CancelPollInterval time.Duration
	// JobRetention is how long an expired job's record is kept before it
	// is deleted (and its idempotency key can be used again).
	JobRetention time.Duration
	// StaleCancelAfter is how long a cancel_requested job may wait for its
	// worker before the sweep cancels it (its worker is gone: a live one
	// notices within CancelPollInterval).
	StaleCancelAfter time.Duration
}

// DefaultConfig returns the documented defaults.
func DefaultConfig() Config {
	return Config{
		JobLifetime:         7 * 24 * time.Hour,
		MaxActiveJobs:       100,
		MaxPendingCallbacks: 1000,
		CancelPollInterval:  500 * time.Millisecond,
		JobRetention:        30 * 24 * time.Hour,
		StaleCancelAfter:    10 * time.Second,
	}
}

// CallbackSender delivers a signed callback. It returns a *CallbackError
// for anything but a 2xx answer.
type CallbackSender interface {
	Send(ctx context.Context, url, secret, messageID string, body []byte) error
}

// CallbackError is a failed callback delivery.
type CallbackError struct {
	// Reason is safe to show the job's client: "the receiver answered
	// 503", "the connection failed", never addresses or internal detail.
	Reason string
	// Permanent failures (410 Gone, a forbidden address) are not retried.
	Permanent bool
	Err       error
}

func (e *CallbackError) Error() string {
	if e.Err != nil {
		return e.Reason + ": " + e.Err.Error()
	}
	return e.Reason
}

func (e *CallbackError) Unwrap() error { return e.Err }

// Service implements the ticket service's rules over a Store and an Engine.
type Service struct {
	store    Store
	engine   Engine
	callback CallbackSender
	cfg      Config
	log      *slog.Logger
	// Now returns the current time; tests may replace it.
	Now func() time.Time

	keys *keyCache
	// callbackTurns counts each client's callbacks in flight.
	callbackTurns *ratelimit.InFlight[string]
	// failingReceivers holds the clients whose last callback attempt in
	// this process failed and will be retried; waker makes their waiting
	// callbacks due once one is delivered (see DeliverCallback).
	failingReceivers sync.Map
	waker            atomic.Pointer[callbackWakerBox]

	mu      sync.Mutex
	running map[string]*runningJob
}

// NewService returns a Service. log may be nil.
func NewService(store Store, engine Engine, callback CallbackSender, cfg Config, log *slog.Logger) *Service {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	return &Service{
		store: store, engine: engine, callback: callback, cfg: cfg, log: log,
		Now:           time.Now,
		keys:          newKeyCache(),
		running:       make(map[string]*runningJob),
		callbackTurns: ratelimit.NewInFlight[string](CallbacksInFlightPerClient),
	}
}

// Store returns the service's store.
func (s *Service) Store() Store { return s.store }

// Authenticate checks a bearer key; see the package-level Authenticate.
// The key and its client are read from the store at most once per
// keyCacheTTL (a second); RevokeKey and UpdateClient through this Service
// take effect at once, through another node's within that second.
func (s *Service) Authenticate(ctx context.Context, key string) (Principal, error) {
	return authenticate(ctx, func(ctx context.Context, id string) (APIKey, Client, error) {
		return s.keys.lookup(ctx, id, s.store.GetKey)
	}, key, s.Now())
}

// Submit creates a job for the principal's client, or returns the client's
// existing job for the same idempotency key and request.
//
// Errors: invalid_request when the idempotency key was used for another
// request; queue_full when the client has MaxActiveJobs unfinished jobs,
// or when the request has a callback_url and the client has
// MaxPendingCallbacks jobs whose callback is owed; storage_error.
func (s *Service) Submit(ctx context.Context, p Principal, sub Submission) (Job, error) {
	now := s.Now().UTC().Truncate(time.Microsecond)
	j := Job{
		ID:             uuid.NewString(),
		ClientID:       p.ClientID,
		IdempotencyKey: sub.IdempotencyKey,
		RequestHash:    sub.Hash,
		Request:        sub.Request,
		Status:         StatusQueued,
		Stage:          StageQueued,
		CreatedAt:      now,
		UpdatedAt:      now,
		ExpiresAt:      now.Add(s.cfg.JobLifetime),
	}
	owing, err := s.callbacksAtBound(ctx, p.ClientID, sub.Request.CallbackURL, now)
	if err != nil {
		return Job{}, storageError(err)
	}
	maxActive := s.cfg.MaxActiveJobs
	if owing {
		maxActive = 0 // the job of a key already used, or nothing
	}
	got, created, err := s.store.CreateJob(ctx, j, maxActive)
	switch {
	case errors.Is(err, ErrQueueFull) && owing:
		return Job{}, &Error{Code: CodeQueueFull, RetryAfter: time.Minute,
			Message: fmt.Sprintf("The client already has %d jobs whose callback is not delivered yet; "+
				"a job with a callback_url is accepted once some are delivered or fail for good. "+
				"A job without one is accepted now.", s.cfg.MaxPendingCallbacks)}
	case errors.Is(err, ErrQueueFull):
		return Job{}, &Error{Code: CodeQueueFull, RetryAfter: 5 * time.Second,
			Message: fmt.Sprintf("The client already has %d unfinished jobs; wait for some to finish.", s.cfg.MaxActiveJobs)}
	}
	if err != nil {
		return Job{}, storageError(err)
	}
	if !created && got.RequestHash != sub.Hash {
		return Job{}, idempotencyConflict(sub.IdempotencyKey)
	}
	return got, nil
}

// callbacksAtBound reports whether a submission with callbackURL finds its
// client at MaxPendingCallbacks callbacks owed. A job without a
// callback_url adds none, and is not bounded by them.
func (s *Service) callbacksAtBound(ctx context.Context, clientID, callbackURL string, now time.Time) (bool, error) {
	if callbackURL == "" || s.cfg.MaxPendingCallbacks <= 0 {
		return false, nil
	}
	var since time.Time
	if s.cfg.CallbackPendingAtMost > 0 {
		since = now.Add(-s.cfg.CallbackPendingAtMost)
	}
	n, err := s.store.PendingCallbacks(ctx, clientID, since, s.cfg.MaxPendingCallbacks)
	if err != nil {
		return false, fmt.Errorf("count the callbacks owed to client %s: %w", clientID, err)
	}
	return n >= s.cfg.MaxPendingCallbacks, nil
}

func idempotencyConflict(key string) error {
	return Errorf(CodeInvalidRequest, "idempotency_key %q was already used for a different request.", key)
}

// Get returns the principal's job; job_not_found when the client has none
// with that id.
func (s *Service) Get(ctx context.Context, p Principal, id string) (Job, error) {
	j, err := s.store.GetJob(ctx, p.ClientID, id)
	if errors.Is(err, ErrNotFound) {
		return Job{}, Errorf(CodeJobNotFound, "No job %s.", id)
	}
	if err != nil {
		return Job{}, storageError(err)
	}
	return j, nil
}

// List returns a page of the principal's jobs, newest first, and the cursor
// of the next page ("" at the end). status filters when not empty. It reads
// summaries: a page of jobs never loads their specs and results (up to
// 100 of each, a MiB or more apiece).
//
// Errors: invalid_request for a bad status, cursor or limit.
func (s *Service) List(ctx context.Context, p Principal, status Status, limit int, cursor string) ([]JobSummary, string, error) {
	return listPage(ctx, p.ClientID, status, limit, cursor, s.store.ListJobSummaries, func(j JobSummary) (time.Time, string) { return j.CreatedAt, j.ID })
}

// listPage returns a page of limit rows of a client's jobs in status after
// cursor, read with list, and the cursor after the page's last row ("" at
// the end); position is a row's creation time and id.
//
// Errors: invalid_request for a bad status, cursor or limit; storage_error.
func listPage[T any](ctx context.Context, clientID string, status Status, limit int, cursor string,
	list func(context.Context, JobFilter) ([]T, error), position func(T) (time.Time, string)) ([]T, string, error) {
	f, err := pageFilter(clientID, status, limit, cursor)
	if err != nil {
		return nil, "", err
	}
	rows, err := list(ctx, f)
	if err != nil {
		return nil, "", storageError(err)
	}
	rows, next := cursorpkg.Page(rows, limit, func(r T) string { return cursorpkg.Encode(position(r)) })
	return rows, next, nil
}

// pageFilter is the filter of a page of limit jobs (and one more, which
// tells whether a next page exists) of a client in status after cursor.
//
// Errors: invalid_request for a bad status, cursor or limit.
func pageFilter(clientID string, status Status, limit int, cursor string) (JobFilter, error) {
	if limit < 1 || limit > 100 {
		return JobFilter{}, Errorf(CodeInvalidRequest, "limit must be between 1 and 100.")
	}
	if status != "" && !status.Valid() {
		return JobFilter{}, Errorf(CodeInvalidRequest, "status %q is not one of queued, processing, completed, failed, cancel_requested, cancelled, expired.", status)
	}
	f := JobFilter{ClientID: clientID, Status: status, Limit: limit + 1}
	if cursor != "" {
		at, id, ok := cursorpkg.Decode(cursor)
		if !ok {
			return JobFilter{}, Errorf(CodeInvalidRequest, "cursor is not valid.")
		}
		f.BeforeCreatedAt, f.BeforeID = at, id
	}
	return f, nil
}

// Cancel cancels the principal's job: a queued job becomes cancelled at
// once; a processing job becomes cancel_requested and its generation is
// aborted, after which it is cancelled; a cancel_requested job is returned
// unchanged.
//
// Errors: job_not_found; not_cancellable (HTTP 409) for a terminal job;
// storage_error.
func (s *Service) Cancel(ctx context.Context, p Principal, id string) (Job, error) {
	for {
		j, err := s.Get(ctx, p, id)
		if err != nil {
			return Job{}, err
		}
		var u JobUpdate
		switch j.Status {
		case StatusCancelRequested:
			return j, nil
		case StatusQueued:
			u = JobUpdate{From: []Status{StatusQueued}, Status: StatusCancelled,
				ErrorCode: CodeJobCancelled, ErrorMessage: "The job was cancelled before it started.", Callback: true}
		case StatusProcessing:
			u = JobUpdate{From: []Status{StatusProcessing}, Status: StatusCancelRequested}
		case StatusCompleted, StatusFailed, StatusCancelled, StatusExpired:
			fallthrough
		default: // finished, or not a status of the spec
			return Job{}, Errorf(CodeNotCancellable, "The job is %s and cannot be cancelled.", j.Status)
		}
		u.At = s.Now()
		j, err = s.store.UpdateJob(ctx, id, u)
		if errors.Is(err, ErrConflict) {
			continue // the job moved on meanwhile; decide again
		}
		if err != nil {
			return Job{}, storageError(err)
		}
		if j.Status == StatusCancelRequested {
			s.abortLocal(id)
		}
		return j, nil
	}
}

// Result returns the principal's job and, when it completed and has not
// expired, its raw tickets.result.v1 document.
func (s *Service) Result(ctx context.Context, p Principal, id string) (Job, []byte, error) {
	j, err := s.Get(ctx, p, id)
	if err != nil {
		return Job{}, nil, err
	}
	if j.Status == StatusCompleted {
		return j, j.Result, nil
	}
	return j, nil, nil
}

// ExpireJobs expires every job past its expires_at and deletes its
// result, then deletes the expired jobs older than Config.JobRetention.
func (s *Service) ExpireJobs(ctx context.Context) (int, error) {
	now := s.Now()
	n, err := s.store.ExpireJobs(ctx, now)
	if err != nil {
		return n, err
	}
	if _, err := s.store.PurgeExpiredJobs(ctx, now.Add(-s.cfg.JobRetention)); err != nil {
		return n, fmt.Errorf("purge expired jobs: %w", err)
	}
	return n, nil
}

// CancelStaleJobs cancels the cancel_requested jobs that no worker settled
// within Config.StaleCancelAfter: their worker crashed or stopped, and the
// job would otherwise wait for River to run it again.
func (s *Service) CancelStaleJobs(ctx context.Context) (int, error) {
	now := s.Now()
	return s.store.CancelStaleJobs(ctx, now.Add(-s.cfg.StaleCancelAfter), now)
}

var errCancelRequested = errors.New("cancel requested")

func (s *Service) abortLocal(id string) {
	s.mu.Lock()
	r := s.running[id]
	s.mu.Unlock()
	if r != nil {
		r.cancel(errCancelRequested)
	}
}
