// Package journal keeps a sandbox partner's state in SQLite as an
// append-only log of the operations that changed it. A sandbox applies each
// operation to its in-memory state and appends it here before it answers;
// on start it replays the log, in order, through the same code, which
// rebuilds the state exactly. An operation that was applied but not
// appended (a crash in between) was never answered, so the caller retries
// it, as the wallet protocols require.
package journal

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"time"

	_ "modernc.org/sqlite" // registers the "sqlite" database/sql driver
)

// Record is one journalled operation.
type Record struct {
	// Seq numbers the records from 1, in the order they were appended.
	Seq int64
	// Time is the sandbox's clock when the operation was applied; replay
	// applies it again at that time.
	Time time.Time
	// Kind names the operation ("withdrawal", "set_balance", …).
	Kind string
	// Data is the operation's input, as the sandbox encoded it.
	Data json.RawMessage
}

// Journal is an open journal file. Its methods are safe for concurrent use;
// appends are serialised by SQLite's single writer.
type Journal struct {
	db *sql.DB
}

// Open opens (creating if needed) the journal in the SQLite file at path.
func Open(ctx context.Context, path string) (*Journal, error) {
	if path == "" {
		return nil, errors.New("journal: a file path is required")
	}
	dsn := "file:" + url.PathEscape(path) + "?_pragma=busy_timeout(10000)&_pragma=journal_mode(WAL)" +
		"&_pragma=synchronous(FULL)&_txlock=immediate"
	db, err := sql.Open("sqlite", dsn)
	if err != nil {
		return nil, fmt.Errorf("journal: open %s: %w", path, err)
	}
	db.SetMaxOpenConns(1)
	if _, err := db.ExecContext(ctx, `CREATE TABLE IF NOT EXISTS journal (
		seq  INTEGER PRIMARY KEY AUTOINCREMENT,
		at   INTEGER NOT NULL,
		kind TEXT NOT NULL,
		data TEXT NOT NULL
	)`); err != nil {
		db.Close()
		return nil, fmt.Errorf("journal: create table in %s: %w", path, err)
	}
	return &Journal{db: db}, nil
}

// Append records one operation durably (synchronous=FULL: the record is on
// disk when Append returns) and returns its Seq. data must be valid JSON.
func (j *Journal) Append(ctx context.Context, at time.Time, kind string, data []byte) (int64, error) {
	if !json.Valid(data) {
		return 0, fmt.Errorf("journal: %s record is not valid JSON", kind)
	}
	res, err := j.db.ExecContext(ctx, `INSERT INTO journal (at, kind, data) VALUES (?, ?, ?)`,
		Stamp(at).UnixMicro(), kind, string(data))
	if err != nil {
		return 0, fmt.Errorf("journal: append %s: %w", kind, err)
	}
	return res.LastInsertId()
}

// AppendValue is Append with v encoded as JSON.
func (j *Journal) AppendValue(ctx context.Context, at time.Time, kind string, v any) (int64, error) {
	data, err := json.Marshal(v)
	if err != nil {
		return 0, fmt.Errorf("journal: encode a %s record: %w", kind, err)
	}
	return j.Append(ctx, at, kind, data)
}

// Stamp returns t as a record keeps it: UTC, in whole microseconds. A
// sandbox times its live operations with it, so that replaying a record
// at its Time gives exactly the times the live operation gave.
func Stamp(t time.Time) time.Time { return t.UTC().Truncate(time.Microsecond) }

// Replay calls apply for every record, oldest first, and stops at the first
// error, which it returns wrapped with the record's Seq.
func (j *Journal) Replay(ctx context.Context, apply func(Record) error) error {
	rows, err := j.db.QueryContext(ctx, `SELECT seq, at, kind, data FROM journal ORDER BY seq`)
	if err != nil {
		return fmt.Errorf("journal: replay: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var (
			r    Record
			at   int64
			data string
		)
		if err := rows.Scan(&r.Seq, &at, &r.Kind, &data); err != nil {
			return fmt.Errorf("journal: replay: %w", err)
		}
		r.Time, r.Data = time.UnixMicro(at).UTC(), json.RawMessage(data)
		if err := apply(r); err != nil {
			return fmt.Errorf("journal: replay record %d (%s): %w", r.Seq, r.Kind, err)
		}
	}
	return rows.Err()
}

// Close closes the journal file.
func (j *Journal) Close() error { return j.db.Close() }
