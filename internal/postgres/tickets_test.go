package postgres_test

import (
	"context"
	"os"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/riverqueue/river/riverdriver/riverpgxv5"

	"github.com/foresight-dev/foresight/internal/aggregator"
	"github.com/foresight-dev/foresight/internal/aggregator/aggregatortest"
	"github.com/foresight-dev/foresight/internal/betting"
	"github.com/foresight-dev/foresight/internal/betting/bettingtest"
	"github.com/foresight-dev/foresight/internal/jobqueue/jobqueuetest"
	"github.com/foresight-dev/foresight/internal/postgres"
	"github.com/foresight-dev/foresight/internal/postgres/pgtest"
	"github.com/foresight-dev/foresight/internal/tickets"
	"github.com/foresight-dev/foresight/internal/tickets/storetest"
)

func TestMain(m *testing.M) { os.Exit(pgtest.Main(m)) }

func TestTicketStore(t *testing.T) {
	t.Parallel()
	storetest.Run(t, func(t *testing.T) tickets.Store {
		db, err := postgres.Open(context.Background(), pgtest.NewDatabase(t), nil)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { db.Close() })
		return db.TicketStore()
	})
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

func TestBettingStore(t *testing.T) {
	t.Parallel()
	bettingtest.Run(t, func(t *testing.T) betting.Store {
		db, err := postgres.Open(context.Background(), pgtest.NewDatabase(t), nil)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { db.Close() })
		return db.BettingStore()
	})
}

func TestBetStore(t *testing.T) {
	t.Parallel()
	bettingtest.RunBets(t, func(t *testing.T) betting.BetStore {
		db, err := postgres.Open(context.Background(), pgtest.NewDatabase(t), nil)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { db.Close() })
		return db.BetStore()
	})
}

func TestAggregatorStore(t *testing.T) {
	t.Parallel()
	aggregatortest.Run(t, func(t *testing.T) aggregator.Store {
		db, err := postgres.Open(context.Background(), pgtest.NewDatabase(t), nil)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { db.Close() })
		return db.AggregatorStore()
	})
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
