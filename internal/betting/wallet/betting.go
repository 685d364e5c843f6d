package wallet

import (
	"context"
	"fmt"

	"github.com/foresight-dev/foresight/internal/betting"
)

// ForBetting adapts c to betting.Wallet: bodies are built from the bet
// with the operator's currency decimals, so that every retry of a bet's
// withdrawal or rollback sends the same bytes.
func ForBetting(c *Client) betting.Wallet { return bettingWallet{c} }

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
	switch res.Status {
	case StatusSuccess:
		balance := res.Balance
		return betting.WalletAnswer{Status: betting.WalletDone, OperatorTxID: res.OperatorTransactionID, Balance: &balance}, nil
	case StatusRejected:
		return betting.WalletAnswer{Status: betting.WalletRefused, Code: string(res.Code), Detail: res.Detail}, nil
	}
	if ctx.Err() != nil {
		return betting.WalletAnswer{}, ctx.Err() // stopping: the placement runs again with the same bytes
	}
	return betting.WalletAnswer{Status: betting.WalletUnknown, Detail: res.Detail}, nil
}

func (w bettingWallet) Rollback(ctx context.Context, op betting.Operator, b betting.Bet) (betting.WalletCredit, error) {
	d, err := decimals(op, b.Currency)
	if err != nil {
		return betting.WalletCredit{}, err
	}
	body, err := RollbackBody(Rollback{TransactionID: "rb-" + b.ID, BettorID: b.BettorID, Amount: b.Stake, Currency: b.Currency, Decimals: d})
	if err != nil {
		return betting.WalletCredit{}, err
	}
	out, err := w.c.Rollback(ctx, op.WalletURL, op.SigningSecret, b.WithdrawalTxID, body)
	if err != nil {
		return betting.WalletCredit{}, err
	}
	return betting.WalletCredit{Done: out.Done, Balance: out.Balance}, nil
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
	body, err := DepositBody(Deposit{TransactionID: "dp-" + b.ID, BettorID: b.BettorID, Amount: *b.PayoutAmount, Currency: b.Currency,
		Decimals: d, MarketID: b.MarketID, BetID: b.ID, WithdrawalTransactionID: b.WithdrawalTxID, Result: result})
	if err != nil {
		return betting.WalletCredit{}, err
	}
	out, err := w.c.Deposit(ctx, op.WalletURL, op.SigningSecret, body)
	if err != nil {
		return betting.WalletCredit{}, err
	}
	return betting.WalletCredit{Done: out.Done, Balance: out.Balance}, nil
}
