//go:build unix

package heuristic

import (
	"syscall"
	"time"
)

// processCPU is the CPU time the test process has used, user and system.
// On a shared machine it measures a benchmark's work better than the wall
// clock, which counts the time other processes held the cores.
func processCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
