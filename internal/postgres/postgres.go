// Package postgres is Foresight's production store: PostgreSQL through pgx,
// and River's pgx driver for the job queue, so that a row and the job that
// belongs to it commit together. Several foresight processes may share one
// database: River gives each job to one of them.
package postgres

import (
	"context"
	"embed"
	"fmt"
	"io/fs"
	"log/slog"
	"slices"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/riverqueue/river"
	"github.com/riverqueue/river/riverdriver/riverpgxv5"
	"github.com/riverqueue/river/rivermigrate"

	"github.com/foresight-dev/foresight/internal/groupcommit"
	"github.com/foresight-dev/foresight/internal/jobqueue"
)

//go:embed migration/*.sql
var migrations embed.FS

// DB is an open PostgreSQL database with Foresight's schema.
type DB struct {
	pool    *pgxpool.Pool
	queue   *river.Client[pgx.Tx]
	creates *groupcommit.Batcher[newJob, createResult]
	// reservers batch exposure reservations; see reserve.go.
	reservers []*groupcommit.Batcher[reservation, reserveResult]
	log       *slog.Logger
}

// Open connects to the database at url (postgres://…) and applies every
// migration, River's included. log may be nil.
func Open(ctx context.Context, url string, log *slog.Logger) (*DB, error) {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	cfg, err := pgxpool.ParseConfig(url)
	if err != nil {
		return nil, fmt.Errorf("postgres URL: %w", err)
	}
	if !strings.Contains(url, "pool_max_conns") {
		// pgx's default (the number of CPUs, at least 4) starves River's
		// workers and the API of connections on small machines.
		cfg.MaxConns = max(cfg.MaxConns, 20)
	}
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		return nil, fmt.Errorf("connect postgres: %w", err)
	}
	if err := pool.Ping(ctx); err != nil {
		pool.Close()
		return nil, fmt.Errorf("connect postgres: %w", err)
	}
	d := &DB{pool: pool, log: log}
	if err := d.migrate(ctx); err != nil {
		pool.Close()
		return nil, err
	}
	d.queue, err = jobqueue.NewClient(riverpgxv5.New(pool), nil, jobqueue.DefaultConfig(), log)
	if err != nil {
		pool.Close()
		return nil, err
	}
	d.creates = groupcommit.New(d.createJobs, 256, 30*time.Second)
	d.reservers = newReservers(d)
	return d, nil
}

// Close stops the batchers and closes the connection pool.
func (d *DB) Close() error {
	d.creates.Close()
	for _, r := range d.reservers {
		r.Close()
	}
	d.pool.Close()
	return nil
}

// StartWorkers starts a River client that works the queues with workers
// until ctx ends or the returned stop function is called. stop cancels
// running jobs (they resume on the next start) and waits for them.
func (d *DB) StartWorkers(ctx context.Context, workers *river.Workers, cfg jobqueue.Config) (stop func(context.Context) error, err error) {
	c, err := jobqueue.NewClient(riverpgxv5.New(d.pool), workers, cfg, d.log)
	if err != nil {
		return nil, err
	}
	if err := c.Start(ctx); err != nil {
		return nil, fmt.Errorf("start river: %w", err)
	}
	return c.StopAndCancel, nil
}

// migrationLockID is the advisory lock that serialises migrations of
// processes starting together.
const migrationLockID = 0x666f7265 // "fore"

func (d *DB) migrate(ctx context.Context) error {
	conn, err := d.pool.Acquire(ctx)
	if err != nil {
		return err
	}
	defer conn.Release()
	if _, err := conn.Exec(ctx, `SELECT pg_advisory_lock($1)`, migrationLockID); err != nil {
		return fmt.Errorf("migration lock: %w", err)
	}
	defer conn.Exec(context.WithoutCancel(ctx), `SELECT pg_advisory_unlock($1)`, migrationLockID)

	m, err := rivermigrate.New(riverpgxv5.New(d.pool), nil)
	if err != nil {
		return fmt.Errorf("river migrator: %w", err)
	}
	if _, err := m.Migrate(ctx, rivermigrate.DirectionUp, nil); err != nil {
		return fmt.Errorf("river migrations: %w", err)
	}
	if _, err := conn.Exec(ctx, `CREATE TABLE IF NOT EXISTS foresight_migrations (name TEXT PRIMARY KEY)`); err != nil {
		return fmt.Errorf("migrations table: %w", err)
	}
	names, err := fs.Glob(migrations, "migration/*.sql")
	if err != nil {
		return err
	}
	slices.Sort(names)
	for _, name := range names {
		if err := migrateFile(ctx, conn.Conn(), name); err != nil {
			return fmt.Errorf("migration %s: %w", name, err)
		}
	}
	return nil
}

func migrateFile(ctx context.Context, conn *pgx.Conn, name string) error {
	tx, err := conn.Begin(ctx)
	if err != nil {
		return err
	}
	defer tx.Rollback(ctx)
	var n int
	if err := tx.QueryRow(ctx, `SELECT count(*) FROM foresight_migrations WHERE name = $1`, name).Scan(&n); err != nil {
		return err
	}
	if n > 0 {
		return nil
	}
	body, err := fs.ReadFile(migrations, name)
	if err != nil {
		return err
	}
	if _, err := tx.Exec(ctx, string(body)); err != nil {
		return err
	}
	if _, err := tx.Exec(ctx, `INSERT INTO foresight_migrations (name) VALUES ($1)`, name); err != nil {
		return err
	}
	return tx.Commit(ctx)
}

// PauseQueue stops every process from starting jobs of queue until
// ResumeQueue; running jobs finish. Processes notice within milliseconds
// (River notifies them).
func (d *DB) PauseQueue(ctx context.Context, queue string) error {
	return d.queue.QueuePause(ctx, queue, nil)
}

// ResumeQueue undoes PauseQueue.
func (d *DB) ResumeQueue(ctx context.Context, queue string) error {
	return d.queue.QueueResume(ctx, queue, nil)
}
