package sqlite

import (
	"context"
	"database/sql"
	"fmt"
	"log/slog"
	"time"
)

// checkpointEvery is how often the checkpointer copies the write-ahead log
// into the database file.
const checkpointEvery = 100 * time.Millisecond

// writerAutoCheckpoint is the writer connection's wal_autocheckpoint, in
// pages: a backstop that only acts when the checkpointer falls this far
// behind. SQLite's default (1,000 pages) runs the checkpoint inside the
// commit that crosses it, on the single writer every write waits for; under
// load that was a tenth of the writer's time (docs/performance.md "Job
// submission"). Under steady writes the log seldom restarts from its
// beginning after the checkpointer's passes (a restart needs the log copied
// in full when a write transaction begins), so its file grows to about
// this many pages (40 MB of 4 KB pages) before the writer's own checkpoint,
// by then cheap since little is left to copy, lets it restart.
const writerAutoCheckpoint = 10_000

// checkpointer runs passive checkpoints on a connection of its own, beside
// the writer: in WAL mode a passive checkpoint runs alongside a write
// transaction and neither waits for the other. A commit is durable in the
// log (synced there under synchronous=FULL) whether or not a checkpoint
// has copied it yet, so moving the checkpoint changes no promise.
type checkpointer struct {
	db   *sql.DB
	stop chan struct{}
	done chan struct{}
}

// startCheckpointer opens a connection to file and checkpoints every
// checkpointEvery until close.
func startCheckpointer(file string, log *slog.Logger) (*checkpointer, error) {
	db, err := sql.Open("sqlite", file)
	if err != nil {
		return nil, fmt.Errorf("open the checkpointer's connection: %w", err)
	}
	db.SetMaxOpenConns(1)
	db.SetConnMaxIdleTime(0)
	c := &checkpointer{db: db, stop: make(chan struct{}), done: make(chan struct{})}
	go c.run(log)
	return c, nil
}

func (c *checkpointer) run(log *slog.Logger) {
	defer close(c.done)
	t := time.NewTicker(checkpointEvery)
	defer t.Stop()
	for {
		select {
		case <-c.stop:
			return
		case <-t.C:
		}
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		var busy, logFrames, copied int
		err := c.db.QueryRowContext(ctx, `PRAGMA wal_checkpoint(PASSIVE)`).Scan(&busy, &logFrames, &copied)
		cancel()
		if err != nil {
			log.Warn("sqlite checkpoint", "err", err)
		}
	}
}

// close stops the checkpoints and closes the connection.
func (c *checkpointer) close() error {
	close(c.stop)
	<-c.done
	return c.db.Close()
}
