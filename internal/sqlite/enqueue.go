package sqlite

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"

	"github.com/foresight-dev/foresight/internal/jobqueue"
)

// enqueueGenerateSQL inserts a generation job into River's queue the way
// River's own InsertManyTx does on SQLite (its JobInsertFastMany): the
// kind, queue and attempts of jobqueue.GenerateArgs, River's default
// priority, available now, with River's timestamp format and empty
// metadata and tags. River prepares its statement anew on every call
// (about half of a batch's River time went to parsing it, see
// docs/performance.md "Job submission"); this one is prepared once, on the
// single writer that every submission waits for. TestEnqueueGenerateMatchesRiver
// compares the row with River's.
const enqueueGenerateSQL = `INSERT INTO river_job (args, created_at, kind, max_attempts, metadata, priority, queue, scheduled_at, state, tags)
	VALUES (jsonb(?), datetime('now', 'subsec'), ?, ?, jsonb('{}'), ?, ?, datetime('now', 'subsec'), 'available', jsonb('[]'))`

// riverDefaultPriority is the priority River gives a job whose InsertOpts
// name none.
const riverDefaultPriority = 1

// enqueueGenerate inserts the generation job of the ticket job id through
// stmt, the transaction's enqueueGenerateSQL.
func enqueueGenerate(ctx context.Context, stmt *sql.Stmt, id string) error {
	a := jobqueue.GenerateArgs{JobID: id}
	args, err := json.Marshal(a)
	if err != nil {
		return err
	}
	opts := a.InsertOpts()
	priority := opts.Priority
	if priority == 0 {
		priority = riverDefaultPriority
	}
	if _, err := stmt.ExecContext(ctx, string(args), a.Kind(), opts.MaxAttempts, priority, opts.Queue); err != nil {
		return fmt.Errorf("enqueue generation: %w", err)
	}
	return nil
}
