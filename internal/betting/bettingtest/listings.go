package bettingtest

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/foresight-dev/foresight/internal/betting"
)

// testListBettors: an operator's bettors by id, a page after an id, never
// another operator's.
func testListBettors(t *testing.T, s betting.BetStore) {
	ctx := context.Background()
	for _, id := range []string{"carol", "alice", "bob", "dave"} {
		if _, err := s.EnsureBettor(ctx, betting.Bettor{OperatorID: "acme", ID: id, Currency: "USD", CreatedAt: t0}); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := s.EnsureBettor(ctx, betting.Bettor{OperatorID: "other", ID: "anna", Currency: "USD", CreatedAt: t0}); err != nil {
		t.Fatal(err)
	}
	ids := func(bs []betting.Bettor) string {
		var out []string
		for _, b := range bs {
			out = append(out, b.OperatorID+"/"+b.ID)
		}
		return fmt.Sprint(out)
	}
	for _, c := range []struct {
		after string
		limit int
		want  string
	}{
		{"", 10, "[acme/alice acme/bob acme/carol acme/dave]"},
		{"", 2, "[acme/alice acme/bob]"},
		{"bob", 2, "[acme/carol acme/dave]"},
		{"dave", 10, "[]"},
	} {
		got, err := s.ListBettors(ctx, "acme", c.after, c.limit)
		if err != nil || ids(got) != c.want {
			t.Errorf("ListBettors(acme, after %q, %d) = %s, %v; want %s", c.after, c.limit, ids(got), err, c.want)
		}
	}
	if got, err := s.ListBettors(ctx, "nobody", "", 10); err != nil || len(got) != 0 {
		t.Errorf("ListBettors of an operator without bettors = %s, %v", ids(got), err)
	}
}

// testMarketBets: a market's bets in one status, oldest first, at most
// limit, never another market's.
func testMarketBets(t *testing.T, s betting.BetStore) {
	ctx := context.Background()
	ensureBettor(t, s, "b1")
	market, outcome := uuid.NewString(), uuid.NewString()
	var bets []betting.Bet
	for i := range 4 {
		// Created newest first, so that the store's order is not the
		// order of insertion.
		b := NewBet("b1", fmt.Sprint("m", i), outcome, t0.Add(time.Duration(4-i)*time.Second))
		b.MarketID = market
		createBet(t, s, b)
		bets = append(bets, b)
	}
	elsewhere := NewBet("b1", "elsewhere", outcome, t0)
	createBet(t, s, elsewhere)
	// bets[3] is the oldest; bets[0] stays pending.
	for _, b := range bets[1:] {
		if err := s.UpdateBet(ctx, b.ID, betting.BetUpdate{From: betting.BetPending, Status: betting.BetConfirmed, At: t0.Add(time.Minute)}); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.UpdateBet(ctx, elsewhere.ID, betting.BetUpdate{From: betting.BetPending, Status: betting.BetConfirmed, At: t0.Add(time.Minute)}); err != nil {
		t.Fatal(err)
	}
	ids := func(bs []betting.Bet) []string {
		var out []string
		for _, b := range bs {
			out = append(out, b.ID)
		}
		return out
	}
	for _, c := range []struct {
		status betting.BetStatus
		limit  int
		want   []string
	}{
		{betting.BetConfirmed, 10, []string{bets[3].ID, bets[2].ID, bets[1].ID}},
		{betting.BetConfirmed, 2, []string{bets[3].ID, bets[2].ID}},
		{betting.BetPending, 10, []string{bets[0].ID}},
		{betting.BetSettled, 10, nil},
	} {
		got, err := s.MarketBets(ctx, market, c.status, c.limit)
		if err != nil || fmt.Sprint(ids(got)) != fmt.Sprint(c.want) {
			t.Errorf("MarketBets(%s, %d) = %v, %v; want %v", c.status, c.limit, ids(got), err, c.want)
		}
	}
	got, err := s.MarketBets(ctx, market, betting.BetConfirmed, 1)
	if err != nil || len(got) != 1 || !got[0].Stake.Equal(bets[3].Stake) || got[0].OutcomeID != outcome || got[0].BettorID != "b1" {
		t.Errorf("MarketBets' bet = %+v, %v; want the whole bet", got, err)
	}
}

// testSettleMarket: SettleMarket replaces the event as UpdateEvent does,
// with the same optimistic check. (That it also enqueues the settlement
// is seen by the platform's tests, where the queue runs.)
func testSettleMarket(t *testing.T, s betting.Store) {
	ctx := context.Background()
	e := NewEvent(t0)
	if err := s.CreateEvent(ctx, e); err != nil {
		t.Fatal(err)
	}
	m := e.Markets[0]
	resolved := e
	resolved.Markets = []betting.Market{m}
	resolved.Markets[0].Status = betting.StatusResolved
	resolved.Markets[0].WinningOutcomeID = m.Outcomes[0].ID
	resolved.UpdatedAt = t0.Add(time.Minute)
	if err := s.SettleMarket(ctx, resolved, e.UpdatedAt, m.ID); err != nil {
		t.Fatalf("SettleMarket = %v", err)
	}
	got, err := s.GetEvent(ctx, e.ID)
	if err != nil || got.Markets[0].Status != betting.StatusResolved || got.Markets[0].WinningOutcomeID != m.Outcomes[0].ID ||
		!got.UpdatedAt.Equal(resolved.UpdatedAt) {
		t.Fatalf("event after SettleMarket = %+v, %v", got, err)
	}
	if err := s.SettleMarket(ctx, resolved, e.UpdatedAt, m.ID); code(err) != betting.ErrConflict {
		t.Errorf("SettleMarket from a stale version = %v, want a conflict", err)
	}
	missing := NewEvent(t0)
	if err := s.SettleMarket(ctx, missing, t0, missing.Markets[0].ID); code(err) != betting.ErrNotFound {
		t.Errorf("SettleMarket of a missing event = %v, want not found", err)
	}
}
