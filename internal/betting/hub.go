package betting

import (
	"sync"
	"sync/atomic"
	"time"
)

// Hub fans catalog changes out to the subscribers of this process (the
// odds streams). A subscriber that falls behind is dropped: its channel is
// closed and its client reconnects and reads the event again.
type Hub struct {
	mu   sync.Mutex
	subs map[chan *Change]struct{}
	// dropped counts the subscribers dropped for falling behind.
	dropped atomic.Int64
	// last is the UpdatedAt of the last published version of each event:
	// a version arriving twice (published here and echoed by the
	// database's notification) or late is not published again. Past
	// cacheSize entries, those older than hubMemory are forgotten.
	last      map[string]time.Time
	lastSweep sweepClock // on the clock of the events' versions
}

// hubMemory is how long the hub remembers an event's last version once it
// holds cacheSize of them: an echo arrives within seconds, and one later
// than this is published again, with a market_version the client has seen.
const hubMemory = time.Minute

// NewHub returns an empty hub.
func NewHub() *Hub { return &Hub{subs: map[chan *Change]struct{}{}, last: map[string]time.Time{}} }

// hubBuffer is how many changes a subscriber may lag behind.
const hubBuffer = 256

// Change is one published version of an event, the same value for every
// subscriber: what subscribers derive from it alike (an encoding of its
// odds for one margin) is computed once for all of them with Memo.
type Change struct {
	Event Event
	mu    sync.Mutex
	memo  map[string]*memoEntry
}

// memoEntry is one value of a Change's memo, computed once.
type memoEntry struct {
	once  sync.Once
	value any
}

// Memo returns the value kept on the change under key, computing it with
// compute the first time; callers asking at once for the same key wait
// for one computation.
func (c *Change) Memo(key string, compute func(Event) any) any {
	c.mu.Lock()
	if c.memo == nil {
		c.memo = map[string]*memoEntry{}
	}
	m := c.memo[key]
	if m == nil {
		m = &memoEntry{}
		c.memo[key] = m
	}
	c.mu.Unlock()
	m.once.Do(func() { m.value = compute(c.Event) })
	return m.value
}

// Subscribe returns a channel of changed events and a function that ends
// the subscription; the channel is closed when the subscription ends or
// the subscriber falls behind.
func (h *Hub) Subscribe() (<-chan *Change, func()) {
	ch := make(chan *Change, hubBuffer)
	h.mu.Lock()
	h.subs[ch] = struct{}{}
	h.mu.Unlock()
	return ch, func() {
		h.mu.Lock()
		defer h.mu.Unlock()
		if _, ok := h.subs[ch]; ok {
			delete(h.subs, ch)
			close(ch)
		}
	}
}

// Publish sends a changed event to every subscriber without waiting,
// unless this version of the event (its UpdatedAt) or a newer one was
// published already.
func (h *Hub) Publish(e Event) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if last, ok := h.last[e.ID]; ok && !e.UpdatedAt.After(last) {
		return
	}
	if h.lastSweep.due(len(h.last), e.UpdatedAt) {
		sweep(h.last, func(at time.Time) bool { return e.UpdatedAt.Sub(at) > hubMemory })
	}
	h.last[e.ID] = e.UpdatedAt
	c := &Change{Event: e}
	for ch := range h.subs {
		select {
		case ch <- c:
		default:
			delete(h.subs, ch)
			close(ch)
			h.dropped.Add(1)
		}
	}
}

// Dropped counts the subscribers dropped since the hub started because
// they fell hubBuffer changes behind.
func (h *Hub) Dropped() int64 { return h.dropped.Load() }

// Subscribers counts the current subscribers.
func (h *Hub) Subscribers() int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return len(h.subs)
}
