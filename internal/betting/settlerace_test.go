package betting_test

import (
	"context"
	"errors"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/foresight-dev/foresight/internal/betting"
	"github.com/foresight-dev/foresight/internal/logbuffer"
)

// holdConfirm blocks the UpdateBet that confirms a bet until released.
type holdConfirm struct {
	betting.BetStore
	reached, release, updated chan struct{}
}

func (s *holdConfirm) UpdateBet(ctx context.Context, id string, u betting.BetUpdate) error {
	if u.Status == betting.BetConfirmed {
		close(s.reached)
		<-s.release
		defer close(s.updated)
	}
	return s.BetStore.UpdateBet(ctx, id, u)
}

// beforePendingRead lets hook run right before Settle reads the pending bets.
type beforePendingRead struct {
	betting.BetStore
	hook func()
}

func (s *beforePendingRead) MarketBets(ctx context.Context, marketID string, status betting.BetStatus, limit int) ([]betting.Bet, error) {
	if status == betting.BetPending && s.hook != nil {
		s.hook()
		s.hook = nil
	}
	return s.BetStore.MarketBets(ctx, marketID, status, limit)
}

// TestSettleCatchesABetConfirmedDuringSettlement: a placement that saw the
// market open confirms its bet after Settle read the confirmed bets and
// before it read the pending ones; Settle still settles it (it was left
// confirmed in a resolved market, its stake debited and no deposit ever
// sent). Found by a review; the interleaving is forced through the stores.
func TestSettleCatchesABetConfirmedDuringSettlement(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	w := newPlacementWorld(t, done())
	b := w.bet(t)
	held := &holdConfirm{BetStore: w.bets, reached: make(chan struct{}), release: make(chan struct{}), updated: make(chan struct{})}
	placer := betting.NewPlacement(w.svc, held, w.wallet)
	processed := make(chan error, 1)
	go func() { processed <- placer.Process(ctx, b.ID, false) }()
	<-held.reached // debited, market checked open, confirmation about to be written

	m := w.event.Markets[0]
	if _, err := w.svc.ResolveMarket(ctx, m.ID, m.Outcomes[0].ID); err != nil {
		t.Fatal(err)
	}
	settler := betting.NewPlacement(w.svc, &beforePendingRead{BetStore: w.bets, hook: func() {
		close(held.release) // the confirmation commits between Settle's two reads
		<-held.updated
	}}, &scriptedWallet{})
	if err := settler.Settle(ctx, m.ID); err != nil {
		t.Fatalf("Settle = %v", err)
	}
	if err := <-processed; err != nil {
		t.Fatal(err)
	}
	got, _ := w.bets.GetBet(ctx, "", "", b.ID)
	e, _ := w.svc.GetEvent(ctx, w.event.ID)
	rm, _ := e.Market(m.ID)
	if rm.Status != betting.StatusResolved || got.Status != betting.BetSettled || got.PayoutAmount == nil {
		t.Errorf("after Settle: market %s, bet %s with payout %v; want a resolved market and the bet settled with its payout", rm.Status, got.Status, got.PayoutAmount)
	}
}

// TestSettleWarnsOfABetPendingTooLong: a settlement waiting for a bet
// pending longer than StuckPendingAfter warns, once in that time, naming
// the market and the bet (it waited in silence, snoozed every second, and
// the market's winners were never paid; found by a review).
func TestSettleWarnsOfABetPendingTooLong(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	w := newPlacementWorld(t)
	b := w.bet(t)
	m := w.event.Markets[0]
	if _, err := w.svc.ResolveMarket(ctx, m.ID, m.Outcomes[0].ID); err != nil {
		t.Fatal(err)
	}
	var logs logbuffer.Buffer
	w.place.SetLog(slog.New(slog.NewTextHandler(&logs, nil)))
	w.place.Now = func() time.Time { return b.CreatedAt.Add(betting.StuckPendingAfter - time.Second) }
	if err := w.place.Settle(ctx, m.ID); !errors.Is(err, betting.ErrBetsPending) {
		t.Fatalf("Settle = %v, want ErrBetsPending", err)
	}
	if logs.String() != "" {
		t.Errorf("a bet pending for less than StuckPendingAfter was warned of: %s", logs.String())
	}
	w.place.Now = func() time.Time { return b.CreatedAt.Add(betting.StuckPendingAfter + time.Second) }
	for range 3 {
		if err := w.place.Settle(ctx, m.ID); !errors.Is(err, betting.ErrBetsPending) {
			t.Fatalf("Settle = %v, want ErrBetsPending", err)
		}
	}
	if n := strings.Count(logs.String(), "the market cannot settle: a bet is still pending"); n != 1 || !strings.Contains(logs.String(), b.ID) {
		t.Errorf("%d warnings, want 1 naming bet %s: %s", n, b.ID, logs.String())
	}
}
