package betting

import (
	"context"
	"fmt"
	"sync"
	"time"
)

// DefaultCacheTTL bounds how long a cached operator or event is trusted
// without a change notification (Service.SetCacheTTL changes it): changes
// made here or announced by another node (Changed, Refresh) refresh the
// cache at once; the TTL covers notifications lost while a node
// reconnects.
const DefaultCacheTTL = 2 * time.Second

// cacheSize is how many operators, events or unknown operator ids the
// cache holds before a put sweeps out the expired ones, at most once per
// DefaultCacheTTL so that a cache of live entries is not swept on every put.
// Unknown ids come from bettors' tokens, so their map is also capped: past
// cacheSize unexpired entries, new misses are simply not remembered.
const cacheSize = 10_000

// sweepClock says when a map of n entries is due for a sweep: at cacheSize
// entries and once per DefaultCacheTTL.
type sweepClock struct{ last time.Time }

func (c *sweepClock) due(n int, now time.Time) bool {
	if n < cacheSize || now.Sub(c.last) < DefaultCacheTTL {
		return false
	}
	c.last = now
	return true
}

type cached[T any] struct {
	v  T
	at time.Time
}

// catalogCache keeps recently read operators and events in memory, for
// the request path (pricing a new bet, showing events) and the checks of
// a placement before its debit. The check after the debit, which decides
// whether a debited bet stands, reads the database.
type catalogCache struct {
	mu        sync.Mutex
	operators map[string]cached[Operator]
	events    map[string]cached[Event]
	markets   map[string]string // market id → event id
	// unknownOperators remembers operator ids the store did not have, so
	// tokens naming an unknown issuer do not each cost a database read.
	unknownOperators map[string]time.Time
	// integrations caches the operators of one integration, the signers the
	// aggregator endpoints try before they know who is calling.
	integrations map[string]cached[[]Operator]

	operatorSweep, eventSweep, unknownSweep sweepClock
	ttl                                     time.Duration
}

func newCatalogCache(ttl time.Duration) *catalogCache {
	return &catalogCache{ttl: ttl, operators: map[string]cached[Operator]{}, events: map[string]cached[Event]{}, markets: map[string]string{},
		unknownOperators: map[string]time.Time{}, integrations: map[string]cached[[]Operator]{}}
}

// integration returns the cached operators of an integration; hit is
// false when the cache cannot answer.
func (c *catalogCache) integration(name string, now time.Time) (ops []Operator, hit bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	e, ok := c.integrations[name]
	return e.v, ok && now.Sub(e.at) < c.ttl
}

func (c *catalogCache) putIntegration(name string, ops []Operator, now time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.integrations[name] = cached[[]Operator]{ops, now}
}

// operator returns a cached operator; known is false when id is remembered
// as unknown, hit false when the cache cannot answer.
func (c *catalogCache) operator(id string, now time.Time) (o Operator, known, hit bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if at, ok := c.unknownOperators[id]; ok && now.Sub(at) < c.ttl {
		return Operator{}, false, true
	}
	e, ok := c.operators[id]
	return e.v, true, ok && now.Sub(e.at) < c.ttl
}

func (c *catalogCache) putOperator(o Operator, now time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	delete(c.unknownOperators, o.ID)
	clear(c.integrations) // o may have joined, left or changed an integration's list
	if c.operatorSweep.due(len(c.operators), now) {
		sweep(c.operators, func(e cached[Operator]) bool { return now.Sub(e.at) >= c.ttl })
	}
	c.operators[o.ID] = cached[Operator]{o, now}
}

func (c *catalogCache) putUnknownOperator(id string, now time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.unknownSweep.due(len(c.unknownOperators), now) {
		sweep(c.unknownOperators, func(at time.Time) bool { return now.Sub(at) >= c.ttl })
	}
	if len(c.unknownOperators) >= cacheSize {
		return
	}
	c.unknownOperators[id] = now
}

// sweep deletes the entries of m for which expired is true.
func sweep[K comparable, V any](m map[K]V, expired func(V) bool) {
	for k, v := range m {
		if expired(v) {
			delete(m, k)
		}
	}
}

func (c *catalogCache) event(id string, now time.Time) (Event, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	e, ok := c.events[id]
	return e.v, ok && now.Sub(e.at) < c.ttl
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
	if c.eventSweep.due(len(c.events), now) {
		sweep(c.events, func(e cached[Event]) bool { return now.Sub(e.at) >= c.ttl })
		sweep(c.markets, func(eventID string) bool { _, ok := c.events[eventID]; return !ok })
	}
	c.events[e.ID] = cached[Event]{e, now}
	for _, m := range e.Markets {
		c.markets[m.ID] = e.ID
	}
}

// CachedOperator returns an operator from the cache or the store. An id
// the store did not have is remembered for the cache's TTL: asking again within
// it answers not found without reading the store, unless the operator was
// created on this node meanwhile. An id no operator can have (see
// Operator.Validate: 1 to 63 lowercase letters, digits, '-' or '_') is
// not found without reading the store or caching it, and the error does
// not repeat it: clients send any id in a URL or a token.
func (s *Service) CachedOperator(ctx context.Context, id string) (Operator, error) {
	if !operatorID.MatchString(id) {
		return Operator{}, &Error{Code: ErrNotFound, Message: "no operator has that id: an operator id is 1 to 63 lowercase letters, digits, '-' or '_'"}
	}
	now := s.Now()
	if o, known, hit := s.cache.operator(id, now); hit {
		if !known {
			return Operator{}, &Error{Code: ErrNotFound, Message: "no operator " + id}
		}
		return o, nil
	}
	o, err := s.store.GetOperator(ctx, id)
	switch {
	case err == nil:
		s.cache.putOperator(o, now)
	case IsNotFound(err):
		s.cache.putUnknownOperator(id, now)
	}
	return o, err
}

// CachedIntegration returns the operators of an integration
// (IntegrationAggregator, …), from the cache or the store: for the
// endpoints that find their caller by trying each operator's secret, so
// that an unauthenticated request costs no database read. An operator
// created or changed on this node is seen at once, on another node within
// the cache's TTL.
func (s *Service) CachedIntegration(ctx context.Context, integration string) ([]Operator, error) {
	now := s.Now()
	if ops, hit := s.cache.integration(integration, now); hit {
		return ops, nil
	}
	all, err := s.store.ListOperators(ctx)
	if err != nil {
		return nil, err
	}
	ops := make([]Operator, 0, len(all))
	for _, o := range all {
		if o.Integration == integration {
			ops = append(ops, o)
		}
	}
	s.cache.putIntegration(integration, ops, now)
	return ops, nil
}

// CachedEvent returns an event from the cache or the store.
func (s *Service) CachedEvent(ctx context.Context, id string) (Event, error) {
	return s.eventThroughCache(ctx, id, s.cache.event, s.store.GetEvent)
}

// cachedEventOfMarket returns the event of a market from the cache or the
// store.
func (s *Service) cachedEventOfMarket(ctx context.Context, marketID string) (Event, error) {
	return s.eventThroughCache(ctx, marketID, s.cache.eventOfMarket, s.store.EventOfMarket)
}

// eventThroughCache returns the event cached under key, or the one load
// reads from the store, which the cache then keeps. An error of load is
// returned as is and nothing is cached.
func (s *Service) eventThroughCache(ctx context.Context, key string, cached func(key string, now time.Time) (Event, bool),
	load func(ctx context.Context, key string) (Event, error)) (Event, error) {
	now := s.Now()
	if e, ok := cached(key, now); ok {
		return e, nil
	}
	e, err := load(ctx, key)
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

// CatalogChange names an operator or an event that another node changed.
type CatalogChange struct {
	Kind string // ChangedOperator or ChangedEvent
	ID   string
}

// Kinds of CatalogChange.
const (
	ChangedOperator = "operator"
	ChangedEvent    = "event"
)

// Refresh reads a changed operator or event from the store into the
// cache; a changed event also goes to the odds streams.
func (s *Service) Refresh(ctx context.Context, c CatalogChange) error {
	switch c.Kind {
	case ChangedOperator:
		o, err := s.store.GetOperator(ctx, c.ID)
		if err != nil {
			return err
		}
		s.cache.putOperator(o, s.Now())
	case ChangedEvent:
		e, err := s.store.GetEvent(ctx, c.ID)
		if err != nil {
			return err
		}
		s.Changed(e)
	default:
		return fmt.Errorf("unknown catalog change %q", c.Kind)
	}
	return nil
}
