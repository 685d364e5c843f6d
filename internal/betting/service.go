package betting

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/google/uuid"
	"github.com/shopspring/decimal"

	"github.com/foresight-dev/foresight/internal/odds"
)

// Store keeps operators and the catalog. Implementations (sqlite,
// postgres) pass the conformance suite in bettingtest.
//
// Errors: *Error with ErrNotFound for a missing row, ErrConflict for an
// insert whose id exists or an update that lost a race; anything else is a
// storage failure.
type Store interface {
	CreateOperator(ctx context.Context, o Operator) error
	GetOperator(ctx context.Context, id string) (Operator, error)
	ListOperators(ctx context.Context) ([]Operator, error)
	// UpdateOperator replaces the stored operator with o if it still equals
	// prev; ErrConflict when another update came first.
	UpdateOperator(ctx context.Context, o, prev Operator) error

	// CreateEvent stores e and, in the same transaction, the first price
	// point of each of its markets (at e.CreatedAt).
	CreateEvent(ctx context.Context, e Event) error
	GetEvent(ctx context.Context, id string) (Event, error)
	// EventOfMarket returns the event a market belongs to.
	EventOfMarket(ctx context.Context, marketID string) (Event, error)
	// UpdateEvent replaces the event when its stored UpdatedAt is still
	// prev (optimistic concurrency), else ErrConflict.
	UpdateEvent(ctx context.Context, e Event, prev time.Time) error
	// ListEvents returns events newest first, filtered.
	ListEvents(ctx context.Context, f EventFilter) ([]Event, error)
	// SettleMarket is UpdateEvent that also enqueues, in the same
	// transaction, the settlement of the market's bets.
	SettleMarket(ctx context.Context, e Event, prev time.Time, marketID string) error
	// RepriceMarket is UpdateEvent that also records, in the same
	// transaction, the market's probabilities in e as its price point at
	// e.UpdatedAt, and thins the market's older points by
	// PriceHistoryRetention: for each tier, of the points recorded in the
	// tier's Window (from the market's previous newest point to this one)
	// it deletes every point that is not the market's first and has a
	// later point of the market in its bucket.
	RepriceMarket(ctx context.Context, e Event, prev time.Time, marketID string) error
	// PriceHistory returns the market's price points in the window of f,
	// oldest first, at most f.Limit; ErrNotFound when no market has the id.
	PriceHistory(ctx context.Context, f PriceHistoryFilter) ([]PricePoint, error)
}

// EventFilter selects events.
type EventFilter struct {
	Category string
	Status   MarketStatus
	// Before continues a listing after the event with this creation time
	// and id.
	BeforeCreatedAt time.Time
	BeforeID        string
	Limit           int
}

// Service implements the operator and catalog rules.
type Service struct {
	store         Store
	allowInsecure bool
	hub           *Hub
	cache         *catalogCache
	prices        *versionCache[priceHistoryKey, []DisplayPrice]
	histories     *versionCache[string, []PricePoint]
	snapshots     snapshots
	// OwnOrigin is the platform's own origin (scheme://host[:port] of its
	// public URL). An image URL on it is accepted over http too: the widget
	// that shows it is served from that same origin, and the simulator feed
	// serves its images there.
	OwnOrigin string
	// Now returns the current time; tests may replace it.
	Now func() time.Time
}

// NewService returns a Service; allowInsecure permits http:// partner
// URLs.
func NewService(store Store, allowInsecure bool) *Service {
	return &Service{store: store, allowInsecure: allowInsecure, hub: NewHub(), cache: newCatalogCache(DefaultCacheTTL),
		prices:    newVersionCache[priceHistoryKey, []DisplayPrice](priceHistoryCacheSize),
		histories: newVersionCache[string, []PricePoint](marketHistoryCacheSize), Now: time.Now}
}

// SetCacheTTL sets how long a cached operator or event is trusted without
// a change notification (DefaultCacheTTL); call it before the Service is
// used.
func (s *Service) SetCacheTTL(d time.Duration) { s.cache.ttl = d }

// Hub returns the hub on which every change of an event is published.
func (s *Service) Hub() *Hub { return s.hub }

// CreateOperator validates and stores a new operator.
func (s *Service) CreateOperator(ctx context.Context, o Operator) (Operator, error) {
	if err := o.Validate(s.allowInsecure); err != nil {
		return Operator{}, err
	}
	o.CreatedAt = s.Now().UTC().Truncate(time.Microsecond)
	if err := s.store.CreateOperator(ctx, o); err != nil {
		return Operator{}, err
	}
	s.cache.putOperator(o, s.Now())
	return o, nil
}

// GetOperator returns an operator.
func (s *Service) GetOperator(ctx context.Context, id string) (Operator, error) {
	return s.store.GetOperator(ctx, id)
}

// ListOperators returns every operator, by id.
func (s *Service) ListOperators(ctx context.Context) ([]Operator, error) {
	return s.store.ListOperators(ctx)
}

// UpdateOperator applies patch (a partial update built by the caller from
// the stored operator) after validating the result. Concurrent updates do
// not overwrite each other: when another update wins, patch is applied
// again to the newer operator (up to 5 times, then ErrConflict).
func (s *Service) UpdateOperator(ctx context.Context, id string, patch func(o *Operator) error) (Operator, error) {
	for attempt := 0; ; attempt++ {
		o, err := s.updateOperator(ctx, id, patch)
		var be *Error
		if errors.As(err, &be) && be.Code == ErrConflict && attempt < 5 {
			continue
		}
		return o, err
	}
}

func (s *Service) updateOperator(ctx context.Context, id string, patch func(o *Operator) error) (Operator, error) {
	prev, err := s.store.GetOperator(ctx, id)
	if err != nil {
		return Operator{}, err
	}
	o := prev.clone()
	before := prev.Currencies
	if err := patch(&o); err != nil {
		return Operator{}, err
	}
	o.ID = id
	if o.Integration != prev.Integration {
		// A bet's win, refund and rollback go through the wallet of the
		// operator's integration, rounded as it rounds: a bet placed under
		// one must not be paid through another.
		return Operator{}, invalidf("integration %s cannot be changed to %s: bets are paid through the wallet they were placed with; register a new operator instead", prev.Integration, o.Integration)
	}
	for _, c := range before {
		// Bets in a currency are settled with its decimals; they cannot change.
		if now, ok := o.Currency(c.Code); !ok || now.Decimals != c.Decimals {
			return Operator{}, invalidf("currency %s (%d decimals) cannot be removed or changed; add currencies instead", c.Code, c.Decimals)
		}
	}
	if err := o.Validate(s.allowInsecure); err != nil {
		return Operator{}, err
	}
	if err := s.store.UpdateOperator(ctx, o, prev); err != nil {
		return Operator{}, err
	}
	s.cache.putOperator(o, s.Now())
	return o, nil
}

// CreateEvent validates an event with its markets and outcomes, gives every
// one an id, and stores it open.
func (s *Service) CreateEvent(ctx context.Context, e Event) (Event, error) {
	e.ID, e.Source, e.SourceKey = uuid.NewString(), "", ""
	for i := range e.Markets {
		e.Markets[i].ID, e.Markets[i].Status = uuid.NewString(), StatusOpen
		for j := range e.Markets[i].Outcomes {
			e.Markets[i].Outcomes[j].ID = uuid.NewString()
		}
	}
	return s.createEvent(ctx, e)
}

// ImportEvent stores an event of a market feed with the ids the feed chose,
// which must be UUIDs, and e.Source and e.SourceKey set. It validates like
// CreateEvent; each market is stored open unless its Status is suspended.
// An event already stored with e.ID is ErrConflict and changes nothing.
func (s *Service) ImportEvent(ctx context.Context, e Event) (Event, error) {
	if e.Source == "" || e.SourceKey == "" {
		return Event{}, invalidf("an imported event needs its source and source key")
	}
	if err := uuid.Validate(e.ID); err != nil {
		return Event{}, invalidf("event id %q is not a UUID", e.ID)
	}
	for _, m := range e.Markets {
		if err := uuid.Validate(m.ID); err != nil {
			return Event{}, invalidf("market id %q is not a UUID", m.ID)
		}
		for _, o := range m.Outcomes {
			if err := uuid.Validate(o.ID); err != nil {
				return Event{}, invalidf("outcome id %q is not a UUID", o.ID)
			}
		}
	}
	for i := range e.Markets {
		if e.Markets[i].Status != StatusSuspended {
			e.Markets[i].Status = StatusOpen
		}
	}
	if _, err := s.store.GetEvent(ctx, e.ID); err == nil {
		return Event{}, &Error{Code: ErrConflict, Message: "event " + e.ID + " exists"}
	} else if !IsNotFound(err) {
		return Event{}, err
	}
	created, err := s.createEvent(ctx, e)
	if err != nil {
		if _, getErr := s.store.GetEvent(ctx, e.ID); getErr == nil {
			return Event{}, &Error{Code: ErrConflict, Message: "event " + e.ID + " exists"}
		}
		return Event{}, err
	}
	return created, nil
}

// createEvent validates e, whose ids and market statuses are set, and
// stores it open.
func (s *Service) createEvent(ctx context.Context, e Event) (Event, error) {
	if !slices.Contains(Categories, e.Category) {
		return Event{}, invalidf("category must be one of %v", Categories)
	}
	if err := checkTexts("title", e.Title, true); err != nil {
		return Event{}, err
	}
	if err := checkTexts("description", e.Description, false); err != nil {
		return Event{}, err
	}
	if err := s.checkImage("image_url", e.ImageURL); err != nil {
		return Event{}, err
	}
	if len(e.Markets) == 0 || len(e.Markets) > 50 {
		return Event{}, invalidf("markets must hold 1 to 50 markets")
	}
	now := s.Now().UTC().Truncate(time.Microsecond)
	e.Status, e.CreatedAt, e.UpdatedAt = StatusOpen, now, now
	for i := range e.Markets {
		m := &e.Markets[i]
		field := fmt.Sprintf("markets[%d]", i)
		if err := checkTexts(field+".question", m.Question, true); err != nil {
			return Event{}, err
		}
		if err := s.checkImage(field+".image_url", m.ImageURL); err != nil {
			return Event{}, err
		}
		if len(m.Outcomes) < 2 || len(m.Outcomes) > 20 {
			return Event{}, invalidf("%s.outcomes must hold 2 to 20 outcomes", field)
		}
		probs := make([]decimal.Decimal, len(m.Outcomes))
		for j := range m.Outcomes {
			o := &m.Outcomes[j]
			if err := checkTexts(fmt.Sprintf("%s.outcomes[%d].name", field, j), o.Name, true); err != nil {
				return Event{}, err
			}
			probs[j] = o.Probability
		}
		if err := checkProbabilities(probs); err != nil {
			return Event{}, invalidf("%s: %v", field, err)
		}
		m.WinningOutcomeID, m.Version = "", 1
	}
	if err := s.store.CreateEvent(ctx, e); err != nil {
		return Event{}, err
	}
	return e, nil
}

// checkProbabilities accepts probabilities the pricing can use: each in
// (0, 1), summing to 1.
func checkProbabilities(probs []decimal.Decimal) error {
	_, err := odds.Price(odds.Multiplicative, probs, decimal.Zero)
	if err != nil {
		return fmt.Errorf("probabilities must each be between 0 and 1 and sum to 1: %w", err)
	}
	return nil
}

func checkTexts(field string, t Texts, required bool) error {
	if required && len(t) == 0 {
		return invalidf("%s needs a text in at least one locale", field)
	}
	for loc, text := range t {
		if _, err := parseLocale(loc); err != nil {
			return invalidf("%s: %q is not a locale tag", field, loc)
		}
		if text == "" || len(text) > 2000 {
			return invalidf("%s.%s must be 1 to 2000 characters", field, loc)
		}
	}
	return nil
}

// checkImage accepts an https URL; an http one on the platform's own
// origin (images the platform serves itself); or any http one when the
// service allows insecure partner URLs (local development).
func (s *Service) checkImage(field, raw string) error {
	if raw == "" {
		return nil
	}
	u, err := url.Parse(raw)
	if err != nil || u.Host == "" {
		return invalidf("%s must be an https URL", field)
	}
	own := s.OwnOrigin != "" && u.Scheme+"://"+u.Host == strings.TrimRight(s.OwnOrigin, "/")
	if u.Scheme != "https" && !(u.Scheme == "http" && (s.allowInsecure || own)) {
		return invalidf("%s must be an https URL", field)
	}
	return nil
}

// GetEvent returns an event.
func (s *Service) GetEvent(ctx context.Context, id string) (Event, error) {
	return s.store.GetEvent(ctx, id)
}

// EventOfMarket returns the event of a market, as stored; ErrNotFound for
// an unknown market.
func (s *Service) EventOfMarket(ctx context.Context, marketID string) (Event, error) {
	return s.store.EventOfMarket(ctx, marketID)
}

// ListEvents returns events newest first.
func (s *Service) ListEvents(ctx context.Context, f EventFilter) ([]Event, error) {
	return s.store.ListEvents(ctx, f)
}

// UpdateEventTexts replaces the texts given (nil keeps them): the event's
// title and description, and per market its question and outcome names.
func (s *Service) UpdateEventTexts(ctx context.Context, id string, title, description Texts, markets map[string]Texts, outcomes map[string]Texts) (Event, error) {
	return s.updateEvent(ctx, id, s.store.UpdateEvent, func(e *Event) error {
		if title != nil {
			if err := checkTexts("title", title, true); err != nil {
				return err
			}
			e.Title = title
		}
		if description != nil {
			if err := checkTexts("description", description, false); err != nil {
				return err
			}
			e.Description = description
		}
		for mid, q := range markets {
			m, ok := e.Market(mid)
			if !ok {
				return invalidf("market %s is not in event %s", mid, e.ID)
			}
			if err := checkTexts("question", q, true); err != nil {
				return err
			}
			m.Question = q
		}
		for oid, name := range outcomes {
			found := false
			for i := range e.Markets {
				for j := range e.Markets[i].Outcomes {
					if e.Markets[i].Outcomes[j].ID == oid {
						if err := checkTexts("name", name, true); err != nil {
							return err
						}
						e.Markets[i].Outcomes[j].Name, found = name, true
					}
				}
			}
			if !found {
				return invalidf("outcome %s is not in event %s", oid, e.ID)
			}
		}
		return nil
	})
}

// SetPrices sets new source probabilities of a market's outcomes; every
// outcome must be given. The change and the market's new price point are
// stored in one transaction. Probabilities equal to the current ones
// change nothing: no new version, no price point, the event as stored.
func (s *Service) SetPrices(ctx context.Context, marketID string, probs map[string]decimal.Decimal) (Event, error) {
	reprice := func(ctx context.Context, e Event, prev time.Time) error {
		return s.store.RepriceMarket(ctx, e, prev, marketID)
	}
	return s.updateMarket(ctx, marketID, reprice, func(m *Market) error {
		if m.Status == StatusResolved || m.Status == StatusCancelled {
			return &Error{Code: ErrConflict, Message: "the market is " + string(m.Status)}
		}
		if len(probs) != len(m.Outcomes) {
			return invalidf("prices must give every outcome of the market (%d)", len(m.Outcomes))
		}
		list := make([]decimal.Decimal, len(m.Outcomes))
		for i, o := range m.Outcomes {
			p, ok := probs[o.ID]
			if !ok {
				return invalidf("outcome %s is not given", o.ID)
			}
			list[i] = p
		}
		if err := checkProbabilities(list); err != nil {
			return invalidf("%v", err)
		}
		if slices.EqualFunc(m.Outcomes, list, func(o Outcome, p decimal.Decimal) bool { return o.Probability.Equal(p) }) {
			return errUnchanged
		}
		for i := range m.Outcomes {
			m.Outcomes[i].Probability = list[i]
		}
		m.Version++
		return nil
	})
}

// SetMarketStatus suspends (suspended) or reopens (open) a market.
// Resolution and cancellation settle bets and have their own operations.
func (s *Service) SetMarketStatus(ctx context.Context, marketID string, status MarketStatus) (Event, error) {
	return s.updateMarket(ctx, marketID, s.store.UpdateEvent, func(m *Market) error {
		if m.Status == StatusResolved || m.Status == StatusCancelled {
			return &Error{Code: ErrConflict, Message: "the market is " + string(m.Status)}
		}
		m.Status = status
		return nil
	})
}

func (s *Service) updateMarket(ctx context.Context, marketID string, save saveEvent, f func(m *Market) error) (Event, error) {
	e, err := s.store.EventOfMarket(ctx, marketID)
	if err != nil {
		return Event{}, err
	}
	return s.updateEvent(ctx, e.ID, save, func(e *Event) error {
		m, ok := e.Market(marketID)
		if !ok {
			return &Error{Code: ErrNotFound, Message: "no market " + marketID}
		}
		return f(m)
	})
}

// saveEvent stores e if its stored UpdatedAt is still prev (Store's
// UpdateEvent, or one that also writes what goes with the change).
type saveEvent func(ctx context.Context, e Event, prev time.Time) error

// errUnchanged is what a change returns, before changing anything, when
// the event would stay as it is: nothing is saved.
var errUnchanged = errors.New("the event is unchanged")

// updateEvent applies f to the stored event and saves it with save,
// retrying when a concurrent update won. When f returns errUnchanged, the
// stored event is returned and nothing is saved.
func (s *Service) updateEvent(ctx context.Context, id string, save saveEvent, f func(e *Event) error) (Event, error) {
	for attempt := 0; ; attempt++ {
		e, err := s.store.GetEvent(ctx, id)
		if err != nil {
			return Event{}, err
		}
		prev := e.UpdatedAt
		if err := f(&e); errors.Is(err, errUnchanged) {
			return e, nil
		} else if err != nil {
			return Event{}, err
		}
		e.UpdatedAt = later(s.Now(), prev)
		err = save(ctx, e, prev)
		var be *Error
		if errors.As(err, &be) && be.Code == ErrConflict && attempt < 5 {
			continue
		}
		if err != nil {
			return Event{}, err
		}
		s.Changed(e)
		return e, nil
	}
}

// later returns now, truncated to microseconds, or just after prev when
// the clock has not moved past it: a version that always grows.
func later(now, prev time.Time) time.Time {
	t := now.UTC().Truncate(time.Microsecond)
	if !t.After(prev) {
		t = prev.Add(time.Microsecond)
	}
	return t
}
