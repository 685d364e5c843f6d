package sqlite_test

import (
	"testing"

	"github.com/foresight-dev/foresight/internal/audit/audittest"
)

func BenchmarkAudit(b *testing.B) {
	audittest.Benchmark(b, openBench(b).AuditStore())
}
