// Package sqlmigrate applies a store's migration files, the one runner of
// the SQLite and PostgreSQL stores: each file once, in name order, whole
// (the driver runs every statement of it, so a trigger's body with its own
// semicolons is one statement), in a transaction of its own that also
// records the file's name in the table foresight_migrations. The stores
// give their driver's transaction as a Tx; the SQL here is the same on
// both engines but for the placeholder of a parameter.
package sqlmigrate

import (
	"context"
	"fmt"
	"io/fs"
	"slices"

	"github.com/foresight-dev/foresight/internal/rowscan"
)

// Tx is a migration's transaction on one engine: *sql.Tx or pgx.Tx
// behind two calls.
type Tx interface {
	// Exec runs sql; without args it may hold many statements.
	Exec(ctx context.Context, sql string, args ...any) error
	// QueryRow runs a query that returns one row.
	QueryRow(ctx context.Context, sql string, args ...any) rowscan.Row
}

// InTx runs fn in a new transaction, committed when fn returns nil and
// rolled back otherwise.
type InTx func(ctx context.Context, fn func(Tx) error) error

// Apply creates foresight_migrations when it is missing, then applies
// the files of fsys that match pattern (see fs.Glob) and that table does
// not record, in name order, each in a transaction of inTx. param is the
// engine's placeholder of the first parameter of a statement: "?" or
// "$1". It stops at the first file that fails, with an error naming it.
func Apply(ctx context.Context, fsys fs.FS, pattern, param string, inTx InTx) error {
	err := inTx(ctx, func(tx Tx) error {
		return tx.Exec(ctx, `CREATE TABLE IF NOT EXISTS foresight_migrations (name TEXT PRIMARY KEY)`)
	})
	if err != nil {
		return fmt.Errorf("migrations table: %w", err)
	}
	names, err := fs.Glob(fsys, pattern)
	if err != nil {
		return err
	}
	slices.Sort(names)
	for _, name := range names {
		if err := inTx(ctx, func(tx Tx) error { return applyFile(ctx, tx, fsys, name, param) }); err != nil {
			return fmt.Errorf("migration %s: %w", name, err)
		}
	}
	return nil
}

// applyFile runs the file name of fsys in tx and records it, unless
// foresight_migrations records it already.
func applyFile(ctx context.Context, tx Tx, fsys fs.FS, name, param string) error {
	var n int
	if err := tx.QueryRow(ctx, `SELECT count(*) FROM foresight_migrations WHERE name = `+param, name).Scan(&n); err != nil {
		return err
	}
	if n > 0 {
		return nil
	}
	body, err := fs.ReadFile(fsys, name)
	if err != nil {
		return err
	}
	if err := tx.Exec(ctx, string(body)); err != nil {
		return err
	}
	return tx.Exec(ctx, `INSERT INTO foresight_migrations (name) VALUES (`+param+`)`, name)
}
