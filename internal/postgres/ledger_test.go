package postgres_test

import (
	"context"
	"testing"

	"github.com/foresight-dev/foresight/internal/ledger"
	"github.com/foresight-dev/foresight/internal/ledger/ledgertest"
	"github.com/foresight-dev/foresight/internal/postgres"
	"github.com/foresight-dev/foresight/internal/postgres/pgtest"
)

func BenchmarkLedger(b *testing.B) {
	db, err := postgres.Open(context.Background(), pgtest.NewDatabase(b), nil)
	if err != nil {
		b.Fatal(err)
	}
	defer db.Close()
	ledgertest.Benchmark(b, db.LedgerStore())
}

// TestLedgerTwoNodes runs the 200 concurrent debits through two processes'
// stores on one database, as two nodes would.
func TestLedgerTwoNodes(t *testing.T) {
	t.Parallel()
	url := pgtest.NewDatabase(t)
	var stores []ledger.Store
	for range 2 {
		db, err := postgres.Open(context.Background(), url, nil)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { db.Close() })
		stores = append(stores, db.LedgerStore())
	}
	ledgertest.ConcurrentDebits(t, stores...)
}
