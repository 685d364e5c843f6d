package postgres

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/riverqueue/river"

	"github.com/foresight-dev/foresight/internal/jobqueue"
	"github.com/foresight-dev/foresight/internal/postgres/pgtest"
)

// TestEnqueueGenerateMatchesRiver checks that a generation job queued by
// generationQueue is the row River's InsertManyTx writes for the same
// GenerateArgs (but for the id and the moment), and that its notification
// of new jobs is River's, so that River's workers on every node are woken
// for it and fetch and run it alike.
func TestEnqueueGenerateMatchesRiver(t *testing.T) {
	ctx := context.Background()
	url := pgtest.NewDatabase(t)
	d, err := Open(ctx, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	listener, err := pgx.Connect(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	defer listener.Close(ctx)
	if _, err := listener.Exec(ctx, `LISTEN "public.river_insert"`); err != nil {
		t.Fatal(err)
	}
	notified := func() string {
		t.Helper()
		wctx, cancel := context.WithTimeout(ctx, 10*time.Second)
		defer cancel()
		n, err := listener.WaitForNotification(wctx)
		if err != nil {
			t.Fatalf("no notification of new jobs: %v", err)
		}
		return n.Channel + " " + n.Payload
	}

	if err := pgx.BeginFunc(ctx, d.pool, func(tx pgx.Tx) error {
		_, err := d.queue.InsertManyTx(ctx, tx, []river.InsertManyParams{{Args: jobqueue.GenerateArgs{JobID: "by-river"}}})
		return err
	}); err != nil {
		t.Fatal(err)
	}
	wantNotice := notified()
	args, err := json.Marshal(jobqueue.GenerateArgs{JobID: "by-foresight"})
	if err != nil {
		t.Fatal(err)
	}
	if err := pgx.BeginFunc(ctx, d.pool, func(tx pgx.Tx) error {
		b := &pgx.Batch{}
		d.generations.queue(b, [][]byte{args})
		return tx.SendBatch(ctx, b).Close()
	}); err != nil {
		t.Fatal(err)
	}
	if got := notified(); got != wantNotice {
		t.Errorf("generationQueue notified %q, River notifies %q", got, wantNotice)
	}

	read := func(id string) string {
		t.Helper()
		var row string
		err := d.pool.QueryRow(ctx, `SELECT concat_ws(' | ', replace(args::text, $1, 'ID'), kind, queue, state, metadata, tags, attempt,
				max_attempts, priority, attempted_at, attempted_by, errors, finalized_at, unique_key, unique_states,
				created_at = scheduled_at, created_at > now() - interval '1 minute')
			FROM river_job WHERE args ->> 'job_id' = $1`, id).Scan(&row)
		if err != nil {
			t.Fatalf("job %s: %v", id, err)
		}
		return row
	}
	if got, want := read("by-foresight"), read("by-river"); got != want {
		t.Errorf("generationQueue wrote\n%s\nRiver writes\n%s", got, want)
	}
	if !strings.Contains(wantNotice, `"queue": "tickets"`) {
		t.Errorf("River's notification %q does not name the tickets queue", wantNotice)
	}
}
