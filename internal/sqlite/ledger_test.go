package sqlite_test

import (
	"testing"

	"github.com/foresight-dev/foresight/internal/ledger/ledgertest"
)

func BenchmarkLedger(b *testing.B) {
	ledgertest.Benchmark(b, openBench(b).LedgerStore())
}
