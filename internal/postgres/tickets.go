package postgres

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/foresight-dev/foresight/internal/jobqueue"
	"github.com/foresight-dev/foresight/internal/rowscan"
	"github.com/foresight-dev/foresight/internal/sqlargs"
	"github.com/foresight-dev/foresight/internal/tickets"
)

// TicketStore returns the database as a tickets.Store.
func (d *DB) TicketStore() tickets.Store { return ticketStore{d} }

type ticketStore struct{ d *DB }

var _ tickets.Store = ticketStore{}

func (s ticketStore) CreateClient(ctx context.Context, c tickets.Client) error {
	_, err := s.d.pool.Exec(ctx,
		`INSERT INTO ticket_clients (id, name, webhook_secret, suspended, tickets_enabled, created_at) VALUES ($1, $2, $3, $4, $5, $6)`,
		c.ID, c.Name, c.WebhookSecret, c.Suspended, c.TicketsEnabled, c.CreatedAt)
	return err
}

const clientColumns = `id::text, name, webhook_secret, suspended, tickets_enabled, created_at`

func (s ticketStore) GetClient(ctx context.Context, id string) (tickets.Client, error) {
	return rowscan.TicketClient(s.d.pool.QueryRow(ctx, `SELECT `+clientColumns+` FROM ticket_clients WHERE id = $1`, id))
}

func (s ticketStore) ListClients(ctx context.Context, afterID string, limit int) ([]tickets.Client, error) {
	return queryList(ctx, s.d.pool, `SELECT `+clientColumns+` FROM ticket_clients WHERE id::text > $1 ORDER BY id::text LIMIT $2`, []any{afterID, limit}, rowscan.TicketClient)
}

func (s ticketStore) UpdateClient(ctx context.Context, id string, u tickets.ClientUpdate) (tickets.Client, error) {
	return rowscan.TicketClient(s.d.pool.QueryRow(ctx,
		`UPDATE ticket_clients SET suspended = coalesce($1, suspended), tickets_enabled = coalesce($2, tickets_enabled)
		 WHERE id = $3 RETURNING `+clientColumns, u.Suspended, u.TicketsEnabled, id))
}

func (s ticketStore) CreateKey(ctx context.Context, k tickets.APIKey) error {
	_, err := s.d.pool.Exec(ctx,
		`INSERT INTO ticket_api_keys (id, client_id, secret_hash, scopes, expires_at, revoked_at, created_at) VALUES ($1, $2, $3, $4, $5, $6, $7)`,
		k.ID, k.ClientID, k.SecretHash, rowscan.TicketScopes(k.Scopes), k.ExpiresAt, k.RevokedAt, k.CreatedAt)
	if isForeignKeyViolation(err) {
		return tickets.ErrNotFound
	}
	return err
}

const keyColumns = `k.id::text, k.client_id::text, k.secret_hash, k.scopes, k.expires_at, k.revoked_at, k.created_at`

func (s ticketStore) GetKey(ctx context.Context, id string) (tickets.APIKey, tickets.Client, error) {
	var c tickets.Client
	k, err := rowscan.TicketKey(s.d.pool.QueryRow(ctx,
		`SELECT `+keyColumns+`, c.id::text, c.name, c.webhook_secret, c.suspended, c.tickets_enabled, c.created_at
		 FROM ticket_api_keys k JOIN ticket_clients c ON c.id = k.client_id WHERE k.id = $1`, id),
		&c.ID, &c.Name, &c.WebhookSecret, &c.Suspended, &c.TicketsEnabled, rowscan.Time(&c.CreatedAt))
	return k, c, err
}

func (s ticketStore) ListKeys(ctx context.Context, clientID string) ([]tickets.APIKey, error) {
	return queryList(ctx, s.d.pool, `SELECT `+keyColumns+` FROM ticket_api_keys k WHERE k.client_id = $1 ORDER BY k.created_at, k.id`, []any{clientID}, func(r rowscan.Row) (tickets.APIKey, error) { return rowscan.TicketKey(r) })
}

func (s ticketStore) RevokeKey(ctx context.Context, clientID, keyID string, at time.Time) error {
	tag, err := s.d.pool.Exec(ctx,
		`UPDATE ticket_api_keys SET revoked_at = coalesce(revoked_at, $1) WHERE id = $2 AND client_id = $3`, at, keyID, clientID)
	if err != nil {
		return err
	}
	if tag.RowsAffected() == 0 {
		return tickets.ErrNotFound
	}
	return nil
}

// jobColumns are the columns of a tickets.Job, read with
// rowscan.TicketJob. The ids' text forms are renamed so that ORDER BY id
// sorts by the indexed uuid column.
const jobColumns = `id::text AS job_id, client_id::text AS job_client_id, idempotency_key, request_hash, request, status, stage, error_code, error_message,
	callback_failed, result, created_at, updated_at, expires_at`

// CreateJob hands the job to the database's group-commit batcher, which
// writes it together with the jobs submitted at the same moment.
func (s ticketStore) CreateJob(ctx context.Context, j tickets.Job, maxActive int) (tickets.Job, bool, error) {
	request, err := json.Marshal(j.Request)
	if err != nil {
		return tickets.Job{}, false, err
	}
	r, err := s.d.creates.Do(ctx, newJob{job: j, request: request, maxActive: maxActive})
	if err != nil {
		return tickets.Job{}, false, err
	}
	return r.job, r.created, r.err
}

// newJob is a job to create, its request as JSON (encoded on the caller's
// goroutine, before the batch's turn), and its client's bound of unfinished
// jobs.
type newJob struct {
	job       tickets.Job
	request   []byte
	maxActive int
}

type createResult struct {
	job     tickets.Job
	created bool
	err     error
}

// createJobs inserts jobs and their generation queue entries in one
// transaction. A job whose client already used its idempotency key is not
// inserted; the existing job is returned instead. A job whose client has
// its bound of unfinished jobs (counting the batch's own) gets ErrQueueFull.
// The batch takes its clients' submission locks first (transaction-level
// advisory locks, in key order, so batches on several nodes cannot
// deadlock), which makes the check of the bound and the insert atomic.
// Unlike the row locks they replace (SELECT … FOR UPDATE on
// ticket_clients), they write nothing to the clients' rows or the log.
// A client's unfinished jobs are counted only when its stored upper bound
// (ticket_unfinished_bounds) leaves too little room for the batch's jobs;
// the batch then stores the number it used plus the jobs it inserted.
//
// The transaction takes two round trips, each a pipeline of statements
// run in turn: BEGIN, the locks, the bound or count and the key lookup
// (the bound's snapshot is taken once the locks are held, as when each was
// sent alone); then the inserts (the jobs, River's queue rows), the
// bounds and COMMIT. The server skips the statements after a failed one
// up to the pipeline's end, so COMMIT runs only when every write before it
// succeeded; on any failure the transaction is rolled back.
func (d *DB) createJobs(ctx context.Context, jobs []newJob) ([]createResult, error) {
	conn, err := d.pool.Acquire(ctx)
	if err != nil {
		return nil, err
	}
	defer conn.Release()
	committed := false
	defer func() {
		if !committed {
			// Release destroys a connection left in a transaction; rolling
			// back keeps it in the pool.
			conn.Exec(ctx, `ROLLBACK`)
		}
	}()
	results := conn.SendBatch(ctx, createChecks(jobs))
	active, stored, existing, err := readChecks(results)
	if cerr := results.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return nil, err
	}
	out, rows, generateArgs, err := admitJobs(jobs, active, existing)
	if err != nil {
		return nil, err
	}
	writes := d.createWrites(rows, generateArgs, active, stored)
	if err := commitPipeline(conn.SendBatch(ctx, writes), writes.Len()); err != nil {
		return nil, err
	}
	committed = true
	return out, nil
}

// createChecks is createJobs' first pipeline, read by readChecks: BEGIN,
// the planner settings, the batch's clients' submission locks, the bound
// or count of each client's unfinished jobs, and the lookup of the
// batch's (client, idempotency key) pairs.
func createChecks(jobs []newJob) *pgx.Batch {
	clientIDs, keys := make([]string, len(jobs)), make([]string, len(jobs))
	for i, nj := range jobs {
		clientIDs[i], keys[i] = nj.job.ClientID, nj.job.IdempotencyKey
	}
	checks := &pgx.Batch{}
	checks.Queue(`BEGIN`)
	// Each pooled connection plans these statements once and keeps the
	// plan until the next analyze of the table; planned on a new database,
	// while ticket_jobs is nearly empty, the key lookup became a sequential
	// scan that grew with the table (docs/performance.md, "Job submission on
	// PostgreSQL: a bound instead of a count"). Every statement of this
	// transaction has an index that serves it. Left to choose, PostgreSQL
	// also planned the bound's read and the key lookup anew on every call of
	// a small batch (a custom plan estimated cheaper than the generic one
	// for a short array), 16–26 µs each ("Job submission on PostgreSQL: two
	// round trips, River's row in the batch"); the generic plan is the same
	// index scans.
	checks.Queue(`SELECT set_config('enable_seqscan', 'off', true), set_config('plan_cache_mode', 'force_generic_plan', true)`)
	checks.Queue(`SELECT pg_advisory_xact_lock($2, k) FROM (SELECT DISTINCT hashtext(id) AS k FROM unnest($1::text[]) AS id ORDER BY k) AS keys`,
		clientIDs, submissionLockClass)
	batchClients, room := roomNeeded(jobs)
	checks.Queue(unfinishedSQL, batchClients, room)
	checks.Queue(`SELECT `+jobColumns+` FROM ticket_jobs
		WHERE (client_id, idempotency_key) IN (SELECT * FROM unnest($1::text[]::uuid[], $2::text[]))`, clientIDs, keys)
	return checks
}

// admitJobs decides, in the batch's order, the result of each job given
// the checks' answers: the existing job of a key already used, ErrQueueFull
// for a client at its bound, or a new job. It returns the results, the
// rows and River generation arguments of the new jobs, and counts the new
// jobs in active and records them in existing (so a repeat of a key later
// in the batch gets the job created first).
func admitJobs(jobs []newJob, active map[string]int, existing map[[2]string]tickets.Job) ([]createResult, newJobRows, [][]byte, error) {
	out := make([]createResult, len(jobs))
	var rows newJobRows
	var generateArgs [][]byte
	for i, nj := range jobs {
		j := nj.job
		key := [2]string{j.ClientID, j.IdempotencyKey}
		if e, ok := existing[key]; ok {
			out[i] = createResult{job: e}
			continue
		}
		if active[j.ClientID] >= nj.maxActive {
			out[i] = createResult{err: tickets.ErrQueueFull}
			continue
		}
		args, err := json.Marshal(jobqueue.GenerateArgs{JobID: j.ID})
		if err != nil {
			return nil, newJobRows{}, nil, err
		}
		rows.add(j, nj.request)
		generateArgs = append(generateArgs, args)
		active[j.ClientID]++
		existing[key] = j // a repeat of the key later in this batch gets this job
		out[i] = createResult{job: j, created: true}
	}
	return out, rows, generateArgs, nil
}

// createWrites is createJobs' second pipeline: the inserts of the new
// jobs and their River queue rows, the clients' bounds of unfinished jobs
// that changed (active, against stored), and COMMIT.
func (d *DB) createWrites(rows newJobRows, generateArgs [][]byte, active, stored map[string]int) *pgx.Batch {
	writes := &pgx.Batch{}
	if len(rows.id) > 0 {
		writes.Queue(insertJobsSQL, rows.id, rows.clientID, rows.idempotencyKey, rows.requestHash, rows.request,
			rows.status, rows.stage, rows.errorCode, rows.errorMessage, rows.callbackFailed, rows.result,
			rows.createdAt, rows.updatedAt, rows.expiresAt)
		d.generations.queue(writes, generateArgs)
	}
	var boundClients []string
	var bounds []int
	for id, n := range active {
		if at, ok := stored[id]; !ok || at != n {
			boundClients, bounds = append(boundClients, id), append(bounds, n)
		}
	}
	if len(boundClients) > 0 {
		writes.Queue(`INSERT INTO ticket_unfinished_bounds (client_id, at_most) SELECT * FROM unnest($1::text[]::uuid[], $2::int[])
			ON CONFLICT (client_id) DO UPDATE SET at_most = excluded.at_most`, boundClients, bounds)
	}
	writes.Queue(`COMMIT`)
	return writes
}

// commitPipeline reads the answers of a pipeline of n statements that ends with
// COMMIT and closes it. It fails unless COMMIT committed: the server
// answers COMMIT in a failed transaction with ROLLBACK, not an error.
func commitPipeline(results pgx.BatchResults, n int) error {
	var tag pgconn.CommandTag
	var err error
	for range n {
		if tag, err = results.Exec(); err != nil {
			break
		}
	}
	if cerr := results.Close(); err == nil {
		err = cerr
	}
	if err == nil && tag.String() != "COMMIT" {
		err = fmt.Errorf("postgres: the batch's transaction ended with %s", tag)
	}
	return err
}

// insertJobsSQL inserts a batch's new jobs in one statement, a column per
// parameter: one statement to plan and run instead of one per job.
//
// The batch's statements take ids as text[] and cast them to uuid[] on
// the server: given a uuid[] parameter and Go strings, pgx first tries the
// binary format, fails on the first element (building an error), and
// encodes the whole array again as text, several times per batch.
const insertJobsSQL = `INSERT INTO ticket_jobs (id, client_id, idempotency_key, request_hash, request, status, stage,
	error_code, error_message, callback_failed, result, created_at, updated_at, expires_at)
	SELECT * FROM unnest($1::text[]::uuid[], $2::text[]::uuid[], $3::text[], $4::text[], $5::jsonb[], $6::text[], $7::text[],
		$8::text[], $9::text[], $10::boolean[], $11::bytea[], $12::timestamptz[], $13::timestamptz[], $14::timestamptz[])`

// newJobRows are the columns of insertJobsSQL.
type newJobRows struct {
	id, clientID, idempotencyKey, requestHash, status, stage, errorCode, errorMessage []string
	request, result                                                                   [][]byte
	callbackFailed                                                                    []bool
	createdAt, updatedAt, expiresAt                                                   []time.Time
}

func (r *newJobRows) add(j tickets.Job, request []byte) {
	r.id = append(r.id, j.ID)
	r.clientID = append(r.clientID, j.ClientID)
	r.idempotencyKey = append(r.idempotencyKey, j.IdempotencyKey)
	r.requestHash = append(r.requestHash, j.RequestHash)
	r.request = append(r.request, request)
	r.status = append(r.status, string(j.Status))
	r.stage = append(r.stage, string(j.Stage))
	r.errorCode = append(r.errorCode, string(j.ErrorCode))
	r.errorMessage = append(r.errorMessage, j.ErrorMessage)
	r.callbackFailed = append(r.callbackFailed, j.CallbackFailed)
	r.result = append(r.result, j.Result)
	r.createdAt = append(r.createdAt, j.CreatedAt)
	r.updatedAt = append(r.updatedAt, j.UpdatedAt)
	r.expiresAt = append(r.expiresAt, j.ExpiresAt)
}

func (s ticketStore) GetJob(ctx context.Context, clientID, id string) (tickets.Job, error) {
	if clientID == "" {
		return rowscan.TicketJob(s.d.pool.QueryRow(ctx, `SELECT `+jobColumns+` FROM ticket_jobs WHERE id = $1`, id))
	}
	return rowscan.TicketJob(s.d.pool.QueryRow(ctx, `SELECT `+jobColumns+` FROM ticket_jobs WHERE id = $1 AND client_id = $2`, id, clientID))
}

func (s ticketStore) JobStatus(ctx context.Context, id string) (tickets.Status, error) {
	st, err := rowscan.Value[tickets.Status](s.d.pool.QueryRow(ctx, `SELECT status FROM ticket_jobs WHERE id = $1`, id))
	return st, rowscan.TicketsNotFound(err)
}

func (s ticketStore) PendingCallbacks(ctx context.Context, clientID string, since time.Time, atMost int) (int, error) {
	var n int
	// The WHERE clause repeats the partial index's (migration 0020), which
	// is what lets the planner use it.
	err := s.d.pool.QueryRow(ctx, `SELECT count(*) FROM (SELECT 1 FROM ticket_jobs
		WHERE client_id = $1 AND updated_at >= $2 AND callback_delivered_at IS NULL AND NOT callback_failed
			AND request->>'callback_url' IS NOT NULL LIMIT $3) AS pending`, clientID, since, atMost).Scan(&n)
	return n, err
}

// summaryColumns are the columns of a tickets.JobSummary, read with
// rowscan.TicketJobSummary: neither the spec nor the result is read. The ids' text
// forms are renamed so that ORDER BY id sorts by the indexed uuid column.
const summaryColumns = `id::text AS job_id, client_id::text AS job_client_id, (SELECT name FROM ticket_clients c WHERE c.id = ticket_jobs.client_id),
	coalesce(request->>'title', ''), status, stage, error_code, error_message, engine, attempts, ticket_count,
	coalesce(request->>'callback_url', '') <> '', callback_failed, callback_delivered_at,
	created_at, updated_at, expires_at, started_at, finished_at`

func (s ticketStore) ListJobSummaries(ctx context.Context, f tickets.JobFilter) ([]tickets.JobSummary, error) {
	args := sqlargs.Numbered()
	q := `SELECT ` + summaryColumns + ` FROM ticket_jobs WHERE true`
	if f.ClientID != "" {
		q += ` AND client_id = ` + args.Add(f.ClientID) + `::uuid`
	}
	q += sqlargs.AndEqual(args, "status", f.Status)
	q += newestFirst(args, f.BeforeCreatedAt, f.BeforeID, f.Limit)
	return queryList(ctx, s.d.pool, q, args.Values(), rowscan.TicketJobSummary)
}

func (s ticketStore) GetJobSummary(ctx context.Context, id string) (tickets.JobSummary, error) {
	return rowscan.TicketJobSummary(s.d.pool.QueryRow(ctx, `SELECT `+summaryColumns+` FROM ticket_jobs WHERE id = $1`, id))
}

// errUnfinishedAgain is UpdateJob's answer to an update that would make a
// finished job unfinished: the stored bounds of unfinished jobs
// (ticket_unfinished_bounds) count on finished jobs staying finished.
var errUnfinishedAgain = errors.New("postgres: a finished job cannot become unfinished again")

func (s ticketStore) UpdateJob(ctx context.Context, id string, u tickets.JobUpdate) (tickets.Job, error) {
	if !u.Status.Terminal() && slices.ContainsFunc(u.From, tickets.Status.Terminal) {
		return tickets.Job{}, errUnfinishedAgain
	}
	tx, err := s.d.pool.Begin(ctx)
	if err != nil {
		return tickets.Job{}, err
	}
	defer tx.Rollback(ctx)
	from := make([]string, len(u.From))
	for i, st := range u.From {
		from[i] = string(st)
	}
	var ticketCount *int
	var started, finished *time.Time // nil keeps the stored value
	attempts := 0
	if u.Result != nil {
		ticketCount = &u.TicketCount
	}
	if u.Attempt {
		attempts, started = 1, &u.At
	}
	if u.Status.Terminal() {
		finished = &u.At
	}
	j, err := rowscan.TicketJob(tx.QueryRow(ctx, `UPDATE ticket_jobs SET status = $1, stage = coalesce(nullif($2, ''), stage),
		error_code = $3, error_message = $4, result = coalesce($5, result), ticket_count = coalesce($9, ticket_count), updated_at = $6,
		attempts = attempts + $10, started_at = coalesce(started_at, $11), engine = coalesce(nullif($12, ''), engine),
		finished_at = coalesce(finished_at, $13)
		WHERE id = $7 AND status = ANY($8) RETURNING `+jobColumns,
		u.Status, u.Stage, u.ErrorCode, u.ErrorMessage, u.Result, u.At, id, from, ticketCount, attempts, started, u.Engine, finished))
	if errors.Is(err, tickets.ErrNotFound) {
		return tickets.Job{}, rowscan.TicketJobUnchanged(tx.QueryRow(ctx, `SELECT count(*) FROM ticket_jobs WHERE id = $1`, id))
	}
	if err != nil {
		return tickets.Job{}, err
	}
	if u.Callback && j.Request.CallbackURL != "" {
		if _, err := s.d.queue.InsertTx(ctx, tx, jobqueue.CallbackArgs{JobID: id, Status: j.Status, ClientID: j.ClientID}, nil); err != nil {
			return tickets.Job{}, fmt.Errorf("enqueue callback: %w", err)
		}
	}
	return j, tx.Commit(ctx)
}

func (s ticketStore) MarkCallbackFailed(ctx context.Context, id, message string, at time.Time) error {
	_, err := s.d.pool.Exec(ctx, `UPDATE ticket_jobs SET callback_failed = TRUE,
		error_code = CASE WHEN status = 'completed' THEN 'callback_failed' ELSE error_code END,
		error_message = CASE WHEN status = 'completed' THEN $1 ELSE error_message END,
		updated_at = $2 WHERE id = $3`, message, at, id)
	return err
}

func (s ticketStore) MarkCallbackDelivered(ctx context.Context, id string, at time.Time) error {
	_, err := s.d.pool.Exec(ctx, `UPDATE ticket_jobs SET callback_delivered_at = $1 WHERE id = $2`, at, id)
	return err
}

func (s ticketStore) ExpireJobs(ctx context.Context, now time.Time) (int, error) {
	tx, err := s.d.pool.Begin(ctx)
	if err != nil {
		return 0, err
	}
	defer tx.Rollback(ctx)
	// Lock the due rows so that two nodes sweeping together expire each
	// job once; the old status tells whether a callback is owed.
	rows, err := tx.Query(ctx, `WITH due AS (
			SELECT id, status AS old_status FROM ticket_jobs
			WHERE expires_at <= $1 AND status <> 'expired' FOR UPDATE SKIP LOCKED)
		UPDATE ticket_jobs j SET status = 'expired', result = NULL, updated_at = $1, finished_at = coalesce(j.finished_at, $1)
		FROM due WHERE j.id = due.id
		RETURNING j.id::text, j.client_id::text, due.old_status, coalesce(j.request->>'callback_url', '')`, now)
	if err != nil {
		return 0, err
	}
	type due struct {
		id, clientID, callbackURL string
		old                       tickets.Status
	}
	dues, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (due, error) {
		var d due
		return d, r.Scan(&d.id, &d.clientID, &d.old, &d.callbackURL)
	})
	if err != nil {
		return 0, err
	}
	for _, d := range dues {
		if d.callbackURL != "" && !d.old.Terminal() {
			if _, err := s.d.queue.InsertTx(ctx, tx, jobqueue.CallbackArgs{JobID: d.id, Status: tickets.StatusExpired, ClientID: d.clientID}, nil); err != nil {
				return 0, fmt.Errorf("enqueue callback: %w", err)
			}
		}
	}
	return len(dues), tx.Commit(ctx)
}

func (s ticketStore) CancelStaleJobs(ctx context.Context, before, now time.Time) (int, error) {
	tx, err := s.d.pool.Begin(ctx)
	if err != nil {
		return 0, err
	}
	defer tx.Rollback(ctx)
	rows, err := tx.Query(ctx, `UPDATE ticket_jobs SET status = 'cancelled', error_code = 'job_cancelled',
		error_message = 'The job was cancelled.', updated_at = $1, finished_at = coalesce(finished_at, $1)
		WHERE status = 'cancel_requested' AND updated_at < $2
		RETURNING id::text, client_id::text, coalesce(request->>'callback_url', '')`, now, before)
	if err != nil {
		return 0, err
	}
	type cancelled struct{ id, clientID, callbackURL string }
	done, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (cancelled, error) {
		var c cancelled
		return c, r.Scan(&c.id, &c.clientID, &c.callbackURL)
	})
	if err != nil {
		return 0, err
	}
	for _, c := range done {
		if c.callbackURL != "" {
			if _, err := s.d.queue.InsertTx(ctx, tx, jobqueue.CallbackArgs{JobID: c.id, Status: tickets.StatusCancelled, ClientID: c.clientID}, nil); err != nil {
				return 0, fmt.Errorf("enqueue callback: %w", err)
			}
		}
	}
	return len(done), tx.Commit(ctx)
}

// submissionLockClass is the first key of the advisory locks that
// serialise submissions per client (the second is a hash of the client's
// id; two clients sharing a hash only wait for each other).
const submissionLockClass int32 = 0x7469636b // "tick"

// unfinishedSQL answers, for each of the batch's clients ($1) with the
// room its jobs need under the client's bound ($2: the smallest bound of its
// jobs less their number), an upper bound of its unfinished jobs: the stored
// one when it leaves that room, else their count; and the stored bound,
// NULL when there is none.
const unfinishedSQL = `SELECT c.id::text, CASE WHEN b.at_most <= c.room THEN b.at_most ELSE
		(SELECT count(*) FROM ticket_jobs j WHERE j.client_id = c.id AND j.status IN ('queued', 'processing', 'cancel_requested')) END,
		b.at_most
	FROM unnest($1::text[]::uuid[], $2::int[]) AS c (id, room) LEFT JOIN ticket_unfinished_bounds b ON b.client_id = c.id`

// roomNeeded returns the batch's clients and, for each, the largest stored
// bound of its unfinished jobs that lets all of its jobs in the batch in
// without a count: the smallest maxActive of its jobs less their number.
func roomNeeded(jobs []newJob) ([]string, []int) {
	index := map[string]int{}
	var clients []string
	var smallest, count []int
	for _, nj := range jobs {
		i, seen := index[nj.job.ClientID]
		if !seen {
			i = len(clients)
			index[nj.job.ClientID] = i
			clients, smallest, count = append(clients, nj.job.ClientID), append(smallest, nj.maxActive), append(count, 0)
		}
		smallest[i] = min(smallest[i], nj.maxActive)
		count[i]++
	}
	for i := range smallest {
		smallest[i] -= count[i]
	}
	return clients, smallest
}

// readChecks reads the answers to createJobs' checks: BEGIN, the planner
// settings and the locks, then an upper bound of the unfinished jobs of each client
// (exact when it was counted) and the bounds stored before, then the
// existing jobs of the batch's (client, idempotency key) pairs.
func readChecks(results pgx.BatchResults) (active, stored map[string]int, existing map[[2]string]tickets.Job, err error) {
	for range 3 { // BEGIN, the planner settings, the locks
		if _, err := results.Exec(); err != nil {
			return nil, nil, nil, err
		}
	}
	rows, err := results.Query()
	if err != nil {
		return nil, nil, nil, err
	}
	active, stored = map[string]int{}, map[string]int{}
	var id string
	var n int
	var at *int
	if _, err := pgx.ForEachRow(rows, []any{&id, &n, &at}, func() error {
		active[id] = n
		if at != nil {
			stored[id] = *at
		}
		return nil
	}); err != nil {
		return nil, nil, nil, err
	}
	rows, err = results.Query()
	if err != nil {
		return nil, nil, nil, err
	}
	found, err := rowscan.All(rows, rowscan.TicketJob)
	rows.Close()
	if err != nil {
		return nil, nil, nil, err
	}
	existing = make(map[[2]string]tickets.Job, len(found))
	for _, j := range found {
		existing[[2]string{j.ClientID, j.IdempotencyKey}] = j
	}
	return active, stored, existing, nil
}

func (s ticketStore) PurgeExpiredJobs(ctx context.Context, before time.Time) (int, error) {
	tag, err := s.d.pool.Exec(ctx, `DELETE FROM ticket_jobs WHERE status = 'expired' AND expires_at < $1`, before)
	if err != nil {
		return 0, err
	}
	return int(tag.RowsAffected()), nil
}
