package tickets

import (
	"context"
	"time"

	"github.com/google/uuid"
)

// JobSummary is a job as the ticket service's operator sees it (the admin
// API): its state, times and outcome. It never holds the spec, the result,
// the callback URL or anything else of the client's beyond the title.
type JobSummary struct {
	ID         string
	ClientID   string
	ClientName string
	// Title is the title of the submitted request.
	Title  string
	Status Status
	Stage  Stage
	// ErrorCode and ErrorMessage are the job's error as its client sees it
	// (empty when it has none).
	ErrorCode    Code
	ErrorMessage string
	// Engine is the engine that last worked the job; empty until a worker
	// takes it up.
	Engine string
	// Attempts counts the times a worker took the job up: more than one
	// means a worker stopped, crashed or lost the store, and another one
	// resumed the job.
	Attempts int
	// TicketCount is the number of tickets of the job's result; it is kept
	// when the result expires, and 0 for a job that never completed.
	TicketCount int
	// HasCallback tells whether the request named a callback_url;
	// CallbackFailed whether a delivery finally failed; CallbackDeliveredAt
	// when a callback was last accepted by the receiver.
	HasCallback         bool
	CallbackFailed      bool
	CallbackDeliveredAt *time.Time
	CreatedAt           time.Time
	UpdatedAt           time.Time
	ExpiresAt           time.Time
	// StartedAt is when a worker first took the job up, FinishedAt when it
	// reached a terminal status (nil until then, and for jobs older than
	// the record of these times).
	StartedAt  *time.Time
	FinishedAt *time.Time
}

// CallbackState is where a job's callback stands.
type CallbackState string

// Callback states.
const (
	// CallbackNone: the request named no callback_url.
	CallbackNone CallbackState = "none"
	// CallbackPending: the job has not reached a terminal status, or its
	// callback is being delivered (and retried).
	CallbackPending CallbackState = "pending"
	// CallbackDelivered: the receiver accepted the job's callback.
	CallbackDelivered CallbackState = "delivered"
	// CallbackFailed: a delivery failed for good (callback_failed).
	CallbackFailed CallbackState = "failed"
)

// Callback returns where the job's callback stands. A failure outweighs an
// earlier delivery (a completed job whose expiry callback then failed).
func (s JobSummary) Callback() CallbackState {
	switch {
	case !s.HasCallback:
		return CallbackNone
	case s.CallbackFailed:
		return CallbackFailed
	case s.CallbackDeliveredAt != nil:
		return CallbackDelivered
	}
	return CallbackPending
}

// JobSummaries returns a page of the jobs of every client, or of the client
// with clientID when it is not empty, newest first, in status when it is
// not empty, and the cursor of the next page ("" at the end). An unknown
// client has no jobs.
//
// Errors: invalid_request for a client id that is not a UUID, a status
// that is not a job status, a bad cursor or a limit outside 1 to 100;
// storage_error.
func (s *Service) JobSummaries(ctx context.Context, clientID string, status Status, limit int, cursor string) ([]JobSummary, string, error) {
	if clientID != "" && uuid.Validate(clientID) != nil {
		return nil, "", Errorf(CodeInvalidRequest, "client_id must be a UUID.")
	}
	return listPage(ctx, clientID, status, limit, cursor, s.store.ListJobSummaries, func(j JobSummary) (time.Time, string) { return j.CreatedAt, j.ID })
}

// JobSummary returns the summary of any client's job, or ErrNotFound.
func (s *Service) JobSummary(ctx context.Context, id string) (JobSummary, error) {
	if uuid.Validate(id) != nil {
		return JobSummary{}, ErrNotFound // no job has such an id
	}
	j, err := s.store.GetJobSummary(ctx, id)
	if err != nil {
		return JobSummary{}, lookupError(err)
	}
	return j, nil
}
