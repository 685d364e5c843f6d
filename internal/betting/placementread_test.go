package betting_test

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"

	"github.com/foresight-dev/foresight/internal/betting"
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
	w := newPlacementWorldOf(t, store, db.BetStore())
	b := w.bet(t)
	p := betting.NewPlacement(w.svc, w.bets, &failAfterDebit{store: store})
	if err := p.Process(ctx, b.ID, false); err == nil {
		t.Error("Process with the event unreadable after the debit = nil, want the store's error (the run is retried)")
	}
	if got, _ := w.bets.GetBet(ctx, "", "", b.ID); got.Status != betting.BetPending {
		t.Fatalf("bet after the failed read = %s %q, want pending", got.Status, got.RejectionReason)
	}
	store.fail.Store(false)
	p = betting.NewPlacement(w.svc, w.bets, &scriptedWallet{answers: []*betting.WalletAnswer{done()}})
	if err := p.Process(ctx, b.ID, false); err != nil {
		t.Fatal(err)
	}
	if got, _ := w.bets.GetBet(ctx, "", "", b.ID); got.Status != betting.BetConfirmed {
		t.Errorf("bet after the next run = %s %q, want confirmed", got.Status, got.RejectionReason)
	}
}

// unreadableBets fails GetBet, as a store that lost its connection would.
type unreadableBets struct{ betting.BetStore }

func (unreadableBets) GetBet(context.Context, string, string, string) (betting.Bet, error) {
	return betting.Bet{}, errors.New("read tcp 10.0.0.5:5432: i/o timeout")
}

// TestPlacementLastAttemptRejectsAnUnreadBet: a last attempt that cannot
// even read its bet still rejects it with a rollback, instead of leaving
// it pending for good (nothing runs a placement after its last attempt,
// and its market would never settle; found by a review).
func TestPlacementLastAttemptRejectsAnUnreadBet(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	w := newPlacementWorld(t)
	b := w.bet(t)
	p := betting.NewPlacement(w.svc, unreadableBets{w.bets}, w.wallet)
	if err := p.Process(ctx, b.ID, false); err == nil {
		t.Error("an attempt that cannot read its bet = nil, want the store's error")
	}
	if got, _ := w.bets.GetBet(ctx, "", "", b.ID); got.Status != betting.BetPending {
		t.Fatalf("bet after an attempt that is not the last = %s, want pending", got.Status)
	}
	if err := p.Process(ctx, b.ID, true); err != nil {
		t.Errorf("last attempt = %v, want the bet decided", err)
	}
	if got, _ := w.bets.GetBet(ctx, "", "", b.ID); got.Status != betting.BetRejected || !got.RollbackOwed {
		t.Errorf("bet after the last attempt = %s (rollback owed %t), want rejected with a rollback", got.Status, got.RollbackOwed)
	}
}
