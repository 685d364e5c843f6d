package postgres

import (
	"context"

	"github.com/jackc/pgx/v5"

	"github.com/foresight-dev/foresight/internal/betting"
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
