package betting_test

import (
	"context"
	"testing"

	"github.com/foresight-dev/foresight/internal/betting"
	"github.com/foresight-dev/foresight/internal/betting/bettingtest"
	"github.com/foresight-dev/foresight/internal/sqlite/sqlitetest"
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
	db := sqlitetest.Open(t)
	svc := betting.NewService(db.BettingStore(), false)
	store := db.BetStore()
	op, err := svc.CreateOperator(ctx, bettingtest.NewOperator("acme"))
	if err != nil {
		t.Fatal(err)
	}
	ev, err := svc.CreateEvent(ctx, bettingtest.NewEvent(op.CreatedAt))
	if err != nil {
		t.Fatal(err)
	}
	held := &holdConfirm{BetStore: store, reached: make(chan struct{}), release: make(chan struct{}), updated: make(chan struct{})}
	placer := betting.NewPlacement(svc, held, &scriptedWallet{answers: []*betting.WalletAnswer{done()}})
	bettor, err := placer.Bettor(ctx, "acme", "alice", "USD")
	if err != nil {
		t.Fatal(err)
	}
	m := ev.Markets[0]
	b, err := placer.Place(ctx, bettor, op, "11111111-1111-4111-8111-111111111111",
		betting.PlaceRequest{MarketID: m.ID, OutcomeID: m.Outcomes[0].ID, Stake: "10.00"})
	if err != nil {
		t.Fatal(err)
	}
	processed := make(chan error, 1)
	go func() { processed <- placer.Process(ctx, b.ID, false) }()
	<-held.reached // debited, market checked open, confirmation about to be written

	if _, err := svc.ResolveMarket(ctx, m.ID, m.Outcomes[0].ID); err != nil {
		t.Fatal(err)
	}
	settler := betting.NewPlacement(svc, &beforePendingRead{BetStore: store, hook: func() {
		close(held.release) // the confirmation commits between Settle's two reads
		<-held.updated
	}}, &scriptedWallet{})
	if err := settler.Settle(ctx, m.ID); err != nil {
		t.Fatalf("Settle = %v", err)
	}
	if err := <-processed; err != nil {
		t.Fatal(err)
	}
	got, _ := store.GetBet(ctx, "", "", b.ID)
	e, _ := svc.GetEvent(ctx, ev.ID)
	rm, _ := e.Market(m.ID)
	if rm.Status != betting.StatusResolved || got.Status != betting.BetSettled || got.PayoutAmount == nil {
		t.Errorf("after Settle: market %s, bet %s with payout %v; want a resolved market and the bet settled with its payout", rm.Status, got.Status, got.PayoutAmount)
	}
}
