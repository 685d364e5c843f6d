package postgres

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/riverqueue/river"

	"github.com/foresight-dev/foresight/internal/betting"
	"github.com/foresight-dev/foresight/internal/groupcommit"
	"github.com/foresight-dev/foresight/internal/jobqueue"
	"github.com/foresight-dev/foresight/internal/money"
	"github.com/foresight-dev/foresight/internal/rowscan"
	"github.com/foresight-dev/foresight/internal/sqlargs"
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

func (s betStore) GetBettor(ctx context.Context, operatorID, bettorID string) (betting.Bettor, error) {
	b, err := rowscan.Bettor(s.d.pool.QueryRow(ctx, `SELECT operator_id, id, currency, balance::text, created_at FROM betting_bettors
		WHERE operator_id = $1 AND id = $2`, operatorID, bettorID))
	return b, rowscan.BettingNotFound(err, "bettor", bettorID)
}

// betColumns are the columns of a betting.Bet, read with rowscan.Bet.
// The id's text form is renamed so that ORDER BY id sorts by the indexed
// uuid column (named id, the text form took the sort: every page of a
// list sorted all the rows it matched).
const betColumns = `id::text AS bet_id, operator_id, bettor_id, idempotency_key, event_id::text, market_id::text, outcome_id::text, outcome_index,
	stake::text, currency, entry_odds::text, potential_payout::text, display_probability::text, status, rejection_code, rejection_reason,
	withdrawal_tx_id, operator_tx_id, payout_amount::text, settled_at, accepted, created_at, updated_at, exposure_reserved,
	deposit_confirmed_at, rollback_confirmed_at, session_id, rollback_owed`

func storedAmount(s string) (money.Amount, error) {
	var a money.Amount
	return a, a.Scan(s)
}

func scanBet(row pgx.Row, id string) (betting.Bet, error) {
	b, err := rowscan.Bet(row)
	if errors.Is(err, pgx.ErrNoRows) || badID(err) {
		return b, betting.NotFound("bet", id)
	}
	return b, err
}

const betByKeySQL = `SELECT ` + betColumns + ` FROM betting_bets WHERE operator_id = $1 AND bettor_id = $2 AND idempotency_key = $3`

// A bet's acceptance and its confirmation are each one write per bet that
// the bettor's POST or the placement waits for. A write that finds no
// other waiting and a flush free is committed at once in its caller's
// goroutine, as a transaction of its own (createBet, confirmBet); under
// load the writes that arrive while earlier ones are committing share the
// next transaction (groupcommit): one commit, one WAL flush and one River
// insert per batch instead of per bet, and each caller returns once its
// batch is committed, as a lone write would.
//
// Creations, which a bettor's POST waits for, commit up to
// createFlushes batches at once, so that one waiting for its commit does
// not hold up the next (a single committer put the p99 at 500/s from
// 16 ms to 53 ms, docs/performance.md). Confirmations, which only the
// placement waits for, commit one batch at a time: the larger batches
// take fewer commits per bet, which is what draining a backlog is short
// of.
const createFlushes = 4

type betBatchers struct {
	creates  *groupcommit.Batcher[betting.Bet, createdBet]
	confirms *groupcommit.Batcher[betUpdate, updatedBet]
}

func newBetBatchers(d *DB) *betBatchers {
	return &betBatchers{
		creates: groupcommit.NewWith(d.createBets, groupcommit.Options[betting.Bet, createdBet]{
			Max: 256, Timeout: 30 * time.Second, Flushes: createFlushes, Alone: d.createBet}),
		confirms: groupcommit.NewWith(d.confirmBets, groupcommit.Options[betUpdate, updatedBet]{
			Max: 256, Timeout: 30 * time.Second, Alone: d.confirmBet}),
	}
}

func (b *betBatchers) close() {
	b.creates.Close()
	b.confirms.Close()
}

// createdBet is CreateBet's answer.
type createdBet struct {
	bet     betting.Bet
	created bool
}

// insertBetSQL starts the insert of new bets; the rows follow.
const insertBetSQL = `INSERT INTO betting_bets (id, operator_id, bettor_id, idempotency_key, event_id, market_id, outcome_id,
		outcome_index, stake, currency, entry_odds, potential_payout, display_probability, status, rejection_code, rejection_reason,
		withdrawal_tx_id, operator_tx_id, accepted, created_at, updated_at, session_id) `

// insertBetsSQL inserts the bets of a batch, skipping those whose key is
// used (by an earlier bet or by an earlier one of the batch), and returns
// the ids it inserted. insertOneBetSQL inserts one, unless its key is used.
const (
	insertBetsSQL = insertBetSQL + `SELECT * FROM unnest($1::uuid[], $2::text[], $3::text[], $4::text[], $5::uuid[], $6::uuid[], $7::uuid[], $8::int[],
		$9::numeric[], $10::text[], $11::numeric[], $12::numeric[], $13::numeric[], $14::text[], $15::text[], $16::text[],
		$17::text[], $18::text[], $19::bytea[], $20::timestamptz[], $21::timestamptz[], $22::text[])
	ON CONFLICT (operator_id, bettor_id, idempotency_key) DO NOTHING
	RETURNING id::text`
	insertOneBetSQL = insertBetSQL + `VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18, $19, $20, $21, $22)
	ON CONFLICT (operator_id, bettor_id, idempotency_key) DO NOTHING`
)

func (s betStore) CreateBet(ctx context.Context, b betting.Bet) (betting.Bet, bool, error) {
	r, err := s.d.bets.creates.Do(ctx, b)
	return r.bet, r.created, err
}

// createBets inserts a batch of bets and enqueues the placements of those
// it inserted, in one transaction; a bet whose key is used gets the bet
// that holds it. The rows are inserted in the order of their keys, so that
// two batches in flight at once (up to createFlushes) holding the same
// keys (a request repeated at once) wait for each other instead of
// deadlocking.
func (d *DB) createBets(ctx context.Context, given []betting.Bet) ([]createdBet, error) {
	bets := slices.Clone(given)
	slices.SortStableFunc(bets, func(a, b betting.Bet) int {
		return cmp.Or(cmp.Compare(a.OperatorID, b.OperatorID), cmp.Compare(a.BettorID, b.BettorID), cmp.Compare(a.IdempotencyKey, b.IdempotencyKey))
	})
	n := len(bets)
	ids, operators, bettors, keys := make([]string, n), make([]string, n), make([]string, n), make([]string, n)
	events, markets, outcomes, indexes := make([]string, n), make([]string, n), make([]string, n), make([]int32, n)
	stakes, currencies, entries, payouts, probabilities := make([]string, n), make([]string, n), make([]string, n), make([]string, n), make([]string, n)
	statuses, codes, reasons, withdrawals, operatorTxs := make([]string, n), make([]*string, n), make([]string, n), make([]string, n), make([]string, n)
	accepted, created, updated, sessions := make([][]byte, n), make([]time.Time, n), make([]time.Time, n), make([]string, n)
	for i, b := range bets {
		ids[i], operators[i], bettors[i], keys[i] = b.ID, b.OperatorID, b.BettorID, b.IdempotencyKey
		events[i], markets[i], outcomes[i], indexes[i] = b.EventID, b.MarketID, b.OutcomeID, int32(b.OutcomeIndex)
		stakes[i], currencies[i], entries[i] = b.Stake.String(), b.Currency, b.EntryOdds.String()
		payouts[i], probabilities[i] = b.PotentialPayout.String(), b.DisplayProbability.String()
		statuses[i], reasons[i], withdrawals[i], operatorTxs[i] = string(b.Status), b.RejectionReason, b.WithdrawalTxID, b.OperatorTxID
		if b.RejectionCode != nil {
			code := string(*b.RejectionCode)
			codes[i] = &code
		}
		accepted[i], created[i], updated[i], sessions[i] = b.Accepted, b.CreatedAt, b.UpdatedAt, b.SessionID
	}
	tx, err := d.pool.Begin(ctx)
	if err != nil {
		return nil, err
	}
	defer tx.Rollback(ctx)
	inserted, err := queryList(ctx, tx, insertBetsSQL, []any{ids, operators, bettors, keys, events, markets, outcomes, indexes, stakes,
		currencies, entries, payouts, probabilities, statuses, codes, reasons, withdrawals, operatorTxs, accepted, created, updated, sessions},
		rowscan.Value[string])
	if err != nil {
		return nil, err
	}
	fresh := make(map[string]bool, len(inserted))
	for _, id := range inserted {
		fresh[id] = true
	}
	out := make([]createdBet, n)
	var jobs []river.InsertManyParams
	for i, b := range given {
		if fresh[b.ID] {
			delete(fresh, b.ID) // a bet given twice in the batch is created once
			out[i] = createdBet{bet: b, created: true}
			jobs = append(jobs, river.InsertManyParams{Args: jobqueue.BetPlaceArgs{BetID: b.ID}})
			continue
		}
		got, err := scanBet(tx.QueryRow(ctx, betByKeySQL, b.OperatorID, b.BettorID, b.IdempotencyKey), b.ID)
		if err != nil {
			return nil, err
		}
		out[i] = createdBet{bet: got}
	}
	if len(jobs) > 0 {
		if _, err := d.queue.InsertManyTx(ctx, tx, jobs); err != nil {
			return nil, fmt.Errorf("enqueue placement: %w", err)
		}
	}
	return out, tx.Commit(ctx)
}

// createBet inserts one bet and enqueues its placement in one transaction,
// or returns the bet that holds its key: a lone bet's write, without a
// batch's arrays.
func (d *DB) createBet(ctx context.Context, b betting.Bet) (createdBet, error) {
	tx, err := d.pool.Begin(ctx)
	if err != nil {
		return createdBet{}, err
	}
	defer tx.Rollback(ctx)
	tag, err := tx.Exec(ctx, insertOneBetSQL, b.ID, b.OperatorID, b.BettorID, b.IdempotencyKey, b.EventID, b.MarketID, b.OutcomeID,
		b.OutcomeIndex, b.Stake.String(), b.Currency, b.EntryOdds.String(), b.PotentialPayout.String(), b.DisplayProbability.String(),
		b.Status, b.RejectionCode, b.RejectionReason, b.WithdrawalTxID, b.OperatorTxID, b.Accepted, b.CreatedAt, b.UpdatedAt, b.SessionID)
	if err != nil {
		return createdBet{}, err
	}
	if tag.RowsAffected() == 0 {
		got, err := scanBet(tx.QueryRow(ctx, betByKeySQL, b.OperatorID, b.BettorID, b.IdempotencyKey), b.ID)
		return createdBet{bet: got}, err
	}
	if _, err := d.queue.InsertTx(ctx, tx, jobqueue.BetPlaceArgs{BetID: b.ID}, nil); err != nil {
		return createdBet{}, fmt.Errorf("enqueue placement: %w", err)
	}
	return createdBet{bet: b, created: true}, tx.Commit(ctx)
}

func (s betStore) PendingBets(ctx context.Context, after betting.BetRef, limit int) ([]betting.BetRef, error) {
	if after.ID == "" {
		after.CreatedAt, after.ID = time.Unix(0, 0), uuid.Nil.String()
	}
	return queryList(ctx, s.d.pool, `SELECT id, created_at FROM betting_bets WHERE status = 'pending'
		AND (created_at, id) > ($1, $2) ORDER BY created_at, id LIMIT $3`, []any{after.CreatedAt, after.ID, limit}, rowscan.BetRef)
}

func (s betStore) GetBetByKey(ctx context.Context, operatorID, bettorID, key string) (betting.Bet, error) {
	return scanBet(s.d.pool.QueryRow(ctx, betByKeySQL, operatorID, bettorID, key), key)
}

func (s betStore) GetBet(ctx context.Context, operatorID, bettorID, id string) (betting.Bet, error) {
	return scanBet(s.d.pool.QueryRow(ctx, `SELECT `+betColumns+` FROM betting_bets WHERE id = $1
		AND ($2 = '' OR operator_id = $2) AND ($3 = '' OR bettor_id = $3)`, id, operatorID, bettorID), id)
}

func (s betStore) ListBets(ctx context.Context, f betting.BetFilter) ([]betting.Bet, error) {
	q, args := listBetsQuery(f)
	return queryList(ctx, s.d.pool, q, args, rowscan.Bet)
}

// listBetsQuery is ListBets' query: betting_bets_operator (or, with a
// bettor or a status, betting_bets_bettor or betting_bets_status) reads
// each page in order, without sorting the operator's every bet.
func listBetsQuery(f betting.BetFilter) (string, []any) {
	args := sqlargs.Numbered()
	q := `SELECT ` + betColumns + ` FROM betting_bets WHERE operator_id = ` + args.Add(f.OperatorID)
	q += sqlargs.AndEqual(args, "bettor_id", f.BettorID)
	if f.MarketID != "" {
		q += ` AND market_id = ` + args.Add(f.MarketID) + `::uuid`
	}
	if len(f.Statuses) > 0 {
		q += ` AND status = ANY(` + args.Add(f.Statuses) + `)`
	}
	q += newestFirst(args, f.BeforeCreatedAt, f.BeforeID, f.Limit)
	return q, args.Values()
}

// BetTotals sums in the database: the amounts are NUMERIC.
func (s betStore) BetTotals(ctx context.Context, operatorID, marketID string) ([]betting.BetTotal, error) {
	q := `SELECT status, currency, count(*), sum(stake)::text, coalesce(sum(payout_amount), 0)::text,
		count(deposit_confirmed_at), max(deposit_confirmed_at) FROM betting_bets WHERE operator_id = $1`
	args := []any{operatorID}
	if marketID != "" {
		q += ` AND market_id = $2::uuid`
		args = append(args, marketID)
	}
	return queryList(ctx, s.d.pool, q+` GROUP BY status, currency ORDER BY status, currency`, args, scanBetTotal)
}

// scanBetTotal reads a total from status, currency, count, stake (text),
// payout (text), payouts confirmed, last confirmed at.
func scanBetTotal(row rowscan.Row) (betting.BetTotal, error) {
	var t betting.BetTotal
	err := row.Scan(&t.Status, &t.Currency, &t.Bets, &t.Stake, &t.Payout, &t.PayoutsConfirmed, rowscan.NullTime(&t.LastPayoutConfirmedAt))
	return t, err
}

// BettorPortfolio sums in the database: the amounts are NUMERIC.
func (s betStore) BettorPortfolio(ctx context.Context, operatorID, bettorID string) (money.Amount, int, error) {
	var stake money.Amount
	var bets int
	err := s.d.pool.QueryRow(ctx, `SELECT count(*), coalesce(sum(stake) FILTER (WHERE status = 'confirmed'), 0)::text FROM betting_bets
		WHERE operator_id = $1 AND bettor_id = $2`, operatorID, bettorID).Scan(&bets, &stake)
	return stake, bets, err
}

func (s betStore) ReserveExposure(ctx context.Context, b betting.Bet, limit money.Amount) error {
	r, err := s.d.reserver(b.OutcomeID).Do(ctx, reservation{bet: b, limit: limit})
	switch {
	case err != nil:
		return err
	case !r.unreserved:
		return nil // reserved before (or no such bet)
	case !r.pending:
		return &betting.Error{Code: betting.ErrConflict, Message: "bet " + b.ID + " is no longer pending"}
	case !r.added:
		return &betting.Error{Code: betting.ErrLimit, Message: "the outcome's exposure limit would be passed"}
	}
	return nil
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

// updateBetSQL applies a BetUpdate in one statement: it locks the bet,
// and when its status is the expected one gives back its reservation (with
// release), records the bettor's balance (when given) and updates the bet.
// It returns the status the bet had, and no row for a missing bet.
// updateBetRecordingSQL also records the update's wallet attempts, from
// array parameters $11 to $21.
var (
	updateBetSQL          = updateBetCTEs + ` SELECT was FROM old`
	updateBetRecordingSQL = updateBetCTEs + `, attempts AS (` + walletAttemptsFrom(11, `(SELECT was FROM old) = $3`) + `) SELECT was FROM old`
)

// updateBetCTEs are the steps of updateBetSQL before its answer.
const updateBetCTEs = `WITH old AS (
		SELECT id AS bet_id, operator_id AS op, bettor_id AS bettor, outcome_id AS outcome, currency AS cur,
			potential_payout AS payout, exposure_reserved AS held, status AS was
		FROM betting_bets WHERE id = $1 FOR UPDATE
	), released AS (
		UPDATE betting_exposure x SET reserved = x.reserved - old.payout FROM old
		WHERE $2 AND old.was = $3 AND old.held AND x.operator_id = old.op AND x.outcome_id = old.outcome AND x.currency = old.cur
	), balance AS (
		UPDATE betting_bettors r SET balance = $9::numeric, balance_at = $8 FROM old
		WHERE $9::numeric IS NOT NULL AND old.was = $3 AND r.operator_id = old.op AND r.id = old.bettor
			AND (r.balance_at IS NULL OR r.balance_at <= $8)
	), updated AS (
		UPDATE betting_bets b SET status = $4, rejection_code = $5, rejection_reason = $6,
			operator_tx_id = CASE WHEN $7 = '' THEN b.operator_tx_id ELSE $7 END,
			exposure_reserved = b.exposure_reserved AND NOT $2, updated_at = $8, rollback_owed = b.rollback_owed OR $10::boolean
		FROM old WHERE b.id = old.bet_id AND old.was = $3
	)`

// updateBetQuery returns the statement and arguments of one BetUpdate.
func updateBetQuery(id string, u betting.BetUpdate) (string, []any) {
	var balance *string
	if u.Balance != nil {
		b := u.Balance.String()
		balance = &b
	}
	args := []any{id, u.Release, u.From, u.Status, u.RejectionCode, u.RejectionReason, u.OperatorTxID,
		u.At.UTC().Truncate(time.Microsecond), balance, u.Rollback}
	if len(u.Attempts) > 0 {
		return updateBetRecordingSQL, append(args, walletAttemptArrays(u.Attempts).args()...)
	}
	return updateBetSQL, args
}

// updatedBet is what an update found: the status the bet had, or none.
type updatedBet struct {
	was   betting.BetStatus
	found bool
}

// err is UpdateBet's answer for an update found.
func (r updatedBet) err(id string, u betting.BetUpdate) error {
	switch {
	case !r.found:
		return betting.NotFound("bet", id)
	case r.was != u.From:
		return &betting.Error{Code: betting.ErrConflict, Message: "bet " + id + " is " + string(r.was)}
	}
	return nil
}

// updateBet runs one BetUpdate's statement.
func updateBet(ctx context.Context, q interface {
	QueryRow(context.Context, string, ...any) pgx.Row
}, id string, u betting.BetUpdate) (updatedBet, error) {
	query, args := updateBetQuery(id, u)
	var was betting.BetStatus
	err := q.QueryRow(ctx, query, args...).Scan(&was)
	if errors.Is(err, pgx.ErrNoRows) || badID(err) {
		return updatedBet{}, nil
	}
	return updatedBet{was: was, found: err == nil}, err
}

// UpdateBet commits an update that neither gives back a reservation nor
// enqueues a rollback (a confirmation) within a batch of such updates
// (confirmBets); the others alone, a rollback's in the transaction that
// enqueues it.
func (s betStore) UpdateBet(ctx context.Context, id string, u betting.BetUpdate) error {
	if !u.Release && !u.Rollback {
		r, err := s.d.bets.confirms.Do(ctx, betUpdate{id: id, u: u})
		if err != nil {
			return err
		}
		return r.err(id, u)
	}
	if !u.Rollback {
		r, err := updateBet(ctx, s.d.pool, id, u)
		if err != nil {
			return err
		}
		return r.err(id, u)
	}
	tx, err := s.d.pool.Begin(ctx)
	if err != nil {
		return err
	}
	defer tx.Rollback(ctx)
	r, err := updateBet(ctx, tx, id, u)
	if err == nil {
		err = r.err(id, u)
	}
	if err != nil {
		return err
	}
	if _, err := s.d.queue.InsertTx(ctx, tx, jobqueue.BetRollbackArgs{BetID: id}, nil); err != nil {
		return fmt.Errorf("enqueue rollback: %w", err)
	}
	return tx.Commit(ctx)
}

// betUpdate is one call of UpdateBet.
type betUpdate struct {
	id string
	u  betting.BetUpdate
}

// confirmBets applies a batch of updates that give back no reservation
// and enqueue no rollback, in one transaction and one round trip (a
// pipeline run as one implicit transaction). The rows they lock are the
// bets and the bettors whose balance they record; the bettors are locked
// first, in one order (operator, id), as ConfirmCredits locks them, then
// the bets in id order, so that a batch cannot deadlock with
// ConfirmCredits or with another writer of the same bets.
func (d *DB) confirmBets(ctx context.Context, items []betUpdate) ([]updatedBet, error) {
	order := make([]int, len(items))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(i, j int) int { return cmp.Compare(items[i].id, items[j].id) })
	var balanced []string
	for _, it := range items {
		if it.u.Balance != nil {
			balanced = append(balanced, it.id)
		}
	}
	batch := &pgx.Batch{}
	if len(balanced) > 0 {
		batch.Queue(`SELECT 1 FROM betting_bettors r WHERE (r.operator_id, r.id) IN (
				SELECT b.operator_id, b.bettor_id FROM betting_bets b WHERE b.id = ANY($1::uuid[]))
			ORDER BY r.operator_id, r.id FOR UPDATE OF r`, balanced)
	}
	for _, i := range order {
		query, args := updateBetQuery(items[i].id, items[i].u)
		batch.Queue(query, args...)
	}
	results := d.pool.SendBatch(ctx, batch)
	defer results.Close()
	if len(balanced) > 0 {
		if _, err := results.Exec(); err != nil {
			return nil, err
		}
	}
	out := make([]updatedBet, len(items))
	for _, i := range order {
		var was betting.BetStatus
		err := results.QueryRow().Scan(&was)
		switch {
		case errors.Is(err, pgx.ErrNoRows):
		case err != nil:
			return nil, err
		default:
			out[i] = updatedBet{was: was, found: true}
		}
	}
	// The batch is one implicit transaction, committed before Close
	// returns.
	return out, results.Close()
}

// confirmBet applies one update that gives back no reservation and
// enqueues no rollback: one statement, committed on its own.
func (d *DB) confirmBet(ctx context.Context, it betUpdate) (updatedBet, error) {
	return updateBet(ctx, d.pool, it.id, it.u)
}

func (s betStore) MarketBets(ctx context.Context, marketID string, status betting.BetStatus, limit int) ([]betting.Bet, error) {
	return queryList(ctx, s.d.pool, `SELECT `+betColumns+` FROM betting_bets WHERE market_id = $1 AND status = $2 ORDER BY created_at, id LIMIT $3`,
		[]any{marketID, status, limit}, rowscan.Bet)
}

func (s betStore) SettleBets(ctx context.Context, settlements []betting.Settlement, at time.Time) (int, error) {
	ids, statuses, payouts := make([]string, len(settlements)), make([]string, len(settlements)), make([]string, len(settlements))
	for i, st := range settlements {
		ids[i], statuses[i], payouts[i] = st.BetID, string(st.Status), st.Payout.String()
	}
	tx, err := s.d.pool.Begin(ctx)
	if err != nil {
		return 0, err
	}
	defer tx.Rollback(ctx)
	// Lock the bets in id order, so that two nodes settling the same
	// market wait for each other instead of deadlocking.
	if _, err := tx.Exec(ctx, `SELECT id FROM betting_bets WHERE id = ANY($1::uuid[]) AND status = 'confirmed' ORDER BY id FOR UPDATE`, ids); err != nil {
		return 0, err
	}
	if _, err := tx.Exec(ctx, `UPDATE betting_exposure x SET reserved = x.reserved - r.amount
		FROM (SELECT operator_id, outcome_id, currency, sum(potential_payout) AS amount FROM betting_bets
			WHERE id = ANY($1::uuid[]) AND status = 'confirmed' AND exposure_reserved GROUP BY operator_id, outcome_id, currency) r
		WHERE x.operator_id = r.operator_id AND x.outcome_id = r.outcome_id AND x.currency = r.currency`, ids); err != nil {
		return 0, err
	}
	rows, err := tx.Query(ctx, `UPDATE betting_bets b SET status = s.status, payout_amount = s.payout, settled_at = $4, exposure_reserved = FALSE, updated_at = $4
		FROM unnest($1::uuid[], $2::text[], $3::numeric[]) AS s(id, status, payout)
		WHERE b.id = s.id AND b.status = 'confirmed' RETURNING b.id::text, b.operator_id`, ids, statuses, payouts, at.UTC().Truncate(time.Microsecond))
	if err != nil {
		return 0, err
	}
	var settled, operators []string
	var id, operator string
	if _, err := pgx.ForEachRow(rows, []any{&id, &operator}, func() error {
		settled, operators = append(settled, id), append(operators, operator)
		return nil
	}); err != nil {
		return 0, err
	}
	if len(settled) > 0 {
		if _, err := s.d.queue.InsertManyTx(ctx, tx, jobqueue.DepositJobs(operators, settled)); err != nil {
			return 0, fmt.Errorf("enqueue deposits: %w", err)
		}
	}
	return len(settled), tx.Commit(ctx)
}

func (s betStore) BetsByID(ctx context.Context, ids []string) ([]betting.Bet, error) {
	return queryList(ctx, s.d.pool, `SELECT `+betColumns+` FROM betting_bets WHERE id = ANY($1::uuid[])`, []any{ids}, rowscan.Bet)
}

func (s betStore) ConfirmCredits(ctx context.Context, credits []betting.CreditConfirmation, attempts []betting.WalletAttempt) error {
	var deposits, rollbacks, balanceBets, balances []string
	var depositTimes, rollbackTimes, balanceTimes []time.Time
	for _, c := range credits {
		at := c.At.UTC().Truncate(time.Microsecond)
		if c.Kind == betting.CreditRollback {
			rollbacks, rollbackTimes = append(rollbacks, c.BetID), append(rollbackTimes, at)
		} else {
			deposits, depositTimes = append(deposits, c.BetID), append(depositTimes, at)
		}
		if c.Balance != nil {
			balanceBets, balances, balanceTimes = append(balanceBets, c.BetID), append(balances, c.Balance.String()), append(balanceTimes, at)
		}
	}
	tx, err := s.d.pool.Begin(ctx)
	if err != nil {
		return err
	}
	defer tx.Rollback(ctx)
	for _, column := range []struct {
		name  string
		ids   []string
		times []time.Time
	}{{"deposit_confirmed_at", deposits, depositTimes}, {"rollback_confirmed_at", rollbacks, rollbackTimes}} {
		if len(column.ids) == 0 {
			continue
		}
		if _, err := tx.Exec(ctx, `UPDATE betting_bets b SET `+column.name+` = coalesce(b.`+column.name+`, c.at)
			FROM unnest($1::uuid[], $2::timestamptz[]) AS c(id, at) WHERE b.id = c.id`, column.ids, column.times); err != nil {
			return err
		}
	}
	if len(balanceBets) > 0 {
		// The bettors' rows are locked in one order (operator, id) before
		// the update, which locks them in whatever order its plan reads
		// them: two batches of many bettors' credits (the deposits of a
		// large market's settlement, each job 50 bets of up to 50
		// bettors) deadlocked, and the job that lost waited its retry's
		// back-off with every deposit of it done.
		if _, err := tx.Exec(ctx, `SELECT 1 FROM betting_bettors r WHERE (r.operator_id, r.id) IN (
				SELECT b.operator_id, b.bettor_id FROM betting_bets b WHERE b.id = ANY($1::uuid[]))
			ORDER BY r.operator_id, r.id FOR UPDATE OF r`, balanceBets); err != nil {
			return err
		}
		// One bettor may have several balances in the batch: the most
		// recent answer's is kept (the later one in the batch among equals),
		// unless a more recent answer's is already recorded.
		if _, err := tx.Exec(ctx, `UPDATE betting_bettors r SET balance = n.balance, balance_at = n.at
			FROM (SELECT DISTINCT ON (b.operator_id, b.bettor_id) b.operator_id, b.bettor_id, c.balance, c.at
				FROM unnest($1::uuid[], $2::numeric[], $3::timestamptz[]) WITH ORDINALITY AS c(id, balance, at, n) JOIN betting_bets b ON b.id = c.id
				ORDER BY b.operator_id, b.bettor_id, c.at DESC, c.n DESC) n
			WHERE r.operator_id = n.operator_id AND r.id = n.bettor_id AND (r.balance_at IS NULL OR r.balance_at <= n.at)`,
			balanceBets, balances, balanceTimes); err != nil {
			return err
		}
	}
	if len(attempts) > 0 {
		if _, err := tx.Exec(ctx, insertWalletAttemptsSQL, walletAttemptArrays(attempts).args()...); err != nil {
			return err
		}
	}
	return tx.Commit(ctx)
}

func (s betStore) ListBettors(ctx context.Context, operatorID, afterID string, limit int) ([]betting.Bettor, error) {
	return queryList(ctx, s.d.pool, `SELECT operator_id, id, currency, balance::text, created_at FROM betting_bettors
		WHERE operator_id = $1 AND id > $2 ORDER BY id LIMIT $3`, []any{operatorID, afterID, limit}, rowscan.Bettor)
}
