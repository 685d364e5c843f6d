package betting

import (
	"context"
	"fmt"
	"slices"
	"sync"
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

// MaxOutcomePricePoints is the most points OutcomePriceHistory returns,
// and the default of the bettor API's price history.
const MaxOutcomePricePoints = 120

// DisplayPrice is an outcome's price at a point of its market's history,
// as an operator's bettors are shown it: in force from At until the next
// point.
type DisplayPrice struct {
	At          time.Time
	DisplayOdds odds.Odds
	// DisplayProbability is 100 / DisplayOdds, 2 decimals.
	DisplayProbability decimal.Decimal
}

// OutcomePriceHistory returns the prices op's bettors are shown for the
// outcome over its market's whole history, oldest first, at op's current
// margin (as the admin history prices it), at most points of them.
//
// Answers are kept (up to priceHistoryCacheSize of them) for the market's
// version they were read at: a market's history changes only with a new
// version, so reads between two price changes cost no database read. The
// market's history itself is kept too (up to marketHistoryCacheSize
// markets), so that the answer for another outcome, margin or points at
// the same version is thinned and priced from memory, without reading the
// history again.
//
// A longer history is thinned on the outcome's source probability by
// thinPrices (the first and the last point, and the lowest and the
// highest of each of (points−2)/2 equal spans of time between them), and
// only the points kept are priced. A point the margin cannot price is
// left out (the market showed no odds then), and of consecutive points
// with the same display odds only the first stays.
//
// Errors: ErrInvalid for points outside 2 to MaxOutcomePricePoints;
// ErrNotFound when there is no such market or the outcome is not one of
// its.
func (s *Service) OutcomePriceHistory(ctx context.Context, op Operator, marketID, outcomeID string, points int) ([]DisplayPrice, error) {
	if points < 2 || points > MaxOutcomePricePoints {
		return nil, invalidf("points must be 2 to %d", MaxOutcomePricePoints)
	}
	e, err := s.cachedEventOfMarket(ctx, marketID)
	if err != nil {
		return nil, err
	}
	m, ok := e.Market(marketID)
	if !ok || !slices.ContainsFunc(m.Outcomes, func(o Outcome) bool { return o.ID == outcomeID }) {
		return nil, Errorf(ErrNotFound, "market %s has no outcome %s", marketID, outcomeID)
	}
	key := priceHistoryKey{market: marketID, outcome: outcomeID, points: points, method: op.Margin.Method, margin: op.Margin.Value.String()}
	if out, ok := s.prices.get(key, m.Version); ok {
		return slices.Clone(out), nil
	}
	history, ok := s.histories.get(marketID, m.Version)
	if !ok {
		if history, err = s.readPriceHistory(ctx, marketID); err != nil {
			return nil, err
		}
		s.histories.put(marketID, m.Version, history)
	}
	out := outcomePrices(op, history, outcomeID, points)
	s.prices.put(key, m.Version, out)
	return slices.Clone(out), nil
}

// readPriceHistory reads the market's whole history, oldest first.
func (s *Service) readPriceHistory(ctx context.Context, marketID string) ([]PricePoint, error) {
	var history []PricePoint
	for f := (PriceHistoryFilter{MarketID: marketID, Limit: MaxPriceHistoryLimit}); ; {
		page, err := s.store.PriceHistory(ctx, f)
		if err != nil {
			return nil, fmt.Errorf("read the price history of market %s: %w", marketID, err)
		}
		history = append(history, page...)
		if len(page) < f.Limit {
			return history, nil
		}
		f.After = page[len(page)-1].At
	}
}

// outcomePrices thins a market's history on the outcome's probability and
// prices it for OutcomePriceHistory. It does not change history.
func outcomePrices(op Operator, history []PricePoint, outcomeID string, points int) []DisplayPrice {
	at := make([]time.Time, 0, len(history))
	probs := make([]decimal.Decimal, 0, len(history))
	kept := make([]PricePoint, 0, len(history))
	for _, p := range history {
		i := slices.IndexFunc(p.Outcomes, func(o OutcomePrice) bool { return o.OutcomeID == outcomeID })
		if i < 0 {
			continue
		}
		at, probs, kept = append(at, p.At), append(probs, p.Outcomes[i].Probability), append(kept, p)
	}
	out := make([]DisplayPrice, 0, min(len(kept), points))
	for _, i := range thinPrices(at, probs, points) {
		quotes, err := kept[i].Quotes(op)
		if err != nil {
			continue // the margin cannot price these probabilities: no odds were shown
		}
		j := slices.IndexFunc(kept[i].Outcomes, func(o OutcomePrice) bool { return o.OutcomeID == outcomeID })
		q := quotes[j]
		if n := len(out); n > 0 && out[n-1].DisplayOdds.Equal(q.DisplayOdds) {
			continue
		}
		out = append(out, DisplayPrice{At: kept[i].At, DisplayOdds: q.DisplayOdds, DisplayProbability: q.DisplayProbability})
	}
	return out
}

// thinPrices chooses at most n (at least 2) of a line's points, given
// oldest first by their times and values, keeping its shape: all of them
// when there are no more than n; else the first and the last, and between
// them, in (n−2)/2 buckets of equal time from the first point to the last,
// the lowest and the highest point of each bucket (one when they are the
// same; the earliest of equal values). Extremes survive, so a spike shows
// however long the history. It returns the chosen indexes, increasing.
func thinPrices(at []time.Time, values []decimal.Decimal, n int) []int {
	count := len(at)
	if count <= n {
		out := make([]int, count)
		for i := range out {
			out[i] = i
		}
		return out
	}
	buckets := int64((n - 2) / 2)
	if buckets == 0 {
		return []int{0, count - 1}
	}
	start := at[0].UnixMicro()
	span := at[count-1].UnixMicro() - start
	low := make([]int, buckets)
	high := make([]int, buckets)
	for b := range low {
		low[b], high[b] = -1, -1
	}
	for i := 1; i < count-1; i++ {
		b := int64(0)
		if span > 0 {
			b = min((at[i].UnixMicro()-start)*buckets/span, buckets-1)
		}
		if low[b] < 0 || values[i].LessThan(values[low[b]]) {
			low[b] = i
		}
		if high[b] < 0 || values[i].GreaterThan(values[high[b]]) {
			high[b] = i
		}
	}
	out := []int{0}
	for b := range low {
		switch {
		case low[b] < 0:
		case low[b] == high[b]:
			out = append(out, low[b])
		default:
			out = append(out, min(low[b], high[b]), max(low[b], high[b]))
		}
	}
	return append(out, count-1)
}

// priceHistoryCacheSize is how many OutcomePriceHistory answers are kept.
const priceHistoryCacheSize = 4096

// marketHistoryCacheSize is how many markets' histories OutcomePriceHistory
// keeps: the history the retention keeps of a two-outcome market a feed
// reprices every 15 s (about 2,300 points) takes about 0.8 MB. Bettors
// read one points value, so a kept history mostly serves the market's
// other outcomes and margins until its next change.
const marketHistoryCacheSize = 16

// priceHistoryKey is what an OutcomePriceHistory answer depends on besides
// the market's version: the outcome, the points asked for and the margin.
type priceHistoryKey struct {
	market, outcome string
	points          int
	method          odds.Method
	margin          string
}

// versionCache keeps values, each for the market version it was read at.
// When full, an arbitrary entry goes. Values are shared: callers must not
// change them.
type versionCache[K comparable, V any] struct {
	mu      sync.Mutex
	size    int
	entries map[K]versionEntry[V]
}

type versionEntry[V any] struct {
	version int64
	value   V
}

func newVersionCache[K comparable, V any](size int) *versionCache[K, V] {
	return &versionCache[K, V]{size: size, entries: map[K]versionEntry[V]{}}
}

// get returns the value kept for key at version.
func (c *versionCache[K, V]) get(key K, version int64) (V, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	e, ok := c.entries[key]
	if !ok || e.version != version {
		var zero V
		return zero, false
	}
	return e.value, true
}

// put keeps value, which no one may change from then on, for key at
// version.
func (c *versionCache[K, V]) put(key K, version int64, value V) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, ok := c.entries[key]; !ok && len(c.entries) >= c.size {
		for k := range c.entries {
			delete(c.entries, k)
			break
		}
	}
	c.entries[key] = versionEntry[V]{version: version, value: value}
}
