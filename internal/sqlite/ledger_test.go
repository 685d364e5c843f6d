package sqlite_test

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/foresight-dev/foresight/internal/ledger/ledgertest"
	"github.com/foresight-dev/foresight/internal/sqlite"
)

func BenchmarkLedger(b *testing.B) {
	db, err := sqlite.Open(context.Background(), filepath.Join(b.TempDir(), "bench.db"), nil)
	if err != nil {
		b.Fatal(err)
	}
	defer db.Close()
	ledgertest.Benchmark(b, db.LedgerStore())
}
