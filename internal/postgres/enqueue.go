package postgres

import (
	"cmp"
	"fmt"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/riverqueue/river"

	"github.com/foresight-dev/foresight/internal/jobqueue"
)

// enqueueGenerateSQL inserts a batch's generation jobs ($1, their args)
// into River's queue the way River's InsertManyTx does on PostgreSQL (its
// JobInsertFastMany): the kind, attempts, priority and queue of
// jobqueue.GenerateArgs, available from the transaction's start, empty
// metadata and tags. As a statement of the batch's own it goes to the
// server in the same round trip as the jobs' insert and the commit, where
// River's call is a round trip of its own (and another for its
// notification). TestEnqueueGenerateMatchesRiver compares the rows and the
// notification with River's.
const enqueueGenerateSQL = `INSERT INTO river_job (args, created_at, kind, max_attempts, metadata, priority, queue, scheduled_at, state, tags)
	SELECT args, now(), $2, $3, '{}', $4, $5, now(), 'available', '{}' FROM unnest($1::jsonb[]) AS args`

// generationQueue queues the inserts of generation jobs into a batch, and
// River's notification of new jobs in their queue, which wakes the
// workers of every node at once (else they find the jobs at their next
// poll). Like River's client it notifies a queue at most once per cooldown.
type generationQueue struct {
	cooldown time.Duration
	notified atomic.Int64 // when the last notification was queued, in Unix nanoseconds
}

func newGenerationQueue(cfg jobqueue.Config) *generationQueue {
	return &generationQueue{cooldown: cfg.FetchCooldown()}
}

// queue adds to b the insert of one generation job per element of args
// (each the JSON of a jobqueue.GenerateArgs) and, when the cooldown has
// passed, the notification.
func (g *generationQueue) queue(b *pgx.Batch, args [][]byte) {
	var a jobqueue.GenerateArgs
	opts := a.InsertOpts()
	b.Queue(enqueueGenerateSQL, args, a.Kind(), cmp.Or(opts.MaxAttempts, river.MaxAttemptsDefault),
		cmp.Or(opts.Priority, river.PriorityDefault), opts.Queue)
	now := time.Now().UnixNano()
	if last := g.notified.Load(); now-last >= int64(g.cooldown) && g.notified.CompareAndSwap(last, now) {
		b.Queue(riverInsertNotifySQL, fmt.Sprintf(`{"queue": %q}`, opts.Queue))
	}
}

// riverInsertNotifySQL sends River's notification of new jobs ($1: the
// payload naming their queue) on River's insert topic, as River's
// PGNotifyMany does for a client without a schema of its own.
const riverInsertNotifySQL = `SELECT pg_notify(current_schema() || '.river_insert', $1)`
