package wallet

import (
	"context"
	"fmt"

	"github.com/foresight-dev/foresight/internal/betting"
	"github.com/foresight-dev/foresight/internal/betting/walletcall"
)

func decimals(op betting.Operator, code string) (int32, error) {
	cur, ok := op.Currency(code)
	if !ok {
		return 0, fmt.Errorf("operator %s has no currency %s", op.ID, code)
	}
	return cur.Decimals, nil
}

// Withdraw debits the bet's stake: POST /v1/withdrawals, resent with the
// same bytes while the outcome is unknown (see withdraw for the outcomes
// and errors).
func (c *Client) Withdraw(ctx context.Context, op betting.Operator, b betting.Bet) (betting.WalletAnswer, error) {
	d, err := decimals(op, b.Currency)
	if err != nil {
		return betting.WalletAnswer{}, err
	}
	body, err := WithdrawalBody(Withdrawal{TransactionID: b.WithdrawalTxID, BettorID: b.BettorID, Amount: b.Stake,
		Currency: b.Currency, Decimals: d, MarketID: b.MarketID, BetID: b.ID})
	if err != nil {
		return betting.WalletAnswer{}, err
	}
	return c.withdraw(ctx, op.WalletURL, op.SigningSecret, body, walletcall.Transaction{Bet: b, Kind: betting.TxWithdrawal, ID: b.WithdrawalTxID, Amount: b.Stake})
}

// Rollback reverses the bet's withdrawal: DELETE
// /v1/rollbacks/{withdrawal transaction id}, one attempt (see rollback).
func (c *Client) Rollback(ctx context.Context, op betting.Operator, b betting.Bet) (betting.WalletCredit, error) {
	d, err := decimals(op, b.Currency)
	if err != nil {
		return betting.WalletCredit{}, err
	}
	tx := walletcall.Transaction{Bet: b, Kind: betting.TxRollback, ID: "rb-" + b.ID, Amount: b.Stake}
	body, err := RollbackBody(Rollback{TransactionID: tx.ID, BettorID: b.BettorID, Amount: b.Stake, Currency: b.Currency, Decimals: d})
	if err != nil {
		return betting.WalletCredit{}, err
	}
	return c.rollback(ctx, op.WalletURL, op.SigningSecret, b.WithdrawalTxID, body, tx)
}

// Deposit credits a settled or voided bet's payout (zero for a lost bet):
// POST /v1/deposits, one attempt (see deposit).
func (c *Client) Deposit(ctx context.Context, op betting.Operator, b betting.Bet) (betting.WalletCredit, error) {
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
	tx := walletcall.Transaction{Bet: b, Kind: betting.TxDeposit, ID: "dp-" + b.ID, Amount: *b.PayoutAmount}
	body, err := DepositBody(Deposit{TransactionID: tx.ID, BettorID: b.BettorID, Amount: *b.PayoutAmount, Currency: b.Currency,
		Decimals: d, MarketID: b.MarketID, BetID: b.ID, WithdrawalTransactionID: b.WithdrawalTxID, Result: result})
	if err != nil {
		return betting.WalletCredit{}, err
	}
	return c.deposit(ctx, op.WalletURL, op.SigningSecret, body, tx)
}
