package betting_test

import (
	"context"
	"testing"
	"time"

	"github.com/foresight-dev/foresight/internal/betting"
	"github.com/foresight-dev/foresight/internal/money"
)

// rejectBeforeDebit is a run of the same bet's placement that read it
// before any reservation and rejects it as validation_failed, without a
// rollback: it saw no debit.
func rejectBeforeDebit(t *testing.T, s betting.BetStore, betID string) {
	t.Helper()
	code := betting.RejectValidationFailed
	if err := s.UpdateBet(context.Background(), betID, betting.BetUpdate{From: betting.BetPending, Status: betting.BetRejected,
		RejectionCode: &code, RejectionReason: "the market is not open", Release: true, At: time.Now()}); err != nil {
		t.Fatal(err)
	}
}

// beforeReserve lets hook run right before a reservation.
type beforeReserve struct {
	betting.BetStore
	hook func(betID string)
}

func (s *beforeReserve) ReserveExposure(ctx context.Context, b betting.Bet, limit money.Amount) error {
	s.hook(b.ID)
	return s.BetStore.ReserveExposure(ctx, b, limit)
}

// debitAfterRejection debits the stake after another run rejected the
// bet.
type debitAfterRejection struct {
	scriptedWallet
	t     *testing.T
	store betting.BetStore
}

func (w *debitAfterRejection) Withdraw(ctx context.Context, op betting.Operator, b betting.Bet) (betting.WalletAnswer, error) {
	rejectBeforeDebit(w.t, w.store, b.ID)
	return w.scriptedWallet.Withdraw(ctx, op, b)
}

// TestPlacementDoesNotReserveABetDecidedMeanwhile: a run that checked its
// bet, when another run rejected it before the reservation, neither
// reserves exposure for it (the reservation would never be given back)
// nor sends its withdrawal (found by a review).
func TestPlacementDoesNotReserveABetDecidedMeanwhile(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	w := newPlacementWorld(t, done())
	b := w.bet(t)
	store := &beforeReserve{BetStore: w.bets, hook: func(id string) { rejectBeforeDebit(t, w.bets, id) }}
	p := betting.NewPlacement(w.svc, store, w.wallet)
	if err := p.Process(ctx, b.ID, false); err != nil {
		t.Fatalf("Process = %v", err)
	}
	got, _ := w.bets.GetBet(ctx, "", "", b.ID)
	exposure, _ := w.bets.Exposure(ctx, "acme", b.OutcomeID, "USD")
	if got.Status != betting.BetRejected || got.Reserved || !exposure.IsZero() || w.wallet.withdrawn != 0 {
		t.Errorf("bet %s (reserved %t), exposure %s, %d withdrawals; want the other run's rejection to stand, no exposure and no withdrawal",
			got.Status, got.Reserved, exposure, w.wallet.withdrawn)
	}
}

// TestPlacementRollsBackADebitAfterAConcurrentRejection: a run whose
// withdrawal was debited finds its bet rejected by another run that saw
// no debit (and so owed no rollback); the bet then owes the rollback of
// the stake, or the bettor would lose it (found by a review).
func TestPlacementRollsBackADebitAfterAConcurrentRejection(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	w := newPlacementWorld(t)
	b := w.bet(t)
	p := betting.NewPlacement(w.svc, w.bets, &debitAfterRejection{scriptedWallet: scriptedWallet{answers: []*betting.WalletAnswer{done()}}, t: t, store: w.bets})
	if err := p.Process(ctx, b.ID, false); err != nil {
		t.Fatalf("Process = %v", err)
	}
	got, _ := w.bets.GetBet(ctx, "", "", b.ID)
	exposure, _ := w.bets.Exposure(ctx, "acme", b.OutcomeID, "USD")
	if got.Status != betting.BetRejected || !got.RollbackOwed || !exposure.IsZero() {
		t.Fatalf("bet %s %q, rollback owed %t, exposure %s; want it rejected owing a rollback, no exposure",
			got.Status, got.RejectionReason, got.RollbackOwed, exposure)
	}
	if got.RejectionCode == nil || *got.RejectionCode != betting.RejectValidationFailed {
		t.Errorf("rejection code %v, want the first rejection's validation_failed", got.RejectionCode)
	}
	if err := p.Rollback(ctx, b.ID); err != nil {
		t.Fatal(err)
	}
	if got, _ := w.bets.GetBet(ctx, "", "", b.ID); got.RollbackConfirmedAt == nil {
		t.Error("the rollback was not confirmed on the bet")
	}
}
