package betting_test

import (
	"context"
	"testing"
	"time"

	"github.com/foresight-dev/foresight/internal/betting"
	"github.com/foresight-dev/foresight/internal/betting/bettingtest"
	"github.com/foresight-dev/foresight/internal/money"
	"github.com/foresight-dev/foresight/internal/sqlite/sqlitetest"
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

// placeOne registers an operator and an event and places one pending bet
// through p.
func placeOne(t *testing.T, svc *betting.Service, p *betting.Placement) betting.Bet {
	t.Helper()
	ctx := context.Background()
	op, err := svc.CreateOperator(ctx, bettingtest.NewOperator("acme"))
	if err != nil {
		t.Fatal(err)
	}
	ev, err := svc.CreateEvent(ctx, bettingtest.NewEvent(op.CreatedAt))
	if err != nil {
		t.Fatal(err)
	}
	bettor, err := p.Bettor(ctx, "acme", "alice", "USD")
	if err != nil {
		t.Fatal(err)
	}
	m := ev.Markets[0]
	b, err := p.Place(ctx, bettor, op, "11111111-1111-4111-8111-111111111111",
		betting.PlaceRequest{MarketID: m.ID, OutcomeID: m.Outcomes[0].ID, Stake: "10.00"})
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestPlacementDoesNotReserveABetDecidedMeanwhile: a run that checked its
// bet, when another run rejected it before the reservation, neither
// reserves exposure for it (the reservation would never be given back)
// nor sends its withdrawal (found by a review).
func TestPlacementDoesNotReserveABetDecidedMeanwhile(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db := sqlitetest.Open(t)
	svc := betting.NewService(db.BettingStore(), false)
	store := &beforeReserve{BetStore: db.BetStore(), hook: func(id string) { rejectBeforeDebit(t, db.BetStore(), id) }}
	w := &scriptedWallet{answers: []*betting.WalletAnswer{done()}}
	p := betting.NewPlacement(svc, store, w)
	b := placeOne(t, svc, p)
	if err := p.Process(ctx, b.ID, false); err != nil {
		t.Fatalf("Process = %v", err)
	}
	got, _ := db.BetStore().GetBet(ctx, "", "", b.ID)
	exposure, _ := db.BetStore().Exposure(ctx, "acme", b.OutcomeID, "USD")
	if got.Status != betting.BetRejected || got.Reserved || !exposure.IsZero() || w.withdrawn != 0 {
		t.Errorf("bet %s (reserved %t), exposure %s, %d withdrawals; want the other run's rejection to stand, no exposure and no withdrawal",
			got.Status, got.Reserved, exposure, w.withdrawn)
	}
}

// TestPlacementRollsBackADebitAfterAConcurrentRejection: a run whose
// withdrawal was debited finds its bet rejected by another run that saw
// no debit (and so owed no rollback); the bet then owes the rollback of
// the stake, or the bettor would lose it (found by a review).
func TestPlacementRollsBackADebitAfterAConcurrentRejection(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db := sqlitetest.Open(t)
	svc := betting.NewService(db.BettingStore(), false)
	w := &debitAfterRejection{scriptedWallet: scriptedWallet{answers: []*betting.WalletAnswer{done()}}, t: t, store: db.BetStore()}
	p := betting.NewPlacement(svc, db.BetStore(), w)
	b := placeOne(t, svc, p)
	if err := p.Process(ctx, b.ID, false); err != nil {
		t.Fatalf("Process = %v", err)
	}
	got, _ := db.BetStore().GetBet(ctx, "", "", b.ID)
	exposure, _ := db.BetStore().Exposure(ctx, "acme", b.OutcomeID, "USD")
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
	if got, _ := db.BetStore().GetBet(ctx, "", "", b.ID); got.RollbackConfirmedAt == nil {
		t.Error("the rollback was not confirmed on the bet")
	}
}
