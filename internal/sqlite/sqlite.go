// Package sqlite is Foresight's embedded store: SQLite through
// modernc.org/sqlite (no cgo) in WAL mode with a single writer connection,
// and River's SQLite driver for the job queue on the same connection, so
// that a row and the job that belongs to it commit together.
package sqlite

import (
	"context"
	"database/sql"
	"embed"
	"fmt"
	"io/fs"
	"log/slog"
	"net/url"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/riverqueue/river"
	"github.com/riverqueue/river/riverdriver/riversqlite"
	"github.com/riverqueue/river/rivermigrate"
	_ "modernc.org/sqlite" // registers the "sqlite" database/sql driver

	"github.com/foresight-dev/foresight/internal/groupcommit"
	"github.com/foresight-dev/foresight/internal/jobqueue"
	"github.com/foresight-dev/foresight/internal/rowscan"
	"github.com/foresight-dev/foresight/internal/sqlmigrate"
)

//go:embed migration/*.sql
var migrations embed.FS

// DB is an open SQLite database with Foresight's schema. It has one writer
// connection, shared with River, and a pool of read-only connections: in
// WAL mode readers do not wait for the writer, so reads on the request path
// never queue behind a write transaction.
type DB struct {
	path        string // the database file
	writer      *pool
	reader      *pool
	queue       *river.Client[*sql.Tx]
	checkpoints *checkpointer
	creates     *groupcommit.Batcher[newJob, createResult]
	writes      *groupcommit.Batcher[write, error]
	log         *slog.Logger
}

// pool is a database/sql pool with a cache of prepared statements: SQLite
// spends more time parsing most of our statements than running them.
type pool struct {
	db    *sql.DB
	stmts sync.Map // query text → *sql.Stmt
}

// prepared returns the prepared statement of query, preparing it once.
func (p *pool) prepared(ctx context.Context, query string) (*sql.Stmt, error) {
	if s, ok := p.stmts.Load(query); ok {
		return s.(*sql.Stmt), nil
	}
	s, err := p.db.PrepareContext(ctx, query)
	if err != nil {
		return nil, err
	}
	if prev, loaded := p.stmts.LoadOrStore(query, s); loaded {
		s.Close()
		return prev.(*sql.Stmt), nil
	}
	return s, nil
}

// queryRow runs a one-row query through the statement cache.
func (p *pool) queryRow(ctx context.Context, query string, args ...any) *sql.Row {
	s, err := p.prepared(ctx, query)
	if err != nil {
		// Let the error surface from Scan, as QueryRowContext would.
		return p.db.QueryRowContext(ctx, query, args...)
	}
	return s.QueryRowContext(ctx, args...)
}

// query runs a query through the statement cache.
func (p *pool) query(ctx context.Context, query string, args ...any) (*sql.Rows, error) {
	s, err := p.prepared(ctx, query)
	if err != nil {
		return nil, err
	}
	return s.QueryContext(ctx, args...)
}

// rowsChanged returns how many rows the statement whose result and error
// are res and err changed, or its error: rowsChanged(p.exec(ctx, …)).
func rowsChanged(res sql.Result, err error) (int64, error) {
	if err != nil {
		return 0, err
	}
	n, err := res.RowsAffected()
	if err != nil {
		return 0, fmt.Errorf("rows affected: %w", err)
	}
	return n, nil
}

// exec runs a statement through the statement cache.
func (p *pool) exec(ctx context.Context, query string, args ...any) (sql.Result, error) {
	s, err := p.prepared(ctx, query)
	if err != nil {
		return nil, err
	}
	return s.ExecContext(ctx, args...)
}

// txStmt returns query's statement bound to tx: the cached one when it was
// prepared before, else one prepared on tx (the writer's one connection is
// tx's, so preparing on the pool here would wait forever).
func (p *pool) txStmt(ctx context.Context, tx *sql.Tx, query string) (*sql.Stmt, error) {
	if s, ok := p.stmts.Load(query); ok {
		return tx.StmtContext(ctx, s.(*sql.Stmt)), nil
	}
	return tx.PrepareContext(ctx, query)
}

func (p *pool) close() error {
	p.stmts.Range(func(_, s any) bool {
		s.(*sql.Stmt).Close()
		return true
	})
	return p.db.Close()
}

// Open opens (creating if needed) the SQLite database at path and applies
// every migration, River's included. log may be nil.
//
// path may end with "?synchronous=full" (the default) or
// "?synchronous=normal": SQLite's synchronous setting in WAL mode. FULL
// syncs the log at every commit, so a commit that returned survives a
// power loss; NORMAL syncs it only at checkpoints, so the last commits
// before a power loss (not a process crash) may be lost, among them bets
// whose withdrawal the operator already applied (docs/operations.md).
func Open(ctx context.Context, path string, log *slog.Logger) (*DB, error) {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	path, synchronous, err := synchronousOf(path)
	if err != nil {
		return nil, err
	}
	file := "file:" + url.PathEscape(path) + "?_pragma=busy_timeout(10000)&_pragma=journal_mode(WAL)" +
		"&_pragma=synchronous(" + synchronous + ")&_pragma=foreign_keys(1)"
	wdb, err := sql.Open("sqlite", file+"&_txlock=immediate"+fmt.Sprintf("&_pragma=wal_autocheckpoint(%d)", writerAutoCheckpoint))
	if err != nil {
		return nil, fmt.Errorf("open sqlite %s: %w", path, err)
	}
	// One writer connection: SQLite has one writer, and River's driver asks for it.
	wdb.SetMaxOpenConns(1)
	wdb.SetConnMaxIdleTime(0)
	d := &DB{path: path, writer: &pool{db: wdb}, log: log}
	fail := func(err error) (*DB, error) {
		wdb.Close()
		if d.reader != nil {
			d.reader.db.Close()
		}
		return nil, err
	}
	if err := d.migrate(ctx); err != nil {
		return fail(err)
	}
	rdb, err := sql.Open("sqlite", file+"&_pragma=query_only(1)")
	if err != nil {
		return fail(fmt.Errorf("open sqlite %s for reading: %w", path, err))
	}
	rdb.SetMaxOpenConns(4)
	rdb.SetMaxIdleConns(4)
	rdb.SetConnMaxIdleTime(0)
	d.reader = &pool{db: rdb}
	d.queue, err = jobqueue.NewClient(riversqlite.New(wdb), jobqueue.DefaultConfig(), log)
	if err != nil {
		return fail(err)
	}
	for _, q := range slices.Concat(createJobStatements, betWriteStatements, ledgerWriteStatements) {
		if _, err := d.writer.prepared(ctx, q); err != nil {
			return fail(fmt.Errorf("prepare: %w", err))
		}
	}
	if d.checkpoints, err = startCheckpointer(file, log); err != nil {
		return fail(err)
	}
	d.creates = groupcommit.New(d.createJobs, 256, 30*time.Second)
	d.writes = groupcommit.New(d.flushWrites, 256, 30*time.Second)
	return d, nil
}

// synchronousOf splits path's "?synchronous=…" off and returns SQLite's
// name of the setting.
func synchronousOf(path string) (string, string, error) {
	file, query, found := strings.Cut(path, "?")
	if !found {
		return path, "FULL", nil
	}
	q, err := url.ParseQuery(query)
	if err != nil {
		return "", "", fmt.Errorf("sqlite database %q: %w", path, err)
	}
	for k := range q {
		if k != "synchronous" {
			return "", "", fmt.Errorf("sqlite database %q: unknown parameter %q (want synchronous)", path, k)
		}
	}
	switch v := strings.ToLower(q.Get("synchronous")); v {
	case "full", "normal":
		return file, strings.ToUpper(v), nil
	default:
		return "", "", fmt.Errorf("sqlite database %q: synchronous=%q, want full or normal", path, v)
	}
}

// Close stops the batchers and closes the database.
func (d *DB) Close() error {
	d.creates.Close()
	d.writes.Close()
	cerr := d.checkpoints.close()
	rerr := d.reader.close()
	if err := d.writer.close(); err != nil {
		return err
	}
	if rerr != nil {
		return rerr
	}
	return cerr
}

// PlacesBetsInProcess reports true: CreateBet enqueues no placement job,
// and the server runs a betting.Dispatcher over PendingBets instead. The
// database has one process and one writer, which River's per-job
// statements (insert, fetch, completion, each parsed anew) would otherwise
// keep busy for most of a bet's writes (docs/performance.md).
func (d *DB) PlacesBetsInProcess() bool { return true }

// StartWorkers starts a River client that works the queues with workers
// until the returned workers' Stop. It fails when another process works
// the database's queues (a lock file beside it, PATH-workers, which the
// system releases when that process dies). It then makes available again
// the jobs the previous process left running (see RescueJobs). Stop
// cancels running jobs (they resume on the next start), waits for them
// and releases the lock.
func (d *DB) StartWorkers(ctx context.Context, workers *river.Workers, cfg jobqueue.Config) (jobqueue.Running, error) {
	release, err := lockWorkers(d.path)
	if err != nil {
		return nil, err
	}
	node, err := jobqueue.Start(ctx, riversqlite.New(d.writer.db), workers, cfg, d, d.log)
	if err != nil {
		release()
		return nil, err
	}
	return lockedWorkers{Node: node, release: release}, nil
}

// lockedWorkers are the workers of the one process that holds the
// database's workers lock; Stop releases it.
type lockedWorkers struct {
	*jobqueue.Node
	release func()
}

// Stop stops the workers, then releases the lock.
func (w lockedWorkers) Stop(ctx context.Context) error {
	defer w.release()
	return w.Node.Stop(ctx)
}

// Beat records nothing: one process owns the database, so no other
// process needs to know that it is alive (see jobqueue.Recovery).
func (d *DB) Beat(context.Context, string) error { return nil }

// RescueJobs makes every running job not held by self available again and
// drops the queue leadership of any other node, and returns how many jobs
// it made available. One process owns the database: a job another node
// holds is a dead process's, whose beats do not matter (deadAfter is
// unused). Called before the workers start, it resumes at once whatever a
// killed or crashed process was running.
func (d *DB) RescueJobs(ctx context.Context, self string, _ time.Duration) (int, error) {
	tx, err := d.writer.db.BeginTx(ctx, nil)
	if err != nil {
		return 0, err
	}
	defer tx.Rollback()
	res, err := tx.ExecContext(ctx, `UPDATE river_job SET state = 'available'
		WHERE state = 'running' AND coalesce(attempted_by ->> '$[#-1]', '') <> ?`, self)
	if err != nil {
		return 0, fmt.Errorf("rescue running jobs: %w", err)
	}
	n, err := res.RowsAffected()
	if err != nil {
		return 0, err
	}
	if _, err := tx.ExecContext(ctx, `DELETE FROM river_leader WHERE leader_id <> ?`, self); err != nil {
		return 0, fmt.Errorf("drop a stopped process's queue leadership: %w", err)
	}
	return int(n), tx.Commit()
}

func (d *DB) migrate(ctx context.Context) error {
	m, err := rivermigrate.New(riversqlite.New(d.writer.db), nil)
	if err != nil {
		return fmt.Errorf("river migrator: %w", err)
	}
	if _, err := m.Migrate(ctx, rivermigrate.DirectionUp, nil); err != nil {
		return fmt.Errorf("river migrations: %w", err)
	}
	return d.migrateFiles(ctx, migrations, "migration/*.sql")
}

// migrateFiles applies the migration files of fsys that match pattern
// (see sqlmigrate.Apply) through the writer.
func (d *DB) migrateFiles(ctx context.Context, fsys fs.FS, pattern string) error {
	return sqlmigrate.Apply(ctx, fsys, pattern, "?", func(ctx context.Context, fn func(sqlmigrate.Tx) error) error {
		tx, err := d.writer.db.BeginTx(ctx, nil)
		if err != nil {
			return err
		}
		defer tx.Rollback()
		if err := fn(migrationTx{tx}); err != nil {
			return err
		}
		return tx.Commit()
	})
}

// migrationTx is a migration's transaction for sqlmigrate.
type migrationTx struct{ tx *sql.Tx }

func (m migrationTx) Exec(ctx context.Context, query string, args ...any) error {
	_, err := m.tx.ExecContext(ctx, query, args...)
	return err
}

func (m migrationTx) QueryRow(ctx context.Context, query string, args ...any) rowscan.Row {
	return m.tx.QueryRowContext(ctx, query, args...)
}
