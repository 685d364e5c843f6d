// Package postgres is Foresight's production store: PostgreSQL through pgx,
// and River's pgx driver for the job queue, so that a row and the job that
// belongs to it commit together. Several foresight processes may share one
// database: River gives each job to one of them.
package postgres

import (
	"context"
	"embed"
	"fmt"
	"log/slog"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/riverqueue/river"
	"github.com/riverqueue/river/riverdriver/riverpgxv5"
	"github.com/riverqueue/river/rivermigrate"

	"github.com/foresight-dev/foresight/internal/groupcommit"
	"github.com/foresight-dev/foresight/internal/jobqueue"
	"github.com/foresight-dev/foresight/internal/rowscan"
	"github.com/foresight-dev/foresight/internal/sqlmigrate"
)

//go:embed migration/*.sql
var migrations embed.FS

// DB is an open PostgreSQL database with Foresight's schema.
type DB struct {
	pool *pgxpool.Pool
	// beats is a pool of its own for the job queue's beats, so that a busy
	// main pool never delays them (see Beat).
	beats   *pgxpool.Pool
	queue   *river.Client[pgx.Tx]
	creates *groupcommit.Batcher[newJob, createResult]
	// generations queues the generation jobs of createJobs' batches.
	generations *generationQueue
	// reservers batch exposure reservations; see reserve.go.
	reservers []*groupcommit.Batcher[reservation, reserveResult]
	// bets batch the acceptance and the confirmation of bets; see bets.go.
	bets *betBatchers
	log  *slog.Logger
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
	beatsCfg := cfg.Copy()
	beatsCfg.MaxConns, beatsCfg.MinConns = 2, 0
	beats, err := pgxpool.NewWithConfig(ctx, beatsCfg)
	if err != nil {
		pool.Close()
		return nil, fmt.Errorf("connect postgres: %w", err)
	}
	d := &DB{pool: pool, beats: beats, log: log}
	fail := func(err error) (*DB, error) {
		beats.Close()
		pool.Close()
		return nil, err
	}
	if err := d.migrate(ctx); err != nil {
		return fail(err)
	}
	d.queue, err = jobqueue.NewClient(riverpgxv5.New(pool), jobqueue.DefaultConfig(), log)
	if err != nil {
		return fail(err)
	}
	d.generations = newGenerationQueue(jobqueue.DefaultConfig())
	d.creates = groupcommit.New(d.createJobs, 256, 30*time.Second)
	d.reservers = newReservers(d)
	d.bets = newBetBatchers(d)
	return d, nil
}

// Close stops the batchers and closes the connection pool.
func (d *DB) Close() error {
	d.creates.Close()
	d.bets.close()
	for _, r := range d.reservers {
		r.Close()
	}
	d.beats.Close()
	d.pool.Close()
	return nil
}

// StartWorkers starts a River client that works the queues with workers
// until the returned node's Stop; the node beats and rescues the jobs of
// nodes that stopped beating (see RescueJobs).
func (d *DB) StartWorkers(ctx context.Context, workers *river.Workers, cfg jobqueue.Config) (jobqueue.Running, error) {
	return jobqueue.Start(ctx, riverpgxv5.New(d.pool), workers, cfg, d, d.log)
}

// Beat records, on the database's clock, that node is alive, through a
// pool of its own.
func (d *DB) Beat(ctx context.Context, node string) error {
	_, err := d.beats.Exec(ctx, `INSERT INTO queue_nodes (id, beat_at) VALUES ($1, now())
		ON CONFLICT (id) DO UPDATE SET beat_at = now()`, node)
	return err
}

// RescueJobs forgets the nodes other than self whose last beat is older
// than deadAfter, and the earlier ids of self's name, drops their queue leadership, makes their running jobs
// available again (noting the rescue in the job's errors, as River's
// rescuer does), and returns how many jobs it made available. Nodes
// running it at once wait for each other on the nodes' rows; one of them
// rescues. The jobs of a node that has no row (one that never beat) are
// left to River's rescuer.
func (d *DB) RescueJobs(ctx context.Context, self string, deadAfter time.Duration) (int, error) {
	tag, err := d.beats.Exec(ctx, `WITH dead AS (
			DELETE FROM queue_nodes WHERE id <> $1
				AND (beat_at < now() - make_interval(secs => $2) OR ($3 <> '' AND starts_with(id, $3)))
			RETURNING id
		), leadership AS (
			DELETE FROM river_leader WHERE leader_id IN (SELECT id FROM dead)
		)
		UPDATE river_job SET state = 'available', errors = array_append(errors, jsonb_build_object(
			'at', now(), 'attempt', attempt, 'error', 'its node stopped beating: rescued', 'trace', ''))
		WHERE state = 'running' AND attempted_by[cardinality(attempted_by)] IN (SELECT id FROM dead)`,
		self, deadAfter.Seconds(), jobqueue.EarlierIDPrefix(self))
	if err != nil {
		return 0, fmt.Errorf("rescue the jobs of dead nodes: %w", err)
	}
	return int(tag.RowsAffected()), nil
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
	defer execCleanup(ctx, conn, `SELECT pg_advisory_unlock($1)`, migrationLockID)

	m, err := rivermigrate.New(riverpgxv5.New(d.pool), nil)
	if err != nil {
		return fmt.Errorf("river migrator: %w", err)
	}
	if _, err := m.Migrate(ctx, rivermigrate.DirectionUp, nil); err != nil {
		return fmt.Errorf("river migrations: %w", err)
	}
	return sqlmigrate.Apply(ctx, migrations, "migration/*.sql", "$1", func(ctx context.Context, fn func(sqlmigrate.Tx) error) error {
		return pgx.BeginFunc(ctx, conn, func(tx pgx.Tx) error { return fn(migrationTx{tx}) })
	})
}

// cleanupTimeout bounds a statement that undoes a connection's session
// state (UNLISTEN, an advisory unlock) once its work has ended, so that an
// unresponsive database cannot hold up shutdown.
const cleanupTimeout = 5 * time.Second

// execCleanup runs sql on conn even when ctx has ended, for at most
// cleanupTimeout. Its error is ignored: a statement that times out closes
// the connection, and the pool drops it, which ends its session state too.
func execCleanup(ctx context.Context, conn *pgxpool.Conn, sql string, args ...any) {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), cleanupTimeout)
	defer cancel()
	_, _ = conn.Exec(ctx, sql, args...)
}

// migrationTx is a migration's transaction for sqlmigrate.
type migrationTx struct{ tx pgx.Tx }

func (m migrationTx) Exec(ctx context.Context, sql string, args ...any) error {
	_, err := m.tx.Exec(ctx, sql, args...)
	return err
}

func (m migrationTx) QueryRow(ctx context.Context, sql string, args ...any) rowscan.Row {
	return m.tx.QueryRow(ctx, sql, args...)
}

// PlacesBetsInProcess reports false: CreateBet enqueues the bet's
// placement job in its transaction, and every node's workers place bets.
func (d *DB) PlacesBetsInProcess() bool { return false }
