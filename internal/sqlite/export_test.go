package sqlite

import "context"

// Synchronous returns the writer connection's PRAGMA synchronous (1 NORMAL,
// 2 FULL).
func (d *DB) Synchronous(ctx context.Context) (int, error) {
	var n int
	err := d.writer.queryRow(ctx, `PRAGMA synchronous`).Scan(&n)
	return n, err
}
