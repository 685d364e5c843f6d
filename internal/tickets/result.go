package tickets

import "math"

// Schema version strings of the tickets.v1 interface.
const (
	InputSchemaVersion  = "tickets.input.v1"
	JobSchemaVersion    = "tickets.job.v1"
	ResultSchemaVersion = "tickets.result.v1"
)

// Ticket types, priorities and severities allowed by tickets.result.v1.
const (
	TypeEpic  = "epic"
	TypeStory = "story"
	TypeTask  = "task"
	TypeBug   = "bug"
	TypeSpike = "spike"

	PriorityLow      = "low"
	PriorityMedium   = "medium"
	PriorityHigh     = "high"
	PriorityCritical = "critical"
)

// Result is the canonical tickets.result.v1 document a completed job returns.
type Result struct {
	SchemaVersion string         `json:"schema_version"`
	JobID         string         `json:"job_id"`
	Source        Source         `json:"source"`
	Tickets       []Ticket       `json:"tickets"`
	Risks         []Risk         `json:"risks"`
	OpenQuestions []OpenQuestion `json:"open_questions"`
	Generation    Generation     `json:"generation"`
}

// Source summarises the submitted spec.
type Source struct {
	Title   string `json:"title"`
	Summary string `json:"summary"`
}

// Ticket is one provider-neutral ticket draft.
type Ticket struct {
	ExternalID         string         `json:"external_id"`
	TicketType         string         `json:"ticket_type"`
	Title              string         `json:"title"`
	Description        string         `json:"description"`
	AcceptanceCriteria []string       `json:"acceptance_criteria"`
	Labels             []string       `json:"labels"`
	Dependencies       []string       `json:"dependencies"`
	StoryPoints        *int           `json:"story_points"`
	Priority           *string        `json:"priority"`
	ParentExternalID   *string        `json:"parent_external_id"`
	Metadata           map[string]any `json:"metadata"`
}

// RoundConfidence rounds c, a ticket's metadata.confidence (in [0, 1]), to
// the two decimal places every engine reports it with, halves away from zero
// (math.Round: 0.125 → 0.13). A confidence is a float score, not money: the
// platform's decimal rounding rule (package money) does not apply.
func RoundConfidence(c float64) float64 {
	return math.Round(c*100) / 100
}

// Risk is a delivery or product risk found in the spec.
type Risk struct {
	ID               string   `json:"id"`
	Description      string   `json:"description"`
	Severity         string   `json:"severity"`
	RelatedTicketIDs []string `json:"related_ticket_ids"`
}

// OpenQuestion is something the spec leaves unresolved.
type OpenQuestion struct {
	ID               string   `json:"id"`
	Question         string   `json:"question"`
	RelatedTicketIDs []string `json:"related_ticket_ids"`
}

// Generation describes how a result was produced.
type Generation struct {
	Model            string  `json:"model"`
	DurationMS       int64   `json:"duration_ms"`
	PromptTokens     *int64  `json:"prompt_tokens"`
	CompletionTokens *int64  `json:"completion_tokens"`
	FinishReason     *string `json:"finish_reason"`
}
