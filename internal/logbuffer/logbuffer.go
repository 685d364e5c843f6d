// Package logbuffer is a log destination that a test shares with the code
// it runs: the code writes from its own goroutines while the test reads.
package logbuffer

import (
	"bytes"
	"sync"
)

// Buffer collects what is written to it; Write and String may be called
// from any goroutine. The zero value is an empty buffer.
type Buffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

// Write appends p; it never fails.
func (b *Buffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

// String returns everything written so far.
func (b *Buffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}
