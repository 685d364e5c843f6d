package sqlite

import (
	"context"
	"time"
)

// queryNewestFirst completes q, a SELECT with a WHERE clause, into a page
// of a newest-first list: rows strictly older than (beforeAt, beforeID)
// when beforeID is set (keyset paging on created_at and id), ordered newest
// first, at most limit. Each row is read with scan; the result is never nil.
func queryNewestFirst[T any](ctx context.Context, p *pool, q string, args []any, beforeAt time.Time, beforeID string, limit int,
	scan func(row interface{ Scan(...any) error }) (T, error)) ([]T, error) {
	if beforeID != "" {
		q += ` AND (created_at < ? OR (created_at = ? AND id < ?))`
		args = append(args, micros(beforeAt), micros(beforeAt), beforeID)
	}
	q += ` ORDER BY created_at DESC, id DESC LIMIT ?`
	args = append(args, limit)
	rows, err := p.query(ctx, q, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := []T{}
	for rows.Next() {
		v, err := scan(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, v)
	}
	return out, rows.Err()
}
