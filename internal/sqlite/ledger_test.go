package sqlite_test

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/foresight-dev/foresight/internal/ledger/ledgertest"
	"github.com/foresight-dev/foresight/internal/sqlite"
)

func TestLedgerStore(t *testing.T) {
	t.Parallel()
	ledgertest.Run(t, func(t *testing.T) ledgertest.Database {
		db, exec := openWithExec(t)
		return ledgertest.Database{Store: db.LedgerStore(), Exec: exec}
	})
}

func BenchmarkLedger(b *testing.B) {
	db, err := sqlite.Open(context.Background(), filepath.Join(b.TempDir(), "bench.db"), nil)
	if err != nil {
		b.Fatal(err)
	}
	defer db.Close()
	ledgertest.Benchmark(b, db.LedgerStore())
}
