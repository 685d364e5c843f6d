package poll

import (
	"context"
	"errors"
	"testing"
	"time"
)

func TestUntil(t *testing.T) {
	t.Parallel()
	n := 0
	if err := Until(context.Background(), time.Minute, func() bool { n++; return n == 3 }); err != nil || n != 3 {
		t.Errorf("Until = %v after %d looks, want nil after 3", err, n)
	}
	if err := Until(context.Background(), 0, func() bool { return false }); !errors.Is(err, ErrTimedOut) {
		t.Errorf("Until past its limit = %v, want ErrTimedOut", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := Until(ctx, time.Minute, func() bool { return false }); !errors.Is(err, context.Canceled) {
		t.Errorf("Until with an ended context = %v, want context.Canceled", err)
	}
}

func TestPauseLate(t *testing.T) {
	t.Parallel()
	late := errors.New("late")
	if err := Pause(context.Background(), time.Now().Add(-time.Hour), time.Minute, late); err != late {
		t.Errorf("Pause past the limit = %v, want the late error", err)
	}
}
