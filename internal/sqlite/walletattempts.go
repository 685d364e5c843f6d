package sqlite

import (
	"context"

	"github.com/foresight-dev/foresight/internal/betting"
	"github.com/foresight-dev/foresight/internal/rowscan"
)

// insertWalletAttemptSQL records one wallet attempt; it is one of the
// prepared bet write statements, run in the write that records the
// attempt's outcome.
const insertWalletAttemptSQL = `INSERT INTO betting_wallet_attempts (bet_id, kind, transaction_id, amount, currency, started_at, duration_us,
	result, code, http_status, error) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`

// appendWalletAttempts records attempts in the batch's transaction, in
// order.
func (t *writeTx) appendWalletAttempts(ctx context.Context, attempts []betting.WalletAttempt) error {
	for _, a := range attempts {
		if _, err := t.exec(ctx, insertWalletAttemptSQL, a.BetID, a.Kind, a.TransactionID, a.Amount.String(), a.Currency,
			micros(a.StartedAt), a.Duration.Microseconds(), a.Result, a.Code, a.HTTPStatus, a.Error); err != nil {
			return err
		}
	}
	return nil
}

func (s betStore) AppendWalletAttempts(ctx context.Context, attempts []betting.WalletAttempt) error {
	if len(attempts) == 0 {
		return nil
	}
	return s.d.write(ctx, func(ctx context.Context, tx *writeTx) (error, error) {
		return nil, tx.appendWalletAttempts(ctx, attempts)
	})
}

func (s betStore) WalletAttempts(ctx context.Context, betID string) ([]betting.WalletAttempt, error) {
	return queryList(ctx, s.d.reader, `SELECT bet_id, kind, transaction_id, amount, currency, started_at, duration_us, result, code, http_status, error
		FROM betting_wallet_attempts WHERE bet_id = ? ORDER BY started_at, id`, []any{betID}, rowscan.WalletAttempt)
}
