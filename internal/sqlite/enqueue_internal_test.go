package sqlite

import (
	"context"
	"database/sql"
	"path/filepath"
	"testing"

	"github.com/riverqueue/river"

	"github.com/foresight-dev/foresight/internal/jobqueue"
)

// TestEnqueueGenerateMatchesRiver checks that enqueueGenerate writes the
// row River's InsertManyTx writes for the same GenerateArgs (but for the id,
// the time, and the nonce River's SQLite driver adds to the metadata to
// tell a unique job's duplicate, which a generation never is), so that
// River's workers fetch and run it alike.
func TestEnqueueGenerateMatchesRiver(t *testing.T) {
	ctx := context.Background()
	d, err := Open(ctx, filepath.Join(t.TempDir(), "q.db"), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	tx, err := d.writer.db.BeginTx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback()
	if _, err := d.queue.InsertManyTx(ctx, tx, []river.InsertManyParams{{Args: jobqueue.GenerateArgs{JobID: "by-river"}}}); err != nil {
		t.Fatal(err)
	}
	stmt, err := d.writer.txStmt(ctx, tx, enqueueGenerateSQL)
	if err != nil {
		t.Fatal(err)
	}
	if err := enqueueGenerate(ctx, stmt, "by-foresight"); err != nil {
		t.Fatal(err)
	}
	type row struct {
		args, kind, queue, state, metadata, tags, created, scheduled string
		attempt, maxAttempts, priority                               int
		attemptedAt, attemptedBy, errors, finalizedAt, uniqueKey     sql.NullString
		uniqueStates                                                 sql.NullInt64
	}
	read := func(id string) row {
		var r row
		err := tx.QueryRowContext(ctx, `SELECT replace(json(args), ?, 'ID'), kind, queue, state, json(json_remove(metadata, '$."river:unique_nonce"')), json(tags),
			typeof(created_at) || ' ' || created_at, typeof(scheduled_at) || ' ' || scheduled_at, attempt, max_attempts, priority,
			attempted_at, json(attempted_by), json(errors), finalized_at, hex(unique_key), unique_states
			FROM river_job WHERE args ->> '$.job_id' = ?`, id, id).Scan(
			&r.args, &r.kind, &r.queue, &r.state, &r.metadata, &r.tags, &r.created, &r.scheduled, &r.attempt, &r.maxAttempts,
			&r.priority, &r.attemptedAt, &r.attemptedBy, &r.errors, &r.finalizedAt, &r.uniqueKey, &r.uniqueStates)
		if err != nil {
			t.Fatalf("job %s: %v", id, err)
		}
		return r
	}
	want, got := read("by-river"), read("by-foresight")
	for _, r := range []*row{&want, &got} {
		// The times differ by the moments of the inserts; their format must not.
		if len(r.created) != len("text 2006-01-02 15:04:05.000") || len(r.scheduled) != len(r.created) {
			t.Errorf("times %q and %q are not in River's format", r.created, r.scheduled)
		}
		r.created, r.scheduled = "", ""
	}
	if got != want {
		t.Errorf("enqueueGenerate wrote\n%+v\nRiver writes\n%+v", got, want)
	}
}
