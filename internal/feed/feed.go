// Package feed keeps the betting catalog in step with a source of market
// data: the simulator (package simulator) or Polymarket (package
// polymarket). A Source reports what it knows as Events; Sync applies the
// difference to the catalog through the same service calls as the admin
// API (import, set prices, suspend and open, resolve, cancel), so a market
// is settled the same way whatever resolved it.
//
// Catalog ids of fed events, markets and outcomes are derived from the
// source's keys (EventID, MarketID, OutcomeID), so every node and every
// restart agrees on them without a mapping table, and importing an event
// twice is a no-op.
package feed

import (
	"context"
	"time"

	"github.com/shopspring/decimal"

	"github.com/foresight-dev/foresight/internal/betting"
)

// State is a market's state at the source.
type State string

// Market states a Source reports.
const (
	// Open: the market takes bets at the reported probabilities.
	Open State = "open"
	// Suspended: the market is paused (the source stopped trading it, its
	// prices are unusable, or its result is proposed but not final).
	Suspended State = "suspended"
	// Resolved: the result is final; Market.Winner names the winning
	// outcome. Only final results are reported as Resolved.
	Resolved State = "resolved"
	// Cancelled: the market is void (Polymarket's 50-50 result, a
	// cancelled match); every stake is returned.
	Cancelled State = "cancelled"
)

// Event is an event as a source sees it now.
type Event struct {
	// Key is the source's id of the event, unique within the source.
	Key string
	// Category is one of betting.Categories.
	Category string
	// Title is required in at least one locale; Description is optional.
	Title, Description betting.Texts
	// ImageURL is an https:// image, or empty.
	ImageURL string
	// StartsAt is when the real-world event starts, if known.
	StartsAt *time.Time
	// Markets are the event's markets. An event is imported with at most
	// 50 of them (the catalog's limit); a tracked event may report more,
	// and markets the catalog never imported are skipped.
	Markets []Market
}

// Market is a market as a source sees it now.
type Market struct {
	// Key is the source's id of the market, unique within the source.
	Key string
	// Question is required in at least one locale.
	Question betting.Texts
	// ImageURL is an https:// image, or empty.
	ImageURL string
	// ClosesAt is when the market stops taking bets, if known.
	ClosesAt *time.Time
	// State is the market's state.
	State State
	// Winner is the Key of the winning outcome when State is Resolved.
	Winner string
	// Outcomes are the market's outcomes (2 to 20), in display order. Their
	// probabilities must each be in (0, 1) and sum to exactly 1 when State
	// is Open; otherwise they are ignored.
	Outcomes []Outcome
}

// Outcome is one outcome of a market.
type Outcome struct {
	// Key is the source's id of the outcome, unique within its market.
	Key string
	// Name is required in at least one locale.
	Name betting.Texts
	// Probability is the source probability.
	Probability decimal.Decimal
}

// Source is a market-data source.
type Source interface {
	// Name identifies the source ("simulator", "polymarket"); it is stored
	// on the events it feeds and is part of their ids.
	Name() string
	// Poll returns the events the source offers now, and the current state
	// of every event of tracked (keys of events fed earlier whose markets
	// are not all resolved or cancelled) that it can still see, even when
	// it no longer offers them. An error means nothing is applied this
	// round.
	Poll(ctx context.Context, tracked []string) ([]Event, error)
}
