package postgres

import (
	"context"

	"github.com/jackc/pgx/v5"

	"github.com/foresight-dev/foresight/internal/rowscan"
)

// querier runs a query: the pool or a transaction.
type querier interface {
	Query(ctx context.Context, sql string, args ...any) (pgx.Rows, error)
}

// queryList runs q on db and reads each row with scan; the result is
// never nil. An error of the query is returned whether pgx reports it at
// once or when the rows are read.
func queryList[T any](ctx context.Context, db querier, q string, args []any, scan func(rowscan.Row) (T, error)) ([]T, error) {
	rows, err := db.Query(ctx, q, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	return rowscan.All(rows, scan)
}
