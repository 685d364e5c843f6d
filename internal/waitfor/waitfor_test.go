package waitfor

import (
	"errors"
	"sync/atomic"
	"testing"
	"time"
)

func TestPollReturnsOnceTheConditionHolds(t *testing.T) {
	t.Parallel()
	var calls atomic.Int32
	err := poll(Bound, func() error {
		if calls.Add(1) < 5 {
			return errors.New("not yet")
		}
		return nil
	})
	if err != nil || calls.Load() != 5 {
		t.Fatalf("poll = %v after %d calls, want nil after 5", err, calls.Load())
	}
}

func TestPollReportsTheLastErrorAtTheBound(t *testing.T) {
	t.Parallel()
	var calls atomic.Int32
	err := poll(time.Millisecond, func() error {
		calls.Add(1)
		return errors.New("balance 90.00, want 100.00")
	})
	if err == nil || err.Error() != "balance 90.00, want 100.00" || calls.Load() < 2 {
		t.Fatalf("poll = %v after %d calls, want the check's error after at least 2", err, calls.Load())
	}
}
