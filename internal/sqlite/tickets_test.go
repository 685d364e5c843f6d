package sqlite_test

import (
	"context"
	"database/sql"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/riverqueue/river/riverdriver/riversqlite"

	"github.com/foresight-dev/foresight/internal/enginetest"
	"github.com/foresight-dev/foresight/internal/jobqueue"
	"github.com/foresight-dev/foresight/internal/jobqueue/jobqueuetest"
	"github.com/foresight-dev/foresight/internal/sqlite"
	"github.com/foresight-dev/foresight/internal/tickets"
	"github.com/foresight-dev/foresight/internal/tickets/storetest"
)

// TestStores runs every store's conformance suite on SQLite.
func TestStores(t *testing.T) {
	t.Parallel()
	enginetest.Run(t, enginetest.Engine{Open: func(t *testing.T) (enginetest.Stores, func(string) error) {
		db, exec := openWithExec(t)
		return db, exec
	}})
}

func TestOpenTwiceKeepsData(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "test.db")
	ctx := context.Background()
	db, err := sqlite.Open(ctx, path, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := db.TicketStore().CreateClient(ctx, tickets.Client{ID: "c1", Name: "n", WebhookSecret: "s", TicketsEnabled: true}); err != nil {
		t.Fatal(err)
	}
	db.Close()
	db, err = sqlite.Open(ctx, path, nil)
	if err != nil {
		t.Fatalf("reopen (migrations must be idempotent): %v", err)
	}
	defer db.Close()
	if _, err := db.TicketStore().GetClient(ctx, "c1"); err != nil {
		t.Fatalf("client lost across reopen: %v", err)
	}
}

func TestJobRecovery(t *testing.T) {
	t.Parallel()
	jobqueuetest.Run(t, func(t *testing.T) jobqueuetest.Database[*sql.Tx] {
		db, raw := openWithRaw(t)
		raw.SetMaxOpenConns(1)
		return jobqueuetest.Database[*sql.Tx]{Recovery: db, Driver: riversqlite.New(raw)}
	})
}

// TestSynchronous: FULL unless the path asks for NORMAL; anything else is
// refused.
func TestSynchronous(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		suffix string
		want   int // PRAGMA synchronous; 0: Open fails
	}{
		{"", 2},
		{"?synchronous=full", 2},
		{"?synchronous=NORMAL", 1},
		{"?synchronous=off", 0},
		{"?journal_mode=delete", 0},
	} {
		t.Run(tc.suffix, func(t *testing.T) {
			db, err := sqlite.Open(context.Background(), filepath.Join(t.TempDir(), "test.db")+tc.suffix, nil)
			if tc.want == 0 {
				if err == nil {
					db.Close()
					t.Fatal("Open succeeded, want an error")
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			defer db.Close()
			if got, err := db.Synchronous(context.Background()); err != nil || got != tc.want {
				t.Errorf("PRAGMA synchronous = %d, %v; want %d", got, err, tc.want)
			}
		})
	}
}

// TestOneProcessWorksTheQueues: a second StartWorkers on a database whose
// queues are worked fails (its RescueJobs would take the first one's
// jobs); once the first stops, it succeeds.
func TestOneProcessWorksTheQueues(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "test.db")
	first, err := sqlite.Open(ctx, path, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer first.Close()
	second, err := sqlite.Open(ctx, path, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer second.Close()
	workers, err := first.StartWorkers(ctx, jobqueue.NewWorkers(nil, nil, jobqueue.DefaultConfig()), jobqueue.DefaultConfig())
	if err != nil {
		t.Fatal(err)
	}
	if workers2, err := second.StartWorkers(ctx, jobqueue.NewWorkers(nil, nil, jobqueue.DefaultConfig()), jobqueue.DefaultConfig()); err == nil {
		workers2.Stop(ctx)
		t.Fatal("a second process started working the queues")
	} else if !strings.Contains(err.Error(), "another process") {
		t.Errorf("error = %v, want another process named", err)
	}
	if err := workers.Stop(ctx); err != nil {
		t.Fatal(err)
	}
	workers2, err := second.StartWorkers(ctx, jobqueue.NewWorkers(nil, nil, jobqueue.DefaultConfig()), jobqueue.DefaultConfig())
	if err != nil {
		t.Fatalf("after the first stopped: %v", err)
	}
	workers2.Stop(ctx)
}

// BenchmarkCommit times one write transaction of the store (a ticket
// client's creation) with each synchronous setting: FULL adds a sync of
// the log to every commit (docs/performance.md).
func BenchmarkCommit(b *testing.B) {
	for _, sync := range []string{"normal", "full"} {
		b.Run(sync, func(b *testing.B) {
			db := openDB(b, filepath.Join(b.TempDir(), "test.db")+"?synchronous="+sync)
			defer db.Close()
			for i := 0; b.Loop(); i++ {
				c := tickets.Client{ID: fmt.Sprint("c", i), Name: "n", WebhookSecret: "s", TicketsEnabled: true}
				if err := db.TicketStore().CreateClient(context.Background(), c); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkCreateJob measures job submission at the store (see
// storetest.BenchmarkCreateJob): the single writer's share of a submission.
func BenchmarkCreateJob(b *testing.B) {
	storetest.BenchmarkCreateJob(b, openBench(b).TicketStore())
}
