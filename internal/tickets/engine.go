package tickets

import "context"

// Option defaults (docs/decisions.md, "Contract details").
const (
	DefaultMaxTicketCount = 20
	MaxTickets            = 50
	DetailCompact         = "compact"
	DetailStandard        = "standard"
	DetailDetailed        = "detailed"
	DependencyExplicit    = "explicit"
)

// Options are the generation options of a request with every default applied.
type Options struct {
	// TicketCount is the exact number of tickets wanted, or 0 when the engine chooses.
	TicketCount    int    `json:"ticket_count,omitempty"`
	MaxTicketCount int    `json:"max_ticket_count"`
	IncludeEpics   bool   `json:"include_epics"`
	DependencyMode string `json:"dependency_mode"`
	OutputDetail   string `json:"output_detail"`
}

// GenerationRequest is what an Engine turns into tickets.
type GenerationRequest struct {
	JobID   string
	Title   string
	Spec    string
	Options Options
	// Progress, when not nil, records that the work reached a stage: an
	// engine reports StageGeneratingTickets when its prompt is ready and the
	// generation starts, and StageValidatingOutput when an answer arrived.
	// The service moves a job to validating_output itself after Generate
	// when the engine did not.
	Progress func(Stage)
}

// Engine turns a spec into a result. Implementations must honour ctx (a
// cancelled job cancels it) and return a result whose tickets respect
// Options.TicketCount (exactly, when set) and Options.MaxTicketCount. The
// service validates every result; an Engine may leave Generation.DurationMS
// at zero, the service measures it.
//
// Errors: an Engine returns an error carrying one of the job error codes
// (ErrModelTimeout, ErrModelOutputInvalid, ErrEngineUnavailable) where it
// can; anything else is recorded as internal_error.
type Engine interface {
	// Name is the engine's configuration name ("heuristic", "openai", ...).
	Name() string
	Generate(ctx context.Context, req GenerationRequest) (*Result, error)
}
