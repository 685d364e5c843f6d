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
	"log/slog"
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

// Keeper is a sandbox's side of its journal: the time of its live
// operations, their appending, and what follows a failed append. It is not
// safe for concurrent use: the sandbox calls it under its own lock. With a
// nil Journal the sandbox keeps everything in memory: nothing is appended
// and nothing fails.
type Keeper struct {
	journal *Journal
	now     func() time.Time
	// errJournal is the sandbox's error for a failed journal, which every
	// failure wraps; sandbox names the sandbox ("casino").
	errJournal error
	sandbox    string
	// fresh returns the sandbox with no state that a reload replays the
	// journal into.
	fresh  func() (Fresh, error)
	failed error
}

// Fresh is a sandbox with no state, built for a reload after a failed
// append: Apply applies one journal record to it, as the sandbox's replay
// does; Install, called once every record is applied, makes its state the
// sandbox's (the journal is then the truth).
type Fresh struct {
	Apply   func(Record) error
	Install func()
}

// Rebuild is the fresh function of NewKeeper for a sandbox of type S:
// build makes one with no state, into which a reload replays the journal
// through apply; Install then calls install with it, which makes its
// journalled state the sandbox's.
func Rebuild[S any](build func() (S, error), apply func(S, Record) error, install func(S)) func() (Fresh, error) {
	return func() (Fresh, error) {
		t, err := build()
		if err != nil {
			return Fresh{}, err
		}
		return Fresh{Apply: func(r Record) error { return apply(t, r) }, Install: func() { install(t) }}, nil
	}
}

// NewKeeper returns the keeper of j (nil: none) for the sandbox named
// sandbox, whose clock is now (nil: time.Now). Every failure wraps
// errJournal. After a
// failed append the keeper replays the journal into what fresh returns and
// installs it; fresh is called under the sandbox's lock.
func NewKeeper(j *Journal, now func() time.Time, sandbox string, errJournal error, fresh func() (Fresh, error)) *Keeper {
	if now == nil {
		now = time.Now
	}
	return &Keeper{journal: j, now: now, sandbox: sandbox, errJournal: errJournal, fresh: fresh}
}

// Clock is the time of a live operation. With a journal it is Stamped,
// the journal's precision, so that a replay gives the same times.
func (k *Keeper) Clock() time.Time {
	t := k.now()
	if k.journal != nil {
		t = Stamp(t)
	}
	return t
}

// Op is one operation a sandbox applies to its state: a wallet request, a
// helper call, or a journal record being replayed.
type Op struct {
	// At is the operation's time: the Clock's when it is live (set by
	// Begin, under the sandbox's lock), the record's when it is replayed.
	At time.Time
	// Replay is set while the journal is replayed: nothing is appended.
	Replay bool
	// Applied is set when the operation changed the state or stored an
	// answer: it is journalled.
	Applied bool
}

// Replaying returns the Op that replays r, at its time.
func Replaying(r Record) *Op { return &Op{At: r.Time, Replay: true} }

// Begin starts op: it fails once the journal has failed for good, and
// sets op.At to the Clock for a live operation.
func (k *Keeper) Begin(op *Op) error {
	if k.failed != nil {
		return k.failed
	}
	if !op.Replay {
		op.At = k.Clock()
	}
	return nil
}

// Commit appends op, a live operation that changed the state, of kind
// with input v (nothing for a replayed one, or without a journal). If the
// append fails, the state is reloaded from the journal, so the operation
// is undone (or kept, if the append reached the disk after all; either
// way a retry gets a consistent answer), and the error is returned. If
// the journal cannot be replayed either, every later Begin fails until
// the sandbox is restarted. Both failures go to slog's default logger (a
// sandbox has no log of its own): the sandbox's answers and pages only
// say that the journal failed.
func (k *Keeper) Commit(op *Op, kind string, v any) error {
	if k.journal == nil || op.Replay {
		return nil
	}
	if _, err := k.journal.AppendValue(context.Background(), op.At, kind, v); err != nil {
		log := slog.Default().With("sandbox", k.sandbox, "kind", kind, "err", err)
		if rerr := k.reload(); rerr != nil {
			k.failed = fmt.Errorf("%w (%v), and the state could not be read back from it (%v): restart the %s", k.errJournal, err, rerr, k.sandbox)
			log.Error("journal: an append failed and the state could not be read back from the journal; restart the sandbox", "reload_err", rerr)
		} else {
			log.Warn("journal: an append failed; the operation was undone")
		}
		return fmt.Errorf("%w: %w", k.errJournal, err)
	}
	return nil
}

// reload replays the journal into a fresh sandbox and installs its state.
func (k *Keeper) reload() error {
	f, err := k.fresh()
	if err != nil {
		return err
	}
	if err := k.journal.Replay(context.Background(), f.Apply); err != nil {
		return err
	}
	f.Install()
	return nil
}

// Failed is the error that fails every operation once the journal failed
// for good; nil before.
func (k *Keeper) Failed() error { return k.failed }

// Lacking is a record that opening a journal appends: what the replayed
// state lacks (its current configuration, a generated secret, …).
type Lacking struct {
	Kind  string
	Value any
}

// Open replays the journal through apply, then appends each record that
// lacking (called after the replay) returns and applies it through apply,
// as a replay would.
func (k *Keeper) Open(apply func(Record) error, lacking func() ([]Lacking, error)) error {
	ctx := context.Background()
	if err := k.journal.Replay(ctx, apply); err != nil {
		return fmt.Errorf("%s: %w", k.sandbox, err)
	}
	more, err := lacking()
	if err != nil {
		return err
	}
	at := k.Clock()
	for _, l := range more {
		data, err := json.Marshal(l.Value)
		if err != nil {
			return fmt.Errorf("%s: encode a %s record: %w", k.sandbox, l.Kind, err)
		}
		seq, err := k.journal.Append(ctx, at, l.Kind, data)
		if err != nil {
			return err
		}
		if err := apply(Record{Seq: seq, Time: at, Kind: l.Kind, Data: data}); err != nil {
			return fmt.Errorf("%s: %w", k.sandbox, err)
		}
	}
	return nil
}

// The kinds of the records that block and unblock a wallet, the same in
// both sandboxes' journals.
const (
	KindBlock   = "block"
	KindUnblock = "unblock"
)

// SetBlocked is a helper call that blocks a wallet or unblocks it: it
// begins op, adds id to blocked (block true) or takes it out, and commits
// op as a KindBlock or KindUnblock record with input v, when blocked did
// not already say so. Errors are Begin's and Commit's.
func (k *Keeper) SetBlocked(op *Op, blocked map[string]bool, id string, block bool, v any) error {
	if err := k.Begin(op); err != nil {
		return err
	}
	if blocked[id] == block {
		return nil
	}
	kind := KindUnblock
	if block {
		blocked[id] = true
		kind = KindBlock
	} else {
		delete(blocked, id)
	}
	return k.Commit(op, kind, v)
}
