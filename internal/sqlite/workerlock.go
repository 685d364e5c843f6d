//go:build unix

package sqlite

import (
	"errors"
	"fmt"
	"os"
	"syscall"
)

// lockWorkers takes the lock that makes this process the one that works
// the queues of the database at path: a file beside it (path + "-workers")
// under an exclusive flock, which the system releases when the process
// dies, however it dies. release gives it back.
func lockWorkers(path string) (release func(), err error) {
	f, err := os.OpenFile(path+"-workers", os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, fmt.Errorf("lock %s: %w", path, err)
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		f.Close()
		if errors.Is(err, syscall.EWOULDBLOCK) {
			return nil, fmt.Errorf("another process is serving the SQLite database %s (one process owns it; several nodes need PostgreSQL)", path)
		}
		return nil, fmt.Errorf("lock %s: %w", path, err)
	}
	return func() { f.Close() }, nil
}
