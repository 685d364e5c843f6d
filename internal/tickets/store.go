package tickets

import (
	"context"
	"time"
)

// Client is a team that uses the ticket service through API keys.
type Client struct {
	ID             string
	Name           string
	WebhookSecret  string
	Suspended      bool
	TicketsEnabled bool
	CreatedAt      time.Time
}

// ClientUpdate is a partial update of a client; nil fields are kept.
type ClientUpdate struct {
	Suspended      *bool
	TicketsEnabled *bool
}

// APIKey is a bearer key of a client. Only the SHA-256 hash of its secret is
// stored.
type APIKey struct {
	ID         string
	ClientID   string
	SecretHash []byte
	Scopes     []Scope
	ExpiresAt  *time.Time
	RevokedAt  *time.Time
	CreatedAt  time.Time
}

// Store is the persistence the ticket service needs. Implementations
// (sqlite, postgres) pass the conformance suite in storetest.
//
// Errors: ErrNotFound when a row does not exist (a job of another client
// does not exist for that client), ErrConflict when a conditional update
// finds another state; any other error is a storage failure.
type Store interface {
	CreateClient(ctx context.Context, c Client) error
	// GetClient returns the client with id, or ErrNotFound.
	GetClient(ctx context.Context, id string) (Client, error)
	// ListClients returns clients ordered by id, after afterID, at most limit.
	ListClients(ctx context.Context, afterID string, limit int) ([]Client, error)
	// UpdateClient applies u and returns the client, or ErrNotFound.
	UpdateClient(ctx context.Context, id string, u ClientUpdate) (Client, error)

	CreateKey(ctx context.Context, k APIKey) error
	// GetKey returns the key with id and its client, or ErrNotFound.
	GetKey(ctx context.Context, id string) (APIKey, Client, error)
	// ListKeys returns a client's keys, oldest first.
	ListKeys(ctx context.Context, clientID string) ([]APIKey, error)
	// RevokeKey sets the key's revocation time unless it is already
	// revoked; ErrNotFound when the client has no such key.
	RevokeKey(ctx context.Context, clientID, keyID string, at time.Time) error

	// CreateJob inserts j and, in the same transaction, enqueues its
	// generation. When the client already has a job with j.IdempotencyKey it
	// inserts nothing and returns that job with created false. When the
	// client already has maxActive queued, processing or cancel_requested
	// jobs it inserts nothing and returns ErrQueueFull; the count and the
	// insert are atomic, so concurrent submissions cannot overrun the bound.
	// With maxActive 0 it only looks the key up: the client's job with
	// j.IdempotencyKey, or ErrQueueFull.
	CreateJob(ctx context.Context, j Job, maxActive int) (job Job, created bool, err error)
	// PendingCallbacks counts the client's jobs last updated at or after
	// since that have a callback_url and whose callback was neither
	// delivered nor failed for good (unfinished jobs with a callback_url
	// included), counting at most atMost of them. An index serves it: it
	// reads no more than atMost of the client's jobs.
	PendingCallbacks(ctx context.Context, clientID string, since time.Time, atMost int) (int, error)
	// GetJob returns the client's job, or ErrNotFound. An empty clientID
	// matches any client (for workers).
	GetJob(ctx context.Context, clientID, id string) (Job, error)
	// JobStatus returns the status of a job, cheaply, or ErrNotFound.
	JobStatus(ctx context.Context, id string) (Status, error)
	// ListJobSummaries returns the summaries of the jobs matching f, newest
	// first; an empty f.ClientID matches every client. It reads neither
	// specs nor results, and an index serves each combination of filters.
	ListJobSummaries(ctx context.Context, f JobFilter) ([]JobSummary, error)
	// GetJobSummary returns the summary of any client's job, or ErrNotFound.
	GetJobSummary(ctx context.Context, id string) (JobSummary, error)
	// UpdateJob applies u to the job when its status is one of u.From and
	// returns the updated job; ErrConflict when the status is another one,
	// ErrNotFound when there is no such job. A terminal u.Status sets the
	// job's finish time to u.At unless it has one. A finished job never
	// becomes unfinished again: a store may refuse a u.From with a terminal
	// status when u.Status is not terminal.
	UpdateJob(ctx context.Context, id string, u JobUpdate) (Job, error)
	// MarkCallbackFailed records that the job's callback finally failed:
	// callback_failed is set, and a completed job's error becomes
	// callback_failed with message.
	MarkCallbackFailed(ctx context.Context, id, message string, at time.Time) error
	// MarkCallbackDelivered records that the receiver accepted a callback
	// of the job at at. An unknown job is not an error (it was purged).
	MarkCallbackDelivered(ctx context.Context, id string, at time.Time) error
	// CancelStaleJobs turns every cancel_requested job last updated before
	// before into a cancelled job with error job_cancelled, finished at
	// now, enqueueing callbacks as UpdateJob does, and returns how many
	// changed.
	CancelStaleJobs(ctx context.Context, before, now time.Time) (int, error)
	// PurgeExpiredJobs deletes the expired jobs whose expires_at is before
	// before, and returns how many it deleted.
	PurgeExpiredJobs(ctx context.Context, before time.Time) (int, error)
	// ExpireJobs turns every job whose expires_at is at or before now and
	// that is not expired yet into an expired job without result (its
	// ticket count stays; a job that had not finished is finished at now),
	// enqueueing callbacks as UpdateJob does, and returns how many changed.
	ExpireJobs(ctx context.Context, now time.Time) (int, error)
}
