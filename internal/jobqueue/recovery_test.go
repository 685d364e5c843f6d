package jobqueue_test

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"log/slog"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/riverqueue/river"
	"github.com/riverqueue/river/riverdriver/riversqlite"
	"github.com/riverqueue/river/rivertype"

	"github.com/foresight-dev/foresight/internal/jobqueue"
	"github.com/foresight-dev/foresight/internal/logbuffer"
	"github.com/foresight-dev/foresight/internal/sqlite"
	"github.com/foresight-dev/foresight/internal/waitfor"
)

type holdArgs struct{}

func (holdArgs) Kind() string { return "jobqueue_test.hold" }

func (holdArgs) InsertOpts() river.InsertOpts { return river.InsertOpts{Queue: jobqueue.QueueTickets} }

// holdWorker holds its first run until its context ends; later runs
// finish at once.
type holdWorker struct {
	river.WorkerDefaults[holdArgs]
	runs      atomic.Int32
	started   chan struct{}
	cancelled chan struct{}
}

func (w *holdWorker) Work(ctx context.Context, job *river.Job[holdArgs]) error {
	if w.runs.Add(1) > 1 {
		return nil
	}
	close(w.started)
	<-ctx.Done()
	close(w.cancelled)
	return ctx.Err()
}

// flakyBeats is a store whose beats fail while failing is set.
type flakyBeats struct {
	jobqueue.Recovery
	failing atomic.Bool
}

func (f *flakyBeats) Beat(ctx context.Context, node string) error {
	if f.failing.Load() {
		return errors.New("the database does not answer")
	}
	return f.Recovery.Beat(ctx, node)
}

// openSQLite opens a fresh SQLite store and a connection of its own to
// the same file, for River's driver; both close when t ends.
func openSQLite(t *testing.T) (*sqlite.DB, *sql.DB) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "test.db")
	db, err := sqlite.Open(context.Background(), path, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	raw, err := sql.Open("sqlite", "file:"+path+"?_pragma=busy_timeout(10000)&_pragma=journal_mode(WAL)")
	if err != nil {
		t.Fatal(err)
	}
	raw.SetMaxOpenConns(1)
	t.Cleanup(func() { raw.Close() })
	return db, raw
}

// TestFence: a node that cannot record its beats for FenceAfter cancels
// the job it runs and hands it back; once it beats again the job runs
// again and completes.
func TestFence(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db, raw := openSQLite(t)

	w := &holdWorker{started: make(chan struct{}), cancelled: make(chan struct{})}
	workers := river.NewWorkers()
	river.AddWorker(workers, w)
	rec := &flakyBeats{Recovery: db}
	cfg := jobqueue.DefaultConfig()
	cfg.PollInterval, cfg.BeatInterval, cfg.FenceAfter, cfg.DeadAfter = 50*time.Millisecond, 20*time.Millisecond, 100*time.Millisecond, 200*time.Millisecond
	driver := riversqlite.New(raw)
	node, err := jobqueue.Start(ctx, driver, workers, cfg, rec, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer node.Stop(ctx)
	inserter, err := jobqueue.NewClient(driver, cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	res, err := inserter.Insert(ctx, holdArgs{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	wait := func(what string, ch <-chan struct{}) {
		t.Helper()
		select {
		case <-ch:
		case <-time.After(30 * time.Second):
			t.Fatalf("waited 30 s for %s", what)
		}
	}
	wait("the job to start", w.started)
	rec.failing.Store(true)
	wait("the fence to cancel the job", w.cancelled)
	rec.failing.Store(false)
	waitfor.Check(t, func() error {
		j, err := inserter.JobGet(ctx, res.Job.ID)
		if err != nil {
			t.Fatal(err)
		}
		if j.State != rivertype.JobStateCompleted {
			return fmt.Errorf("job %s after the beats came back, want completed", j.State)
		}
		return nil
	})
	if n := w.runs.Load(); n != 2 {
		t.Errorf("the worker ran %d times, want 2 (cut by the fence, then again)", n)
	}
}

type countArgs struct{}

func (countArgs) Kind() string { return "jobqueue_test.count" }

func (countArgs) InsertOpts() river.InsertOpts { return river.InsertOpts{Queue: jobqueue.QueueBets} }

// countWorker counts its runs.
type countWorker struct {
	river.WorkerDefaults[countArgs]
	runs atomic.Int32
}

func (w *countWorker) Work(context.Context, *river.Job[countArgs]) error {
	w.runs.Add(1)
	return nil
}

// TestPauseQueue: PauseQueue returns once this node has taken the pause
// (River's SQLite driver has no notifications: the node's own client hands
// the pause to its producer), at once when the queue is already paused; a
// job inserted while paused waits and runs after ResumeQueue.
func TestPauseQueue(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	db, raw := openSQLite(t)
	w := &countWorker{}
	workers := river.NewWorkers()
	river.AddWorker(workers, w)
	node, err := db.StartWorkers(ctx, workers, jobqueue.DefaultConfig())
	if err != nil {
		t.Fatal(err)
	}
	defer node.Stop(context.Background())
	if err := node.PauseQueue(ctx, jobqueue.QueueBets); err != nil {
		t.Fatalf("pause: %v", err)
	}
	if err := node.PauseQueue(ctx, jobqueue.QueueBets); err != nil {
		t.Fatalf("pause a paused queue: %v", err)
	}
	inserter, err := jobqueue.NewClient(riversqlite.New(raw), jobqueue.DefaultConfig(), nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := inserter.Insert(ctx, countArgs{}, nil); err != nil {
		t.Fatal(err)
	}
	if err := node.ResumeQueue(ctx, jobqueue.QueueBets); err != nil {
		t.Fatalf("resume: %v", err)
	}
	waitfor.Check(t, func() error {
		if n := w.runs.Load(); n != 1 {
			return fmt.Errorf("the job ran %d times after the queue resumed, want 1", n)
		}
		return nil
	})
}

// TestStopHandsBackAfterTheContextEnds: the context Start was given ending
// (a SIGTERM ends the server's) does not fail the running job; Stop, which
// follows, hands it back without using up an attempt, so a job on its
// last attempt is not thrown away by a graceful stop (River failed it with
// an attempt used, and discarded it; found by a review).
func TestStopHandsBackAfterTheContextEnds(t *testing.T) {
	t.Parallel()
	db, raw := openSQLite(t)
	w := &holdWorker{started: make(chan struct{}), cancelled: make(chan struct{})}
	workers := river.NewWorkers()
	river.AddWorker(workers, w)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	node, err := db.StartWorkers(ctx, workers, jobqueue.DefaultConfig())
	if err != nil {
		t.Fatal(err)
	}
	inserter, err := jobqueue.NewClient(riversqlite.New(raw), jobqueue.DefaultConfig(), nil)
	if err != nil {
		t.Fatal(err)
	}
	res, err := inserter.Insert(context.Background(), holdArgs{}, &river.InsertOpts{MaxAttempts: 1})
	if err != nil {
		t.Fatal(err)
	}
	<-w.started
	cancel()
	if err := node.Stop(context.Background()); err != nil {
		t.Fatal(err)
	}
	j, err := inserter.JobGet(context.Background(), res.Job.ID)
	if err != nil {
		t.Fatal(err)
	}
	if j.State != rivertype.JobStateAvailable || j.Attempt != 0 || len(j.Errors) != 0 {
		t.Errorf("job after a stop = %s, attempt %d, %d errors; want available again, no attempt used", j.State, j.Attempt, len(j.Errors))
	}
}

type failArgs struct{}

func (failArgs) Kind() string { return "jobqueue_test.fail" }

func (failArgs) InsertOpts() river.InsertOpts { return river.InsertOpts{Queue: jobqueue.QueueBets} }

// failWorker always fails.
type failWorker struct {
	river.WorkerDefaults[failArgs]
}

func (failWorker) NextRetry(*river.Job[failArgs]) time.Time { return time.Now() }

func (failWorker) Work(context.Context, *river.Job[failArgs]) error {
	return errors.New("the wallet refused the deposit")
}

// TestJobFailuresAreLogged: each failed run of a job leaves a warning, and
// the last, when River discards the job, an error line, both naming the
// job and the cause (River reports them at info only, which was dropped:
// a job failing for days, or thrown away, left no trace; found by a
// review).
func TestJobFailuresAreLogged(t *testing.T) {
	t.Parallel()
	db, raw := openSQLite(t)
	workers := river.NewWorkers()
	river.AddWorker(workers, &failWorker{})
	var logs logbuffer.Buffer
	cfg := jobqueue.DefaultConfig()
	cfg.PollInterval = 50 * time.Millisecond
	driver := riversqlite.New(raw)
	node, err := jobqueue.Start(context.Background(), driver, workers, cfg, db, slog.New(slog.NewTextHandler(&logs, nil)))
	if err != nil {
		t.Fatal(err)
	}
	defer node.Stop(context.Background())
	inserter, err := jobqueue.NewClient(driver, cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := inserter.Insert(context.Background(), failArgs{}, &river.InsertOpts{MaxAttempts: 2}); err != nil {
		t.Fatal(err)
	}
	waitfor.True(t, "the log line of the job's last attempt", func() bool {
		return strings.Contains(logs.String(), "last attempt")
	})
	out := logs.String()
	for _, want := range []string{"level=WARN msg=\"job failed: it runs again later\" kind=jobqueue_test.fail", "attempt=1 max_attempts=2",
		"level=ERROR msg=\"job failed on its last attempt: discarded\" kind=jobqueue_test.fail", "attempt=2 max_attempts=2", "the wallet refused the deposit"} {
		if !strings.Contains(out, want) {
			t.Errorf("the log lacks %q:\n%s", want, out)
		}
	}
}
