package sqlite

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/foresight-dev/foresight/internal/jobqueue"
	"github.com/foresight-dev/foresight/internal/rowscan"
	"github.com/foresight-dev/foresight/internal/sqlargs"
	"github.com/foresight-dev/foresight/internal/tickets"
)

// Times are stored as INTEGER microseconds since the Unix epoch, UTC, and
// read with rowscan.Time and rowscan.NullTime.

func micros(t time.Time) int64 { return t.UTC().UnixMicro() }

func fromMicros(us int64) time.Time { return time.UnixMicro(us).UTC() }

func nullMicros(t *time.Time) sql.NullInt64 {
	if t == nil {
		return sql.NullInt64{}
	}
	return sql.NullInt64{Int64: micros(*t), Valid: true}
}

// TicketStore returns the database as a tickets.Store.
func (d *DB) TicketStore() tickets.Store { return ticketStore{d} }

type ticketStore struct{ d *DB }

var _ tickets.Store = ticketStore{}

func (s ticketStore) CreateClient(ctx context.Context, c tickets.Client) error {
	_, err := s.d.writer.exec(ctx,
		`INSERT INTO ticket_clients (id, name, webhook_secret, suspended, tickets_enabled, created_at) VALUES (?, ?, ?, ?, ?, ?)`,
		c.ID, c.Name, c.WebhookSecret, c.Suspended, c.TicketsEnabled, micros(c.CreatedAt))
	return err
}

const clientColumns = `id, name, webhook_secret, suspended, tickets_enabled, created_at`

func (s ticketStore) GetClient(ctx context.Context, id string) (tickets.Client, error) {
	return rowscan.TicketClient(s.d.reader.queryRow(ctx, `SELECT `+clientColumns+` FROM ticket_clients WHERE id = ?`, id))
}

func (s ticketStore) ListClients(ctx context.Context, afterID string, limit int) ([]tickets.Client, error) {
	return queryList(ctx, s.d.reader, `SELECT `+clientColumns+` FROM ticket_clients WHERE id > ? ORDER BY id LIMIT ?`, []any{afterID, limit}, rowscan.TicketClient)
}

func (s ticketStore) UpdateClient(ctx context.Context, id string, u tickets.ClientUpdate) (tickets.Client, error) {
	return rowscan.TicketClient(s.d.writer.queryRow(ctx,
		`UPDATE ticket_clients SET suspended = coalesce(?, suspended), tickets_enabled = coalesce(?, tickets_enabled)
		 WHERE id = ? RETURNING `+clientColumns, u.Suspended, u.TicketsEnabled, id))
}

func (s ticketStore) CreateKey(ctx context.Context, k tickets.APIKey) error {
	_, err := s.d.writer.exec(ctx,
		`INSERT INTO ticket_api_keys (id, client_id, secret_hash, scopes, expires_at, revoked_at, created_at) VALUES (?, ?, ?, ?, ?, ?, ?)`,
		k.ID, k.ClientID, k.SecretHash, rowscan.TicketScopes(k.Scopes), nullMicros(k.ExpiresAt), nullMicros(k.RevokedAt), micros(k.CreatedAt))
	if isForeignKeyViolation(err) {
		return tickets.ErrNotFound
	}
	return err
}

const keyColumns = `k.id, k.client_id, k.secret_hash, k.scopes, k.expires_at, k.revoked_at, k.created_at`

func (s ticketStore) GetKey(ctx context.Context, id string) (tickets.APIKey, tickets.Client, error) {
	var c tickets.Client
	k, err := rowscan.TicketKey(s.d.reader.queryRow(ctx,
		`SELECT `+keyColumns+`, c.id, c.name, c.webhook_secret, c.suspended, c.tickets_enabled, c.created_at
		 FROM ticket_api_keys k JOIN ticket_clients c ON c.id = k.client_id WHERE k.id = ?`, id),
		&c.ID, &c.Name, &c.WebhookSecret, &c.Suspended, &c.TicketsEnabled, rowscan.Time(&c.CreatedAt))
	return k, c, err
}

func (s ticketStore) ListKeys(ctx context.Context, clientID string) ([]tickets.APIKey, error) {
	return queryList(ctx, s.d.reader, `SELECT `+keyColumns+` FROM ticket_api_keys k WHERE k.client_id = ? ORDER BY k.created_at, k.id`, []any{clientID}, func(r rowscan.Row) (tickets.APIKey, error) { return rowscan.TicketKey(r) })
}

func (s ticketStore) RevokeKey(ctx context.Context, clientID, keyID string, at time.Time) error {
	n, err := rowsChanged(s.d.writer.exec(ctx,
		`UPDATE ticket_api_keys SET revoked_at = coalesce(revoked_at, ?) WHERE id = ? AND client_id = ?`, micros(at), keyID, clientID))
	if err != nil {
		return fmt.Errorf("revoke ticket key %s: %w", keyID, err)
	}
	if n == 0 {
		return tickets.ErrNotFound
	}
	return nil
}

const jobColumns = `id, client_id, idempotency_key, request_hash, request, status, stage, error_code, error_message,
	callback_failed, result, created_at, updated_at, expires_at`

// CreateJob hands the job to the database's group-commit batcher, which
// writes it together with the jobs submitted at the same moment. The
// request is encoded here, on the caller's goroutine, so that the single
// writer spends its turn on SQL only.
func (s ticketStore) CreateJob(ctx context.Context, j tickets.Job, maxActive int) (tickets.Job, bool, error) {
	request, err := json.Marshal(j.Request)
	if err != nil {
		return tickets.Job{}, false, err
	}
	r, err := s.d.creates.Do(ctx, newJob{job: j, request: string(request), maxActive: maxActive})
	if err != nil {
		return tickets.Job{}, false, err
	}
	return r.job, r.created, r.err
}

// newJob is a job to create, its request as JSON, and its client's bound
// of unfinished jobs.
type newJob struct {
	job       tickets.Job
	request   string
	maxActive int
}

type createResult struct {
	job     tickets.Job
	created bool
	err     error
}

const (
	insertJobSQL = `INSERT INTO ticket_jobs (` + jobColumns + `)
	VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (client_id, idempotency_key) DO NOTHING`
	jobByKeySQL    = `SELECT ` + jobColumns + ` FROM ticket_jobs WHERE client_id = ? AND idempotency_key = ?`
	countActiveSQL = `SELECT count(*) FROM ticket_jobs WHERE client_id = ? AND status IN ('queued', 'processing', 'cancel_requested')`
)

// createJobStatements are the statements of createJobs, prepared at Open.
var createJobStatements = []string{insertJobSQL, jobByKeySQL, countActiveSQL, enqueueGenerateSQL}

// createJobs inserts jobs and their generation queue entries in one
// transaction. A job whose client already used its idempotency key is not
// inserted; the existing job is returned instead. A job whose client has
// its bound of unfinished jobs (counting the batch's own) gets ErrQueueFull.
// A new job costs one insert and one queue entry: the key is looked up
// only when the insert finds it taken or the client is at its bound.
func (d *DB) createJobs(ctx context.Context, jobs []newJob) ([]createResult, error) {
	tx, err := d.writer.db.BeginTx(ctx, nil)
	if err != nil {
		return nil, err
	}
	defer tx.Rollback()
	var stmts [4]*sql.Stmt
	for i, q := range createJobStatements {
		if stmts[i], err = d.writer.txStmt(ctx, tx, q); err != nil {
			return nil, err
		}
	}
	insert, byKey, countActive, enqueue := stmts[0], stmts[1], stmts[2], stmts[3]
	active := map[string]int{}
	out := make([]createResult, len(jobs))
	for i, nj := range jobs {
		j := nj.job
		n, counted := active[j.ClientID]
		if !counted {
			if err := countActive.QueryRowContext(ctx, j.ClientID).Scan(&n); err != nil {
				return nil, err
			}
		}
		active[j.ClientID] = n
		if n >= nj.maxActive {
			existing, err := rowscan.TicketJob(byKey.QueryRowContext(ctx, j.ClientID, j.IdempotencyKey))
			switch {
			case err == nil:
				out[i] = createResult{job: existing}
			case errors.Is(err, tickets.ErrNotFound):
				out[i] = createResult{err: tickets.ErrQueueFull}
			default:
				return nil, err
			}
			continue
		}
		res, err := insert.ExecContext(ctx, j.ID, j.ClientID, j.IdempotencyKey, j.RequestHash, nj.request, j.Status, j.Stage,
			j.ErrorCode, j.ErrorMessage, j.CallbackFailed, j.Result, micros(j.CreatedAt), micros(j.UpdatedAt), micros(j.ExpiresAt))
		if err != nil {
			return nil, err
		}
		inserted, err := res.RowsAffected()
		if err != nil {
			return nil, err
		}
		if inserted == 0 {
			existing, err := rowscan.TicketJob(byKey.QueryRowContext(ctx, j.ClientID, j.IdempotencyKey))
			if err != nil {
				return nil, fmt.Errorf("job of idempotency key %q: %w", j.IdempotencyKey, err)
			}
			out[i] = createResult{job: existing}
			continue
		}
		if err := enqueueGenerate(ctx, enqueue, j.ID); err != nil {
			return nil, err
		}
		active[j.ClientID] = n + 1
		out[i] = createResult{job: j, created: true}
	}
	return out, tx.Commit()
}

func (s ticketStore) GetJob(ctx context.Context, clientID, id string) (tickets.Job, error) {
	if clientID == "" {
		return rowscan.TicketJob(s.d.reader.queryRow(ctx, `SELECT `+jobColumns+` FROM ticket_jobs WHERE id = ?`, id))
	}
	return rowscan.TicketJob(s.d.reader.queryRow(ctx, `SELECT `+jobColumns+` FROM ticket_jobs WHERE id = ? AND client_id = ?`, id, clientID))
}

func (s ticketStore) JobStatus(ctx context.Context, id string) (tickets.Status, error) {
	st, err := rowscan.Value[tickets.Status](s.d.reader.queryRow(ctx, `SELECT status FROM ticket_jobs WHERE id = ?`, id))
	return st, rowscan.TicketsNotFound(err)
}

func (s ticketStore) PendingCallbacks(ctx context.Context, clientID string, since time.Time, atMost int) (int, error) {
	var n int
	// The WHERE clause repeats the partial index's (migration 0019), which
	// is what lets the planner use it.
	err := s.d.reader.queryRow(ctx, `SELECT count(*) FROM (SELECT 1 FROM ticket_jobs
		WHERE client_id = ? AND updated_at >= ? AND callback_delivered_at IS NULL AND callback_failed = 0
			AND json_extract(request, '$.callback_url') IS NOT NULL LIMIT ?)`, clientID, micros(since), atMost).Scan(&n)
	return n, err
}

// summaryColumns are the columns of a tickets.JobSummary, read with
// rowscan.TicketJobSummary: neither the spec nor the result is read.
const summaryColumns = `id, client_id, (SELECT name FROM ticket_clients c WHERE c.id = ticket_jobs.client_id),
	coalesce(json_extract(request, '$.title'), ''), status, stage, error_code, error_message, engine, attempts, ticket_count,
	coalesce(json_extract(request, '$.callback_url'), '') <> '', callback_failed, callback_delivered_at,
	created_at, updated_at, expires_at, started_at, finished_at`

func (s ticketStore) ListJobSummaries(ctx context.Context, f tickets.JobFilter) ([]tickets.JobSummary, error) {
	args := sqlargs.Positional()
	q := `SELECT ` + summaryColumns + ` FROM ticket_jobs WHERE true` + sqlargs.AndEqual(args, "client_id", f.ClientID)
	q += sqlargs.AndEqual(args, "status", f.Status)
	return queryNewestFirst(ctx, s.d.reader, q, args, f.BeforeCreatedAt, f.BeforeID, f.Limit, rowscan.TicketJobSummary)
}

func (s ticketStore) GetJobSummary(ctx context.Context, id string) (tickets.JobSummary, error) {
	return rowscan.TicketJobSummary(s.d.reader.queryRow(ctx, `SELECT `+summaryColumns+` FROM ticket_jobs WHERE id = ?`, id))
}

func (s ticketStore) UpdateJob(ctx context.Context, id string, u tickets.JobUpdate) (tickets.Job, error) {
	tx, err := s.d.writer.db.BeginTx(ctx, nil)
	if err != nil {
		return tickets.Job{}, err
	}
	defer tx.Rollback()
	from := make([]string, len(u.From))
	var ticketCount, started, finished any // NULL keeps the stored value
	attempts := 0
	if u.Result != nil {
		ticketCount = u.TicketCount
	}
	if u.Attempt {
		attempts, started = 1, micros(u.At)
	}
	if u.Status.Terminal() {
		finished = micros(u.At)
	}
	args := []any{u.Status, u.Stage, u.ErrorCode, u.ErrorMessage, u.Result, ticketCount, micros(u.At),
		attempts, started, u.Engine, finished, id}
	for i, st := range u.From {
		from[i] = "?"
		args = append(args, st)
	}
	j, err := rowscan.TicketJob(tx.QueryRowContext(ctx, `UPDATE ticket_jobs SET status = ?, stage = coalesce(nullif(?, ''), stage),
		error_code = ?, error_message = ?, result = coalesce(?, result), ticket_count = coalesce(?, ticket_count), updated_at = ?,
		attempts = attempts + ?, started_at = coalesce(started_at, ?), engine = coalesce(nullif(?, ''), engine),
		finished_at = coalesce(finished_at, ?)
		WHERE id = ? AND status IN (`+strings.Join(from, ", ")+`) RETURNING `+jobColumns, args...))
	if errors.Is(err, tickets.ErrNotFound) {
		return tickets.Job{}, rowscan.TicketJobUnchanged(tx.QueryRowContext(ctx, `SELECT count(*) FROM ticket_jobs WHERE id = ?`, id))
	}
	if err != nil {
		return tickets.Job{}, err
	}
	if u.Callback && j.Request.CallbackURL != "" {
		if _, err := s.d.queue.InsertTx(ctx, tx, jobqueue.CallbackArgs{JobID: id, Status: j.Status, ClientID: j.ClientID}, nil); err != nil {
			return tickets.Job{}, fmt.Errorf("enqueue callback: %w", err)
		}
	}
	return j, tx.Commit()
}

func (s ticketStore) MarkCallbackFailed(ctx context.Context, id, message string, at time.Time) error {
	_, err := s.d.writer.exec(ctx, `UPDATE ticket_jobs SET callback_failed = 1,
		error_code = CASE WHEN status = 'completed' THEN 'callback_failed' ELSE error_code END,
		error_message = CASE WHEN status = 'completed' THEN ? ELSE error_message END,
		updated_at = ? WHERE id = ?`, message, micros(at), id)
	return err
}

func (s ticketStore) MarkCallbackDelivered(ctx context.Context, id string, at time.Time) error {
	_, err := s.d.writer.exec(ctx, `UPDATE ticket_jobs SET callback_delivered_at = ? WHERE id = ?`, micros(at), id)
	return err
}

func (s ticketStore) ExpireJobs(ctx context.Context, now time.Time) (int, error) {
	tx, err := s.d.writer.db.BeginTx(ctx, nil)
	if err != nil {
		return 0, err
	}
	defer tx.Rollback()
	rows, err := tx.QueryContext(ctx, `SELECT id, client_id, status, request FROM ticket_jobs WHERE expires_at <= ? AND status <> 'expired'`, micros(now))
	if err != nil {
		return 0, err
	}
	type due struct {
		id, clientID string
		callback     bool
	}
	dues, err := rowscan.All(rows, func(row rowscan.Row) (due, error) {
		var id, clientID, request string
		var st tickets.Status
		if err := row.Scan(&id, &clientID, &st, &request); err != nil {
			return due{}, err
		}
		var r tickets.Request
		if err := json.Unmarshal([]byte(request), &r); err != nil {
			return due{}, fmt.Errorf("job %s request: %w", id, err)
		}
		return due{id, clientID, !st.Terminal() && r.CallbackURL != ""}, nil
	})
	rows.Close()
	if err != nil {
		return 0, err
	}
	for _, d := range dues {
		if _, err := tx.ExecContext(ctx, `UPDATE ticket_jobs SET status = 'expired', result = NULL, updated_at = ?,
			finished_at = coalesce(finished_at, ?) WHERE id = ?`, micros(now), micros(now), d.id); err != nil {
			return 0, err
		}
		if d.callback {
			if _, err := s.d.queue.InsertTx(ctx, tx, jobqueue.CallbackArgs{JobID: d.id, Status: tickets.StatusExpired, ClientID: d.clientID}, nil); err != nil {
				return 0, fmt.Errorf("enqueue callback: %w", err)
			}
		}
	}
	return len(dues), tx.Commit()
}

func (s ticketStore) CancelStaleJobs(ctx context.Context, before, now time.Time) (int, error) {
	tx, err := s.d.writer.db.BeginTx(ctx, nil)
	if err != nil {
		return 0, err
	}
	defer tx.Rollback()
	rows, err := tx.QueryContext(ctx, `UPDATE ticket_jobs SET status = 'cancelled', error_code = 'job_cancelled',
		error_message = 'The job was cancelled.', updated_at = ?1, finished_at = coalesce(finished_at, ?1)
		WHERE status = 'cancel_requested' AND updated_at < ?2 RETURNING id, client_id, json_extract(request, '$.callback_url')`, micros(now), micros(before))
	if err != nil {
		return 0, err
	}
	var callbacks []jobqueue.CallbackArgs
	n := 0
	err = rowscan.Each(rows, func(row rowscan.Row) error {
		var id, clientID, callbackURL string
		if err := row.Scan(&id, &clientID, rowscan.Text(&callbackURL)); err != nil {
			return err
		}
		n++
		if callbackURL != "" {
			callbacks = append(callbacks, jobqueue.CallbackArgs{JobID: id, Status: tickets.StatusCancelled, ClientID: clientID})
		}
		return nil
	})
	rows.Close()
	if err != nil {
		return 0, err
	}
	for _, args := range callbacks {
		if _, err := s.d.queue.InsertTx(ctx, tx, args, nil); err != nil {
			return 0, fmt.Errorf("enqueue callback: %w", err)
		}
	}
	return n, tx.Commit()
}

func (s ticketStore) PurgeExpiredJobs(ctx context.Context, before time.Time) (int, error) {
	n, err := rowsChanged(s.d.writer.exec(ctx, `DELETE FROM ticket_jobs WHERE status = 'expired' AND expires_at < ?`, micros(before)))
	return int(n), err
}
