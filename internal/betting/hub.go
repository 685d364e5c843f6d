package betting

import (
	"sync"
	"time"
)

// Hub fans catalog changes out to the subscribers of this process (the
// odds streams). A subscriber that falls behind is dropped: its channel is
// closed and its client reconnects and reads the event again.
type Hub struct {
	mu   sync.Mutex
	subs map[chan Event]struct{}
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
func NewHub() *Hub { return &Hub{subs: map[chan Event]struct{}{}, last: map[string]time.Time{}} }

// hubBuffer is how many changes a subscriber may lag behind.
const hubBuffer = 256

// Subscribe returns a channel of changed events and a function that ends
// the subscription; the channel is closed when the subscription ends or
// the subscriber falls behind.
func (h *Hub) Subscribe() (<-chan Event, func()) {
	ch := make(chan Event, hubBuffer)
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
	for ch := range h.subs {
		select {
		case ch <- e:
		default:
			delete(h.subs, ch)
			close(ch)
		}
	}
}

// Subscribers counts the current subscribers.
func (h *Hub) Subscribers() int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return len(h.subs)
}
