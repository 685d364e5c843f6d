// Package waitfor is the tests' one bounded wait for a condition that
// another goroutine, server or process makes true: it polls the condition,
// first every millisecond and then less often (up to every 50 ms), until
// it holds or Bound passes. Bound is generous because the machines that
// run the tests are loaded: reaching it is a failure report, never a
// timing assertion. Where the code under test offers an event (a channel,
// a callback, a counter) a test waits on that instead.
package waitfor

import (
	"fmt"
	"testing"
	"time"
)

// Bound is how long a wait lasts at most.
const Bound = 30 * time.Second

// Poll intervals: the first, and the most the interval grows to.
const (
	firstInterval = time.Millisecond
	maxInterval   = 50 * time.Millisecond
)

// Check polls check until it returns nil. When Bound passes first, it
// fails t with check's last error, which should say what was seen and what
// was awaited.
func Check(t testing.TB, check func() error) {
	t.Helper()
	if err := poll(Bound, check); err != nil {
		t.Fatalf("waited %s: %v", Bound, err)
	}
}

// True polls ok until it returns true. When Bound passes first, it fails
// t saying that what did not happen.
func True(t testing.TB, what string, ok func() bool) {
	t.Helper()
	Check(t, func() error {
		if ok() {
			return nil
		}
		return fmt.Errorf("%s did not happen", what)
	})
}

// poll calls check until it returns nil or bound passes, and returns its
// last error.
func poll(bound time.Duration, check func() error) error {
	deadline := time.Now().Add(bound)
	interval := firstInterval
	for {
		err := check()
		if err == nil || time.Now().After(deadline) {
			return err
		}
		time.Sleep(interval)
		interval = min(2*interval, maxInterval)
	}
}
