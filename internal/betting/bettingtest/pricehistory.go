package bettingtest

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/shopspring/decimal"

	"github.com/foresight-dev/foresight/internal/betting"
)

// reprice sets the market's probabilities to probs at a minute past the
// event's last change, stores the change with RepriceMarket and returns
// the event as stored.
func reprice(t *testing.T, s betting.Store, e betting.Event, market int, probs ...string) betting.Event {
	t.Helper()
	return repriceAt(t, s, e, e.UpdatedAt.Add(time.Minute), market, probs...)
}

// repriceAt is reprice at the time at.
func repriceAt(t *testing.T, s betting.Store, e betting.Event, at time.Time, market int, probs ...string) betting.Event {
	t.Helper()
	prev := e.UpdatedAt
	e.Markets = append([]betting.Market(nil), e.Markets...)
	m := &e.Markets[market]
	m.Outcomes = append([]betting.Outcome(nil), m.Outcomes...)
	for i, p := range probs {
		m.Outcomes[i].Probability = decimal.RequireFromString(p)
	}
	m.Version++
	e.UpdatedAt = at
	if err := s.RepriceMarket(context.Background(), e, prev, m.ID); err != nil {
		t.Fatalf("RepriceMarket: %v", err)
	}
	return e
}

// pointsAt reads the window and returns the points' times as minutes after
// t0 and their first outcome's probability.
func pointsAt(t *testing.T, s betting.Store, f betting.PriceHistoryFilter) ([]int, []string) {
	t.Helper()
	points, err := s.PriceHistory(context.Background(), f)
	if err != nil {
		t.Fatalf("PriceHistory(%+v): %v", f, err)
	}
	var minutes []int
	var first []string
	for _, p := range points {
		if p.MarketID != f.MarketID {
			t.Errorf("a point of market %s in the history of %s", p.MarketID, f.MarketID)
		}
		minutes = append(minutes, int(p.At.Sub(t0)/time.Minute))
		first = append(first, p.Outcomes[0].Probability.String())
	}
	return minutes, first
}

func testPriceHistory(t *testing.T, s betting.Store) {
	ctx := context.Background()
	e := NewEvent(t0)
	second := NewEvent(t0).Markets[0]
	second.Outcomes = append(second.Outcomes, betting.Outcome{ID: uuid.NewString(), Name: betting.Texts{"en": "Draw"}, Probability: decimal.RequireFromString("0.1")})
	second.Outcomes[0].Probability = decimal.RequireFromString("0.5")
	e.Markets = append(e.Markets, second)
	if err := s.CreateEvent(ctx, e); err != nil {
		t.Fatal(err)
	}
	first := e.Markets[0].ID

	// Creation records each market's probabilities, in the market's order.
	points, err := s.PriceHistory(ctx, betting.PriceHistoryFilter{MarketID: second.ID, Limit: 10})
	if err != nil || len(points) != 1 || !points[0].At.Equal(t0) || len(points[0].Outcomes) != 3 {
		t.Fatalf("history of a new market = %+v, %v; want one point at its creation", points, err)
	}
	for i, o := range points[0].Outcomes {
		if o.OutcomeID != second.Outcomes[i].ID || !o.Probability.Equal(second.Outcomes[i].Probability) {
			t.Errorf("outcome %d of the creation point = %+v, want %s at %s", i, o, second.Outcomes[i].ID, second.Outcomes[i].Probability)
		}
	}

	// Points at minutes 0 (creation), 1, 2 and 3 of the first market; the
	// second market's change at minute 4 is not in the first's history.
	e = reprice(t, s, e, 0, "0.55", "0.45")
	e = reprice(t, s, e, 0, "0.5", "0.5")
	e = reprice(t, s, e, 0, "0.45", "0.55")
	e = reprice(t, s, e, 1, "0.4", "0.5", "0.1")
	got, err := s.GetEvent(ctx, e.ID)
	if err != nil || got.Markets[0].Version != 4 || !got.Markets[0].Outcomes[0].Probability.Equal(decimal.RequireFromString("0.45")) {
		t.Fatalf("event after the repricings: %+v, %v", got.Markets, err)
	}

	minute := func(n int) time.Time { return t0.Add(time.Duration(n) * time.Minute) }
	tests := []struct {
		name    string
		filter  betting.PriceHistoryFilter
		minutes []int
		probs   []string
	}{
		{"everything", betting.PriceHistoryFilter{Limit: 10}, []int{0, 1, 2, 3}, []string{"0.6", "0.55", "0.5", "0.45"}},
		{"a page", betting.PriceHistoryFilter{Limit: 2}, []int{0, 1}, []string{"0.6", "0.55"}},
		{"after a page", betting.PriceHistoryFilter{After: minute(1), Limit: 2}, []int{2, 3}, []string{"0.5", "0.45"}},
		{"from a point's time", betting.PriceHistoryFilter{From: minute(1), Limit: 10}, []int{1, 2, 3}, []string{"0.55", "0.5", "0.45"}},
		{"from between points starts with the one in force", betting.PriceHistoryFilter{From: minute(1).Add(30 * time.Second), Limit: 10}, []int{1, 2, 3}, []string{"0.55", "0.5", "0.45"}},
		{"from before the first", betting.PriceHistoryFilter{From: t0.Add(-time.Hour), Limit: 10}, []int{0, 1, 2, 3}, []string{"0.6", "0.55", "0.5", "0.45"}},
		{"from after the last", betting.PriceHistoryFilter{From: minute(9), Limit: 10}, []int{3}, []string{"0.45"}},
		{"to is exclusive", betting.PriceHistoryFilter{To: minute(2), Limit: 10}, []int{0, 1}, []string{"0.6", "0.55"}},
		{"a window", betting.PriceHistoryFilter{From: minute(1).Add(time.Second), To: minute(3), Limit: 10}, []int{1, 2}, []string{"0.55", "0.5"}},
		{"a window's second page", betting.PriceHistoryFilter{From: minute(1).Add(time.Second), To: minute(3), After: minute(1), Limit: 10}, []int{2}, []string{"0.5"}},
		{"a window before the first point", betting.PriceHistoryFilter{From: t0.Add(-time.Hour), To: t0, Limit: 10}, nil, nil},
	}
	for _, tt := range tests {
		f := tt.filter
		f.MarketID = first
		minutes, probs := pointsAt(t, s, f)
		if len(minutes) != len(tt.minutes) || len(probs) != len(tt.probs) {
			t.Errorf("%s: points at minutes %v with %v, want %v with %v", tt.name, minutes, probs, tt.minutes, tt.probs)
			continue
		}
		for i := range minutes {
			if minutes[i] != tt.minutes[i] || probs[i] != tt.probs[i] {
				t.Errorf("%s: points at minutes %v with %v, want %v with %v", tt.name, minutes, probs, tt.minutes, tt.probs)
				break
			}
		}
	}
	if minutes, _ := pointsAt(t, s, betting.PriceHistoryFilter{MarketID: second.ID, Limit: 10}); len(minutes) != 2 || minutes[1] != 4 {
		t.Errorf("history of the second market at minutes %v, want 0 and 4", minutes)
	}

	// A change that loses the race records nothing; unknown ids are not
	// found.
	stale := e
	stale.UpdatedAt = e.UpdatedAt.Add(time.Minute)
	if err := s.RepriceMarket(ctx, stale, t0, first); code(err) != betting.ErrConflict {
		t.Errorf("reprice from a stale version: %v, want a conflict", err)
	}
	if minutes, _ := pointsAt(t, s, betting.PriceHistoryFilter{MarketID: first, Limit: 10}); len(minutes) != 4 {
		t.Errorf("a lost race recorded a point: minutes %v", minutes)
	}
	missing := NewEvent(t0)
	if err := s.RepriceMarket(ctx, missing, t0, missing.Markets[0].ID); code(err) != betting.ErrNotFound {
		t.Errorf("reprice of a missing event: %v", err)
	}
	for _, id := range []string{uuid.NewString(), "not-a-uuid"} {
		if _, err := s.PriceHistory(ctx, betting.PriceHistoryFilter{MarketID: id, Limit: 10}); code(err) != betting.ErrNotFound {
			t.Errorf("history of market %q: %v, want not found", id, err)
		}
	}
}

// testPriceHistoryRetention: recording a market's point thins its older
// points by betting.PriceHistoryRetention (the last point of each minute
// after an hour, of each hour after a day, of each day after 30 days; the
// first point always), measured from the new point, also after a long
// pause; other markets' points stay.
func testPriceHistoryRetention(t *testing.T, s betting.Store) {
	ctx := context.Background()
	e := NewEvent(t0)
	e.Markets = append(e.Markets, NewEvent(t0).Markets[0])
	if err := s.CreateEvent(ctx, e); err != nil {
		t.Fatal(err)
	}
	first, other := e.Markets[0].ID, e.Markets[1].ID
	at := func(d time.Duration) time.Time { return t0.Add(d) }
	rest := func(p string) string {
		return decimal.RequireFromString("1").Sub(decimal.RequireFromString(p)).String()
	}
	// The first market changes at 10, 20, 30 and 70 s; the other market
	// at 40 and 50 s, in one minute.
	for _, p := range []struct {
		at     time.Duration
		market int
		prob   string
	}{{10 * time.Second, 0, "0.51"}, {20 * time.Second, 0, "0.52"}, {30 * time.Second, 0, "0.53"},
		{40 * time.Second, 1, "0.41"}, {50 * time.Second, 1, "0.42"}, {70 * time.Second, 0, "0.54"}} {
		e = repriceAt(t, s, e, at(p.at), p.market, p.prob, rest(p.prob))
	}
	history := func(market string) []string {
		t.Helper()
		points, err := s.PriceHistory(ctx, betting.PriceHistoryFilter{MarketID: market, Limit: 100})
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, p := range points {
			out = append(out, p.At.Sub(t0).String()+" "+p.Outcomes[0].Probability.String())
		}
		return out
	}
	steps := []struct {
		name  string
		at    time.Duration
		prob  string
		first []string
	}{
		{"within the hour every point stays", 59 * time.Minute, "0.55",
			[]string{"0s 0.6", "10s 0.51", "20s 0.52", "30s 0.53", "1m10s 0.54", "59m0s 0.55"}},
		// Minute 0 is over an hour old: its last point (30 s) stays, and the
		// first point of all; minute 1 has one point.
		{"after an hour, the last point of each minute", time.Hour + 2*time.Minute, "0.56",
			[]string{"0s 0.6", "30s 0.53", "1m10s 0.54", "59m0s 0.55", "1h2m0s 0.56"}},
		// Hour 0 is over a day old: its last point (59 min) stays.
		{"after a day, the last point of each hour", 25 * time.Hour, "0.57",
			[]string{"0s 0.6", "59m0s 0.55", "1h2m0s 0.56", "25h0m0s 0.57"}},
		// 2026-11-21 (t0 is 10:00 UTC) is over 30 days old: its last point
		// (11:02) stays; 25 h is the next day.
		{"after 30 days, the last point of each day", 31 * 24 * time.Hour, "0.58",
			[]string{"0s 0.6", "1h2m0s 0.56", "25h0m0s 0.57", "744h0m0s 0.58"}},
	}
	for _, st := range steps {
		e = repriceAt(t, s, e, at(st.at), 0, st.prob, rest(st.prob))
		if got := history(first); strings.Join(got, ", ") != strings.Join(st.first, ", ") {
			t.Errorf("%s: %v, want %v", st.name, got, st.first)
		}
	}
	if got, want := history(other), []string{"0s 0.6", "40s 0.41", "50s 0.42"}; strings.Join(got, ", ") != strings.Join(want, ", ") {
		t.Errorf("the other market's history %v, want %v: thinning one market touched another", got, want)
	}
	// The other market's next change, 31 days on, thins its minute 0 to
	// its first and last points.
	e = repriceAt(t, s, e, at(31*24*time.Hour+time.Minute), 1, "0.43", "0.57")
	if got, want := history(other), []string{"0s 0.6", "50s 0.42", "744h1m0s 0.43"}; strings.Join(got, ", ") != strings.Join(want, ", ") {
		t.Errorf("the other market after a pause of 31 days: %v, want %v", got, want)
	}
	got, err := s.GetEvent(ctx, e.ID)
	if err != nil || !got.UpdatedAt.Equal(e.UpdatedAt) {
		t.Errorf("the event after the changes: %v, %v", got.UpdatedAt, err)
	}
}

// RunPriceHistoryMigration checks that the migration that started the odds
// history gives every market that existed before it one point: its
// probabilities, in order, at its event's last change. open opens the
// store, applying the migrations, and returns a function that closes it;
// forget undoes that migration (drops its table and its record) while the
// store is closed.
func RunPriceHistoryMigration(t *testing.T, open func(t *testing.T) (betting.Store, func()), forget func(t *testing.T)) {
	ctx := context.Background()
	s, closeStore := open(t)
	e := NewEvent(t0)
	if err := s.CreateEvent(ctx, e); err != nil {
		t.Fatal(err)
	}
	e = reprice(t, s, e, 0, "0.35", "0.65")
	closeStore()
	forget(t)

	s, closeStore = open(t)
	defer closeStore()
	points, err := s.PriceHistory(ctx, betting.PriceHistoryFilter{MarketID: e.Markets[0].ID, Limit: 10})
	if err != nil || len(points) != 1 || !points[0].At.Equal(e.UpdatedAt) || len(points[0].Outcomes) != 2 {
		t.Fatalf("history after the migration = %+v, %v; want one point at the event's last change", points, err)
	}
	for i, o := range points[0].Outcomes {
		want := e.Markets[0].Outcomes[i]
		if o.OutcomeID != want.ID || !o.Probability.Equal(want.Probability) {
			t.Errorf("outcome %d after the migration = %+v, want %s at %s", i, o, want.ID, want.Probability)
		}
	}
}
