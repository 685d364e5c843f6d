package wallet

import (
	"context"
	"fmt"

	"github.com/foresight-dev/foresight/internal/betting"
	"github.com/foresight-dev/foresight/internal/money"
)

// ForBetting adapts c to betting.Wallet: bodies are built from the bet
// with the operator's currency decimals, so that every retry of a bet's
// withdrawal or rollback sends the same bytes. Each answer lists the
// requests sent as betting.WalletAttempts.
func ForBetting(c *Client) betting.Wallet { return bettingWallet{c} }

// transaction names one of a bet's transactions, for its attempts.
type transaction struct {
	bet    betting.Bet
	kind   string
	id     string
	amount money.Amount
}

// attempts describes the requests sent for tx.
func (tx transaction) attempts(log ...Attempt) []betting.WalletAttempt {
	out := make([]betting.WalletAttempt, 0, len(log))
	for _, a := range log {
		w := betting.WalletAttempt{BetID: tx.bet.ID, Kind: tx.kind, TransactionID: tx.id, Amount: tx.amount, Currency: tx.bet.Currency,
			StartedAt: a.StartedAt, Duration: a.Duration, Result: betting.AttemptUnknown, HTTPStatus: a.HTTPStatus}
		switch {
		case a.Status == StatusSuccess:
			w.Result = betting.AttemptDone
		case a.Status == StatusRejected:
			w.Result, w.Code = betting.AttemptRefused, a.Code
		case a.Unreadable || a.HTTPStatus != 0 && a.Err != nil:
			w.Error = betting.FailureUnreadableAnswer
		case a.HTTPStatus == 0:
			w.Error = betting.TransportFailure(a.Err)
		}
		out = append(out, w)
	}
	return out
}

type bettingWallet struct{ c *Client }

func decimals(op betting.Operator, code string) (int32, error) {
	cur, ok := op.Currency(code)
	if !ok {
		return 0, fmt.Errorf("operator %s has no currency %s", op.ID, code)
	}
	return cur.Decimals, nil
}

func (w bettingWallet) Withdraw(ctx context.Context, op betting.Operator, b betting.Bet) (betting.WalletAnswer, error) {
	d, err := decimals(op, b.Currency)
	if err != nil {
		return betting.WalletAnswer{}, err
	}
	body, err := WithdrawalBody(Withdrawal{TransactionID: b.WithdrawalTxID, BettorID: b.BettorID, Amount: b.Stake,
		Currency: b.Currency, Decimals: d, MarketID: b.MarketID, BetID: b.ID})
	if err != nil {
		return betting.WalletAnswer{}, err
	}
	res, err := w.c.Withdraw(ctx, op.WalletURL, op.SigningSecret, body)
	if err != nil {
		return betting.WalletAnswer{}, err
	}
	attempts := transaction{b, betting.TxWithdrawal, b.WithdrawalTxID, b.Stake}.attempts(res.Log...)
	switch res.Status {
	case StatusSuccess:
		balance := res.Balance
		return betting.WalletAnswer{Status: betting.WalletDone, OperatorTxID: res.OperatorTransactionID, Balance: &balance, Attempts: attempts}, nil
	case StatusRejected:
		return betting.WalletAnswer{Status: betting.WalletRefused, Code: res.Code, Detail: res.Detail, Attempts: attempts}, nil
	}
	if ctx.Err() != nil {
		// Stopping: the placement runs again with the same bytes.
		return betting.WalletAnswer{Attempts: attempts}, ctx.Err()
	}
	return betting.WalletAnswer{Status: betting.WalletUnknown, Detail: res.Detail, Attempts: attempts}, nil
}

func (w bettingWallet) Rollback(ctx context.Context, op betting.Operator, b betting.Bet) (betting.WalletCredit, error) {
	d, err := decimals(op, b.Currency)
	if err != nil {
		return betting.WalletCredit{}, err
	}
	tx := transaction{b, betting.TxRollback, "rb-" + b.ID, b.Stake}
	body, err := RollbackBody(Rollback{TransactionID: tx.id, BettorID: b.BettorID, Amount: b.Stake, Currency: b.Currency, Decimals: d})
	if err != nil {
		return betting.WalletCredit{}, err
	}
	out, err := w.c.Rollback(ctx, op.WalletURL, op.SigningSecret, b.WithdrawalTxID, body)
	if err != nil {
		return betting.WalletCredit{}, err
	}
	return betting.WalletCredit{Done: out.Done, Balance: out.Balance, Attempts: tx.attempts(out.Attempt)}, nil
}

func (w bettingWallet) Deposit(ctx context.Context, op betting.Operator, b betting.Bet) (betting.WalletCredit, error) {
	d, err := decimals(op, b.Currency)
	if err != nil {
		return betting.WalletCredit{}, err
	}
	if b.PayoutAmount == nil {
		return betting.WalletCredit{}, fmt.Errorf("bet %s has no payout", b.ID)
	}
	result := ResultLost
	switch {
	case b.Status == betting.BetVoided:
		result = ResultVoided
	case b.PayoutAmount.IsPositive():
		result = ResultWon
	}
	tx := transaction{b, betting.TxDeposit, "dp-" + b.ID, *b.PayoutAmount}
	body, err := DepositBody(Deposit{TransactionID: tx.id, BettorID: b.BettorID, Amount: *b.PayoutAmount, Currency: b.Currency,
		Decimals: d, MarketID: b.MarketID, BetID: b.ID, WithdrawalTransactionID: b.WithdrawalTxID, Result: result})
	if err != nil {
		return betting.WalletCredit{}, err
	}
	out, err := w.c.Deposit(ctx, op.WalletURL, op.SigningSecret, body)
	if err != nil {
		return betting.WalletCredit{}, err
	}
	return betting.WalletCredit{Done: out.Done, Balance: out.Balance, Attempts: tx.attempts(out.Attempt)}, nil
}
