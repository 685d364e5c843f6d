package betting_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/shopspring/decimal"

	"github.com/foresight-dev/foresight/internal/betting"
	"github.com/foresight-dev/foresight/internal/betting/bettingtest"
	"github.com/foresight-dev/foresight/internal/sqlite/sqlitetest"
)

func prices(m betting.Market, probs ...string) map[string]decimal.Decimal {
	out := map[string]decimal.Decimal{}
	for i, p := range probs {
		out[m.Outcomes[i].ID] = decimal.RequireFromString(p)
	}
	return out
}

// createEvent creates bettingtest's event in s, as of s's clock.
func createEvent(t *testing.T, s *betting.Service) betting.Event {
	t.Helper()
	e, err := s.CreateEvent(context.Background(), bettingtest.NewEvent(s.Now()))
	if err != nil {
		t.Fatalf("create the event: %v", err)
	}
	return e
}

// TestPriceHistoryRecordsChanges: creation and every change of a market's
// probabilities add a point; the same probabilities again, a refused
// change, a status change or a text change add none.
func TestPriceHistoryRecordsChanges(t *testing.T) {
	t.Parallel()
	s := newService(t)
	ctx := context.Background()
	e := createEvent(t, s)
	m := e.Markets[0]
	history := func() []betting.PricePoint {
		t.Helper()
		points, err := s.PriceHistory(ctx, betting.PriceHistoryFilter{MarketID: m.ID, Limit: 100})
		if err != nil {
			t.Fatal(err)
		}
		return points
	}
	if h := history(); len(h) != 1 || !h[0].At.Equal(e.CreatedAt) || !h[0].Outcomes[0].Probability.Equal(decimal.RequireFromString("0.6")) {
		t.Fatalf("history of a new market = %+v", h)
	}

	e, err := s.SetPrices(ctx, m.ID, prices(m, "0.25", "0.75"))
	if err != nil {
		t.Fatal(err)
	}
	h := history()
	if len(h) != 2 || !h[1].At.Equal(e.UpdatedAt) || !h[1].Outcomes[0].Probability.Equal(decimal.RequireFromString("0.25")) || h[1].Outcomes[1].OutcomeID != m.Outcomes[1].ID {
		t.Fatalf("history after new prices = %+v", h)
	}

	same, err := s.SetPrices(ctx, m.ID, prices(m, "0.250", "0.75"))
	if err != nil || same.Markets[0].Version != 2 || !same.UpdatedAt.Equal(e.UpdatedAt) {
		t.Errorf("the same prices again = version %d, updated %v, %v; want nothing changed", same.Markets[0].Version, same.UpdatedAt, err)
	}
	if _, err := s.SetPrices(ctx, m.ID, prices(m, "0.5", "0.6")); err == nil {
		t.Error("prices that sum to 1.1 accepted")
	}
	if _, err := s.SetMarketStatus(ctx, m.ID, betting.StatusSuspended); err != nil {
		t.Fatal(err)
	}
	if _, err := s.UpdateEventTexts(ctx, e.ID, betting.Texts{"en": "Grand final"}, nil, nil, nil); err != nil {
		t.Fatal(err)
	}
	if h := history(); len(h) != 2 {
		t.Errorf("%d points after changes that left the prices alone, want 2", len(h))
	}
}

func TestPriceHistoryRefusesBadFilters(t *testing.T) {
	t.Parallel()
	s := newService(t)
	ctx := context.Background()
	e := createEvent(t, s)
	at := e.CreatedAt
	tests := []struct {
		name string
		f    betting.PriceHistoryFilter
		want betting.ErrorCode
	}{
		{"no limit", betting.PriceHistoryFilter{}, betting.ErrInvalid},
		{"limit too large", betting.PriceHistoryFilter{Limit: betting.MaxPriceHistoryLimit + 1}, betting.ErrInvalid},
		{"empty window", betting.PriceHistoryFilter{From: at, To: at, Limit: 10}, betting.ErrInvalid},
		{"window backwards", betting.PriceHistoryFilter{From: at, To: at.Add(-1), Limit: 10}, betting.ErrInvalid},
		{"largest limit", betting.PriceHistoryFilter{Limit: betting.MaxPriceHistoryLimit}, ""},
		{"open start", betting.PriceHistoryFilter{To: at.Add(1), Limit: 10}, ""},
	}
	for _, tt := range tests {
		tt.f.MarketID = e.Markets[0].ID
		_, err := s.PriceHistory(ctx, tt.f)
		var got betting.ErrorCode
		var be *betting.Error
		if errors.As(err, &be) {
			got = be.Code
		} else if err != nil {
			got = "other: " + betting.ErrorCode(err.Error())
		}
		if got != tt.want {
			t.Errorf("%s: error %q, want %q", tt.name, got, tt.want)
		}
	}
}

// TestPricePointQuotes: a point is priced like the market with the same
// probabilities.
func TestPricePointQuotes(t *testing.T) {
	t.Parallel()
	op := bettingtest.NewOperator("acme")
	m := bettingtest.NewEvent(op.CreatedAt).Markets[0]
	want, err := betting.Quotes(op, m)
	if err != nil {
		t.Fatal(err)
	}
	got, err := betting.PricePointOf(m, op.CreatedAt).Quotes(op)
	if err != nil || len(got) != len(want) {
		t.Fatalf("Quotes = %v, %v", got, err)
	}
	for i := range want {
		if !got[i].DisplayOdds.Equal(want[i].DisplayOdds) || !got[i].DisplayProbability.Equal(want[i].DisplayProbability) {
			t.Errorf("outcome %d: %v, want %v", i, got[i], want[i])
		}
	}
}

// TestThinPrices: up to n points all stay; beyond, the first and the last
// stay and, in each of (n−2)/2 equal spans of time between them, the
// lowest and the highest point (the earliest of equal values); never more
// than n.
func TestThinPrices(t *testing.T) {
	t.Parallel()
	base := time.Date(2026, 11, 21, 10, 0, 0, 0, time.UTC)
	// line makes points one second apart with these values.
	line := func(values ...string) ([]time.Time, []decimal.Decimal) {
		at := make([]time.Time, len(values))
		vs := make([]decimal.Decimal, len(values))
		for i, v := range values {
			at[i], vs[i] = base.Add(time.Duration(i)*time.Second), decimal.RequireFromString(v)
		}
		return at, vs
	}
	tests := []struct {
		name   string
		values []string
		n      int
		want   []int
	}{
		{"fewer than n", []string{"0.5", "0.6", "0.4"}, 4, []int{0, 1, 2}},
		{"exactly n", []string{"0.5", "0.6", "0.4", "0.3"}, 4, []int{0, 1, 2, 3}},
		{"one point", []string{"0.5"}, 2, []int{0}},
		{"n of 2 keeps the ends", []string{"0.5", "0.9", "0.1", "0.4"}, 2, []int{0, 3}},
		// 0 to 9 s in 2 buckets of 4.5 s: points 1–4 and 5–8.
		{"the lowest and highest of each bucket", []string{"0.5", "0.3", "0.7", "0.4", "0.5", "0.6", "0.2", "0.8", "0.5", "0.45"}, 6, []int{0, 1, 2, 6, 7, 9}},
		{"a flat bucket keeps its earliest point", []string{"0.5", "0.4", "0.4", "0.4", "0.4", "0.5", "0.5", "0.5", "0.5", "0.5"}, 6, []int{0, 1, 5, 9}},
		{"an odd n leaves a point unused", []string{"0.5", "0.3", "0.7", "0.4", "0.5", "0.6", "0.2", "0.8", "0.5", "0.45"}, 7, []int{0, 1, 2, 6, 7, 9}},
	}
	for _, tt := range tests {
		at, vs := line(tt.values...)
		if got := betting.ThinPrices(at, vs, tt.n); !slices.Equal(got, tt.want) {
			t.Errorf("%s: %v, want %v", tt.name, got, tt.want)
		}
	}

	// Buckets are spans of time, not of points: a burst of 1,000 changes
	// in the first minute of a day fills the first bucket only, and the
	// one change late in the day keeps its own.
	var at []time.Time
	var vs []decimal.Decimal
	for i := range 1000 {
		at = append(at, base.Add(time.Duration(i)*50*time.Millisecond))
		vs = append(vs, decimal.New(int64(400+i%200), -3))
	}
	at, vs = append(at, base.Add(20*time.Hour), base.Add(24*time.Hour)), append(vs, decimal.RequireFromString("0.9"), decimal.RequireFromString("0.5"))
	got := betting.ThinPrices(at, vs, 10)
	if !slices.Equal(got, []int{0, 199, 200, 1000, 1001}) {
		t.Errorf("a burst and a late change: %v, want [0 199 200 1000 1001]", got)
	}

	// A spike in a long flat history survives any n, and no n is passed.
	at, vs = nil, nil
	for i := range 5000 {
		v := "0.5"
		if i == 3217 {
			v = "0.95"
		}
		at, vs = append(at, base.Add(time.Duration(i)*15*time.Second)), append(vs, decimal.RequireFromString(v))
	}
	for _, n := range []int{2, 3, 4, 5, 10, 61, 120} {
		got := betting.ThinPrices(at, vs, n)
		if len(got) > n || got[0] != 0 || got[len(got)-1] != 4999 || !slices.IsSorted(got) {
			t.Errorf("n = %d: %d points %v", n, len(got), got)
		}
		if n >= 4 && !slices.Contains(got, 3217) {
			t.Errorf("n = %d: the spike at 3217 is lost: %v", n, got)
		}
	}
}

// TestOutcomePriceHistory: an outcome's history at the operator's current
// margin, oldest first, its moves as display odds (consecutive points
// that show alike are one), thinned to the points asked for with the
// extremes kept; bad arguments are refused.
func TestOutcomePriceHistory(t *testing.T) {
	t.Parallel()
	s := newService(t)
	ctx := context.Background()
	clock := time.Date(2026, 11, 21, 10, 0, 0, 0, time.UTC)
	s.Now = func() time.Time { return clock }
	e, err := s.CreateEvent(ctx, bettingtest.NewEvent(clock))
	if err != nil {
		t.Fatal(err)
	}
	m := e.Markets[0]
	home := m.Outcomes[0].ID
	op := bettingtest.NewOperator("acme") // odds ratio, 5 %
	set := func(p string) {
		t.Helper()
		clock = clock.Add(time.Second)
		q := decimal.RequireFromString(p)
		if _, err := s.SetPrices(ctx, m.ID, map[string]decimal.Decimal{home: q, m.Outcomes[1].ID: decimal.NewFromInt(1).Sub(q)}); err != nil {
			t.Fatal(err)
		}
	}
	show := func(points []betting.DisplayPrice) string {
		var out []string
		for _, p := range points {
			out = append(out, fmt.Sprintf("%s %s %s", p.At.Format("15:04:05"), p.DisplayOdds, p.DisplayProbability.StringFixed(2)))
		}
		return strings.Join(out, ", ")
	}
	set("0.25")
	set("0.2501") // shows as 0.25 did: not a move
	set("0.3")
	got, err := s.OutcomePriceHistory(ctx, op, m.ID, home, betting.MaxOutcomePricePoints)
	if err != nil {
		t.Fatal(err)
	}
	if want := "10:00:00 1.60 62.50, 10:00:01 3.62 27.62, 10:00:03 3.07 32.57"; show(got) != want {
		t.Errorf("history = %s, want %s", show(got), want)
	}

	// 300 more changes, a spike to 0.9 among them: 10 points, the first
	// the opening, the last the price now, the spike (odds 1.08) kept.
	for i := range 300 {
		p := fmt.Sprintf("0.%d", 40+i%20)
		if i == 137 {
			p = "0.9"
		}
		set(p)
	}
	got, err = s.OutcomePriceHistory(ctx, op, m.ID, home, 10)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) > 10 || len(got) < 4 || !got[0].At.Equal(e.CreatedAt) || !got[len(got)-1].At.Equal(clock) {
		t.Fatalf("thinned to 10: %s", show(got))
	}
	if !slices.ContainsFunc(got, func(p betting.DisplayPrice) bool { return p.DisplayOdds.String() == "1.08" }) {
		t.Errorf("the spike to 0.9 (odds 1.08) is lost: %s", show(got))
	}
	now, _ := s.GetEvent(ctx, e.ID)
	quotes, _ := betting.Quotes(op, now.Markets[0])
	if last := got[len(got)-1]; !last.DisplayOdds.Equal(quotes[0].DisplayOdds) || !last.DisplayProbability.Equal(quotes[0].DisplayProbability) {
		t.Errorf("the last point %s, the market shows %s", show(got[len(got)-1:]), quotes[0].DisplayOdds)
	}

	// The first read's answer is not kept past the market's next change.
	again, err := s.OutcomePriceHistory(ctx, op, m.ID, home, betting.MaxOutcomePricePoints)
	if err != nil || !again[len(again)-1].At.Equal(clock) || !again[len(again)-1].DisplayOdds.Equal(quotes[0].DisplayOdds) {
		t.Errorf("the full history after the changes ends with %s, %v; want the price now, %s", show(again[len(again)-1:]), err, quotes[0].DisplayOdds)
	}
	// Nor for another margin.
	op.Margin.Value = decimal.Zero
	if zero, err := s.OutcomePriceHistory(ctx, op, m.ID, home, 10); err != nil || show(zero) == show(got) || zero[0].DisplayOdds.String() != "1.66" {
		t.Errorf("the history at a margin of 0 = %s, %v; want other odds, opening at 1.66", show(zero), err)
	}

	other := bettingtest.NewEvent(clock)
	if _, err := s.CreateEvent(ctx, other); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		name            string
		market, outcome string
		points          int
		want            betting.ErrorCode
	}{
		{"one point", m.ID, home, 1, betting.ErrInvalid},
		{"too many points", m.ID, home, betting.MaxOutcomePricePoints + 1, betting.ErrInvalid},
		{"two points", m.ID, home, 2, ""},
		{"no such market", uuid.NewString(), home, 10, betting.ErrNotFound},
		{"another market's outcome", m.ID, other.Markets[0].Outcomes[0].ID, 10, betting.ErrNotFound},
	} {
		_, err := s.OutcomePriceHistory(ctx, op, tt.market, tt.outcome, tt.points)
		if got := betting.ErrorCodeOf(err); got != tt.want {
			t.Errorf("%s: %v, want %q", tt.name, err, tt.want)
		}
	}
}

// historyReads counts the reads of price history a Store serves.
type historyReads struct {
	betting.Store
	reads atomic.Int32
}

func (s *historyReads) PriceHistory(ctx context.Context, f betting.PriceHistoryFilter) ([]betting.PricePoint, error) {
	s.reads.Add(1)
	return s.Store.PriceHistory(ctx, f)
}

// TestOutcomePriceHistoryReadsAMarketOncePerVersion: the history of a
// market is read from the store once per version of the market, whatever
// the outcome, margin and points asked for; each answer is the one a
// service that never read the market before gives.
func TestOutcomePriceHistoryReadsAMarketOncePerVersion(t *testing.T) {
	t.Parallel()
	store := &historyReads{Store: sqlitetest.Open(t).BettingStore()}
	s := betting.NewService(store, false)
	ctx := context.Background()
	e := createEvent(t, s)
	m := e.Markets[0]
	for i := range 40 {
		if _, err := s.SetPrices(ctx, m.ID, prices(m, fmt.Sprintf("0.%d", 30+i%17), fmt.Sprintf("0.%d", 70-i%17))); err != nil {
			t.Fatal(err)
		}
	}
	acme, zero := bettingtest.NewOperator("acme"), bettingtest.NewOperator("zero")
	zero.Margin.Value = decimal.Zero
	type ask struct {
		op      betting.Operator
		outcome string
		points  int
	}
	var asks []ask
	for _, op := range []betting.Operator{acme, zero} {
		for _, o := range m.Outcomes {
			for points := 2; points <= 42; points += 5 {
				asks = append(asks, ask{op, o.ID, points})
			}
		}
	}
	got := make([][]betting.DisplayPrice, len(asks))
	for i, a := range asks {
		h, err := s.OutcomePriceHistory(ctx, a.op, m.ID, a.outcome, a.points)
		if err != nil {
			t.Fatal(err)
		}
		got[i] = h
	}
	if n := store.reads.Load(); n != 1 {
		t.Errorf("%d answers read the history %d times, want once", len(asks), n)
	}
	for i, a := range asks {
		fresh, err := betting.NewService(store.Store, false).OutcomePriceHistory(ctx, a.op, m.ID, a.outcome, a.points)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.EqualFunc(got[i], fresh, func(x, y betting.DisplayPrice) bool {
			return x.At.Equal(y.At) && x.DisplayOdds.Equal(y.DisplayOdds) && x.DisplayProbability.Equal(y.DisplayProbability)
		}) {
			t.Errorf("%s, outcome %s, %d points: %v, a fresh service answers %v", a.op.ID, a.outcome, a.points, got[i], fresh)
		}
	}

	if _, err := s.SetPrices(ctx, m.ID, prices(m, "0.5", "0.5")); err != nil {
		t.Fatal(err)
	}
	h, err := s.OutcomePriceHistory(ctx, acme, m.ID, m.Outcomes[0].ID, 42)
	before := got[slices.IndexFunc(asks, func(a ask) bool { return a.op.ID == acme.ID && a.outcome == m.Outcomes[0].ID && a.points == 42 })]
	if err != nil || store.reads.Load() != 2 || h[len(h)-1].At.Equal(before[len(before)-1].At) {
		t.Errorf("after a change: %d reads, %v, ending %v; want the history read again, ending with the change", store.reads.Load(), err, h[len(h)-1].At)
	}
}
