package betting

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"
)

func TestCacheRemembersUnknownOperators(t *testing.T) {
	t.Parallel()
	c := newCatalogCache(DefaultCacheTTL)
	t0 := time.Date(2026, 11, 21, 12, 0, 0, 0, time.UTC)
	if _, _, hit := c.operator("ghost", t0); hit {
		t.Fatal("an empty cache answered")
	}
	c.putUnknownOperator("ghost", t0)
	if _, known, hit := c.operator("ghost", t0.Add(time.Second)); !hit || known {
		t.Errorf("within the TTL: known %v hit %v, want a remembered miss", known, hit)
	}
	if _, _, hit := c.operator("ghost", t0.Add(DefaultCacheTTL)); hit {
		t.Error("a miss was remembered past the TTL")
	}
	c.putOperator(Operator{ID: "ghost"}, t0.Add(time.Second))
	if o, known, hit := c.operator("ghost", t0.Add(time.Second)); !hit || !known || o.ID != "ghost" {
		t.Errorf("a created operator is still unknown: %v %v %v", o.ID, known, hit)
	}
}

// An integration's operator list is trusted for the TTL and dropped when
// an operator is put: created or changed here, or refreshed from another
// node's notice.
func TestCacheKeepsIntegrationListsUntilAnOperatorChanges(t *testing.T) {
	t.Parallel()
	c := newCatalogCache(DefaultCacheTTL)
	t0 := time.Date(2026, 11, 21, 12, 0, 0, 0, time.UTC)
	if _, hit := c.integration(IntegrationAggregator, t0); hit {
		t.Fatal("an empty cache answered")
	}
	c.putIntegration(IntegrationAggregator, []Operator{{ID: "agg"}}, t0)
	if ops, hit := c.integration(IntegrationAggregator, t0.Add(time.Second)); !hit || len(ops) != 1 {
		t.Errorf("within the TTL: %v %v, want the list", ops, hit)
	}
	if _, hit := c.integration(IntegrationAggregator, t0.Add(DefaultCacheTTL)); hit {
		t.Error("the list was trusted past the TTL")
	}
	c.putIntegration(IntegrationAggregator, []Operator{{ID: "agg"}}, t0)
	c.putOperator(Operator{ID: "agg2", Integration: IntegrationAggregator}, t0)
	if _, hit := c.integration(IntegrationAggregator, t0); hit {
		t.Error("the list outlived a change of an operator")
	}
}

// The maps stay bounded: a put past cacheSize sweeps the expired entries,
// and unknown ids past cacheSize live ones are not remembered.
func TestCacheIsBounded(t *testing.T) {
	t.Parallel()
	c := newCatalogCache(DefaultCacheTTL)
	t0 := time.Date(2026, 11, 21, 12, 0, 0, 0, time.UTC)
	for i := range cacheSize {
		c.putUnknownOperator(fmt.Sprint("u", i), t0)
		c.putEvent(Event{ID: fmt.Sprint("e", i), Markets: []Market{{ID: fmt.Sprint("m", i)}}}, t0)
	}
	c.putUnknownOperator("one-more", t0)
	if _, _, hit := c.operator("one-more", t0); hit || len(c.unknownOperators) != cacheSize {
		t.Errorf("unknown ids grew to %d past the cap", len(c.unknownOperators))
	}

	later := t0.Add(DefaultCacheTTL)
	c.putUnknownOperator("fresh", later)
	c.putEvent(Event{ID: "fresh", Markets: []Market{{ID: "fresh-market"}}}, later)
	if len(c.unknownOperators) != 1 || len(c.events) != 1 || len(c.markets) != 1 {
		t.Errorf("after the sweep: %d unknown ids, %d events, %d markets; want 1 each",
			len(c.unknownOperators), len(c.events), len(c.markets))
	}
	if e, ok := c.eventOfMarket("fresh-market", later); !ok || e.ID != "fresh" {
		t.Errorf("the fresh event is gone: %v %v", e.ID, ok)
	}
}

func TestHubForgetsOldVersions(t *testing.T) {
	t.Parallel()
	h := NewHub()
	t0 := time.Date(2026, 11, 21, 12, 0, 0, 0, time.UTC)
	for i := range cacheSize {
		h.Publish(Event{ID: fmt.Sprint("e", i), UpdatedAt: t0})
	}
	ch, stop := h.Subscribe()
	defer stop()
	h.Publish(Event{ID: "e0", UpdatedAt: t0}) // an echo: not published again
	h.Publish(Event{ID: "new", UpdatedAt: t0.Add(hubMemory + time.Second)})
	if len(h.last) != 1 {
		t.Errorf("the hub remembers %d versions, want 1", len(h.last))
	}
	if got := (<-ch).Event.ID; got != "new" || len(ch) != 0 {
		t.Errorf("published %q and %d more, want only new", got, len(ch))
	}
}

// A full map of live entries is swept at most once per DefaultCacheTTL, not on
// every put.
func TestSweepClock(t *testing.T) {
	t.Parallel()
	var c sweepClock
	t0 := time.Date(2026, 11, 21, 12, 0, 0, 0, time.UTC)
	for _, tt := range []struct {
		n    int
		at   time.Time
		want bool
	}{
		{cacheSize - 1, t0, false},
		{cacheSize, t0, true},
		{cacheSize, t0.Add(DefaultCacheTTL - time.Millisecond), false},
		{cacheSize + 1, t0.Add(DefaultCacheTTL), true},
	} {
		if got := c.due(tt.n, tt.at); got != tt.want {
			t.Errorf("due(%d, t0+%v) = %v, want %v", tt.n, tt.at.Sub(t0), got, tt.want)
		}
	}
}

// A subscriber hubBuffer changes behind is dropped (its channel closed)
// and counted; one that keeps up stays.
func TestHubDropsASubscriberThatFallsBehind(t *testing.T) {
	t.Parallel()
	h := NewHub()
	slow, stopSlow := h.Subscribe()
	defer stopSlow()
	fast, stopFast := h.Subscribe()
	defer stopFast()
	t0 := time.Date(2026, 11, 26, 12, 0, 0, 0, time.UTC)
	for i := range hubBuffer + 1 {
		h.Publish(Event{ID: "e", UpdatedAt: t0.Add(time.Duration(i) * time.Second)})
		<-fast
	}
	for range hubBuffer {
		<-slow
	}
	if _, open := <-slow; open {
		t.Error("the subscriber that fell behind is still subscribed")
	}
	if got := h.Dropped(); got != 1 {
		t.Errorf("Dropped() = %d, want 1", got)
	}
	if got := h.Subscribers(); got != 1 {
		t.Errorf("%d subscribers, want the one that kept up", got)
	}
}

// operatorReads is a Store that counts GetOperator calls and has no
// operator; any other call panics.
type operatorReads struct {
	Store
	n int
}

func (s *operatorReads) GetOperator(_ context.Context, id string) (Operator, error) {
	s.n++
	return Operator{}, NotFound("operator", id)
}

// An id no operator can have is not found without a store read, is not
// remembered (a client sent 500 ids of 900 KB and the process kept them),
// and the error does not repeat it; an id that could be an operator's is
// read and remembered.
func TestCachedOperatorRefusesImpossibleIDs(t *testing.T) {
	t.Parallel()
	store := &operatorReads{}
	svc := NewService(store, false)
	for _, id := range []string{strings.Repeat("a", 64), strings.Repeat("a", 900<<10), "Upper", "", "-lead", "a b"} {
		_, err := svc.CachedOperator(context.Background(), id)
		var e *Error
		if !errors.As(err, &e) || e.Code != ErrNotFound || (len(id) > 5 && strings.Contains(e.Message, id)) {
			t.Errorf("CachedOperator(%.20q…) = %v, want not found without the id", id, err)
		}
	}
	if store.n != 0 || len(svc.cache.unknownOperators) != 0 {
		t.Errorf("impossible ids: %d store reads, %d remembered; want none", store.n, len(svc.cache.unknownOperators))
	}
	id := strings.Repeat("a", 63)
	for range 2 {
		if _, err := svc.CachedOperator(context.Background(), id); ErrorCodeOf(err) != ErrNotFound {
			t.Fatalf("CachedOperator(63 letters) = %v, want not found", err)
		}
	}
	if store.n != 1 || len(svc.cache.unknownOperators) != 1 {
		t.Errorf("a possible id: %d store reads, %d remembered; want 1 and 1", store.n, len(svc.cache.unknownOperators))
	}
}
