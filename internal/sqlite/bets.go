package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/shopspring/decimal"

	"github.com/foresight-dev/foresight/internal/betting"
	"github.com/foresight-dev/foresight/internal/jobqueue"
	"github.com/foresight-dev/foresight/internal/money"
	"github.com/foresight-dev/foresight/internal/odds"
)

// BetStore returns the database as a betting.BetStore. Amounts are TEXT;
// arithmetic happens in Go inside the single writer's transactions.
func (d *DB) BetStore() betting.BetStore { return betStore{d} }

type betStore struct{ d *DB }

var _ betting.BetStore = betStore{}

func (s betStore) EnsureBettor(ctx context.Context, b betting.Bettor) (betting.Bettor, error) {
	if _, err := s.d.writer.exec(ctx, `INSERT INTO betting_bettors (operator_id, id, currency, created_at) VALUES (?, ?, ?, ?)
		ON CONFLICT (operator_id, id) DO NOTHING`, b.OperatorID, b.ID, b.Currency, micros(b.CreatedAt)); err != nil {
		return betting.Bettor{}, err
	}
	return s.GetBettor(ctx, b.OperatorID, b.ID)
}

func (s betStore) SetBettorBalance(ctx context.Context, operatorID, bettorID string, balance money.Amount) error {
	res, err := s.d.writer.exec(ctx, `UPDATE betting_bettors SET balance = ? WHERE operator_id = ? AND id = ?`, balance.String(), operatorID, bettorID)
	if err != nil {
		return err
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return notFound("bettor", bettorID)
	}
	return nil
}

func (s betStore) GetBettor(ctx context.Context, operatorID, bettorID string) (betting.Bettor, error) {
	var b betting.Bettor
	var balance sql.NullString
	var created int64
	err := s.d.reader.queryRow(ctx, `SELECT operator_id, id, currency, balance, created_at FROM betting_bettors WHERE operator_id = ? AND id = ?`,
		operatorID, bettorID).Scan(&b.OperatorID, &b.ID, &b.Currency, &balance, &created)
	if errors.Is(err, sql.ErrNoRows) {
		return b, notFound("bettor", bettorID)
	}
	if err != nil {
		return b, err
	}
	if balance.Valid {
		a, err := money.ParseAmount(balance.String)
		if err != nil {
			return b, err
		}
		b.Balance = &a
	}
	b.CreatedAt = fromMicros(created)
	return b, nil
}

const betColumns = `id, operator_id, bettor_id, idempotency_key, event_id, market_id, outcome_id, outcome_index, stake, currency,
	entry_odds, potential_payout, display_probability, status, rejection_code, rejection_reason, withdrawal_tx_id, operator_tx_id,
	payout_amount, settled_at, accepted, created_at, updated_at, exposure_reserved, deposit_confirmed_at, rollback_confirmed_at`

func scanBet(row interface{ Scan(...any) error }, id string) (betting.Bet, error) {
	var b betting.Bet
	var stake, entry, payout, prob string
	var code, payoutAmount sql.NullString
	var settled, deposited, rolledBack sql.NullInt64
	var created, updated int64
	err := row.Scan(&b.ID, &b.OperatorID, &b.BettorID, &b.IdempotencyKey, &b.EventID, &b.MarketID, &b.OutcomeID, &b.OutcomeIndex,
		&stake, &b.Currency, &entry, &payout, &prob, &b.Status, &code, &b.RejectionReason, &b.WithdrawalTxID, &b.OperatorTxID,
		&payoutAmount, &settled, &b.Accepted, &created, &updated, &b.Reserved, &deposited, &rolledBack)
	if errors.Is(err, sql.ErrNoRows) {
		return b, notFound("bet", id)
	}
	if err != nil {
		return b, err
	}
	var errs []error
	var e error
	b.Stake, e = money.ParseAmount(stake)
	errs = append(errs, e)
	b.EntryOdds, e = odds.Parse(entry)
	errs = append(errs, e)
	b.PotentialPayout, e = parseStored(payout)
	errs = append(errs, e)
	b.DisplayProbability, e = decimal.NewFromString(prob)
	errs = append(errs, e)
	if code.Valid {
		b.RejectionCode = &code.String
	}
	if payoutAmount.Valid {
		a, e := money.ParseAmount(payoutAmount.String)
		errs = append(errs, e)
		b.PayoutAmount = &a
	}
	b.SettledAt, b.DepositConfirmedAt, b.RollbackConfirmedAt = timePtr(settled), timePtr(deposited), timePtr(rolledBack)
	b.CreatedAt, b.UpdatedAt = fromMicros(created), fromMicros(updated)
	if err := errors.Join(errs...); err != nil {
		return b, fmt.Errorf("bet %s: %w", b.ID, err)
	}
	return b, nil
}

// parseStored reads a stored amount of up to 16 decimals (a potential
// payout), which ParseAmount's wire limit of 12 would refuse.
func parseStored(s string) (money.Amount, error) {
	var a money.Amount
	return a, a.Scan(s)
}

func (s betStore) CreateBet(ctx context.Context, b betting.Bet) (betting.Bet, bool, error) {
	tx, err := s.d.writer.db.BeginTx(ctx, nil)
	if err != nil {
		return betting.Bet{}, false, err
	}
	defer tx.Rollback()
	res, err := tx.ExecContext(ctx, `INSERT INTO betting_bets (`+betColumns+`) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, NULL, NULL)
		ON CONFLICT (operator_id, bettor_id, idempotency_key) DO NOTHING`,
		b.ID, b.OperatorID, b.BettorID, b.IdempotencyKey, b.EventID, b.MarketID, b.OutcomeID, b.OutcomeIndex, b.Stake.String(), b.Currency,
		b.EntryOdds.String(), b.PotentialPayout.String(), b.DisplayProbability.String(), b.Status, b.RejectionCode, b.RejectionReason,
		b.WithdrawalTxID, b.OperatorTxID, nil, nil, b.Accepted, micros(b.CreatedAt), micros(b.UpdatedAt), false)
	if err != nil {
		return betting.Bet{}, false, err
	}
	if n, _ := res.RowsAffected(); n == 0 {
		got, err := scanBet(tx.QueryRowContext(ctx, `SELECT `+betColumns+` FROM betting_bets WHERE operator_id = ? AND bettor_id = ? AND idempotency_key = ?`,
			b.OperatorID, b.BettorID, b.IdempotencyKey), b.ID)
		return got, false, err
	}
	if _, err := s.d.queue.InsertTx(ctx, tx, jobqueue.BetPlaceArgs{BetID: b.ID}, nil); err != nil {
		return betting.Bet{}, false, fmt.Errorf("enqueue placement: %w", err)
	}
	return b, true, tx.Commit()
}

func (s betStore) GetBetByKey(ctx context.Context, operatorID, bettorID, key string) (betting.Bet, error) {
	return scanBet(s.d.reader.queryRow(ctx, `SELECT `+betColumns+` FROM betting_bets WHERE operator_id = ? AND bettor_id = ? AND idempotency_key = ?`,
		operatorID, bettorID, key), key)
}

func (s betStore) GetBet(ctx context.Context, operatorID, bettorID, id string) (betting.Bet, error) {
	q := `SELECT ` + betColumns + ` FROM betting_bets WHERE id = ?`
	args := []any{id}
	if operatorID != "" {
		q += ` AND operator_id = ?`
		args = append(args, operatorID)
	}
	if bettorID != "" {
		q += ` AND bettor_id = ?`
		args = append(args, bettorID)
	}
	return scanBet(s.d.reader.queryRow(ctx, q, args...), id)
}

func (s betStore) ListBets(ctx context.Context, f betting.BetFilter) ([]betting.Bet, error) {
	q := `SELECT ` + betColumns + ` FROM betting_bets WHERE operator_id = ?`
	args := []any{f.OperatorID}
	if f.BettorID != "" {
		q += ` AND bettor_id = ?`
		args = append(args, f.BettorID)
	}
	if f.MarketID != "" {
		q += ` AND market_id = ?`
		args = append(args, f.MarketID)
	}
	if len(f.Statuses) > 0 {
		q += ` AND status IN (` + placeholders(len(f.Statuses)) + `)`
		for _, st := range f.Statuses {
			args = append(args, st)
		}
	}
	return queryNewestFirst(ctx, s.d.reader, q, args, f.BeforeCreatedAt, f.BeforeID, f.Limit,
		func(row interface{ Scan(...any) error }) (betting.Bet, error) { return scanBet(row, "") })
}

func (s betStore) ReserveExposure(ctx context.Context, b betting.Bet, limit money.Amount) error {
	tx, err := s.d.writer.db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	reserved, err := isReserved(ctx, tx, b.ID)
	if err != nil || reserved {
		return err
	}
	total, err := exposure(ctx, tx, b.OperatorID, b.OutcomeID, b.Currency)
	if err != nil {
		return err
	}
	total = total.Add(b.PotentialPayout)
	if total.GreaterThan(limit) {
		return &betting.Error{Code: betting.ErrLimit, Message: "the outcome's exposure limit would be passed"}
	}
	if _, err := tx.ExecContext(ctx, `INSERT INTO betting_exposure (operator_id, outcome_id, currency, reserved) VALUES (?, ?, ?, ?)
		ON CONFLICT (operator_id, outcome_id, currency) DO UPDATE SET reserved = excluded.reserved`,
		b.OperatorID, b.OutcomeID, b.Currency, total.String()); err != nil {
		return err
	}
	if _, err := tx.ExecContext(ctx, `UPDATE betting_bets SET exposure_reserved = 1 WHERE id = ?`, b.ID); err != nil {
		return err
	}
	return tx.Commit()
}

func exposure(ctx context.Context, tx *sql.Tx, operatorID, outcomeID, currency string) (money.Amount, error) {
	var reserved string
	err := tx.QueryRowContext(ctx, `SELECT reserved FROM betting_exposure WHERE operator_id = ? AND outcome_id = ? AND currency = ?`,
		operatorID, outcomeID, currency).Scan(&reserved)
	if errors.Is(err, sql.ErrNoRows) {
		return money.Zero(), nil
	}
	if err != nil {
		return money.Amount{}, err
	}
	return parseStored(reserved)
}

func (s betStore) Exposure(ctx context.Context, operatorID, outcomeID, currency string) (money.Amount, error) {
	tx, err := s.d.writer.db.BeginTx(ctx, nil)
	if err != nil {
		return money.Amount{}, err
	}
	defer tx.Rollback()
	return exposure(ctx, tx, operatorID, outcomeID, currency)
}

func (s betStore) UpdateBet(ctx context.Context, id string, u betting.BetUpdate) (betting.Bet, error) {
	tx, err := s.d.writer.db.BeginTx(ctx, nil)
	if err != nil {
		return betting.Bet{}, err
	}
	defer tx.Rollback()
	b, err := scanBet(tx.QueryRowContext(ctx, `SELECT `+betColumns+` FROM betting_bets WHERE id = ?`, id), id)
	if err != nil {
		return betting.Bet{}, err
	}
	if b.Status != u.From {
		return betting.Bet{}, &betting.Error{Code: betting.ErrConflict, Message: "bet " + id + " is " + b.Status}
	}
	reserved, err := isReserved(ctx, tx, id)
	if err != nil {
		return betting.Bet{}, err
	}
	if u.Release && reserved {
		if err := release(ctx, tx, b); err != nil {
			return betting.Bet{}, err
		}
		reserved = false
	}
	if u.OperatorTxID != "" {
		b.OperatorTxID = u.OperatorTxID
	}
	b.Status, b.RejectionCode, b.RejectionReason, b.UpdatedAt = u.Status, u.RejectionCode, u.RejectionReason, u.At.UTC().Truncate(time.Microsecond)
	if _, err := tx.ExecContext(ctx, `UPDATE betting_bets SET status = ?, rejection_code = ?, rejection_reason = ?, operator_tx_id = ?,
		exposure_reserved = ?, updated_at = ? WHERE id = ?`, b.Status, b.RejectionCode, b.RejectionReason, b.OperatorTxID, reserved, micros(b.UpdatedAt), id); err != nil {
		return betting.Bet{}, err
	}
	if u.Balance != nil {
		if _, err := tx.ExecContext(ctx, `UPDATE betting_bettors SET balance = ? WHERE operator_id = ? AND id = ?`,
			u.Balance.String(), b.OperatorID, b.BettorID); err != nil {
			return betting.Bet{}, err
		}
	}
	if u.Rollback {
		if _, err := s.d.queue.InsertTx(ctx, tx, jobqueue.BetRollbackArgs{BetID: id}, nil); err != nil {
			return betting.Bet{}, fmt.Errorf("enqueue rollback: %w", err)
		}
	}
	return b, tx.Commit()
}

func (s betStore) MarketBets(ctx context.Context, marketID, status string, limit int) ([]betting.Bet, error) {
	rows, err := s.d.reader.query(ctx, `SELECT `+betColumns+` FROM betting_bets WHERE market_id = ? AND status = ? ORDER BY created_at, id LIMIT ?`,
		marketID, status, limit)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := []betting.Bet{}
	for rows.Next() {
		b, err := scanBet(rows, "")
		if err != nil {
			return nil, err
		}
		out = append(out, b)
	}
	return out, rows.Err()
}

func (s betStore) SettleBets(ctx context.Context, settlements []betting.Settlement, at time.Time) (int, error) {
	tx, err := s.d.writer.db.BeginTx(ctx, nil)
	if err != nil {
		return 0, err
	}
	defer tx.Rollback()
	settled := micros(at)
	released := map[exposureKey]money.Amount{}
	var ids []string
	for _, st := range settlements {
		b, err := scanBet(tx.QueryRowContext(ctx, `SELECT `+betColumns+` FROM betting_bets WHERE id = ?`, st.BetID), st.BetID)
		if betting.IsNotFound(err) {
			continue
		}
		if err != nil {
			return 0, err
		}
		if b.Status != betting.BetConfirmed {
			continue
		}
		if b.Reserved {
			k := exposureKey{b.OperatorID, b.OutcomeID, b.Currency}
			released[k] = released[k].Add(b.PotentialPayout)
		}
		if _, err := tx.ExecContext(ctx, `UPDATE betting_bets SET status = ?, payout_amount = ?, settled_at = ?, exposure_reserved = 0, updated_at = ?
			WHERE id = ?`, st.Status, st.Payout.String(), settled, settled, b.ID); err != nil {
			return 0, err
		}
		ids = append(ids, b.ID)
	}
	for k, amount := range released {
		total, err := exposure(ctx, tx, k.operatorID, k.outcomeID, k.currency)
		if err != nil {
			return 0, err
		}
		if _, err := tx.ExecContext(ctx, `UPDATE betting_exposure SET reserved = ? WHERE operator_id = ? AND outcome_id = ? AND currency = ?`,
			total.Sub(amount).String(), k.operatorID, k.outcomeID, k.currency); err != nil {
			return 0, err
		}
	}
	if len(ids) > 0 {
		if _, err := s.d.queue.InsertManyTx(ctx, tx, jobqueue.DepositJobs(ids)); err != nil {
			return 0, fmt.Errorf("enqueue deposits: %w", err)
		}
	}
	return len(ids), tx.Commit()
}

// exposureKey names one outcome's exposure in one currency.
type exposureKey struct{ operatorID, outcomeID, currency string }

func (s betStore) BetsByID(ctx context.Context, ids []string) ([]betting.Bet, error) {
	out := []betting.Bet{}
	if len(ids) == 0 {
		return out, nil
	}
	args := make([]any, len(ids))
	for i, id := range ids {
		args[i] = id
	}
	rows, err := s.d.reader.query(ctx, `SELECT `+betColumns+` FROM betting_bets WHERE id IN (`+placeholders(len(ids))+`)`, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	for rows.Next() {
		b, err := scanBet(rows, "")
		if err != nil {
			return nil, err
		}
		out = append(out, b)
	}
	return out, rows.Err()
}

func (s betStore) ConfirmCredits(ctx context.Context, credits []betting.CreditConfirmation) error {
	tx, err := s.d.writer.db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	for _, c := range credits {
		column := "deposit_confirmed_at"
		if c.Kind == betting.CreditRollback {
			column = "rollback_confirmed_at"
		}
		if _, err := tx.ExecContext(ctx, `UPDATE betting_bets SET `+column+` = coalesce(`+column+`, ?) WHERE id = ?`, micros(c.At), c.BetID); err != nil {
			return err
		}
		if c.Balance != nil {
			if _, err := tx.ExecContext(ctx, `UPDATE betting_bettors SET balance = ?
				WHERE (operator_id, id) = (SELECT operator_id, bettor_id FROM betting_bets WHERE id = ?)`, c.Balance.String(), c.BetID); err != nil {
				return err
			}
		}
	}
	return tx.Commit()
}

func (s betStore) ListBettors(ctx context.Context, operatorID, afterID string, limit int) ([]betting.Bettor, error) {
	rows, err := s.d.reader.query(ctx, `SELECT id FROM betting_bettors WHERE operator_id = ? AND id > ? ORDER BY id LIMIT ?`, operatorID, afterID, limit)
	if err != nil {
		return nil, err
	}
	var ids []string
	for rows.Next() {
		var id string
		if err := rows.Scan(&id); err != nil {
			rows.Close()
			return nil, err
		}
		ids = append(ids, id)
	}
	rows.Close()
	out := []betting.Bettor{}
	for _, id := range ids {
		b, err := s.GetBettor(ctx, operatorID, id)
		if err != nil {
			return nil, err
		}
		out = append(out, b)
	}
	return out, rows.Err()
}

// isReserved reports whether the bet holds an exposure reservation.
func isReserved(ctx context.Context, tx *sql.Tx, betID string) (bool, error) {
	var reserved bool
	err := tx.QueryRowContext(ctx, `SELECT exposure_reserved FROM betting_bets WHERE id = ?`, betID).Scan(&reserved)
	return reserved, err
}

// release gives back the bet's potential payout from its outcome's
// exposure; the caller clears the bet's flag.
func release(ctx context.Context, tx *sql.Tx, b betting.Bet) error {
	total, err := exposure(ctx, tx, b.OperatorID, b.OutcomeID, b.Currency)
	if err != nil {
		return err
	}
	_, err = tx.ExecContext(ctx, `UPDATE betting_exposure SET reserved = ? WHERE operator_id = ? AND outcome_id = ? AND currency = ?`,
		total.Sub(b.PotentialPayout).String(), b.OperatorID, b.OutcomeID, b.Currency)
	return err
}

// placeholders returns n comma-separated parameters.
func placeholders(n int) string {
	return strings.TrimSuffix(strings.Repeat("?, ", n), ", ")
}
