package sqlite

import (
	"context"
	"database/sql"
	"fmt"

	"github.com/riverqueue/river"
)

// writeTx is a write transaction shared by a batch of writes (see
// DB.write). Its statements go through the writer's cache of prepared
// statements, and the jobs its writes enqueue are inserted together, in
// one River insert, right before it commits.
type writeTx struct {
	tx   *sql.Tx
	d    *DB
	jobs []river.InsertManyParams
}

// write is one write of a batch. It returns its outcome, nil or a domain
// error (such as betting.ErrLimit) after which it has written nothing, and
// err only for a failure that must roll the whole batch back.
type write func(ctx context.Context, tx *writeTx) (outcome, err error)

// write runs w in the transaction of some batch of concurrent writes and
// returns its outcome: under load, many writes share one transaction, one
// commit and one River insert.
func (d *DB) write(ctx context.Context, w write) error {
	outcome, err := d.writes.Do(ctx, w)
	if err != nil {
		return err
	}
	return outcome
}

// flushWrites runs a batch of writes in one transaction.
func (d *DB) flushWrites(ctx context.Context, writes []write) ([]error, error) {
	tx, err := d.writer.db.BeginTx(ctx, nil)
	if err != nil {
		return nil, err
	}
	defer tx.Rollback()
	wtx := &writeTx{tx: tx, d: d}
	outcomes := make([]error, len(writes))
	for i, w := range writes {
		if outcomes[i], err = w(ctx, wtx); err != nil {
			return nil, err
		}
	}
	if len(wtx.jobs) > 0 {
		if _, err := d.queue.InsertManyTx(ctx, tx, wtx.jobs); err != nil {
			return nil, fmt.Errorf("enqueue %d jobs: %w", len(wtx.jobs), err)
		}
	}
	return outcomes, tx.Commit()
}

// enqueue adds a job to insert when the transaction commits.
func (t *writeTx) enqueue(args river.JobArgs) {
	t.jobs = append(t.jobs, river.InsertManyParams{Args: args})
}

// enqueueMany adds jobs to insert when the transaction commits.
func (t *writeTx) enqueueMany(jobs []river.InsertManyParams) {
	t.jobs = append(t.jobs, jobs...)
}

// stmt returns query's statement on the transaction, prepared once when
// it is one of writeStatements.
func (t *writeTx) stmt(ctx context.Context, query string) (*sql.Stmt, error) {
	return t.d.writer.txStmt(ctx, t.tx, query)
}

func (t *writeTx) exec(ctx context.Context, query string, args ...any) (sql.Result, error) {
	s, err := t.stmt(ctx, query)
	if err != nil {
		return nil, err
	}
	return s.ExecContext(ctx, args...)
}

func (t *writeTx) queryRow(ctx context.Context, query string, args ...any) *sql.Row {
	s, err := t.stmt(ctx, query)
	if err != nil {
		return t.tx.QueryRowContext(ctx, query, args...)
	}
	return s.QueryRowContext(ctx, args...)
}
