package sqlite

import (
	"context"

	"github.com/foresight-dev/foresight/internal/betting"
)

// Synchronous returns the writer connection's PRAGMA synchronous (1 NORMAL,
// 2 FULL).
func (d *DB) Synchronous(ctx context.Context) (int, error) {
	var n int
	err := d.writer.queryRow(ctx, `PRAGMA synchronous`).Scan(&n)
	return n, err
}

// ExplainListBets returns the query plan of ListBets' query for f, one
// line per step.
func (d *DB) ExplainListBets(ctx context.Context, f betting.BetFilter) ([]string, error) {
	q, args := listBetsQuery(f)
	rows, err := d.reader.query(ctx, `EXPLAIN QUERY PLAN `+q, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var plan []string
	for rows.Next() {
		var id, parent, unused int
		var detail string
		if err := rows.Scan(&id, &parent, &unused, &detail); err != nil {
			return nil, err
		}
		plan = append(plan, detail)
	}
	return plan, rows.Err()
}
