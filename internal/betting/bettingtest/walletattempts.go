package bettingtest

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/foresight-dev/foresight/internal/betting"
	"github.com/foresight-dev/foresight/internal/money"
)

// attempt returns a wallet attempt of b's transaction of kind, started at
// t0 plus at.
func attempt(b betting.Bet, kind string, result betting.AttemptResult, at time.Duration) betting.WalletAttempt {
	prefix := map[string]string{betting.TxWithdrawal: "wd-", betting.TxDeposit: "dp-", betting.TxRollback: "rb-"}[kind]
	return betting.WalletAttempt{BetID: b.ID, Kind: kind, TransactionID: prefix + b.ID, Amount: b.Stake, Currency: b.Currency,
		StartedAt: t0.Add(at), Duration: 1234567 * time.Microsecond, Result: result}
}

// sameAttempts reports how got differs from want, "" when it does not.
func sameAttempts(got, want []betting.WalletAttempt) string {
	if len(got) != len(want) {
		return fmt.Sprintf("%d attempts, want %d: %+v", len(got), len(want), got)
	}
	for i, g := range got {
		w := want[i]
		if g.BetID != w.BetID || g.Kind != w.Kind || g.TransactionID != w.TransactionID || !g.Amount.Equal(w.Amount) ||
			g.Currency != w.Currency || !g.StartedAt.Equal(w.StartedAt) || g.StartedAt.Location() != time.UTC || g.Duration != w.Duration ||
			g.Result != w.Result || g.Code != w.Code || g.HTTPStatus != w.HTTPStatus || g.Error != w.Error {
			return fmt.Sprintf("attempt %d = %+v, want %+v", i+1, g, w)
		}
	}
	return ""
}

// testWalletAttempts: attempts are recorded with the outcome write they
// ride on (an update that applies, credit confirmations) or on their own,
// and read back per bet, oldest first.
func testWalletAttempts(t *testing.T, s betting.BetStore) {
	ctx := context.Background()
	ensureBettor(t, s, "b1")
	outcome := uuid.NewString()
	b := NewBet("b1", "w1", outcome, t0)
	other := NewBet("b1", "w2", outcome, t0)
	for _, x := range []betting.Bet{b, other} {
		createBet(t, s, x)
	}
	if got, err := s.WalletAttempts(ctx, b.ID); err != nil || len(got) != 0 {
		t.Fatalf("WalletAttempts before any = %v, %v", got, err)
	}

	unknown := attempt(b, betting.TxWithdrawal, betting.AttemptUnknown, 0)
	unknown.HTTPStatus = 503
	lost := attempt(b, betting.TxWithdrawal, betting.AttemptUnknown, time.Second)
	lost.Error = betting.FailureTimeout
	done := attempt(b, betting.TxWithdrawal, betting.AttemptDone, 3*time.Second)
	done.HTTPStatus = 200
	withdrawal := []betting.WalletAttempt{unknown, lost, done}
	if err := s.UpdateBet(ctx, b.ID, betting.BetUpdate{From: betting.BetPending, Status: betting.BetConfirmed, Attempts: withdrawal, At: t0}); err != nil {
		t.Fatal(err)
	}
	stale := attempt(b, betting.TxWithdrawal, betting.AttemptDone, 4*time.Second)
	if err := s.UpdateBet(ctx, b.ID, betting.BetUpdate{From: betting.BetPending, Status: betting.BetRejected,
		Attempts: []betting.WalletAttempt{stale}, At: t0}); code(err) != betting.ErrConflict {
		t.Fatalf("UpdateBet from a stale status = %v", err)
	}
	if got, err := s.WalletAttempts(ctx, b.ID); err != nil || sameAttempts(got, withdrawal) != "" {
		t.Fatalf("after the confirmation (and an update that did not apply): %s, %v", sameAttempts(got, withdrawal), err)
	}

	// The other bet is refused and rolled back: its attempts travel with
	// the update that enqueues the rollback.
	refused := attempt(other, betting.TxWithdrawal, betting.AttemptRefused, 0)
	refused.Code, refused.HTTPStatus = string(betting.RejectOther), 400
	rejectCode := betting.RejectOther
	if err := s.UpdateBet(ctx, other.ID, betting.BetUpdate{From: betting.BetPending, Status: betting.BetRejected, RejectionCode: &rejectCode,
		Rollback: true, Release: true, Attempts: []betting.WalletAttempt{refused}, At: t0}); err != nil {
		t.Fatal(err)
	}

	// Deposits: one that failed on its own, then one confirmed with the
	// other bet's unconfirmed rollback riding along; attempts recorded
	// together keep their order, also with one start time.
	if _, err := s.SettleBets(ctx, []betting.Settlement{{BetID: b.ID, Status: betting.BetSettled, Payout: money.MustParse("20.2")}}, t0.Add(time.Hour)); err != nil {
		t.Fatal(err)
	}
	payout := money.MustParse("20.2")
	closed := attempt(b, betting.TxDeposit, betting.AttemptUnknown, time.Hour)
	closed.Amount, closed.Error = payout, betting.FailureConnectionClosed
	if err := s.AppendWalletAttempts(ctx, []betting.WalletAttempt{closed}); err != nil {
		t.Fatal(err)
	}
	if err := s.AppendWalletAttempts(ctx, nil); err != nil {
		t.Errorf("AppendWalletAttempts(nil) = %v", err)
	}
	paid := attempt(b, betting.TxDeposit, betting.AttemptDone, time.Hour+time.Minute)
	paid.Amount, paid.HTTPStatus = payout, 201
	notYet := attempt(other, betting.TxRollback, betting.AttemptRefused, time.Hour+time.Minute)
	notYet.Code, notYet.HTTPStatus = "duplicate_transaction", 409
	again := notYet
	again.Result, again.Code, again.HTTPStatus, again.Error = betting.AttemptUnknown, "", 0, betting.FailureConnectionRefused
	if err := s.ConfirmCredits(ctx, []betting.CreditConfirmation{{BetID: b.ID, Kind: betting.CreditDeposit, At: t0.Add(2 * time.Hour)}},
		[]betting.WalletAttempt{paid, notYet, again}); err != nil {
		t.Fatal(err)
	}
	want := append(append([]betting.WalletAttempt{}, withdrawal...), closed, paid)
	if got, err := s.WalletAttempts(ctx, b.ID); err != nil || sameAttempts(got, want) != "" {
		t.Errorf("bet's attempts: %s, %v", sameAttempts(got, want), err)
	}
	if got, err := s.WalletAttempts(ctx, other.ID); err != nil || sameAttempts(got, []betting.WalletAttempt{refused, notYet, again}) != "" {
		t.Errorf("other bet's attempts: %s, %v", sameAttempts(got, []betting.WalletAttempt{refused, notYet, again}), err)
	}

	// An attempt recorded late but started earlier comes first.
	early := attempt(other, betting.TxWithdrawal, betting.AttemptUnknown, -time.Minute)
	early.Error = betting.FailureCancelled
	if err := s.AppendWalletAttempts(ctx, []betting.WalletAttempt{early}); err != nil {
		t.Fatal(err)
	}
	if got, _ := s.WalletAttempts(ctx, other.ID); len(got) != 4 || sameAttempts(got[:1], []betting.WalletAttempt{early}) != "" {
		t.Errorf("an earlier attempt recorded late: %+v", got)
	}
	for _, id := range []string{uuid.NewString(), "not-a-uuid"} {
		if got, err := s.WalletAttempts(ctx, id); err != nil || len(got) != 0 {
			t.Errorf("WalletAttempts(%s) = %v, %v; want none", id, got, err)
		}
	}
}
