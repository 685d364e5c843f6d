package rowscan

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/foresight-dev/foresight/internal/tickets"
)

// The ticket service's rows. Each engine selects the columns in the order
// given (ids as text on PostgreSQL). No row is tickets.ErrNotFound.

// TicketsNotFound returns err, or tickets.ErrNotFound when err is the
// error of no row (sql.ErrNoRows, which pgx's ErrNoRows also is).
func TicketsNotFound(err error) error {
	return noRowAs(err, func() error { return tickets.ErrNotFound })
}

// TicketClient reads a client from id, name, webhook_secret, suspended,
// tickets_enabled, created_at.
func TicketClient(row Row) (tickets.Client, error) {
	var c tickets.Client
	err := row.Scan(&c.ID, &c.Name, &c.WebhookSecret, &c.Suspended, &c.TicketsEnabled, Time(&c.CreatedAt))
	return c, TicketsNotFound(err)
}

// TicketScopes is the text a key's scopes are stored as: space-separated.
func TicketScopes(scopes []tickets.Scope) string {
	s := make([]string, len(scopes))
	for i, sc := range scopes {
		s[i] = string(sc)
	}
	return strings.Join(s, " ")
}

// TicketKey reads an API key from id, client_id, secret_hash, scopes
// (as TicketScopes writes them), expires_at, revoked_at, created_at, and
// then into extra.
func TicketKey(row Row, extra ...any) (tickets.APIKey, error) {
	var k tickets.APIKey
	var scopes string
	err := row.Scan(append([]any{&k.ID, &k.ClientID, &k.SecretHash, &scopes, NullTime(&k.ExpiresAt), NullTime(&k.RevokedAt),
		Time(&k.CreatedAt)}, extra...)...)
	for f := range strings.FieldsSeq(scopes) {
		k.Scopes = append(k.Scopes, tickets.Scope(f))
	}
	return k, TicketsNotFound(err)
}

// TicketJob reads a job from id, client_id, idempotency_key,
// request_hash, request (JSON), status, stage, error_code, error_message,
// callback_failed, result, created_at, updated_at, expires_at.
func TicketJob(row Row) (tickets.Job, error) {
	var j tickets.Job
	var request []byte
	err := row.Scan(&j.ID, &j.ClientID, &j.IdempotencyKey, &j.RequestHash, &request, &j.Status, &j.Stage,
		&j.ErrorCode, &j.ErrorMessage, &j.CallbackFailed, &j.Result, Time(&j.CreatedAt), Time(&j.UpdatedAt), Time(&j.ExpiresAt))
	if err != nil {
		return j, TicketsNotFound(err)
	}
	if err := json.Unmarshal(request, &j.Request); err != nil {
		return j, fmt.Errorf("job %s request: %w", j.ID, err)
	}
	return j, nil
}

// TicketJobSummary reads a job's summary from id, client_id, the
// client's name (NULL when the client is gone), the request's title,
// status, stage, error_code, error_message, engine, attempts,
// ticket_count, whether the request has a callback URL,
// callback_failed, callback_delivered_at, created_at, updated_at,
// expires_at, started_at, finished_at.
func TicketJobSummary(row Row) (tickets.JobSummary, error) {
	var j tickets.JobSummary
	err := row.Scan(&j.ID, &j.ClientID, Text(&j.ClientName), &j.Title, &j.Status, &j.Stage, &j.ErrorCode, &j.ErrorMessage, &j.Engine,
		&j.Attempts, &j.TicketCount, &j.HasCallback, &j.CallbackFailed, NullTime(&j.CallbackDeliveredAt),
		Time(&j.CreatedAt), Time(&j.UpdatedAt), Time(&j.ExpiresAt), NullTime(&j.StartedAt), NullTime(&j.FinishedAt))
	return j, TicketsNotFound(err)
}

// TicketJobUnchanged reads why a conditional update changed no job from
// the count of jobs with its id: tickets.ErrNotFound when there is none,
// else tickets.ErrConflict (the job is not in a state the update
// expected).
func TicketJobUnchanged(row Row) error {
	var n int
	if err := row.Scan(&n); err != nil {
		return err
	}
	if n == 0 {
		return tickets.ErrNotFound
	}
	return tickets.ErrConflict
}
