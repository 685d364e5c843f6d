package tickets

import "time"

// Status is the status of a job (tickets-api.md "Job status values").
type Status string

// Job statuses.
const (
	StatusQueued          Status = "queued"
	StatusProcessing      Status = "processing"
	StatusCompleted       Status = "completed"
	StatusFailed          Status = "failed"
	StatusCancelRequested Status = "cancel_requested"
	StatusCancelled       Status = "cancelled"
	StatusExpired         Status = "expired"
)

// Terminal reports whether pollers stop at s; false for a status that is
// not the spec's.
func (s Status) Terminal() bool {
	switch s {
	case StatusCompleted, StatusFailed, StatusCancelled, StatusExpired:
		return true
	case StatusQueued, StatusProcessing, StatusCancelRequested:
		return false
	}
	return false
}

// Valid reports whether s is one of the spec's statuses.
func (s Status) Valid() bool {
	switch s {
	case StatusQueued, StatusProcessing, StatusCancelRequested,
		StatusCompleted, StatusFailed, StatusCancelled, StatusExpired:
		return true
	}
	return false
}

// Stage is the stage of a job (tickets-api.md "Job stage values"). Stages
// pair with statuses as docs/decisions.md ("Contract details") says: queued ↔ accepted, queued;
// processing ↔ preparing_prompt, generating_tickets, validating_output;
// completed ↔ completed; failed ↔ failed; cancel_requested, cancelled and
// expired keep the last stage.
type Stage string

// Job stages.
const (
	StageAccepted          Stage = "accepted"
	StageQueued            Stage = "queued"
	StagePreparingPrompt   Stage = "preparing_prompt"
	StageGeneratingTickets Stage = "generating_tickets"
	StageValidatingOutput  Stage = "validating_output"
	StageCompleted         Stage = "completed"
	StageFailed            Stage = "failed"
)

// Job is one ticket-generation job.
type Job struct {
	ID             string
	ClientID       string
	IdempotencyKey string
	// RequestHash fingerprints the normalised request, to tell a retry from
	// a different request that reuses an idempotency key.
	RequestHash string
	Request     Request
	Status      Status
	Stage       Stage
	// ErrorCode and ErrorMessage are empty when the job has no error.
	ErrorCode    Code
	ErrorMessage string
	// CallbackFailed is set when delivery to Request.CallbackURL finally failed.
	CallbackFailed bool
	// Result is the raw tickets.result.v1 JSON of a completed, unexpired job.
	Result    []byte
	CreatedAt time.Time
	UpdatedAt time.Time
	ExpiresAt time.Time
}

// Request is a validated submit request with defaults applied.
type Request struct {
	Title       string  `json:"title"`
	Spec        string  `json:"spec"`
	Options     Options `json:"options"`
	CallbackURL string  `json:"callback_url,omitempty"`
}

// JobUpdate is a conditional change of a job, applied by Store.UpdateJob only
// when the job's status is one of From.
type JobUpdate struct {
	From   []Status
	Status Status
	// Stage, when empty, keeps the job's stage.
	Stage        Stage
	ErrorCode    Code
	ErrorMessage string
	// Result, when non-nil, is stored as the job's result, and TicketCount
	// as the number of its tickets.
	Result      []byte
	TicketCount int
	// Attempt records that a worker takes the job up (its claim, or a
	// resumption after a worker stopped or crashed): the job's attempts grow
	// by one, its engine becomes Engine, and its start time becomes At
	// unless it has one.
	Attempt bool
	Engine  string
	// Callback asks the store to enqueue delivery of the job's callback in
	// the same transaction, when the job has a callback URL.
	Callback bool
	At       time.Time
}

// JobFilter selects a client's jobs for listing, newest first.
type JobFilter struct {
	// ClientID is the client whose jobs are listed (Store.ListJobSummaries:
	// every client's when empty).
	ClientID string
	Status   Status
	// Before, when set, continues a listing after the job with this
	// creation time and id (a cursor).
	BeforeCreatedAt time.Time
	BeforeID        string
	Limit           int
}
