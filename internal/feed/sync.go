package feed

import (
	"context"
	"errors"
	"fmt"

	"github.com/google/uuid"
	"github.com/shopspring/decimal"

	"github.com/foresight-dev/foresight/internal/betting"
)

// Catalog is what Sync changes: the betting service's catalog operations,
// the same ones the admin API calls.
type Catalog interface {
	GetEvent(ctx context.Context, id string) (betting.Event, error)
	ListEvents(ctx context.Context, f betting.EventFilter) ([]betting.Event, error)
	ImportEvent(ctx context.Context, e betting.Event) (betting.Event, error)
	SetPrices(ctx context.Context, marketID string, probs map[string]decimal.Decimal) (betting.Event, error)
	SetMarketStatus(ctx context.Context, marketID string, status betting.MarketStatus) (betting.Event, error)
	ResolveMarket(ctx context.Context, marketID, winningOutcomeID string) (betting.Event, error)
	CancelMarket(ctx context.Context, marketID string) (betting.Event, error)
}

// namespace is the UUID namespace of fed ids (RFC 9562 name-based, SHA-1).
var namespace = uuid.MustParse("6f0c4e0a-3d55-4b7e-9a55-51c9b1f0c8d2")

// EventID is the catalog id of the event key of source.
func EventID(source, key string) string {
	return uuid.NewSHA1(namespace, []byte(source+"\x00event\x00"+key)).String()
}

// MarketID is the catalog id of the market key of source.
func MarketID(source, key string) string {
	return uuid.NewSHA1(namespace, []byte(source+"\x00market\x00"+key)).String()
}

// OutcomeID is the catalog id of the outcome key of a market of source.
func OutcomeID(source, marketKey, key string) string {
	return uuid.NewSHA1(namespace, []byte(source+"\x00outcome\x00"+marketKey+"\x00"+key)).String()
}

// Changes counts what one Sync did.
type Changes struct {
	Imported  int // events created
	Priced    int // markets given new probabilities
	Suspended int // markets suspended
	Opened    int // markets reopened
	Resolved  int // markets resolved (their bets are being settled)
	Cancelled int // markets cancelled (their bets are being voided)
}

func (c *Changes) add(o Changes) {
	c.Imported += o.Imported
	c.Priced += o.Priced
	c.Suspended += o.Suspended
	c.Opened += o.Opened
	c.Resolved += o.Resolved
	c.Cancelled += o.Cancelled
}

// Sync makes the catalog's copy of ev, an event of source, match it, and
// returns the stored event (zero when ev was not imported) with what
// changed. The rules:
//
//   - An event not in the catalog is imported with its markets that are
//     Open or Suspended and have valid probabilities; an event with none is
//     not imported (Sync returns a zero event and no error).
//   - A market already resolved or cancelled in the catalog is left alone,
//     whoever closed it; a market the catalog does not have (it appeared
//     at the source after the import, or was final then) is skipped.
//   - Resolved resolves the market with the winner's outcome; Cancelled
//     cancels it. Settlement is the catalog's, as for the admin API.
//   - Open sets the probabilities when they differ (and are valid), then
//     reopens a suspended market; Suspended suspends an open one.
//
// The catalog's rules still hold: an invalid change (a winner that is not
// an outcome, probabilities that do not sum to 1) is an error for that
// market only. Sync applies every change it can and returns the others'
// errors joined.
func Sync(ctx context.Context, c Catalog, source string, ev Event) (betting.Event, Changes, error) {
	var ch Changes
	cur, err := c.GetEvent(ctx, EventID(source, ev.Key))
	if betting.IsNotFound(err) {
		imp, ok := importable(source, ev)
		if !ok {
			return betting.Event{}, ch, nil
		}
		cur, err = c.ImportEvent(ctx, imp)
		if err != nil {
			var be *betting.Error
			if !errors.As(err, &be) || be.Code != betting.ErrConflict {
				return betting.Event{}, ch, fmt.Errorf("feed: import %s event %s: %w", source, ev.Key, err)
			}
			// Another node imported it first: carry on with its copy.
			if cur, err = c.GetEvent(ctx, EventID(source, ev.Key)); err != nil {
				return betting.Event{}, ch, fmt.Errorf("feed: read %s event %s: %w", source, ev.Key, err)
			}
		} else {
			ch.Imported++
		}
	} else if err != nil {
		return betting.Event{}, ch, fmt.Errorf("feed: read %s event %s: %w", source, ev.Key, err)
	}
	var errs []error
	for _, m := range ev.Markets {
		stored, ok := cur.Market(MarketID(source, m.Key))
		if !ok || final(stored.Status) {
			continue
		}
		next, mc, err := syncMarket(ctx, c, source, *stored, m)
		if err != nil {
			errs = append(errs, fmt.Errorf("feed: %s market %s: %w", source, m.Key, err))
			continue
		}
		ch.add(mc)
		if next.ID != "" {
			cur = next
		}
	}
	return cur, ch, errors.Join(errs...)
}

// syncMarket applies m to the stored market; it returns the event after the
// last change it made (zero if none).
func syncMarket(ctx context.Context, c Catalog, source string, stored betting.Market, m Market) (betting.Event, Changes, error) {
	var ch Changes
	switch m.State {
	case Resolved:
		e, err := c.ResolveMarket(ctx, stored.ID, OutcomeID(source, m.Key, m.Winner))
		if err == nil {
			ch.Resolved++
		}
		return e, ch, err
	case Cancelled:
		e, err := c.CancelMarket(ctx, stored.ID)
		if err == nil {
			ch.Cancelled++
		}
		return e, ch, err
	case Suspended:
		if stored.Status != betting.StatusOpen {
			return betting.Event{}, ch, nil
		}
		e, err := c.SetMarketStatus(ctx, stored.ID, betting.StatusSuspended)
		if err == nil {
			ch.Suspended++
		}
		return e, ch, err
	case Open:
		var last betting.Event
		if probs, ok := changedPrices(source, stored, m); ok {
			e, err := c.SetPrices(ctx, stored.ID, probs)
			if err != nil {
				return last, ch, err
			}
			last = e
			ch.Priced++
		}
		if stored.Status == betting.StatusSuspended {
			e, err := c.SetMarketStatus(ctx, stored.ID, betting.StatusOpen)
			if err != nil {
				return last, ch, err
			}
			last = e
			ch.Opened++
		}
		return last, ch, nil
	}
	return betting.Event{}, ch, fmt.Errorf("unknown state %q", m.State)
}

// changedPrices returns m's probabilities by catalog outcome id when they
// are valid and differ from the stored ones.
func changedPrices(source string, stored betting.Market, m Market) (map[string]decimal.Decimal, bool) {
	if !validProbabilities(m.Outcomes) || len(m.Outcomes) != len(stored.Outcomes) {
		return nil, false
	}
	probs := make(map[string]decimal.Decimal, len(m.Outcomes))
	changed := false
	for _, o := range m.Outcomes {
		id := OutcomeID(source, m.Key, o.Key)
		so, _, ok := stored.Outcome(id)
		if !ok {
			return nil, false
		}
		probs[id] = o.Probability
		changed = changed || !so.Probability.Equal(o.Probability)
	}
	return probs, changed
}

// importable builds the catalog event of ev, with the markets that can be
// imported.
func importable(source string, ev Event) (betting.Event, bool) {
	e := betting.Event{
		ID: EventID(source, ev.Key), Category: ev.Category, Title: ev.Title, Description: ev.Description,
		ImageURL: ev.ImageURL, StartsAt: ev.StartsAt, Source: source, SourceKey: ev.Key,
	}
	for _, m := range ev.Markets {
		if (m.State != Open && m.State != Suspended) || !validProbabilities(m.Outcomes) {
			continue
		}
		bm := betting.Market{ID: MarketID(source, m.Key), Question: m.Question, ImageURL: m.ImageURL, ClosesAt: m.ClosesAt, Status: betting.StatusOpen}
		if m.State == Suspended {
			bm.Status = betting.StatusSuspended
		}
		for _, o := range m.Outcomes {
			bm.Outcomes = append(bm.Outcomes, betting.Outcome{ID: OutcomeID(source, m.Key, o.Key), Name: o.Name, Probability: o.Probability})
		}
		e.Markets = append(e.Markets, bm)
	}
	return e, len(e.Markets) > 0
}

// validProbabilities reports whether the outcomes' probabilities are each
// in (0, 1) and sum to exactly 1.
func validProbabilities(outcomes []Outcome) bool {
	if len(outcomes) < 2 {
		return false
	}
	sum := decimal.Zero
	for _, o := range outcomes {
		if !o.Probability.IsPositive() || o.Probability.GreaterThanOrEqual(decimal.NewFromInt(1)) {
			return false
		}
		sum = sum.Add(o.Probability)
	}
	return sum.Equal(decimal.NewFromInt(1))
}

func final(status betting.MarketStatus) bool {
	return status == betting.StatusResolved || status == betting.StatusCancelled
}
