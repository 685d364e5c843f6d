//go:build !unix

package loadtest

import "time"

// processCPU is unknown here: Result.CPU stays zero.
func processCPU() time.Duration { return 0 }
