package loadtest

import (
	"os"
	"runtime/pprof"
)

// StartCPUProfile writes a CPU profile of this process to a new file at
// path until stop. It fails when the file cannot be created or a profile
// is already running.
func StartCPUProfile(path string) (stop func(), err error) {
	f, err := os.Create(path)
	if err != nil {
		return nil, err
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		f.Close()
		return nil, err
	}
	return func() { pprof.StopCPUProfile(); f.Close() }, nil
}
