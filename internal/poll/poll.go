// Package poll is the commands' wait for something another process makes
// true (a server answering, bets settling): look, pause 50 ms, look again,
// until it holds, a time limit passes or the context ends. Tests wait with
// internal/waitfor instead.
package poll

import (
	"context"
	"errors"
	"time"
)

// Interval is the pause between two looks.
const Interval = 50 * time.Millisecond

// ErrTimedOut is Until's error when limit passes first.
var ErrTimedOut = errors.New("timed out")

// Pause waits the Interval between two looks at something that must come
// about within limit of start. It returns ctx's error when ctx ends first,
// and late once limit has passed.
func Pause(ctx context.Context, start time.Time, limit time.Duration, late error) error {
	if time.Since(start) > limit {
		return late
	}
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-time.After(Interval):
		return nil
	}
}

// Until calls ok every Interval until it is true (nil), ctx ends (ctx's
// error) or limit passes (ErrTimedOut).
func Until(ctx context.Context, limit time.Duration, ok func() bool) error {
	start := time.Now()
	for !ok() {
		if err := Pause(ctx, start, limit, ErrTimedOut); err != nil {
			return err
		}
	}
	return nil
}
