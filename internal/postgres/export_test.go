package postgres

import (
	"context"

	"github.com/jackc/pgx/v5"

	"github.com/foresight-dev/foresight/internal/betting"
	"github.com/foresight-dev/foresight/internal/money"
)

// ExplainListBets returns the query plan of ListBets' query for f, one
// line per step, planned as for a large table (sequential scans off: the
// test's tables are too small for an index to win on cost).
func (d *DB) ExplainListBets(ctx context.Context, f betting.BetFilter) ([]string, error) {
	q, args := listBetsQuery(f)
	var plan []string
	err := pgx.BeginFunc(ctx, d.pool, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, `SET LOCAL enable_seqscan = off`); err != nil {
			return err
		}
		rows, err := tx.Query(ctx, `EXPLAIN `+q, args...)
		if err != nil {
			return err
		}
		plan, err = pgx.CollectRows(rows, pgx.RowTo[string])
		return err
	})
	return plan, err
}

// ReserveBatch reserves the bets' payouts, each within limit, in one
// batch and in the order given, as one batch of ReserveExposure calls
// gathered by a node would.
func (d *DB) ReserveBatch(ctx context.Context, bets []betting.Bet, limit money.Amount) error {
	items := make([]reservation, len(bets))
	for i, b := range bets {
		items[i] = reservation{bet: b, limit: limit}
	}
	_, err := d.reserve(ctx, items)
	return err
}
