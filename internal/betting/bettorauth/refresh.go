package bettorauth

import (
	"context"
	"sync"
	"time"
)

// unknownKIDs decides when a token whose key id is not in an operator's
// key set makes the Validator fetch the operator's JWKS again, and lets
// every token waiting meanwhile share that fetch.
//
// A kid may cause a fetch at most once per perKID, and fetches caused by
// kids begin at least spacing apart. A token whose kid is missing waits
// for the fetch planned or under way, or plans the next one if it can
// begin within maxWait, and is refused at once otherwise. So made-up kids,
// which anyone can put in an unsigned token (the signature cannot be
// checked without the key), cost at most one fetch per spacing, all
// waiting tokens sharing it, and delay the fetch a real new kid needs by
// at most spacing: any fetch reads every key the operator publishes.
type unknownKIDs struct {
	spacing time.Duration
	perKID  time.Duration
	maxWait time.Duration
	// ctx is the key set's: fetches stop when it ends.
	ctx context.Context
	// fetch reads the JWKS again into the key set; it reports its own
	// failures.
	fetch func(ctx context.Context)
	// start runs a fetch in a goroutine its owner waits for when it
	// closes; false means the owner is closed and nothing runs.
	start func(func()) bool

	mu    sync.Mutex
	last  time.Time            // when the last fetch began
	next  *fetchRound          // the fetch planned or under way; nil when none
	tried map[string]time.Time // when each kid last caused a fetch
}

// fetchRound is one fetch that unknown kids caused.
type fetchRound struct {
	at   time.Time     // when it begins
	done chan struct{} // closed when it has ended
}

func newUnknownKIDs(ctx context.Context, spacing, perKID, maxWait time.Duration, start func(func()) bool, fetch func(context.Context)) *unknownKIDs {
	return &unknownKIDs{spacing: spacing, perKID: perKID, maxWait: maxWait, ctx: ctx, start: start, fetch: fetch, tried: map[string]time.Time{}}
}

// await returns a channel closed when the fetch of the JWKS planned or
// under way has ended, after which the caller reads its key set again.
// When there is none, kid plans one, as early as spacing and perKID
// allow; nil means it would begin later than maxWait from now, or that
// the owner is closed.
func (u *unknownKIDs) await(kid string) <-chan struct{} {
	now := time.Now()
	u.mu.Lock()
	defer u.mu.Unlock()
	if u.next != nil {
		return u.next.done
	}
	at := now
	if next := u.last.Add(u.spacing); next.After(at) {
		at = next
	}
	if t, ok := u.tried[kid]; ok && t.Add(u.perKID).After(at) {
		at = t.Add(u.perKID)
	}
	if at.Sub(now) > u.maxWait {
		return nil
	}
	r := &fetchRound{at: at, done: make(chan struct{})}
	if !u.start(func() { u.run(r) }) {
		return nil
	}
	u.next = r
	u.tried[kid] = at
	for k, t := range u.tried {
		if now.Sub(t) >= u.perKID {
			delete(u.tried, k)
		}
	}
	return r.done
}

// run waits for r's time, then fetches.
func (u *unknownKIDs) run(r *fetchRound) {
	defer func() {
		u.mu.Lock()
		u.next = nil
		u.mu.Unlock()
		close(r.done)
	}()
	timer := time.NewTimer(time.Until(r.at))
	defer timer.Stop()
	select {
	case <-timer.C:
	case <-u.ctx.Done():
		return
	}
	u.mu.Lock()
	u.last = time.Now()
	u.mu.Unlock()
	u.fetch(u.ctx)
}
