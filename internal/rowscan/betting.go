package rowscan

import (
	"errors"
	"fmt"
	"time"

	"github.com/shopspring/decimal"

	"github.com/foresight-dev/foresight/internal/betting"
	"github.com/foresight-dev/foresight/internal/odds"
)

// The betting platform's rows. Each engine selects the columns in the
// order given: ids as text and amounts as text (NUMERIC cast to text on
// PostgreSQL).

// BettingNotFound returns err, or betting.NotFound(what, id) when err is
// the error of no row (sql.ErrNoRows, which pgx's ErrNoRows also is).
func BettingNotFound(err error, what, id string) error {
	return noRowAs(err, func() error { return betting.NotFound(what, id) })
}

// Bettor reads a bettor from operator_id, id, currency, balance (NULL
// when the operator keeps it), created_at.
func Bettor(row Row) (betting.Bettor, error) {
	var b betting.Bettor
	var balance string
	if err := row.Scan(&b.OperatorID, &b.ID, &b.Currency, Text(&balance), Time(&b.CreatedAt)); err != nil {
		return b, err
	}
	if balance != "" {
		a, err := amount(balance)
		if err != nil {
			return b, err
		}
		b.Balance = &a
	}
	return b, nil
}

// Bet reads a bet from id, operator_id, bettor_id, idempotency_key,
// event_id, market_id, outcome_id, outcome_index, stake, currency,
// entry_odds, potential_payout, display_probability, status,
// rejection_code, rejection_reason, withdrawal_tx_id, operator_tx_id,
// payout_amount, settled_at, accepted, created_at, updated_at,
// exposure_reserved, deposit_confirmed_at, rollback_confirmed_at,
// session_id, rollback_owed. An amount or odds that do not parse is an
// error naming the bet.
func Bet(row Row) (betting.Bet, error) {
	var b betting.Bet
	var stake, entry, payout, prob, code, payoutAmount string
	err := row.Scan(&b.ID, &b.OperatorID, &b.BettorID, &b.IdempotencyKey, &b.EventID, &b.MarketID, &b.OutcomeID, &b.OutcomeIndex,
		&stake, &b.Currency, &entry, &payout, &prob, &b.Status, Text(&code), &b.RejectionReason, &b.WithdrawalTxID, &b.OperatorTxID,
		Text(&payoutAmount), NullTime(&b.SettledAt), &b.Accepted, Time(&b.CreatedAt), Time(&b.UpdatedAt), &b.Reserved,
		NullTime(&b.DepositConfirmedAt), NullTime(&b.RollbackConfirmedAt), &b.SessionID, &b.RollbackOwed)
	if err != nil {
		return b, err
	}
	var errs []error
	var e error
	b.Stake, e = amount(stake)
	errs = append(errs, e)
	b.EntryOdds, e = odds.Parse(entry)
	errs = append(errs, e)
	b.PotentialPayout, e = amount(payout)
	errs = append(errs, e)
	b.DisplayProbability, e = decimal.NewFromString(prob)
	errs = append(errs, e)
	if code != "" {
		rc := betting.RejectionCode(code)
		b.RejectionCode = &rc
	}
	if payoutAmount != "" {
		a, e := amount(payoutAmount)
		errs = append(errs, e)
		b.PayoutAmount = &a
	}
	if err := errors.Join(errs...); err != nil {
		return b, fmt.Errorf("bet %s: %w", b.ID, err)
	}
	return b, nil
}

// Credential reads an operator's credential from id, operator_id, name,
// key_hash, created_at, expires_at, revoked_at.
func Credential(row Row) (betting.Credential, error) {
	var c betting.Credential
	err := row.Scan(&c.ID, &c.OperatorID, &c.Name, &c.KeyHash, Time(&c.CreatedAt), NullTime(&c.ExpiresAt), NullTime(&c.RevokedAt))
	return c, err
}

// WalletAttempt reads a wallet call from bet_id, kind, transaction_id,
// amount, currency, started_at, duration_us (microseconds), result,
// code, http_status, error.
func WalletAttempt(row Row) (betting.WalletAttempt, error) {
	var a betting.WalletAttempt
	var duration int64
	if err := row.Scan(&a.BetID, &a.Kind, &a.TransactionID, &a.Amount, &a.Currency, Time(&a.StartedAt), &duration, &a.Result, &a.Code,
		&a.HTTPStatus, &a.Error); err != nil {
		return betting.WalletAttempt{}, err
	}
	a.Duration = time.Duration(duration) * time.Microsecond
	return a, nil
}

// BetRef reads a bet's place in the list of pending bets from id,
// created_at.
func BetRef(row Row) (betting.BetRef, error) {
	var r betting.BetRef
	err := row.Scan(&r.ID, Time(&r.CreatedAt))
	return r, err
}
