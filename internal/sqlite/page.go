package sqlite

import (
	"context"
	"time"

	"github.com/foresight-dev/foresight/internal/rowscan"
	"github.com/foresight-dev/foresight/internal/sqlargs"
)

// newestFirst is the end of a newest-first list query: rows strictly older
// than (beforeAt, beforeID) when beforeID is set (keyset paging on
// created_at and id), ordered newest first, at most limit. Its arguments
// are added to args.
func newestFirst(args *sqlargs.List, beforeAt time.Time, beforeID string, limit int) string {
	q := ""
	if beforeID != "" {
		at := micros(beforeAt)
		q = ` AND (created_at < ` + args.Add(at) + ` OR (created_at = ` + args.Add(at) + ` AND id < ` + args.Add(beforeID) + `))`
	}
	return q + ` ORDER BY created_at DESC, id DESC LIMIT ` + args.Add(limit)
}

// queryNewestFirst runs newestFirst's page of q, a SELECT with a WHERE
// clause whose arguments are args, and reads each row with scan; the
// result is never nil.
func queryNewestFirst[T any](ctx context.Context, p *pool, q string, args *sqlargs.List, beforeAt time.Time, beforeID string, limit int,
	scan func(rowscan.Row) (T, error)) ([]T, error) {
	q += newestFirst(args, beforeAt, beforeID, limit)
	return queryList(ctx, p, q, args.Values(), scan)
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
