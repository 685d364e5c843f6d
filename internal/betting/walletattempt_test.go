package betting_test

import (
	"context"
	"errors"
	"io"
	"net"
	"os"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/foresight-dev/foresight/internal/betting"
	"github.com/foresight-dev/foresight/internal/money"
)

// attemptingWallet answers every call after one unknown attempt (the
// first deposit of a bet fails altogether), and lists its attempts.
type attemptingWallet struct {
	mu       sync.Mutex
	deposits map[string]int
	// stop, when set, cancels the placement after its first attempt.
	stop context.CancelFunc
}

func (w *attemptingWallet) attempt(b betting.Bet, kind, prefix string, amount money.Amount, result betting.AttemptResult, status int, failure string) betting.WalletAttempt {
	return betting.WalletAttempt{BetID: b.ID, Kind: kind, TransactionID: prefix + b.ID, Amount: amount, Currency: b.Currency,
		StartedAt: time.Now().UTC(), Duration: 15 * time.Millisecond, Result: result, HTTPStatus: status, Error: failure}
}

func (w *attemptingWallet) Withdraw(ctx context.Context, _ betting.Operator, b betting.Bet) (betting.WalletAnswer, error) {
	first := w.attempt(b, betting.TxWithdrawal, "wd-", b.Stake, betting.AttemptUnknown, 503, "")
	if w.stop != nil {
		w.stop()
		first.Result, first.HTTPStatus, first.Error = betting.AttemptUnknown, 0, betting.FailureCancelled
		return betting.WalletAnswer{Attempts: []betting.WalletAttempt{first}}, ctx.Err()
	}
	done := w.attempt(b, betting.TxWithdrawal, "wd-", b.Stake, betting.AttemptDone, 200, "")
	done.StartedAt = first.StartedAt.Add(time.Second)
	bal := money.MustParse("90")
	return betting.WalletAnswer{Status: betting.WalletDone, OperatorTxID: "op-1", Balance: &bal, Attempts: []betting.WalletAttempt{first, done}}, nil
}

func (w *attemptingWallet) Rollback(_ context.Context, _ betting.Operator, b betting.Bet) (betting.WalletCredit, error) {
	return betting.WalletCredit{Done: true, Attempts: []betting.WalletAttempt{w.attempt(b, betting.TxRollback, "rb-", b.Stake, betting.AttemptDone, 200, "")}}, nil
}

func (w *attemptingWallet) Deposit(_ context.Context, _ betting.Operator, b betting.Bet) (betting.WalletCredit, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.deposits[b.ID]++
	if w.deposits[b.ID] == 1 {
		return betting.WalletCredit{Attempts: []betting.WalletAttempt{w.attempt(b, betting.TxDeposit, "dp-", *b.PayoutAmount, betting.AttemptUnknown, 0, betting.FailureTimeout)}}, nil
	}
	return betting.WalletCredit{Done: true, Attempts: []betting.WalletAttempt{w.attempt(b, betting.TxDeposit, "dp-", *b.PayoutAmount, betting.AttemptDone, 201, "")}}, nil
}

// results lists a transaction's attempt results.
func results(tx betting.WalletTransaction) []string {
	var out []string
	for _, a := range tx.Attempts {
		out = append(out, string(a.Result))
	}
	return out
}

// TestWalletTransactions: a bet's withdrawal and deposit with every
// attempt the wallet reported: with the outcome they led to, and on their
// own for a deposit not confirmed yet or a placement that stopped.
func TestWalletTransactions(t *testing.T) {
	t.Parallel()
	w := newPlacementWorld(t)
	wallet := &attemptingWallet{deposits: map[string]int{}}
	p := betting.NewPlacement(w.svc, w.bets, wallet)
	ctx := context.Background()
	b := w.bet(t)
	if err := p.Process(ctx, b.ID, false); err != nil {
		t.Fatal(err)
	}

	// A placement stopped after an attempt keeps it; the bet stays pending.
	other := w.betWithKey(t, uuid.NewString())
	stopCtx, cancel := context.WithCancel(ctx)
	wallet.stop = cancel
	if err := p.Process(stopCtx, other.ID, false); err == nil {
		t.Fatal("a stopped placement reported success")
	}
	txs, err := p.WalletTransactions(ctx, other.ID)
	if err != nil || len(txs) != 1 || txs[0].ConfirmedAt != nil || len(results(txs[0])) != 1 || txs[0].Attempts[0].Error != betting.FailureCancelled {
		t.Errorf("stopped placement's transactions = %+v, %v", txs, err)
	}
	wallet.stop = nil
	if err := p.Process(ctx, other.ID, false); err != nil {
		t.Fatal(err)
	}
	if txs, _ := p.WalletTransactions(ctx, other.ID); len(txs) != 1 || strings.Join(results(txs[0]), " ") != "unknown unknown done" {
		t.Errorf("the resumed placement's withdrawal = %+v, want the stopped attempt then the new ones", txs)
	}

	m := w.event.Markets[0]
	if _, err := w.svc.ResolveMarket(ctx, m.ID, m.Outcomes[0].ID); err != nil {
		t.Fatal(err)
	}
	if err := p.Settle(ctx, m.ID); err != nil {
		t.Fatal(err)
	}
	if err := p.Deposit(ctx, []string{b.ID}); err == nil {
		t.Fatal("an unconfirmed deposit reported success")
	}
	if err := p.Deposit(ctx, []string{b.ID}); err != nil {
		t.Fatal(err)
	}
	txs, err = p.WalletTransactions(ctx, b.ID)
	if err != nil || len(txs) != 2 {
		t.Fatalf("WalletTransactions = %+v, %v; want the withdrawal and the deposit", txs, err)
	}
	wd, dp := txs[0], txs[1]
	if wd.Kind != betting.TxWithdrawal || wd.TransactionID != b.WithdrawalTxID || !wd.Amount.Equal(b.Stake) || wd.Currency != "USD" ||
		len(wd.Attempts) != 2 || wd.Attempts[0].HTTPStatus != 503 || wd.Attempts[1].Result != betting.AttemptDone {
		t.Errorf("withdrawal = %+v", wd)
	}
	if done := wd.Attempts[1]; wd.ConfirmedAt == nil || !wd.ConfirmedAt.Equal(done.StartedAt.Add(done.Duration)) {
		t.Errorf("withdrawal confirmed at %v, want the end of its done attempt", wd.ConfirmedAt)
	}
	settled, _ := w.bets.GetBet(ctx, "", "", b.ID)
	if dp.Kind != betting.TxDeposit || dp.TransactionID != "dp-"+b.ID || settled.PayoutAmount == nil || !dp.Amount.Equal(*settled.PayoutAmount) ||
		len(dp.Attempts) != 2 || dp.Attempts[0].Error != betting.FailureTimeout || dp.Attempts[1].HTTPStatus != 201 {
		t.Errorf("deposit = %+v (payout %v)", dp, settled.PayoutAmount)
	}
	if dp.ConfirmedAt == nil || settled.DepositConfirmedAt == nil || !dp.ConfirmedAt.Equal(*settled.DepositConfirmedAt) {
		t.Errorf("deposit confirmed at %v, want the bet's %v", dp.ConfirmedAt, settled.DepositConfirmedAt)
	}

	if _, err := p.WalletTransactions(ctx, uuid.NewString()); !betting.IsNotFound(err) {
		t.Errorf("WalletTransactions of an unknown bet = %v, want not found", err)
	}
}

// TestTransportFailure names the failures of requests without an answer.
func TestTransportFailure(t *testing.T) {
	t.Parallel()
	tests := []struct {
		err  error
		want string
	}{
		{nil, ""},
		{context.Canceled, betting.FailureCancelled},
		{context.DeadlineExceeded, betting.FailureTimeout},
		{&net.OpError{Op: "dial", Err: os.NewSyscallError("connect", syscall.ECONNREFUSED)}, betting.FailureConnectionRefused},
		{&net.OpError{Op: "read", Err: os.NewSyscallError("read", syscall.ECONNRESET)}, betting.FailureConnectionReset},
		{&net.DNSError{Err: "no such host", Name: "wallet.example", IsNotFound: true}, betting.FailureDNS},
		{io.EOF, betting.FailureConnectionClosed},
		{errors.New("something else"), betting.FailureTransport},
	}
	for _, tt := range tests {
		if got := betting.TransportFailure(tt.err); got != tt.want {
			t.Errorf("TransportFailure(%v) = %q, want %q", tt.err, got, tt.want)
		}
	}
}
