package betting

import (
	"context"
	"sync"
	"time"
)

// OddsSnapshot is the catalog's live events (open or suspended, each with
// all its markets) as read from the store after a position of the hub:
// with the changes published after At, a subscriber knows every event's
// current odds. It is shared by the subscribers that need one at about
// the same time; what they derive from it alike is computed once with
// Memo.
type OddsSnapshot struct {
	// At is the hub's position before the read: every change up to it is
	// in Events.
	At     uint64
	Events []Event
	taken  time.Time
	memo   memo
}

// Memo returns the value kept on the snapshot under key, computing it with
// compute the first time; callers asking at once for the same key wait
// for one computation.
func (s *OddsSnapshot) Memo(key string, compute func([]Event) any) any {
	return s.memo.get(key, func() any { return compute(s.Events) })
}

// snapshotReuse is how long a snapshot serves the subscribers that come
// after it while no change was published: events created meanwhile (a
// creation publishes no change) are in the next one.
const snapshotReuse = time.Second

// snapshotTimeLimit bounds one read of the live events.
const snapshotTimeLimit = 10 * time.Second

// snapshotPage is how many events one read of the store returns.
const snapshotPage = 500

// snapshots makes one store read of the live events serve every
// subscriber waiting for a snapshot at once.
type snapshots struct {
	mu   sync.Mutex // held during a read: one at a time
	last *OddsSnapshot
}

// OddsSnapshot returns the live events as read after position after of
// the hub (a Subscription's At), reading them from the store unless the
// last snapshot, younger than a second, was read after it already. Reads
// are one at a time, so the streams that reconnect at once after a
// restart share a few reads.
func (s *Service) OddsSnapshot(ctx context.Context, after uint64) (*OddsSnapshot, error) {
	s.snapshots.mu.Lock()
	defer s.snapshots.mu.Unlock()
	if last := s.snapshots.last; last != nil && last.At >= after && time.Since(last.taken) < snapshotReuse {
		return last, nil
	}
	ctx, cancel := context.WithTimeout(ctx, snapshotTimeLimit)
	defer cancel()
	snap := &OddsSnapshot{At: s.hub.Position(), taken: time.Now()}
	for _, status := range []MarketStatus{StatusOpen, StatusSuspended} {
		f := EventFilter{Status: status, Limit: snapshotPage}
		for {
			page, err := s.store.ListEvents(ctx, f)
			if err != nil {
				return nil, err
			}
			snap.Events = append(snap.Events, page...)
			if len(page) < snapshotPage {
				break
			}
			f.BeforeCreatedAt, f.BeforeID = page[len(page)-1].CreatedAt, page[len(page)-1].ID
		}
	}
	s.snapshots.last = snap
	return snap, nil
}
