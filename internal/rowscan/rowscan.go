// Package rowscan reads the rows of a query result into values: the one
// row loop of the SQLite and PostgreSQL stores, which read their rows
// through database/sql and pgx, and the scan functions of the rows both
// engines store alike. A kind of row has one scan function, shared by
// the query that reads one and the queries that list them; it lives here
// when both engines read it the same way (the columns each engine stores
// differently, such as times, read through Time, NullTime and Text), and
// in the engine's store otherwise. The SQL, which differs by engine,
// stays in each store.
package rowscan

import (
	"database/sql"
	"encoding/json"
	"errors"
)

// Row is one row of a result: *sql.Row, *sql.Rows, pgx.Row or pgx.Rows.
// It is an alias, so a scan function may name the interface itself.
type Row = interface {
	Scan(dest ...any) error
}

// Rows is a result read row by row: *sql.Rows or pgx.Rows.
type Rows interface {
	Row
	Next() bool
	Err() error
}

// All reads every row of rows with scan, in order, and returns them; the
// list is empty, not nil, when there are none. It stops at the first
// error of scan or of rows. The caller closes rows.
func All[T any](rows Rows, scan func(Row) (T, error)) ([]T, error) {
	out := []T{}
	for rows.Next() {
		v, err := scan(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, v)
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	return out, nil
}

// Each calls fn with every row of rows, in order, and stops at the first
// error of fn or of rows. The caller closes rows.
func Each(rows Rows, fn func(Row) error) error {
	for rows.Next() {
		if err := fn(rows); err != nil {
			return err
		}
	}
	return rows.Err()
}

// Value reads a row whose one column is a T, such as an id.
func Value[T any](row Row) (T, error) {
	var v T
	err := row.Scan(&v)
	return v, err
}

// JSON reads a row whose one column is a JSON document (TEXT on SQLite,
// jsonb on PostgreSQL) into a new T.
func JSON[T any](row Row) (T, error) {
	var doc []byte
	var v T
	if err := row.Scan(&doc); err != nil {
		return v, err
	}
	return v, json.Unmarshal(doc, &v)
}

// Found reads what a scan of one row returned as found or not: v and
// true for a row; a zero T and false, with no error, for no row
// (sql.ErrNoRows, which pgx's ErrNoRows also is); a zero T, false and err
// for any other error.
func Found[T any](v T, err error) (T, bool, error) {
	var zero T
	switch {
	case errors.Is(err, sql.ErrNoRows):
		return zero, false, nil
	case err != nil:
		return zero, false, err
	}
	return v, true, nil
}

// noRowAs returns err, or the error notFound returns when err is the error
// of no row (sql.ErrNoRows, which pgx's ErrNoRows also is): the store's
// own not-found error, made only when needed.
func noRowAs(err error, notFound func() error) error {
	if errors.Is(err, sql.ErrNoRows) {
		return notFound()
	}
	return err
}

// Calling returns the fn of Each for rows of one kind: it reads the row
// with scan and calls fn with the value.
func Calling[T any](scan func(Row) (T, error), fn func(T) error) func(Row) error {
	return func(row Row) error {
		v, err := scan(row)
		if err != nil {
			return err
		}
		return fn(v)
	}
}
