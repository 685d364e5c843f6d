package wallet

import (
	"context"
	"fmt"

	"github.com/foresight-dev/foresight/internal/betting"
	"github.com/foresight-dev/foresight/internal/betting/walletcall"
)

// Client is a betting.Wallet: bodies are built from the bet with the
// operator's currency decimals, so that every retry of a bet's withdrawal
// or rollback sends the same bytes. Each answer lists the requests sent as
// betting.WalletAttempts.
var _ betting.Wallet = (*Client)(nil)

// attempts records the requests sent for tx.
func attempts(tx walletcall.Transaction, log ...Attempt) []betting.WalletAttempt {
	out := make([]betting.WalletAttempt, 0, len(log))
	for _, a := range log {
		result := betting.AttemptUnknown
		switch a.Status {
		case StatusSuccess:
			result = betting.AttemptDone
		case StatusRejected:
			result = betting.AttemptRefused
		case StatusUnknown:
		}
		answer := walletcall.Answer{Status: a.HTTPStatus, Err: a.Err, Started: a.StartedAt, Took: a.Duration}
		out = append(out, tx.Attempt(answer, result, a.Code, a.Unreadable))
	}
	return out
}

func decimals(op betting.Operator, code string) (int32, error) {
	cur, ok := op.Currency(code)
	if !ok {
		return 0, fmt.Errorf("operator %s has no currency %s", op.ID, code)
	}
	return cur.Decimals, nil
}

// Withdraw debits the bet's stake (SendWithdrawal).
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
	res, err := c.SendWithdrawal(ctx, op.WalletURL, op.SigningSecret, body)
	sent := attempts(walletcall.Transaction{Bet: b, Kind: betting.TxWithdrawal, ID: b.WithdrawalTxID, Amount: b.Stake}, res.Log...)
	if err != nil {
		// Nothing sent, or stopped by ctx (walletcall's cancellation rule):
		// the placement runs again with the same bytes.
		return betting.WalletAnswer{Attempts: sent}, err
	}
	switch res.Status {
	case StatusSuccess:
		balance := res.Balance
		return betting.WalletAnswer{Status: betting.WalletDone, OperatorTxID: res.OperatorTransactionID, Balance: &balance, Attempts: sent}, nil
	case StatusRejected:
		return betting.WalletAnswer{Status: betting.WalletRefused, Code: res.Code, Detail: res.Detail, Attempts: sent}, nil
	case StatusUnknown:
	}
	return betting.WalletAnswer{Status: betting.WalletUnknown, Detail: res.Detail, Attempts: sent}, nil
}

// Rollback reverses the bet's withdrawal (SendRollback), one attempt.
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
	out, err := c.SendRollback(ctx, op.WalletURL, op.SigningSecret, b.WithdrawalTxID, body)
	if err != nil {
		return betting.WalletCredit{}, err
	}
	return betting.WalletCredit{Done: out.Done, Balance: out.Balance, Attempts: attempts(tx, out.Attempt)}, nil
}

// Deposit credits a settled or voided bet's payout (SendDeposit), one attempt.
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
	out, err := c.SendDeposit(ctx, op.WalletURL, op.SigningSecret, body)
	if err != nil {
		return betting.WalletCredit{}, err
	}
	return betting.WalletCredit{Done: out.Done, Balance: out.Balance, Attempts: attempts(tx, out.Attempt)}, nil
}
