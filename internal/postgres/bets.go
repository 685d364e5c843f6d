package postgres

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/shopspring/decimal"

	"github.com/foresight-dev/foresight/internal/betting"
	"github.com/foresight-dev/foresight/internal/jobqueue"
	"github.com/foresight-dev/foresight/internal/money"
	"github.com/foresight-dev/foresight/internal/odds"
)

// BetStore returns the database as a betting.BetStore. Amounts are
// NUMERIC; exposure reservations are single conditional updates.
func (d *DB) BetStore() betting.BetStore { return betStore{d} }

type betStore struct{ d *DB }

var _ betting.BetStore = betStore{}

func (s betStore) EnsureBettor(ctx context.Context, b betting.Bettor) (betting.Bettor, error) {
	if _, err := s.d.pool.Exec(ctx, `INSERT INTO betting_bettors (operator_id, id, currency, created_at) VALUES ($1, $2, $3, $4)
		ON CONFLICT (operator_id, id) DO NOTHING`, b.OperatorID, b.ID, b.Currency, b.CreatedAt); err != nil {
		return betting.Bettor{}, err
	}
	return s.GetBettor(ctx, b.OperatorID, b.ID)
}

func (s betStore) SetBettorBalance(ctx context.Context, operatorID, bettorID string, balance money.Amount) error {
	tag, err := s.d.pool.Exec(ctx, `UPDATE betting_bettors SET balance = $1::numeric WHERE operator_id = $2 AND id = $3`, balance.String(), operatorID, bettorID)
	if err != nil {
		return err
	}
	if tag.RowsAffected() == 0 {
		return missing("bettor", bettorID)
	}
	return nil
}

func (s betStore) GetBettor(ctx context.Context, operatorID, bettorID string) (betting.Bettor, error) {
	var b betting.Bettor
	var balance *string
	err := s.d.pool.QueryRow(ctx, `SELECT operator_id, id, currency, balance::text, created_at FROM betting_bettors WHERE operator_id = $1 AND id = $2`,
		operatorID, bettorID).Scan(&b.OperatorID, &b.ID, &b.Currency, &balance, &b.CreatedAt)
	if errors.Is(err, pgx.ErrNoRows) {
		return b, missing("bettor", bettorID)
	}
	if err != nil {
		return b, err
	}
	if balance != nil {
		a, err := storedAmount(*balance)
		if err != nil {
			return b, err
		}
		b.Balance = &a
	}
	b.CreatedAt = b.CreatedAt.UTC()
	return b, nil
}

const betColumns = `id::text, operator_id, bettor_id, idempotency_key, event_id::text, market_id::text, outcome_id::text, outcome_index,
	stake::text, currency, entry_odds::text, potential_payout::text, display_probability::text, status, rejection_code, rejection_reason,
	withdrawal_tx_id, operator_tx_id, payout_amount::text, settled_at, accepted, created_at, updated_at, exposure_reserved`

func storedAmount(s string) (money.Amount, error) {
	var a money.Amount
	return a, a.Scan(s)
}

func scanBet(row pgx.Row, id string) (betting.Bet, error) {
	var b betting.Bet
	var stake, entry, payout, prob string
	var payoutAmount *string
	err := row.Scan(&b.ID, &b.OperatorID, &b.BettorID, &b.IdempotencyKey, &b.EventID, &b.MarketID, &b.OutcomeID, &b.OutcomeIndex,
		&stake, &b.Currency, &entry, &payout, &prob, &b.Status, &b.RejectionCode, &b.RejectionReason, &b.WithdrawalTxID, &b.OperatorTxID,
		&payoutAmount, &b.SettledAt, &b.Accepted, &b.CreatedAt, &b.UpdatedAt, &b.Reserved)
	if errors.Is(err, pgx.ErrNoRows) || badID(err) {
		return b, missing("bet", id)
	}
	if err != nil {
		return b, err
	}
	var errs []error
	var e error
	b.Stake, e = storedAmount(stake)
	errs = append(errs, e)
	b.EntryOdds, e = odds.Parse(entry)
	errs = append(errs, e)
	b.PotentialPayout, e = storedAmount(payout)
	errs = append(errs, e)
	b.DisplayProbability, e = decimal.NewFromString(prob)
	errs = append(errs, e)
	if payoutAmount != nil {
		a, e := storedAmount(*payoutAmount)
		errs = append(errs, e)
		b.PayoutAmount = &a
	}
	b.CreatedAt, b.UpdatedAt = b.CreatedAt.UTC(), b.UpdatedAt.UTC()
	if b.SettledAt != nil {
		t := b.SettledAt.UTC()
		b.SettledAt = &t
	}
	if err := errors.Join(errs...); err != nil {
		return b, fmt.Errorf("bet %s: %w", b.ID, err)
	}
	return b, nil
}

func (s betStore) CreateBet(ctx context.Context, b betting.Bet) (betting.Bet, bool, error) {
	tx, err := s.d.pool.Begin(ctx)
	if err != nil {
		return betting.Bet{}, false, err
	}
	defer tx.Rollback(ctx)
	tag, err := tx.Exec(ctx, `INSERT INTO betting_bets (id, operator_id, bettor_id, idempotency_key, event_id, market_id, outcome_id, outcome_index,
		stake, currency, entry_odds, potential_payout, display_probability, status, rejection_code, rejection_reason, withdrawal_tx_id,
		operator_tx_id, accepted, created_at, updated_at)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18, $19, $20, $21)
		ON CONFLICT (operator_id, bettor_id, idempotency_key) DO NOTHING`,
		b.ID, b.OperatorID, b.BettorID, b.IdempotencyKey, b.EventID, b.MarketID, b.OutcomeID, b.OutcomeIndex, b.Stake.String(), b.Currency,
		b.EntryOdds.String(), b.PotentialPayout.String(), b.DisplayProbability.String(), b.Status, b.RejectionCode, b.RejectionReason,
		b.WithdrawalTxID, b.OperatorTxID, b.Accepted, b.CreatedAt, b.UpdatedAt)
	if err != nil {
		return betting.Bet{}, false, err
	}
	if tag.RowsAffected() == 0 {
		got, err := scanBet(tx.QueryRow(ctx, `SELECT `+betColumns+` FROM betting_bets WHERE operator_id = $1 AND bettor_id = $2 AND idempotency_key = $3`,
			b.OperatorID, b.BettorID, b.IdempotencyKey), b.ID)
		return got, false, err
	}
	if _, err := s.d.queue.InsertTx(ctx, tx, jobqueue.BetPlaceArgs{BetID: b.ID}, nil); err != nil {
		return betting.Bet{}, false, fmt.Errorf("enqueue placement: %w", err)
	}
	return b, true, tx.Commit(ctx)
}

func (s betStore) GetBetByKey(ctx context.Context, operatorID, bettorID, key string) (betting.Bet, error) {
	return scanBet(s.d.pool.QueryRow(ctx, `SELECT `+betColumns+` FROM betting_bets WHERE operator_id = $1 AND bettor_id = $2 AND idempotency_key = $3`,
		operatorID, bettorID, key), key)
}

func (s betStore) GetBet(ctx context.Context, operatorID, bettorID, id string) (betting.Bet, error) {
	return scanBet(s.d.pool.QueryRow(ctx, `SELECT `+betColumns+` FROM betting_bets WHERE id = $1
		AND ($2 = '' OR operator_id = $2) AND ($3 = '' OR bettor_id = $3)`, id, operatorID, bettorID), id)
}

func (s betStore) ListBets(ctx context.Context, f betting.BetFilter) ([]betting.Bet, error) {
	q := `SELECT ` + betColumns + ` FROM betting_bets WHERE operator_id = $1`
	args := []any{f.OperatorID}
	arg := func(v any) string {
		args = append(args, v)
		return "$" + strconv.Itoa(len(args))
	}
	if f.BettorID != "" {
		q += ` AND bettor_id = ` + arg(f.BettorID)
	}
	if f.MarketID != "" {
		q += ` AND market_id = ` + arg(f.MarketID) + `::uuid`
	}
	if len(f.Statuses) > 0 {
		q += ` AND status = ANY(` + arg(f.Statuses) + `)`
	}
	q += newestFirst(arg, f.BeforeCreatedAt, f.BeforeID, f.Limit)
	rows, err := s.d.pool.Query(ctx, q, args...)
	if err != nil {
		return nil, err
	}
	return pgx.CollectRows(rows, func(r pgx.CollectableRow) (betting.Bet, error) { return scanBet(r, "") })
}

func (s betStore) ReserveExposure(ctx context.Context, b betting.Bet, limit money.Amount) error {
	tx, err := s.d.pool.Begin(ctx)
	if err != nil {
		return err
	}
	defer tx.Rollback(ctx)
	var reserved bool
	if err := tx.QueryRow(ctx, `SELECT exposure_reserved FROM betting_bets WHERE id = $1 FOR UPDATE`, b.ID).Scan(&reserved); err != nil {
		return err
	}
	if reserved {
		return nil
	}
	// One statement adds the payout when the total stays within the limit.
	tag, err := tx.Exec(ctx, `INSERT INTO betting_exposure AS x (operator_id, outcome_id, currency, reserved)
		SELECT $1, $2, $3, $4::numeric WHERE $4::numeric <= $5::numeric
		ON CONFLICT (operator_id, outcome_id, currency) DO UPDATE SET reserved = x.reserved + EXCLUDED.reserved
		WHERE x.reserved + EXCLUDED.reserved <= $5::numeric`,
		b.OperatorID, b.OutcomeID, b.Currency, b.PotentialPayout.String(), limit.String())
	if err != nil {
		return err
	}
	if tag.RowsAffected() == 0 {
		return &betting.Error{Code: betting.ErrLimit, Message: "the outcome's exposure limit would be passed"}
	}
	if _, err := tx.Exec(ctx, `UPDATE betting_bets SET exposure_reserved = TRUE WHERE id = $1`, b.ID); err != nil {
		return err
	}
	return tx.Commit(ctx)
}

func (s betStore) Exposure(ctx context.Context, operatorID, outcomeID, currency string) (money.Amount, error) {
	var reserved string
	err := s.d.pool.QueryRow(ctx, `SELECT reserved::text FROM betting_exposure WHERE operator_id = $1 AND outcome_id = $2 AND currency = $3`,
		operatorID, outcomeID, currency).Scan(&reserved)
	if errors.Is(err, pgx.ErrNoRows) {
		return money.Zero(), nil
	}
	if err != nil {
		return money.Amount{}, err
	}
	return storedAmount(reserved)
}

func (s betStore) UpdateBet(ctx context.Context, id string, u betting.BetUpdate) (betting.Bet, error) {
	tx, err := s.d.pool.Begin(ctx)
	if err != nil {
		return betting.Bet{}, err
	}
	defer tx.Rollback(ctx)
	b, err := scanBet(tx.QueryRow(ctx, `SELECT `+betColumns+` FROM betting_bets WHERE id = $1 FOR UPDATE`, id), id)
	if err != nil {
		return betting.Bet{}, err
	}
	if b.Status != u.From {
		return betting.Bet{}, &betting.Error{Code: betting.ErrConflict, Message: "bet " + id + " is " + b.Status}
	}
	var reserved bool
	if err := tx.QueryRow(ctx, `SELECT exposure_reserved FROM betting_bets WHERE id = $1`, id).Scan(&reserved); err != nil {
		return betting.Bet{}, err
	}
	if u.Release && reserved {
		if _, err := tx.Exec(ctx, `UPDATE betting_exposure SET reserved = reserved - $1::numeric WHERE operator_id = $2 AND outcome_id = $3 AND currency = $4`,
			b.PotentialPayout.String(), b.OperatorID, b.OutcomeID, b.Currency); err != nil {
			return betting.Bet{}, err
		}
		reserved = false
	}
	if u.OperatorTxID != "" {
		b.OperatorTxID = u.OperatorTxID
	}
	b.Status, b.RejectionCode, b.RejectionReason, b.UpdatedAt = u.Status, u.RejectionCode, u.RejectionReason, u.At.UTC().Truncate(time.Microsecond)
	if _, err := tx.Exec(ctx, `UPDATE betting_bets SET status = $1, rejection_code = $2, rejection_reason = $3, operator_tx_id = $4,
		exposure_reserved = $5, updated_at = $6 WHERE id = $7`, b.Status, b.RejectionCode, b.RejectionReason, b.OperatorTxID, reserved, b.UpdatedAt, id); err != nil {
		return betting.Bet{}, err
	}
	if u.Balance != nil {
		if _, err := tx.Exec(ctx, `UPDATE betting_bettors SET balance = $1::numeric WHERE operator_id = $2 AND id = $3`,
			u.Balance.String(), b.OperatorID, b.BettorID); err != nil {
			return betting.Bet{}, err
		}
	}
	if u.Rollback {
		if _, err := s.d.queue.InsertTx(ctx, tx, jobqueue.BetRollbackArgs{BetID: id}, nil); err != nil {
			return betting.Bet{}, fmt.Errorf("enqueue rollback: %w", err)
		}
	}
	return b, tx.Commit(ctx)
}

func (s betStore) MarketBets(ctx context.Context, marketID, status string, limit int) ([]betting.Bet, error) {
	rows, err := s.d.pool.Query(ctx, `SELECT `+betColumns+` FROM betting_bets WHERE market_id = $1 AND status = $2 ORDER BY created_at, id LIMIT $3`,
		marketID, status, limit)
	if err != nil {
		return nil, err
	}
	return pgx.CollectRows(rows, func(r pgx.CollectableRow) (betting.Bet, error) { return scanBet(r, "") })
}

func (s betStore) SettleBet(ctx context.Context, id, status string, payout money.Amount, at time.Time) (betting.Bet, error) {
	tx, err := s.d.pool.Begin(ctx)
	if err != nil {
		return betting.Bet{}, err
	}
	defer tx.Rollback(ctx)
	b, err := scanBet(tx.QueryRow(ctx, `SELECT `+betColumns+` FROM betting_bets WHERE id = $1 FOR UPDATE`, id), id)
	if err != nil {
		return betting.Bet{}, err
	}
	if b.Status != betting.BetConfirmed {
		return betting.Bet{}, &betting.Error{Code: betting.ErrConflict, Message: "bet " + id + " is " + b.Status}
	}
	if _, err := tx.Exec(ctx, `UPDATE betting_exposure x SET reserved = x.reserved - $1::numeric
		FROM betting_bets b WHERE b.id = $2 AND b.exposure_reserved
		AND x.operator_id = b.operator_id AND x.outcome_id = b.outcome_id AND x.currency = b.currency`,
		b.PotentialPayout.String(), id); err != nil {
		return betting.Bet{}, err
	}
	settled := at.UTC().Truncate(time.Microsecond)
	b.Status, b.PayoutAmount, b.SettledAt, b.UpdatedAt = status, &payout, &settled, settled
	if _, err := tx.Exec(ctx, `UPDATE betting_bets SET status = $1, payout_amount = $2::numeric, settled_at = $3, exposure_reserved = FALSE, updated_at = $3
		WHERE id = $4`, status, payout.String(), settled, id); err != nil {
		return betting.Bet{}, err
	}
	if _, err := s.d.queue.InsertTx(ctx, tx, jobqueue.BetDepositArgs{BetID: id}, nil); err != nil {
		return betting.Bet{}, fmt.Errorf("enqueue deposit: %w", err)
	}
	return b, tx.Commit(ctx)
}

func (s betStore) ListBettors(ctx context.Context, operatorID, afterID string, limit int) ([]betting.Bettor, error) {
	rows, err := s.d.pool.Query(ctx, `SELECT operator_id, id, currency, balance::text, created_at FROM betting_bettors
		WHERE operator_id = $1 AND id > $2 ORDER BY id LIMIT $3`, operatorID, afterID, limit)
	if err != nil {
		return nil, err
	}
	return pgx.CollectRows(rows, func(r pgx.CollectableRow) (betting.Bettor, error) {
		var b betting.Bettor
		var balance *string
		if err := r.Scan(&b.OperatorID, &b.ID, &b.Currency, &balance, &b.CreatedAt); err != nil {
			return b, err
		}
		if balance != nil {
			a, err := storedAmount(*balance)
			if err != nil {
				return b, err
			}
			b.Balance = &a
		}
		b.CreatedAt = b.CreatedAt.UTC()
		return b, nil
	})
}
