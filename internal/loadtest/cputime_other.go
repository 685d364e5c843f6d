//go:build !unix

package loadtest

import "time"

// ProcessCPU is unknown here: zero, and Result.CPU stays zero.
func ProcessCPU() time.Duration { return 0 }
