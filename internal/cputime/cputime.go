// Package cputime reads the CPU time the process has used, which measures
// a benchmark's or a load run's own work better than the wall clock on a
// shared machine: the wall clock also counts the time other processes held
// the cores.
package cputime

import (
	"testing"
	"time"
)

// ReportPerOp reports, as the benchmark metric "cpu-ns/op", the CPU time
// the process used since start (a Process reading) divided by b.N. It
// reports nothing where the CPU time is unknown (Process is zero).
func ReportPerOp(b *testing.B, start time.Duration) {
	b.Helper()
	if used := Process() - start; used > 0 {
		b.ReportMetric(float64(used.Nanoseconds())/float64(b.N), "cpu-ns/op")
	}
}
