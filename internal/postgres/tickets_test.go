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
// batches run apart, and only the per-client lock keeps the check of the
// bound and the insert of one from interleaving with the other's. After
// three of the accepted jobs finish, a second burst may fill exactly their
// places: the stored bound of unfinished jobs is above the true number
// then, and the batches must count again.
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
	const bound = 5
	first := submitBurst(t, stores, c.ID, "first", bound)
	if len(first) != bound {
		t.Fatalf("first burst through two nodes with a bound of %d: %d accepted", bound, len(first))
	}
	for _, id := range first[:3] {
		if _, err := stores[0].UpdateJob(ctx, id, tickets.JobUpdate{From: []tickets.Status{tickets.StatusQueued},
			Status: tickets.StatusCompleted, Stage: tickets.StageCompleted, Result: []byte(`{}`), At: time.Now()}); err != nil {
			t.Fatal(err)
		}
	}
	if second := submitBurst(t, stores, c.ID, "second", bound); len(second) != 3 {
		t.Errorf("second burst after 3 of %d jobs finished: %d accepted, want 3", bound, len(second))
	}
}

// submitBurst submits 60 jobs for the client at once, alternating between
// the stores, and returns the ids of those accepted.
func submitBurst(t *testing.T, stores [2]tickets.Store, clientID, prefix string, bound int) []string {
	t.Helper()
	const tries = 60
	type result struct {
		id  string
		err error
	}
	results := make(chan result, tries)
	for i := range tries {
		go func() {
			now := time.Now().UTC().Truncate(time.Microsecond)
			j := tickets.Job{ID: uuid.NewString(), ClientID: clientID, IdempotencyKey: fmt.Sprint(prefix, "-", i), RequestHash: "h",
				Request: tickets.Request{Title: "t", Spec: "s"}, Status: tickets.StatusQueued, Stage: tickets.StageQueued,
				CreatedAt: now, UpdatedAt: now, ExpiresAt: now.Add(time.Hour)}
			_, _, err := stores[i%2].CreateJob(context.Background(), j, bound)
			results <- result{j.ID, err}
		}()
	}
	var accepted []string
	for range tries {
		switch r := <-results; {
		case r.err == nil:
			accepted = append(accepted, r.id)
		case !errors.Is(r.err, tickets.ErrQueueFull):
			t.Fatalf("%s burst: %v", prefix, r.err)
		}
	}
	return accepted
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
