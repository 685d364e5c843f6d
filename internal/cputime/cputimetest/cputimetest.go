// Package cputimetest reports the process's CPU time per operation from
// benchmarks; it is apart from package cputime so that the binary, whose
// load runs read cputime, does not link package testing.
package cputimetest

import (
	"testing"
	"time"

	"github.com/foresight-dev/foresight/internal/cputime"
)

// ReportPerOp reports, as the benchmark metric "cpu-ns/op", the CPU time
// the process used since start (a cputime.Process reading) divided by
// b.N. It reports nothing where the CPU time is unknown or none was used
// (cputime.Process is zero where the system does not answer).
func ReportPerOp(b *testing.B, start time.Duration) {
	b.Helper()
	if used := cputime.Process() - start; used > 0 {
		b.ReportMetric(float64(used.Nanoseconds())/float64(b.N), "cpu-ns/op")
	}
}
