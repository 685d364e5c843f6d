// Package ledgerwallet is the betting.Wallet of bundled operators: the
// stakes, payouts and rollbacks of their bettors' bets are movements of
// Foresight's own ledger (internal/ledger), so placement and settlement
// call no one over the network.
//
// A withdrawal moves the stake from the bettor's account to the house in
// one transfer (refused when the available balance is short); a rollback
// gives it back; a deposit pays a won bet from the house or refunds a
// voided bet's stake.
// Every movement's idempotency key is the bet id and the step
// (ledger.BetRef), so a call made again after a crash, a retry or a
// replay moves nothing more and answers as the first did.
package ledgerwallet

import (
	"context"
	"fmt"
	"time"

	"github.com/foresight-dev/foresight/internal/betting"
	"github.com/foresight-dev/foresight/internal/ledger"
	"github.com/foresight-dev/foresight/internal/money"
)

// Wallet moves bundled operators' money in a ledger. It is safe for
// concurrent use.
type Wallet struct {
	ledger *ledger.Ledger
	// waits are the pauses before a storage failure's retries.
	waits []time.Duration
}

// New returns the wallet over l.
func New(l *ledger.Ledger) *Wallet {
	return &Wallet{ledger: l, waits: []time.Duration{20 * time.Millisecond, 100 * time.Millisecond}}
}

func ref(b betting.Bet) ledger.BetRef {
	return ledger.BetRef{OperatorID: b.OperatorID, Currency: b.Currency, BettorID: b.BettorID, BetID: b.ID}
}

// retry runs move until it succeeds, fails with a ledger rule (an
// *ledger.Error, which running it again would not change) or has failed
// len(w.waits)+1 times on storage errors; the moves are idempotent, so a
// write whose commit was lost is found, not repeated.
func (w *Wallet) retry(ctx context.Context, move func() error) error {
	for i := 0; ; i++ {
		err := move()
		if err == nil || ledger.CodeOf(err) != "" || i == len(w.waits) || ctx.Err() != nil {
			return err
		}
		select {
		case <-ctx.Done():
			return err
		case <-time.After(w.waits[i]):
		}
	}
}

// Balance is a bettor's available balance: what the widget shows and a
// bet may stake.
func (w *Wallet) Balance(ctx context.Context, op betting.Operator, bettorID, currency string) (money.Amount, error) {
	return w.ledger.Available(ctx, op.ID, currency, bettorID)
}

// balanceAfter reads the bettor's available balance after a movement; nil
// when it cannot be read (the answer then reports none).
func (w *Wallet) balanceAfter(ctx context.Context, b betting.Bet) *money.Amount {
	a, err := w.ledger.Available(ctx, b.OperatorID, b.Currency, b.BettorID)
	if err != nil {
		return nil
	}
	return &a
}

// Withdraw moves the bet's stake from the bettor's account to the house,
// in one transfer: the placement confirms the bet right after, so a hold
// would be posted at once (docs/decisions.md says why one transfer). A
// short available balance is a refusal with insufficient_funds (nothing
// moved). A storage failure that outlasts the retries is an unknown
// outcome (the placement rejects the bet and rolls the stake back, if it
// was taken); while ctx is being cancelled it is an error, and the next
// run of the placement calls again.
func (w *Wallet) Withdraw(ctx context.Context, _ betting.Operator, b betting.Bet) (betting.WalletAnswer, error) {
	r := ref(b)
	var moved ledger.Transfer
	err := w.retry(ctx, func() error {
		var err error
		moved, err = w.ledger.TakeStake(ctx, r, b.Stake)
		return err
	})
	switch ledger.CodeOf(err) {
	case "":
		if err != nil {
			if ctx.Err() != nil {
				return betting.WalletAnswer{}, err
			}
			return betting.WalletAnswer{Status: betting.WalletUnknown, Detail: "the ledger could not be written: " + err.Error()}, nil
		}
		return betting.WalletAnswer{Status: betting.WalletDone, OperatorTxID: moved.ID, Balance: w.balanceAfter(ctx, b)}, nil
	case ledger.ErrInsufficientFunds:
		return betting.WalletAnswer{Status: betting.WalletRefused, Code: betting.RejectInsufficientFund, Balance: w.balanceAfter(ctx, b),
			Detail: err.Error()}, nil
	}
	// ErrConflict (the key holds another stake) or ErrInvalid: nothing of
	// this call moved.
	return betting.WalletAnswer{Status: betting.WalletRefused, Code: betting.RejectOther, Balance: w.balanceAfter(ctx, b),
		Detail: err.Error()}, nil
}

// Rollback reverses a rejected bet's withdrawal: the stake goes back
// from the house. A bet whose stake was never taken is done with nothing
// moved. It answers Done false with the error of a storage failure, so
// that the placement tries again.
func (w *Wallet) Rollback(ctx context.Context, _ betting.Operator, b betting.Bet) (betting.WalletCredit, error) {
	r := ref(b)
	err := w.retry(ctx, func() error {
		_, err := w.ledger.ReturnStake(ctx, r)
		if ledger.CodeOf(err) == ledger.ErrNotFound {
			return nil
		}
		return err
	})
	if err != nil {
		return betting.WalletCredit{}, fmt.Errorf("roll back bet %s in the ledger: %w", b.ID, err)
	}
	return betting.WalletCredit{Done: true, Balance: w.balanceAfter(ctx, b)}, nil
}

// Deposit credits a settled bet's payout from the house (nothing moves
// for a lost bet) or a voided bet's stake. It answers Done false with the
// error of a storage failure, so that the settlement tries again.
func (w *Wallet) Deposit(ctx context.Context, _ betting.Operator, b betting.Bet) (betting.WalletCredit, error) {
	r := ref(b)
	var move func() error
	switch {
	case b.Status == betting.BetVoided:
		move = func() error { _, err := w.ledger.RefundStake(ctx, r, b.Stake); return err }
	case b.Status == betting.BetSettled && b.PayoutAmount != nil && b.PayoutAmount.IsPositive():
		move = func() error { _, err := w.ledger.PayWin(ctx, r, *b.PayoutAmount); return err }
	case b.Status == betting.BetSettled:
		move = func() error { return nil }
	default:
		return betting.WalletCredit{}, fmt.Errorf("bet %s is %s: nothing to deposit", b.ID, b.Status)
	}
	if err := w.retry(ctx, move); err != nil {
		return betting.WalletCredit{}, fmt.Errorf("credit bet %s in the ledger: %w", b.ID, err)
	}
	return betting.WalletCredit{Done: true, Balance: w.balanceAfter(ctx, b)}, nil
}
