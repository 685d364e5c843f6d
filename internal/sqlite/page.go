package sqlite

import (
	"context"
	"time"

	"github.com/foresight-dev/foresight/internal/rowscan"
)

// newestFirst completes q, a SELECT with a WHERE clause, into a page of a
// newest-first list: rows strictly older than (beforeAt, beforeID) when
// beforeID is set (keyset paging on created_at and id), ordered newest
// first, at most limit. It returns the query and its arguments.
func newestFirst(q string, args []any, beforeAt time.Time, beforeID string, limit int) (string, []any) {
	if beforeID != "" {
		q += ` AND (created_at < ? OR (created_at = ? AND id < ?))`
		args = append(args, micros(beforeAt), micros(beforeAt), beforeID)
	}
	q += ` ORDER BY created_at DESC, id DESC LIMIT ?`
	return q, append(args, limit)
}

// queryNewestFirst runs newestFirst's page of q and reads each row with
// scan; the result is never nil.
func queryNewestFirst[T any](ctx context.Context, p *pool, q string, args []any, beforeAt time.Time, beforeID string, limit int,
	scan func(rowscan.Row) (T, error)) ([]T, error) {
	q, args = newestFirst(q, args, beforeAt, beforeID, limit)
	return queryList(ctx, p, q, args, scan)
}

// queryList runs q and reads each row with scan; the result is never nil.
func queryList[T any](ctx context.Context, p *pool, q string, args []any, scan func(rowscan.Row) (T, error)) ([]T, error) {
	rows, err := p.query(ctx, q, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	return rowscan.All(rows, scan)
}
