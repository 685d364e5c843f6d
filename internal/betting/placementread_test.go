package betting_test

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"

	"github.com/foresight-dev/foresight/internal/betting"
	"github.com/foresight-dev/foresight/internal/betting/bettingtest"
	"github.com/foresight-dev/foresight/internal/sqlite/sqlitetest"
)

// flakyEvents fails GetEvent while fail is set, as a store that lost its
// connection would.
type flakyEvents struct {
	betting.Store
	fail atomic.Bool
}

func (s *flakyEvents) GetEvent(ctx context.Context, id string) (betting.Event, error) {
	if s.fail.Load() {
		return betting.Event{}, errors.New("read tcp 10.0.0.5:5432: i/o timeout")
	}
	return s.Store.GetEvent(ctx, id)
}

// failAfterDebit debits the stake and then makes the store fail.
type failAfterDebit struct {
	scriptedWallet
	store *flakyEvents
}

func (w *failAfterDebit) Withdraw(context.Context, betting.Operator, betting.Bet) (betting.WalletAnswer, error) {
	w.store.fail.Store(true)
	return *done(), nil
}

// TestPlacementStoreFailureAfterDebitWaits: when the event cannot be read
// after the wallet debited the stake, the bet on an open market is not
// rejected as if the event were gone (a final wallet_rolled_back); the run
// fails, and the next one, with the store back, confirms the bet (found
// by a review).
func TestPlacementStoreFailureAfterDebitWaits(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db := sqlitetest.Open(t)
	store := &flakyEvents{Store: db.BettingStore()}
	svc := betting.NewService(store, false)
	op, err := svc.CreateOperator(ctx, bettingtest.NewOperator("acme"))
	if err != nil {
		t.Fatal(err)
	}
	ev, err := svc.CreateEvent(ctx, bettingtest.NewEvent(op.CreatedAt))
	if err != nil {
		t.Fatal(err)
	}
	p := betting.NewPlacement(svc, db.BetStore(), &failAfterDebit{store: store})
	bettor, err := p.Bettor(ctx, "acme", "alice", "USD")
	if err != nil {
		t.Fatal(err)
	}
	m := ev.Markets[0]
	b, err := p.Place(ctx, bettor, op, "11111111-1111-4111-8111-111111111111", betting.PlaceRequest{MarketID: m.ID, OutcomeID: m.Outcomes[0].ID, Stake: "10.00"})
	if err != nil {
		t.Fatal(err)
	}
	if err := p.Process(ctx, b.ID, false); err == nil {
		t.Error("Process with the event unreadable after the debit = nil, want the store's error (the run is retried)")
	}
	if got, _ := db.BetStore().GetBet(ctx, "", "", b.ID); got.Status != betting.BetPending {
		t.Fatalf("bet after the failed read = %s %q, want pending", got.Status, got.RejectionReason)
	}
	store.fail.Store(false)
	p = betting.NewPlacement(svc, db.BetStore(), &scriptedWallet{answers: []*betting.WalletAnswer{done()}})
	if err := p.Process(ctx, b.ID, false); err != nil {
		t.Fatal(err)
	}
	if got, _ := db.BetStore().GetBet(ctx, "", "", b.ID); got.Status != betting.BetConfirmed {
		t.Errorf("bet after the next run = %s %q, want confirmed", got.Status, got.RejectionReason)
	}
}
