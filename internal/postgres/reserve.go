package postgres

import (
	"cmp"
	"context"
	"hash/fnv"
	"slices"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/foresight-dev/foresight/internal/betting"
	"github.com/foresight-dev/foresight/internal/groupcommit"
	"github.com/foresight-dev/foresight/internal/money"
)

// An outcome's exposure is one row that every reservation on that outcome
// updates, and PostgreSQL holds the row's lock until the commit: one
// reservation per commit caps an outcome at a few hundred bets a second.
// Reservations therefore go through group-commit batchers, one batch per
// transaction and one round trip per batch; a reservation that finds its
// batcher idle is committed at once on its own. An outcome always maps to the
// same batcher, so batches never queue on each other's exposure rows,
// while outcomes of different batchers reserve in parallel.
const reservationShards = 4

// reservation is one call of ReserveExposure.
type reservation struct {
	bet   betting.Bet
	limit money.Amount
}

// reserveResult is what a reservation found: whether the bet still lacked
// a reservation, whether it was pending, and whether the payout was added.
type reserveResult struct{ unreserved, pending, added bool }

// reserveSQL locks the bet unless it already holds a reservation, adds
// the payout when the bet is pending and the outcome's total stays within
// the limit, and marks the bet.
const reserveSQL = `WITH bet AS (
		SELECT id, status FROM betting_bets WHERE id = $6 AND NOT exposure_reserved FOR UPDATE
	), added AS (
		INSERT INTO betting_exposure AS x (operator_id, outcome_id, currency, reserved)
		SELECT $1, $2, $3, $4::numeric FROM bet WHERE bet.status = 'pending' AND $4::numeric <= $5::numeric
		ON CONFLICT (operator_id, outcome_id, currency) DO UPDATE SET reserved = x.reserved + EXCLUDED.reserved
		WHERE x.reserved + EXCLUDED.reserved <= $5::numeric
		RETURNING 1
	), marked AS (
		UPDATE betting_bets SET exposure_reserved = TRUE WHERE id IN (SELECT id FROM bet) AND EXISTS (SELECT FROM added)
		RETURNING 1
	)
	SELECT (SELECT count(*) FROM bet), (SELECT count(*) FROM bet WHERE status = 'pending'), (SELECT count(*) FROM added)`

func newReservers(d *DB) []*groupcommit.Batcher[reservation, reserveResult] {
	rs := make([]*groupcommit.Batcher[reservation, reserveResult], reservationShards)
	for i := range rs {
		rs[i] = groupcommit.NewWith(d.reserve, groupcommit.Options[reservation, reserveResult]{
			Max: 128, Timeout: 30 * time.Second, Alone: d.reserveOne})
	}
	return rs
}

// reserver returns the batcher of an outcome.
func (d *DB) reserver(outcomeID string) *groupcommit.Batcher[reservation, reserveResult] {
	h := fnv.New32a()
	h.Write([]byte(outcomeID))
	return d.reservers[h.Sum32()%uint32(len(d.reservers))]
}

// reserve applies a batch of reservations in one transaction, ordered by
// exposure row (operator, outcome, currency) and, within one row, in the
// order they came: each statement sees the exposure the earlier ones
// added. Every batch of every node takes the exposure rows' locks in that
// one order, so two batches holding the same outcomes cannot deadlock.
func (d *DB) reserve(ctx context.Context, items []reservation) ([]reserveResult, error) {
	order := make([]int, len(items))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(i, j int) int {
		a, b := items[i].bet, items[j].bet
		return cmp.Or(cmp.Compare(a.OperatorID, b.OperatorID), cmp.Compare(a.OutcomeID, b.OutcomeID), cmp.Compare(a.Currency, b.Currency))
	})
	batch := &pgx.Batch{}
	for _, i := range order {
		r := items[i]
		b := r.bet
		batch.Queue(reserveSQL, b.OperatorID, b.OutcomeID, b.Currency, b.PotentialPayout.String(), r.limit.String(), b.ID)
	}
	// The batch is one implicit transaction, committed before Close
	// returns.
	results := d.pool.SendBatch(ctx, batch)
	defer results.Close()
	out := make([]reserveResult, len(items))
	for _, i := range order {
		var unreserved, pending, added int
		if err := results.QueryRow().Scan(&unreserved, &pending, &added); err != nil {
			return nil, err
		}
		out[i] = reserveResult{unreserved: unreserved > 0, pending: pending > 0, added: added > 0}
	}
	return out, results.Close()
}

// reserveOne applies a reservation that found its outcome's batcher idle:
// one statement, committed on its own.
func (d *DB) reserveOne(ctx context.Context, r reservation) (reserveResult, error) {
	b := r.bet
	var unreserved, pending, added int
	err := d.pool.QueryRow(ctx, reserveSQL, b.OperatorID, b.OutcomeID, b.Currency, b.PotentialPayout.String(), r.limit.String(), b.ID).
		Scan(&unreserved, &pending, &added)
	return reserveResult{unreserved: unreserved > 0, pending: pending > 0, added: added > 0}, err
}
