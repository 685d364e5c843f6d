package postgres_test

import (
	"context"
	"os"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/riverqueue/river/riverdriver/riverpgxv5"

	"github.com/foresight-dev/foresight/internal/enginetest"
	"github.com/foresight-dev/foresight/internal/jobqueue/jobqueuetest"
	"github.com/foresight-dev/foresight/internal/postgres"
	"github.com/foresight-dev/foresight/internal/postgres/pgtest"
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
		db, err := postgres.Open(context.Background(), url, nil)
		if err != nil {
			t.Fatal(err)
		}
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
	db, err := postgres.Open(context.Background(), pgtest.NewDatabase(b), nil)
	if err != nil {
		b.Fatal(err)
	}
	defer db.Close()
	storetest.BenchmarkCreateJob(b, db.TicketStore())
}
