package betting_test

import (
	"context"
	"errors"
	"testing"

	"github.com/shopspring/decimal"

	"github.com/foresight-dev/foresight/internal/betting"
	"github.com/foresight-dev/foresight/internal/betting/bettingtest"
)

func prices(m betting.Market, probs ...string) map[string]decimal.Decimal {
	out := map[string]decimal.Decimal{}
	for i, p := range probs {
		out[m.Outcomes[i].ID] = decimal.RequireFromString(p)
	}
	return out
}

// TestPriceHistoryRecordsChanges: creation and every change of a market's
// probabilities add a point; the same probabilities again, a refused
// change, a status change or a text change add none.
func TestPriceHistoryRecordsChanges(t *testing.T) {
	t.Parallel()
	s := newService(t)
	ctx := context.Background()
	e, err := s.CreateEvent(ctx, bettingtest.NewEvent(s.Now()))
	if err != nil {
		t.Fatal(err)
	}
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

	e, err = s.SetPrices(ctx, m.ID, prices(m, "0.25", "0.75"))
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
	e, err := s.CreateEvent(ctx, bettingtest.NewEvent(s.Now()))
	if err != nil {
		t.Fatal(err)
	}
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
