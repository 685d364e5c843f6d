package sqlite_test

import (
	"path/filepath"
	"testing"

	"github.com/foresight-dev/foresight/internal/ledger/ledgertest"
)

func BenchmarkLedger(b *testing.B) {
	db := openDB(b, filepath.Join(b.TempDir(), "bench.db"))
	defer db.Close()
	ledgertest.Benchmark(b, db.LedgerStore())
}
