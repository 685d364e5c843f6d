package sqlite_test

import (
	"path/filepath"
	"testing"

	"github.com/foresight-dev/foresight/internal/audit/audittest"
)

func BenchmarkAudit(b *testing.B) {
	db := openDB(b, filepath.Join(b.TempDir(), "bench.db"))
	defer db.Close()
	audittest.Benchmark(b, db.AuditStore())
}
