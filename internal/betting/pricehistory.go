package betting

import (
	"context"
	"time"

	"github.com/shopspring/decimal"

	"github.com/foresight-dev/foresight/internal/odds"
)

// PricePoint is a market's source probabilities from At until the next
// point: the store records one when the market is created and one at every
// change of its probabilities, in the same transaction as the change.
type PricePoint struct {
	MarketID string
	At       time.Time
	// Outcomes are in the market's order.
	Outcomes []OutcomePrice
}

// OutcomePrice is one outcome's source probability in a PricePoint.
type OutcomePrice struct {
	OutcomeID   string          `json:"id"`
	Probability decimal.Decimal `json:"probability"`
}

// PricePointOf is the point of market m's current probabilities at at.
func PricePointOf(m Market, at time.Time) PricePoint {
	p := PricePoint{MarketID: m.ID, At: at, Outcomes: make([]OutcomePrice, len(m.Outcomes))}
	for i, o := range m.Outcomes {
		p.Outcomes[i] = OutcomePrice{OutcomeID: o.ID, Probability: o.Probability}
	}
	return p
}

// Quotes prices the point's probabilities with the operator's current
// margin, as Quotes does a market's; an error when the margin cannot price
// them.
func (p PricePoint) Quotes(op Operator) ([]odds.Quote, error) {
	probs := make([]decimal.Decimal, len(p.Outcomes))
	for i, o := range p.Outcomes {
		probs[i] = o.Probability
	}
	return odds.Price(op.Margin.Method, probs, op.Margin.Value)
}

// PriceHistoryTier is a step of the odds history's retention: of the
// points recorded more than Age before a market's newest point, the market
// keeps only the last point of each Bucket (buckets are aligned on the
// Unix epoch, so hours and days are UTC ones), and its first point.
type PriceHistoryTier struct {
	Age    time.Duration
	Bucket time.Duration
}

// PriceHistoryRetention bounds each market's odds history
// (docs/decisions.md): every point of its last hour, the last point of
// each minute before that, of each hour before its last day, and of each
// day before its last 30 days; its first point always. A market a feed
// reprices every 15 s keeps about 2,300 points for its last 30 days and
// one a day before them. Stores apply it to a market whenever they record
// a new point of it (RepriceMarket), measuring the ages from that point:
// a market whose prices stopped changing keeps the points it had then.
var PriceHistoryRetention = [...]PriceHistoryTier{
	{Age: time.Hour, Bucket: time.Minute},
	{Age: 24 * time.Hour, Bucket: time.Hour},
	{Age: 30 * 24 * time.Hour, Bucket: 24 * time.Hour},
}

// Window is the range [from, before) of recording times whose points the
// tier thins when a market's newest point moves from last to now: the
// points that aged past the tier since the point at last was recorded
// (earlier ones were thinned then), and one bucket more, whose last point
// may have changed.
func (t PriceHistoryTier) Window(last, now time.Time) (from, before time.Time) {
	return last.Add(-t.Age - t.Bucket), now.Add(-t.Age)
}

// MaxPriceHistoryLimit is the most points one PriceHistory call returns.
const MaxPriceHistoryLimit = 1000

// PriceHistoryFilter selects a market's price points in the window [From,
// To): the point in force at From (recorded at or before it) and every
// point recorded after From and before To. A zero From starts at the
// market's first point; a zero To has no end.
type PriceHistoryFilter struct {
	MarketID string
	From     time.Time
	To       time.Time
	// After continues a listing: only points recorded after it.
	After time.Time
	// Limit is how many points at most, 1 to MaxPriceHistoryLimit.
	Limit int
}

// PriceHistory returns the market's price points in the window of f,
// oldest first. Errors: ErrInvalid for a limit out of range or a window
// that ends before it starts; ErrNotFound when there is no such market.
func (s *Service) PriceHistory(ctx context.Context, f PriceHistoryFilter) ([]PricePoint, error) {
	if f.Limit < 1 || f.Limit > MaxPriceHistoryLimit {
		return nil, invalidf("limit must be 1 to %d", MaxPriceHistoryLimit)
	}
	if !f.From.IsZero() && !f.To.IsZero() && !f.To.After(f.From) {
		return nil, invalidf("to must be after from")
	}
	return s.store.PriceHistory(ctx, f)
}
