package betting

import (
	"crypto/rand"
	"encoding/hex"
	"sync"
	"sync/atomic"
	"time"
)

// Hub fans catalog changes out to the subscribers of this process (the
// odds streams). A subscriber that falls behind is dropped: its channel is
// closed and its client reconnects, resuming after the last change it
// read (Resume) while the hub still holds the changes it missed.
//
// Every published change takes the next position of the hub (1, 2, …);
// positions are this process's alone, so the hub has an epoch, random per
// hub, that tells them from another process's or from this process's
// before a restart.
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
	epoch     string
	// seq is the position of the last change published; recent holds the
	// last hubReplay changes, the change at position p in
	// recent[p%hubReplay].
	seq    uint64
	recent []*Change
	// closed is set by Close: every subscription ends at once.
	closed bool
}

// hubReplay is how many of the last changes the hub holds for subscribers
// that resume (Resume): a subscriber that missed more gets none of them.
const hubReplay = 1024

// hubMemory is how long the hub remembers an event's last version once it
// holds cacheSize of them: an echo arrives within seconds, and one later
// than this is published again, with a market_version the client has seen.
const hubMemory = time.Minute

// NewHub returns an empty hub.
func NewHub() *Hub {
	var b [8]byte
	rand.Read(b[:])
	return &Hub{subs: map[chan *Change]struct{}{}, last: map[string]time.Time{}, epoch: hex.EncodeToString(b[:]), recent: make([]*Change, hubReplay)}
}

// Epoch names this hub's positions: no other hub has the same.
func (h *Hub) Epoch() string { return h.epoch }

// hubBuffer is how many changes a subscriber may lag behind.
const hubBuffer = 256

// Change is one published version of an event, the same value for every
// subscriber: what subscribers derive from it alike (an encoding of its
// odds for one margin) is computed once for all of them with Memo.
type Change struct {
	Event Event
	// Seq is the change's position in its hub.
	Seq  uint64
	memo memo
}

// Memo returns the value kept on the change under key, computing it with
// compute the first time; callers asking at once for the same key wait
// for one computation.
func (c *Change) Memo(key string, compute func(Event) any) any {
	return c.memo.get(key, func() any { return compute(c.Event) })
}

// memo keeps values computed once under their keys.
type memo struct {
	mu      sync.Mutex
	entries map[string]*memoEntry
}

// memoEntry is one value of a memo, computed once.
type memoEntry struct {
	once  sync.Once
	value any
}

// get returns the value under key, computing it the first time.
func (m *memo) get(key string, compute func() any) any {
	m.mu.Lock()
	if m.entries == nil {
		m.entries = map[string]*memoEntry{}
	}
	e := m.entries[key]
	if e == nil {
		e = &memoEntry{}
		m.entries[key] = e
	}
	m.mu.Unlock()
	e.once.Do(func() { e.value = compute() })
	return e.value
}

// Subscribe returns a channel of changed events and a function that ends
// the subscription; the channel is closed when the subscription ends,
// the subscriber falls behind or the hub closes.
func (h *Hub) Subscribe() (<-chan *Change, func()) {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.subscribe()
}

// Subscription is a subscriber of a hub, started by Resume.
type Subscription struct {
	// Changes are the changes published after position At; the channel is
	// closed when the subscription ends (Stop), falls behind or the hub
	// closes (Close).
	Changes <-chan *Change
	// At is the position of the last change published before the
	// subscription.
	At uint64
	// Resumed reports that the hub held every change after the position
	// asked for; Missed are those up to At, oldest first. When Resumed is
	// false, Missed is empty and the subscriber needs a snapshot of the
	// catalog read after At.
	Resumed bool
	Missed  []*Change
	// Stop ends the subscription.
	Stop func()
}

// Resume subscribes and returns the changes published after position
// after of the hub named epoch, which the subscriber has not read. It
// resumes only when epoch is this hub's and the hub still holds every
// change after after (the last hubReplay changes); otherwise Resumed is
// false. An empty epoch asks for no change: a new subscriber.
func (h *Hub) Resume(epoch string, after uint64) Subscription {
	h.mu.Lock()
	defer h.mu.Unlock()
	ch, stop := h.subscribe()
	s := Subscription{Changes: ch, At: h.seq, Stop: stop}
	if epoch != h.epoch || after > h.seq || h.seq-after > hubReplay {
		return s
	}
	s.Resumed = true
	for p := after + 1; p <= h.seq; p++ {
		s.Missed = append(s.Missed, h.recent[p%hubReplay])
	}
	return s
}

// subscribe adds a subscriber; h.mu is held. After Close its channel
// is closed already.
func (h *Hub) subscribe() (<-chan *Change, func()) {
	ch := make(chan *Change, hubBuffer)
	if h.closed {
		close(ch)
		return ch, func() {}
	}
	h.subs[ch] = struct{}{}
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
	h.seq++
	c := &Change{Event: e, Seq: h.seq}
	h.recent[h.seq%hubReplay] = c
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

// Close ends every subscription, and every later one as it starts: the
// process is stopping, and its streams end so that their clients
// reconnect elsewhere. They are not counted as dropped.
func (h *Hub) Close() {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.closed = true
	for ch := range h.subs {
		delete(h.subs, ch)
		close(ch)
	}
}

// Position is the position of the last change published, 0 before the
// first.
func (h *Hub) Position() uint64 {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.seq
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
