package postgres_test

import (
	"testing"

	"github.com/foresight-dev/foresight/internal/ledger"
	"github.com/foresight-dev/foresight/internal/ledger/ledgertest"
	"github.com/foresight-dev/foresight/internal/postgres/pgtest"
)

func BenchmarkLedger(b *testing.B) {
	ledgertest.Benchmark(b, openBench(b).LedgerStore())
}

// TestLedgerTwoNodes runs the 200 concurrent debits through two processes'
// stores on one database, as two nodes would.
func TestLedgerTwoNodes(t *testing.T) {
	t.Parallel()
	url := pgtest.NewDatabase(t)
	var stores []ledger.Store
	for range 2 {
		db := openDB(t, url)
		t.Cleanup(func() { db.Close() })
		stores = append(stores, db.LedgerStore())
	}
	ledgertest.ConcurrentDebits(t, stores...)
}
