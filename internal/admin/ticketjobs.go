package admin

import (
	"net/http"
	"time"

	"github.com/foresight-dev/foresight/internal/httpjson"
	"github.com/foresight-dev/foresight/internal/tickets"
)

// TicketJob is a ticket job as the admin API shows it: what the ticket
// service's operator needs to follow it, never its spec, its result or its
// callback URL.
type TicketJob struct {
	ID         string `json:"id"`
	ClientID   string `json:"client_id"`
	ClientName string `json:"client_name"`
	Title      string `json:"title"`
	// Status and Stage are the ticket API's (tickets-api.md).
	Status string `json:"status"`
	Stage  string `json:"stage"`
	// Error is the job's error as its client sees it, or nil.
	Error *TicketJobError `json:"error"`
	// Engine is nil until a worker takes the job up.
	Engine   *string `json:"engine"`
	Attempts int     `json:"attempts"`
	// TicketCount is the number of tickets of the result, for a job that
	// completed (kept when the result expires); nil otherwise.
	TicketCount *int `json:"ticket_count"`
	// Callback is none, pending, delivered or failed.
	Callback            string     `json:"callback"`
	CallbackDeliveredAt *time.Time `json:"callback_delivered_at"`
	CreatedAt           time.Time  `json:"created_at"`
	StartedAt           *time.Time `json:"started_at"`
	FinishedAt          *time.Time `json:"finished_at"`
	UpdatedAt           time.Time  `json:"updated_at"`
	ExpiresAt           time.Time  `json:"expires_at"`
}

// TicketJobError is the {code, message} error of a ticket job.
type TicketJobError struct {
	Code    string `json:"code"`
	Message string `json:"message"`
}

// TicketJobQuery selects a page of GET /admin/v1/ticket-jobs; zero fields
// are left out.
type TicketJobQuery struct {
	ClientID string
	Status   string
	Limit    int
	Cursor   string
}

func toTicketJobJSON(j tickets.JobSummary) TicketJob {
	out := TicketJob{
		ID: j.ID, ClientID: j.ClientID, ClientName: j.ClientName, Title: j.Title,
		Status: string(j.Status), Stage: string(j.Stage), Attempts: j.Attempts,
		Callback: string(j.Callback()), CallbackDeliveredAt: utc(j.CallbackDeliveredAt),
		CreatedAt: j.CreatedAt.UTC(), StartedAt: utc(j.StartedAt), FinishedAt: utc(j.FinishedAt),
		UpdatedAt: j.UpdatedAt.UTC(), ExpiresAt: j.ExpiresAt.UTC(),
	}
	if j.ErrorCode != "" {
		out.Error = &TicketJobError{Code: string(j.ErrorCode), Message: j.ErrorMessage}
	}
	if j.Engine != "" {
		out.Engine = &j.Engine
	}
	if j.TicketCount > 0 {
		out.TicketCount = &j.TicketCount
	}
	return out
}

func utc(t *time.Time) *time.Time {
	if t == nil {
		return nil
	}
	u := t.UTC()
	return &u
}

// listTicketJobs answers GET /admin/v1/ticket-jobs: every client's jobs,
// or one client's, newest first, optionally in one status of the ticket
// API, cursor paged.
func (h *handler) listTicketJobs(w http.ResponseWriter, r *http.Request) {
	limit, err := pageLimit(r)
	if err != nil {
		h.writeError(w, r, err)
		return
	}
	q := r.URL.Query()
	jobs, next, err := h.tickets.JobSummaries(r.Context(), q.Get("client_id"), tickets.Status(q.Get("status")), limit, q.Get("cursor"))
	if err != nil {
		h.writeError(w, r, err)
		return
	}
	out := list[TicketJob]{Items: make([]TicketJob, len(jobs))}
	for i, j := range jobs {
		out.Items[i] = toTicketJobJSON(j)
	}
	if next != "" {
		out.NextCursor = &next
	}
	httpjson.Write(w, http.StatusOK, out)
}

// getTicketJob answers GET /admin/v1/ticket-jobs/{id}.
func (h *handler) getTicketJob(w http.ResponseWriter, r *http.Request) {
	j, err := h.tickets.JobSummary(r.Context(), r.PathValue("id"))
	h.reply(w, r, http.StatusOK, toTicketJobJSON(j), err)
}
