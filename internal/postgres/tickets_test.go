package postgres_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/riverqueue/river/riverdriver/riverpgxv5"

	"github.com/foresight-dev/foresight/internal/enginetest"
	"github.com/foresight-dev/foresight/internal/jobqueue/jobqueuetest"
	"github.com/foresight-dev/foresight/internal/postgres"
	"github.com/foresight-dev/foresight/internal/postgres/pgtest"
	"github.com/foresight-dev/foresight/internal/tickets"
	"github.com/foresight-dev/foresight/internal/tickets/storetest"
)

func TestMain(m *testing.M) { os.Exit(pgtest.Main(m)) }

// TestStores runs every store's conformance suite on PostgreSQL.
func TestStores(t *testing.T) {
	t.Parallel()
	enginetest.Run(t, enginetest.Engine{Open: func(t *testing.T) (enginetest.Stores, func(string) error) {
		db, exec := openWithExec(t)
		return db, exec
	}, ConcurrentWriters: true})
}

func TestConcurrentMigrations(t *testing.T) {
	t.Parallel()
	url := pgtest.NewDatabase(t)
	errs := make(chan error, 3)
	for range 3 {
		go func() {
			db, err := postgres.Open(context.Background(), url, nil)
			if err == nil {
				db.Close()
			}
			errs <- err
		}()
	}
	for range 3 {
		if err := <-errs; err != nil {
			t.Errorf("concurrent Open: %v", err)
		}
	}
}

func TestJobRecovery(t *testing.T) {
	t.Parallel()
	jobqueuetest.Run(t, func(t *testing.T) jobqueuetest.Database[pgx.Tx] {
		url := pgtest.NewDatabase(t)
		db := openDB(t, url)
		t.Cleanup(func() { db.Close() })
		pool, err := pgxpool.New(context.Background(), url)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(pool.Close)
		return jobqueuetest.Database[pgx.Tx]{Recovery: db, Driver: riverpgxv5.New(pool), Shared: true}
	})
}

// BenchmarkCreateJob measures job submission at the store (see
// storetest.BenchmarkCreateJob); the database's own CPU is not in
// cpu-ns/op.
func BenchmarkCreateJob(b *testing.B) {
	storetest.BenchmarkCreateJob(b, openBench(b).TicketStore())
}

// TestQueueBoundTwoNodes submits a burst for one client through two
// processes' stores on one database, as two nodes would: each store's
// batches run apart, and only the per-client lock keeps the count and the
// insert of one from interleaving with the other's.
func TestQueueBoundTwoNodes(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	url := pgtest.NewDatabase(t)
	var stores [2]tickets.Store
	for i := range stores {
		db := openDB(t, url)
		t.Cleanup(func() { db.Close() })
		stores[i] = db.TicketStore()
	}
	c := tickets.Client{ID: uuid.NewString(), Name: "burst", WebhookSecret: "whsec", TicketsEnabled: true, CreatedAt: time.Now()}
	if err := stores[0].CreateClient(ctx, c); err != nil {
		t.Fatal(err)
	}
	const bound, tries = 5, 60
	results := make(chan error, tries)
	for i := range tries {
		go func() {
			now := time.Now().UTC().Truncate(time.Microsecond)
			j := tickets.Job{ID: uuid.NewString(), ClientID: c.ID, IdempotencyKey: fmt.Sprint("burst-", i), RequestHash: "h",
				Request: tickets.Request{Title: "t", Spec: "s"}, Status: tickets.StatusQueued, Stage: tickets.StageQueued,
				CreatedAt: now, UpdatedAt: now, ExpiresAt: now.Add(time.Hour)}
			_, _, err := stores[i%2].CreateJob(ctx, j, bound)
			results <- err
		}()
	}
	accepted := 0
	for range tries {
		switch err := <-results; {
		case err == nil:
			accepted++
		case !errors.Is(err, tickets.ErrQueueFull):
			t.Fatal(err)
		}
	}
	if accepted != bound {
		t.Errorf("%d submissions through two nodes with a bound of %d: %d accepted", tries, bound, accepted)
	}
}

// TestFinishedJobStaysFinished checks that UpdateJob refuses to make a
// finished job unfinished, which the stored bounds of unfinished jobs
// would not count, and leaves the job as it was.
func TestFinishedJobStaysFinished(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db := openDB(t, pgtest.NewDatabase(t))
	t.Cleanup(func() { db.Close() })
	s := db.TicketStore()
	c := tickets.Client{ID: uuid.NewString(), Name: "finished", WebhookSecret: "whsec", TicketsEnabled: true, CreatedAt: time.Now()}
	if err := s.CreateClient(ctx, c); err != nil {
		t.Fatal(err)
	}
	now := time.Now().UTC().Truncate(time.Microsecond)
	j := tickets.Job{ID: uuid.NewString(), ClientID: c.ID, IdempotencyKey: "k", RequestHash: "h",
		Request: tickets.Request{Title: "t", Spec: "s"}, Status: tickets.StatusQueued, Stage: tickets.StageQueued,
		CreatedAt: now, UpdatedAt: now, ExpiresAt: now.Add(time.Hour)}
	if _, _, err := s.CreateJob(ctx, j, 1); err != nil {
		t.Fatal(err)
	}
	if _, err := s.UpdateJob(ctx, j.ID, tickets.JobUpdate{From: []tickets.Status{tickets.StatusQueued},
		Status: tickets.StatusFailed, At: now}); err != nil {
		t.Fatal(err)
	}
	if _, err := s.UpdateJob(ctx, j.ID, tickets.JobUpdate{From: []tickets.Status{tickets.StatusFailed},
		Status: tickets.StatusQueued, At: now}); err == nil {
		t.Fatal("UpdateJob from failed to queued succeeded; want an error")
	}
	if st, err := s.JobStatus(ctx, j.ID); err != nil || st != tickets.StatusFailed {
		t.Fatalf("status after the refused update = %q, %v; want failed", st, err)
	}
}
