package betting

import (
	"context"
	"sync"
	"time"
)

// cacheTTL bounds how long a cached operator or event is trusted without
// a change notification: changes made here or announced by another node
// (Changed) refresh the cache at once; the TTL covers notifications lost
// while a node reconnects.
const cacheTTL = 2 * time.Second

type cached[T any] struct {
	v  T
	at time.Time
}

// catalogCache keeps recently read operators and events in memory, for
// the request path (pricing a new bet, showing events). Placement jobs
// read the database.
type catalogCache struct {
	mu        sync.Mutex
	operators map[string]cached[Operator]
	events    map[string]cached[Event]
	markets   map[string]string // market id → event id
}

func newCatalogCache() *catalogCache {
	return &catalogCache{operators: map[string]cached[Operator]{}, events: map[string]cached[Event]{}, markets: map[string]string{}}
}

func (c *catalogCache) operator(id string, now time.Time) (Operator, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	o, ok := c.operators[id]
	return o.v, ok && now.Sub(o.at) < cacheTTL
}

func (c *catalogCache) putOperator(o Operator, now time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.operators[o.ID] = cached[Operator]{o, now}
}

func (c *catalogCache) event(id string, now time.Time) (Event, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	e, ok := c.events[id]
	return e.v, ok && now.Sub(e.at) < cacheTTL
}

func (c *catalogCache) eventOfMarket(marketID string, now time.Time) (Event, bool) {
	c.mu.Lock()
	id, ok := c.markets[marketID]
	c.mu.Unlock()
	if !ok {
		return Event{}, false
	}
	return c.event(id, now)
}

// putEvent caches e unless a newer version is cached.
func (c *catalogCache) putEvent(e Event, now time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if old, ok := c.events[e.ID]; ok && old.v.UpdatedAt.After(e.UpdatedAt) {
		return
	}
	c.events[e.ID] = cached[Event]{e, now}
	for _, m := range e.Markets {
		c.markets[m.ID] = e.ID
	}
}

// CachedOperator returns an operator from the cache or the store.
func (s *Service) CachedOperator(ctx context.Context, id string) (Operator, error) {
	now := s.Now()
	if o, ok := s.cache.operator(id, now); ok {
		return o, nil
	}
	o, err := s.store.GetOperator(ctx, id)
	if err == nil {
		s.cache.putOperator(o, now)
	}
	return o, err
}

// CachedEvent returns an event from the cache or the store.
func (s *Service) CachedEvent(ctx context.Context, id string) (Event, error) {
	now := s.Now()
	if e, ok := s.cache.event(id, now); ok {
		return e, nil
	}
	e, err := s.store.GetEvent(ctx, id)
	if err == nil {
		s.cache.putEvent(e, now)
	}
	return e, err
}

// cachedEventOfMarket returns the event of a market from the cache or the
// store.
func (s *Service) cachedEventOfMarket(ctx context.Context, marketID string) (Event, error) {
	now := s.Now()
	if e, ok := s.cache.eventOfMarket(marketID, now); ok {
		return e, nil
	}
	e, err := s.store.EventOfMarket(ctx, marketID)
	if err == nil {
		s.cache.putEvent(e, now)
	}
	return e, err
}

// Changed records a new version of an event, made here or announced by
// another node: the cache takes it and the odds streams get it.
func (s *Service) Changed(e Event) {
	s.cache.putEvent(e, s.Now())
	s.hub.Publish(e)
}
