package postgres_test

import (
	"testing"

	"github.com/foresight-dev/foresight/internal/audit/audittest"
)

// TestAuditRefusesTruncate: TRUNCATE, which row triggers do not see, is
// refused too.
func TestAuditRefusesTruncate(t *testing.T) {
	t.Parallel()
	_, exec := openWithExec(t)
	if err := exec(`TRUNCATE audit_entries`); err == nil {
		t.Error("TRUNCATE audit_entries: accepted")
	}
}

func BenchmarkAudit(b *testing.B) {
	audittest.Benchmark(b, openBench(b).AuditStore())
}
