// Package bettingtest is the conformance suite every betting.Store passes.
package bettingtest

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/shopspring/decimal"

	"github.com/foresight-dev/foresight/internal/betting"
	"github.com/foresight-dev/foresight/internal/money"
)

// Run runs the suite; newStore returns an empty store for one test.
func Run(t *testing.T, newStore func(t *testing.T) betting.Store) {
	t.Run("Operators", func(t *testing.T) { t.Parallel(); testOperators(t, newStore(t)) })
	t.Run("Events", func(t *testing.T) { t.Parallel(); testEvents(t, newStore(t)) })
	t.Run("SettleMarket", func(t *testing.T) { t.Parallel(); testSettleMarket(t, newStore(t)) })
	t.Run("PriceHistory", func(t *testing.T) { t.Parallel(); testPriceHistory(t, newStore(t)) })
	t.Run("PriceHistoryRetention", func(t *testing.T) { t.Parallel(); testPriceHistoryRetention(t, newStore(t)) })
}

var t0 = time.Date(2026, 11, 21, 10, 0, 0, 0, time.UTC)

// NewOperator returns a valid standalone operator with id.
func NewOperator(id string) betting.Operator {
	return betting.Operator{
		ID: id, Name: "Operator " + id, Integration: betting.IntegrationStandalone,
		WalletURL: "https://wallet.example.com", SigningSecret: "0123456789abcdef0123", JWKSURL: "https://wallet.example.com/.well-known/jwks.json",
		CasinoIDs:  []string{},
		Currencies: []betting.Currency{{Code: "USD", Decimals: 2}},
		Margin:     betting.Margin{Method: "odds_ratio", Value: decimal.RequireFromString("0.05")},
		Limits: map[string]betting.Limits{"USD": {MinStake: money.MustParse("1"), MaxStake: money.MustParse("1000"),
			MaxPayout: money.MustParse("10000"), OutcomeExposure: money.MustParse("50000")}},
		OddsTolerance: decimal.RequireFromString("0.05"),
		CreatedAt:     t0,
	}
}

// NewEvent returns an event with one two-outcome market and fresh ids.
func NewEvent(created time.Time) betting.Event {
	return betting.Event{
		ID: uuid.NewString(), Category: "sports", Title: betting.Texts{"en": "Final", "pt-BR": "Final"}, Status: betting.StatusOpen,
		CreatedAt: created, UpdatedAt: created,
		Markets: []betting.Market{{ID: uuid.NewString(), Question: betting.Texts{"en": "Who wins?"}, Status: betting.StatusOpen, Version: 1,
			Outcomes: []betting.Outcome{
				{ID: uuid.NewString(), Name: betting.Texts{"en": "Home"}, Probability: decimal.RequireFromString("0.6")},
				{ID: uuid.NewString(), Name: betting.Texts{"en": "Away"}, Probability: decimal.RequireFromString("0.4")},
			}}},
	}
}

func code(err error) betting.ErrorCode {
	var be *betting.Error
	if errors.As(err, &be) {
		return be.Code
	}
	return ""
}

func testOperators(t *testing.T, s betting.Store) {
	ctx := context.Background()
	o := NewOperator("alpha")
	if err := s.CreateOperator(ctx, o); err != nil {
		t.Fatal(err)
	}
	if err := s.CreateOperator(ctx, o); code(err) != betting.ErrConflict {
		t.Errorf("duplicate operator: %v", err)
	}
	got, err := s.GetOperator(ctx, "alpha")
	if err != nil || got.SigningSecret != o.SigningSecret || !got.Margin.Value.Equal(o.Margin.Value) ||
		!got.Limits["USD"].MaxStake.Equal(o.Limits["USD"].MaxStake) || !got.CreatedAt.Equal(t0) {
		t.Fatalf("GetOperator = %+v, %v", got, err)
	}
	if _, err := s.GetOperator(ctx, "nobody"); code(err) != betting.ErrNotFound {
		t.Errorf("missing operator: %v", err)
	}
	renamed := got
	renamed.Name = "Renamed"
	if err := s.UpdateOperator(ctx, renamed, got); err != nil {
		t.Fatal(err)
	}
	stale := got
	stale.Name = "Lost update"
	if err := s.UpdateOperator(ctx, stale, got); code(err) != betting.ErrConflict {
		t.Errorf("update from a stale operator: %v, want a conflict", err)
	}
	if err := s.UpdateOperator(ctx, NewOperator("nobody"), NewOperator("nobody")); code(err) != betting.ErrNotFound {
		t.Errorf("update of a missing operator: %v", err)
	}
	if err := s.CreateOperator(ctx, NewOperator("beta")); err != nil {
		t.Fatal(err)
	}
	all, err := s.ListOperators(ctx)
	if err != nil || len(all) != 2 || all[0].Name != "Renamed" || all[1].ID != "beta" {
		t.Errorf("ListOperators = %+v, %v", all, err)
	}
}

func testEvents(t *testing.T, s betting.Store) {
	ctx := context.Background()
	var events []betting.Event
	for i := range 3 {
		e := NewEvent(t0.Add(time.Duration(i) * time.Minute))
		if i == 2 {
			e.Category = "crypto"
		}
		if err := s.CreateEvent(ctx, e); err != nil {
			t.Fatal(err)
		}
		events = append(events, e)
	}
	e := events[0]
	got, err := s.GetEvent(ctx, e.ID)
	if err != nil || got.Title["pt-BR"] != "Final" || !got.Markets[0].Outcomes[0].Probability.Equal(decimal.RequireFromString("0.6")) {
		t.Fatalf("GetEvent = %+v, %v", got, err)
	}
	if _, err := s.GetEvent(ctx, uuid.NewString()); code(err) != betting.ErrNotFound {
		t.Errorf("missing event: %v", err)
	}
	if _, err := s.GetEvent(ctx, "not-a-uuid"); code(err) != betting.ErrNotFound {
		t.Errorf("malformed event id: %v", err)
	}
	byMarket, err := s.EventOfMarket(ctx, e.Markets[0].ID)
	if err != nil || byMarket.ID != e.ID {
		t.Errorf("EventOfMarket = %s, %v", byMarket.ID, err)
	}
	if _, err := s.EventOfMarket(ctx, uuid.NewString()); code(err) != betting.ErrNotFound {
		t.Errorf("missing market: %v", err)
	}

	changed := got
	changed.Status = betting.StatusSuspended
	changed.UpdatedAt = got.UpdatedAt.Add(time.Second)
	if err := s.UpdateEvent(ctx, changed, got.UpdatedAt); err != nil {
		t.Fatal(err)
	}
	if err := s.UpdateEvent(ctx, changed, got.UpdatedAt); code(err) != betting.ErrConflict {
		t.Errorf("update from a stale version: %v", err)
	}
	if err := s.UpdateEvent(ctx, NewEvent(t0), t0); code(err) != betting.ErrNotFound {
		t.Errorf("update of a missing event: %v", err)
	}

	all, err := s.ListEvents(ctx, betting.EventFilter{Limit: 10})
	if err != nil || len(all) != 3 || all[0].ID != events[2].ID {
		t.Fatalf("ListEvents = %d, %v; want newest first", len(all), err)
	}
	crypto, _ := s.ListEvents(ctx, betting.EventFilter{Category: "crypto", Limit: 10})
	suspended, _ := s.ListEvents(ctx, betting.EventFilter{Status: betting.StatusSuspended, Limit: 10})
	page, _ := s.ListEvents(ctx, betting.EventFilter{Limit: 10, BeforeCreatedAt: all[0].CreatedAt, BeforeID: all[0].ID})
	if len(crypto) != 1 || len(suspended) != 1 || suspended[0].ID != e.ID || len(page) != 2 {
		t.Errorf("filters: crypto %d, suspended %d, after the first %d", len(crypto), len(suspended), len(page))
	}
}
