package sqlite

import (
	"cmp"
	"context"
	"database/sql"
	"errors"
	"slices"
	"strings"
	"time"

	"github.com/foresight-dev/foresight/internal/betting"
	"github.com/foresight-dev/foresight/internal/jobqueue"
	"github.com/foresight-dev/foresight/internal/money"
	"github.com/foresight-dev/foresight/internal/rowscan"
	"github.com/foresight-dev/foresight/internal/sqlargs"
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

func (s betStore) GetBettor(ctx context.Context, operatorID, bettorID string) (betting.Bettor, error) {
	b, err := rowscan.Bettor(s.d.reader.queryRow(ctx, `SELECT operator_id, id, currency, balance, created_at FROM betting_bettors
		WHERE operator_id = ? AND id = ?`, operatorID, bettorID))
	return b, rowscan.BettingNotFound(err, "bettor", bettorID)
}

const betColumns = `id, operator_id, bettor_id, idempotency_key, event_id, market_id, outcome_id, outcome_index, stake, currency,
	entry_odds, potential_payout, display_probability, status, rejection_code, rejection_reason, withdrawal_tx_id, operator_tx_id,
	payout_amount, settled_at, accepted, created_at, updated_at, exposure_reserved, deposit_confirmed_at, rollback_confirmed_at, session_id,
	rollback_owed`

func scanBet(row rowscan.Row, id string) (betting.Bet, error) {
	b, err := rowscan.Bet(row)
	return b, rowscan.BettingNotFound(err, "bet", id)
}

// parseStored reads a stored amount of up to 16 decimals (a potential
// payout), which ParseAmount's wire limit of 12 would refuse.
func parseStored(s string) (money.Amount, error) {
	var a money.Amount
	return a, a.Scan(s)
}

// Statements of the bet writes, prepared once (see writeTx).
const (
	insertBetSQL = `INSERT INTO betting_bets (` + betColumns + `)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, NULL, NULL, ?, 0)
		ON CONFLICT (operator_id, bettor_id, idempotency_key) DO NOTHING`
	betByKeySQL = `SELECT ` + betColumns + ` FROM betting_bets WHERE operator_id = ? AND bettor_id = ? AND idempotency_key = ?`
	betByIDSQL  = `SELECT ` + betColumns + ` FROM betting_bets WHERE id = ?`
	exposureSQL = `SELECT reserved FROM betting_exposure WHERE operator_id = ? AND outcome_id = ? AND currency = ?`
	reserveSQL  = `INSERT INTO betting_exposure (operator_id, outcome_id, currency, reserved) VALUES (?, ?, ?, ?)
		ON CONFLICT (operator_id, outcome_id, currency) DO UPDATE SET reserved = excluded.reserved`
	markReservedSQL = `UPDATE betting_bets SET exposure_reserved = 1 WHERE id = ?`
	updateBetSQL    = `UPDATE betting_bets SET status = ?, rejection_code = ?, rejection_reason = ?, operator_tx_id = ?,
		exposure_reserved = ?, updated_at = ?, rollback_owed = rollback_owed OR ? WHERE id = ?`
	// The balance statements record a wallet answer's balance unless a
	// more recent answer's is already recorded.
	bettorBalanceSQL = `UPDATE betting_bettors SET balance = ?1, balance_at = ?2
		WHERE operator_id = ?3 AND id = ?4 AND (balance_at IS NULL OR balance_at <= ?2)`
	settleBetSQL = `UPDATE betting_bets SET status = ?, payout_amount = ?, settled_at = ?, exposure_reserved = 0, updated_at = ?
		WHERE id = ?`
	confirmDepositSQL   = `UPDATE betting_bets SET deposit_confirmed_at = coalesce(deposit_confirmed_at, ?) WHERE id = ?`
	confirmRollbackSQL  = `UPDATE betting_bets SET rollback_confirmed_at = coalesce(rollback_confirmed_at, ?) WHERE id = ?`
	betBettorBalanceSQL = `UPDATE betting_bettors SET balance = ?1, balance_at = ?2
		WHERE (operator_id, id) = (SELECT operator_id, bettor_id FROM betting_bets WHERE id = ?3) AND (balance_at IS NULL OR balance_at <= ?2)`
)

// betWriteStatements are prepared when the database opens.
var betWriteStatements = []string{insertBetSQL, betByKeySQL, betByIDSQL, exposureSQL, reserveSQL, markReservedSQL, updateBetSQL,
	bettorBalanceSQL, settleBetSQL, confirmDepositSQL, confirmRollbackSQL, betBettorBalanceSQL, insertWalletAttemptSQL}

func (s betStore) CreateBet(ctx context.Context, b betting.Bet) (betting.Bet, bool, error) {
	var got betting.Bet
	var created bool
	err := s.d.write(ctx, func(ctx context.Context, tx *writeTx) (error, error) {
		n, err := rowsChanged(tx.exec(ctx, insertBetSQL,
			b.ID, b.OperatorID, b.BettorID, b.IdempotencyKey, b.EventID, b.MarketID, b.OutcomeID, b.OutcomeIndex, b.Stake.String(), b.Currency,
			b.EntryOdds.String(), b.PotentialPayout.String(), b.DisplayProbability.String(), b.Status, b.RejectionCode, b.RejectionReason,
			b.WithdrawalTxID, b.OperatorTxID, nil, nil, b.Accepted, micros(b.CreatedAt), micros(b.UpdatedAt), false, b.SessionID))
		if err != nil {
			return nil, err
		}
		if n == 0 {
			created = false
			got, err = scanBet(tx.queryRow(ctx, betByKeySQL, b.OperatorID, b.BettorID, b.IdempotencyKey), b.ID)
			return nil, err
		}
		got, created = b, true
		return nil, nil
	})
	return got, created, err
}

// PendingBets reads the partial index of pending bets: SQLite enqueues
// no placements (CreateBet), and a betting.Dispatcher sweeps this list.
func (s betStore) PendingBets(ctx context.Context, after betting.BetRef, limit int) ([]betting.BetRef, error) {
	return queryList(ctx, s.d.reader, `SELECT id, created_at FROM betting_bets WHERE status = 'pending'
		AND (created_at, id) > (?, ?) ORDER BY created_at, id LIMIT ?`, []any{micros(after.CreatedAt), after.ID, limit}, rowscan.BetRef)
}

func (s betStore) GetBetByKey(ctx context.Context, operatorID, bettorID, key string) (betting.Bet, error) {
	return scanBet(s.d.reader.queryRow(ctx, betByKeySQL, operatorID, bettorID, key), key)
}

func (s betStore) GetBet(ctx context.Context, operatorID, bettorID, id string) (betting.Bet, error) {
	args := sqlargs.Positional()
	args.Add(id)
	q := betByIDSQL + sqlargs.AndEqual(args, "operator_id", operatorID)
	q += sqlargs.AndEqual(args, "bettor_id", bettorID)
	return scanBet(s.d.reader.queryRow(ctx, q, args.Values()...), id)
}

func (s betStore) ListBets(ctx context.Context, f betting.BetFilter) ([]betting.Bet, error) {
	q, args := listBetsQuery(f)
	return queryList(ctx, s.d.reader, q, args, rowscan.Bet)
}

// listBetsQuery is ListBets' query: betting_bets_operator (or, with a
// bettor or a status, betting_bets_bettor or betting_bets_status) reads
// each page in order, without sorting the operator's every bet.
func listBetsQuery(f betting.BetFilter) (string, []any) {
	args := sqlargs.Positional()
	q := `SELECT ` + betColumns + ` FROM betting_bets WHERE operator_id = ` + args.Add(f.OperatorID)
	q += sqlargs.AndEqual(args, "bettor_id", f.BettorID)
	q += sqlargs.AndEqual(args, "market_id", f.MarketID)
	if len(f.Statuses) > 0 {
		q += ` AND status IN (` + sqlargs.AddAll(args, f.Statuses) + `)`
	}
	q += newestFirst(args, f.BeforeCreatedAt, f.BeforeID, f.Limit)
	return q, args.Values()
}

// BetTotals reads the operator's bets' status, currency, stake, payout and
// confirmation and sums them here: SQLite keeps amounts as text and sums
// numbers as floating point, which money never is.
func (s betStore) BetTotals(ctx context.Context, operatorID, marketID string) ([]betting.BetTotal, error) {
	args := sqlargs.Positional()
	q := `SELECT status, currency, stake, payout_amount, deposit_confirmed_at FROM betting_bets WHERE operator_id = ` + args.Add(operatorID)
	q += sqlargs.AndEqual(args, "market_id", marketID)
	rows, err := s.d.reader.query(ctx, q, args.Values()...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	type group struct {
		status   betting.BetStatus
		currency string
	}
	totals := map[group]*betting.BetTotal{}
	err = rowscan.Each(rows, rowscan.Calling(scanBetAmounts, func(b betAmounts) error {
		g := group{b.status, b.currency}
		t := totals[g]
		if t == nil {
			t = &betting.BetTotal{Status: g.status, Currency: g.currency, Stake: money.Zero(), Payout: money.Zero()}
			totals[g] = t
		}
		t.Bets++
		t.Stake = t.Stake.Add(b.stake)
		if b.payout != nil {
			t.Payout = t.Payout.Add(*b.payout)
		}
		if at := b.confirmedAt; at != nil {
			t.PayoutsConfirmed++
			if t.LastPayoutConfirmedAt == nil || at.After(*t.LastPayoutConfirmedAt) {
				t.LastPayoutConfirmedAt = at
			}
		}
		return nil
	}))
	if err != nil {
		return nil, err
	}
	out := make([]betting.BetTotal, 0, len(totals))
	for _, t := range totals {
		out = append(out, *t)
	}
	slices.SortFunc(out, func(a, b betting.BetTotal) int {
		return cmp.Or(cmp.Compare(a.Status, b.Status), cmp.Compare(a.Currency, b.Currency))
	})
	return out, nil
}

// BettorPortfolio counts the bettor's bets and lists the stakes of the
// confirmed ones in one statement, and sums the stakes here: SQLite sums
// text as floating point (see BetTotals).
func (s betStore) BettorPortfolio(ctx context.Context, operatorID, bettorID string) (money.Amount, int, error) {
	var bets int
	var stakes string
	if err := s.d.reader.queryRow(ctx, `SELECT count(*), coalesce(group_concat(stake, ' ') FILTER (WHERE status = 'confirmed'), '')
		FROM betting_bets WHERE operator_id = ? AND bettor_id = ?`, operatorID, bettorID).Scan(&bets, &stakes); err != nil {
		return money.Amount{}, 0, err
	}
	total := money.Zero()
	for _, s := range strings.Fields(stakes) {
		stake, err := parseStored(s)
		if err != nil {
			return money.Amount{}, 0, err
		}
		total = total.Add(stake)
	}
	return total, bets, nil
}

// betAmounts is what BetTotals sums of one bet.
type betAmounts struct {
	status      betting.BetStatus
	currency    string
	stake       money.Amount
	payout      *money.Amount // nil until settled
	confirmedAt *time.Time    // when the operator confirmed the payout
}

// scanBetAmounts reads a bet's amounts from status, currency, stake,
// payout_amount, deposit_confirmed_at.
func scanBetAmounts(row rowscan.Row) (betAmounts, error) {
	var b betAmounts
	var payout string
	if err := row.Scan(&b.status, &b.currency, &b.stake, rowscan.Text(&payout), rowscan.NullTime(&b.confirmedAt)); err != nil || payout == "" {
		return b, err
	}
	a, err := parseStored(payout)
	b.payout = &a
	return b, err
}

func (s betStore) ReserveExposure(ctx context.Context, b betting.Bet, limit money.Amount) error {
	return s.d.write(ctx, func(ctx context.Context, tx *writeTx) (error, error) {
		stored, err := scanBet(tx.queryRow(ctx, betByIDSQL, b.ID), b.ID)
		if err != nil || stored.Reserved {
			return nil, err
		}
		if stored.Status != betting.BetPending {
			return &betting.Error{Code: betting.ErrConflict, Message: "bet " + b.ID + " is " + string(stored.Status)}, nil
		}
		total, err := tx.exposure(ctx, exposureKey{b.OperatorID, b.OutcomeID, b.Currency})
		if err != nil {
			return nil, err
		}
		total = total.Add(b.PotentialPayout)
		if total.GreaterThan(limit) {
			return &betting.Error{Code: betting.ErrLimit, Message: "the outcome's exposure limit would be passed"}, nil
		}
		if _, err := tx.exec(ctx, reserveSQL, b.OperatorID, b.OutcomeID, b.Currency, total.String()); err != nil {
			return nil, err
		}
		_, err = tx.exec(ctx, markReservedSQL, b.ID)
		return nil, err
	})
}

// exposure returns an outcome's reserved exposure.
func (t *writeTx) exposure(ctx context.Context, k exposureKey) (money.Amount, error) {
	return scanExposure(t.queryRow(ctx, exposureSQL, k.operatorID, k.outcomeID, k.currency))
}

// scanExposure reads a reserved exposure, zero when there is none.
func scanExposure(row *sql.Row) (money.Amount, error) {
	var reserved string
	err := row.Scan(&reserved)
	if errors.Is(err, sql.ErrNoRows) {
		return money.Zero(), nil
	}
	if err != nil {
		return money.Amount{}, err
	}
	return parseStored(reserved)
}

// release gives back amount from an outcome's reserved exposure.
func (t *writeTx) release(ctx context.Context, k exposureKey, amount money.Amount) error {
	total, err := t.exposure(ctx, k)
	if err != nil {
		return err
	}
	_, err = t.exec(ctx, reserveSQL, k.operatorID, k.outcomeID, k.currency, total.Sub(amount).String())
	return err
}

func (s betStore) Exposure(ctx context.Context, operatorID, outcomeID, currency string) (money.Amount, error) {
	return scanExposure(s.d.reader.queryRow(ctx, exposureSQL, operatorID, outcomeID, currency))
}

func (s betStore) UpdateBet(ctx context.Context, id string, u betting.BetUpdate) error {
	return s.d.write(ctx, func(ctx context.Context, tx *writeTx) (error, error) {
		b, err := scanBet(tx.queryRow(ctx, betByIDSQL, id), id)
		if betting.IsNotFound(err) {
			return err, nil
		}
		if err != nil {
			return nil, err
		}
		if b.Status != u.From {
			return &betting.Error{Code: betting.ErrConflict, Message: "bet " + id + " is " + string(b.Status)}, nil
		}
		if u.Release && b.Reserved {
			if err := tx.release(ctx, exposureKey{b.OperatorID, b.OutcomeID, b.Currency}, b.PotentialPayout); err != nil {
				return nil, err
			}
			b.Reserved = false
		}
		if u.OperatorTxID != "" {
			b.OperatorTxID = u.OperatorTxID
		}
		b.Status, b.RejectionCode, b.RejectionReason, b.UpdatedAt = u.Status, u.RejectionCode, u.RejectionReason, u.At.UTC().Truncate(time.Microsecond)
		if _, err := tx.exec(ctx, updateBetSQL, b.Status, b.RejectionCode, b.RejectionReason, b.OperatorTxID, b.Reserved, micros(b.UpdatedAt), u.Rollback, id); err != nil {
			return nil, err
		}
		if u.Balance != nil {
			if _, err := tx.exec(ctx, bettorBalanceSQL, u.Balance.String(), micros(b.UpdatedAt), b.OperatorID, b.BettorID); err != nil {
				return nil, err
			}
		}
		if err := tx.appendWalletAttempts(ctx, u.Attempts); err != nil {
			return nil, err
		}
		if u.Rollback {
			tx.enqueue(jobqueue.BetRollbackArgs{BetID: id})
		}
		return nil, nil
	})
}

func (s betStore) MarketBets(ctx context.Context, marketID string, status betting.BetStatus, limit int) ([]betting.Bet, error) {
	return queryList(ctx, s.d.reader, `SELECT `+betColumns+` FROM betting_bets WHERE market_id = ? AND status = ? ORDER BY created_at, id LIMIT ?`,
		[]any{marketID, status, limit}, rowscan.Bet)
}

func (s betStore) SettleBets(ctx context.Context, settlements []betting.Settlement, at time.Time) (int, error) {
	var settled int
	err := s.d.write(ctx, func(ctx context.Context, tx *writeTx) (error, error) {
		settled = 0
		released := map[exposureKey]money.Amount{}
		var ids, operators []string
		for _, st := range settlements {
			b, err := scanBet(tx.queryRow(ctx, betByIDSQL, st.BetID), st.BetID)
			if betting.IsNotFound(err) {
				continue
			}
			if err != nil {
				return nil, err
			}
			if b.Status != betting.BetConfirmed {
				continue
			}
			if b.Reserved {
				k := exposureKey{b.OperatorID, b.OutcomeID, b.Currency}
				released[k] = released[k].Add(b.PotentialPayout)
			}
			if _, err := tx.exec(ctx, settleBetSQL, st.Status, st.Payout.String(), micros(at), micros(at), b.ID); err != nil {
				return nil, err
			}
			ids, operators = append(ids, b.ID), append(operators, b.OperatorID)
		}
		for k, amount := range released {
			if err := tx.release(ctx, k, amount); err != nil {
				return nil, err
			}
		}
		tx.enqueueMany(jobqueue.DepositJobs(operators, ids))
		settled = len(ids)
		return nil, nil
	})
	return settled, err
}

// exposureKey names one outcome's exposure in one currency.
type exposureKey struct{ operatorID, outcomeID, currency string }

func (s betStore) BetsByID(ctx context.Context, ids []string) ([]betting.Bet, error) {
	if len(ids) == 0 {
		return []betting.Bet{}, nil
	}
	args := sqlargs.Positional()
	q := `SELECT ` + betColumns + ` FROM betting_bets WHERE id IN (` + sqlargs.AddAll(args, ids) + `)`
	return queryList(ctx, s.d.reader, q, args.Values(), rowscan.Bet)
}

func (s betStore) ConfirmCredits(ctx context.Context, credits []betting.CreditConfirmation, attempts []betting.WalletAttempt) error {
	return s.d.write(ctx, func(ctx context.Context, tx *writeTx) (error, error) {
		for _, c := range credits {
			query := confirmDepositSQL
			if c.Kind == betting.CreditRollback {
				query = confirmRollbackSQL
			}
			if _, err := tx.exec(ctx, query, micros(c.At), c.BetID); err != nil {
				return nil, err
			}
			if c.Balance != nil {
				if _, err := tx.exec(ctx, betBettorBalanceSQL, c.Balance.String(), micros(c.At), c.BetID); err != nil {
					return nil, err
				}
			}
		}
		return nil, tx.appendWalletAttempts(ctx, attempts)
	})
}

func (s betStore) ListBettors(ctx context.Context, operatorID, afterID string, limit int) ([]betting.Bettor, error) {
	return queryList(ctx, s.d.reader, `SELECT operator_id, id, currency, balance, created_at FROM betting_bettors
		WHERE operator_id = ? AND id > ? ORDER BY id LIMIT ?`, []any{operatorID, afterID, limit}, rowscan.Bettor)
}
