// Package jobqueuetest is the conformance suite of jobqueue.Recovery, which
// every store passes. Each store's package runs it against a real
// database:
//
//	jobqueuetest.Run(t, func(t *testing.T) jobqueuetest.Database[…] { … })
package jobqueuetest

import (
	"context"
	"testing"
	"time"

	"github.com/riverqueue/river"
	"github.com/riverqueue/river/riverdriver"
	"github.com/riverqueue/river/rivertype"

	"github.com/foresight-dev/foresight/internal/jobqueue"
)

// Database is a new, empty, migrated database seen through the store's
// Recovery and through a River driver of its own.
type Database[TTx any] struct {
	Recovery jobqueue.Recovery
	Driver   riverdriver.Driver[TTx]
	// Shared tells whether several processes share the database
	// (PostgreSQL) or one process owns it (SQLite).
	Shared bool
}

// Run runs the suite; open returns a new database for one test.
func Run[TTx any](t *testing.T, open func(t *testing.T) Database[TTx]) {
	t.Run("RescuesTheJobsOfDeadNodesOnly", func(t *testing.T) { t.Parallel(); testRescue(t, open(t)) })
	t.Run("DropsTheLeadershipOfDeadNodes", func(t *testing.T) { t.Parallel(); testLeadership(t, open(t)) })
	t.Run("RescuesTheEarlierLivesOfItsName", func(t *testing.T) { t.Parallel(); testEarlierLives(t, open(t)) })
}

// testEarlierLives: a node rescues at once the running jobs of the earlier
// ids of its name, however recent their last beat, and not those of
// another name (on a database one process owns, every other node's jobs
// are rescued anyway).
func testEarlierLives[TTx any](t *testing.T, db Database[TTx]) {
	insert(t, db, 2)
	const self, earlier, neighbour = "host@10.0.0.1:8080~bbbb", "host@10.0.0.1:8080~aaaa", "host@10.0.0.1:8081~cccc"
	if p := jobqueue.EarlierIDPrefix(self); p != "host@10.0.0.1:8080~" {
		t.Fatalf("EarlierIDPrefix(%q) = %q", self, p)
	}
	beat(t, db, earlier)
	beat(t, db, neighbour)
	beat(t, db, self)
	before, _ := claim(t, db, earlier)
	other, _ := claim(t, db, neighbour)
	n := rescue(t, db, self, time.Hour)
	want := map[int64]rivertype.JobState{before: rivertype.JobStateAvailable, other: rivertype.JobStateRunning}
	wantN := 1
	if !db.Shared {
		want[other], wantN = rivertype.JobStateAvailable, 2
	}
	if n != wantN {
		t.Errorf("RescueJobs = %d, want %d", n, wantN)
	}
	for id, st := range want {
		if j := job(t, db, id); j.State != st {
			t.Errorf("job %d of %s is %s, want %s", id, j.AttemptedBy, j.State, st)
		}
	}
}

type noopArgs struct{}

func (noopArgs) Kind() string { return "jobqueuetest.noop" }

const queue = "jobqueuetest"

// insert adds n available jobs.
func insert[TTx any](t *testing.T, db Database[TTx], n int) {
	t.Helper()
	c, err := river.NewClient(db.Driver, &river.Config{})
	if err != nil {
		t.Fatal(err)
	}
	for range n {
		if _, err := c.Insert(context.Background(), noopArgs{}, &river.InsertOpts{Queue: queue}); err != nil {
			t.Fatalf("insert: %v", err)
		}
	}
}

// claim takes one available job as node, as River's fetch does, and
// returns its id and attempt.
func claim[TTx any](t *testing.T, db Database[TTx], node string) (int64, int) {
	t.Helper()
	jobs, err := db.Driver.GetExecutor().JobGetAvailable(context.Background(), &riverdriver.JobGetAvailableParams{
		ClientID: node, MaxAttemptedBy: 100, MaxToLock: 1, Queue: queue})
	if err != nil || len(jobs) != 1 {
		t.Fatalf("claim as %s: %d jobs, %v", node, len(jobs), err)
	}
	return jobs[0].ID, jobs[0].Attempt
}

func job[TTx any](t *testing.T, db Database[TTx], id int64) *rivertype.JobRow {
	t.Helper()
	j, err := db.Driver.GetExecutor().JobGetByID(context.Background(), &riverdriver.JobGetByIDParams{ID: id})
	if err != nil {
		t.Fatalf("job %d: %v", id, err)
	}
	return j
}

func rescue[TTx any](t *testing.T, db Database[TTx], self string, deadAfter time.Duration) int {
	t.Helper()
	n, err := db.Recovery.RescueJobs(context.Background(), self, deadAfter)
	if err != nil {
		t.Fatalf("RescueJobs: %v", err)
	}
	return n
}

func beat[TTx any](t *testing.T, db Database[TTx], node string) {
	t.Helper()
	if err := db.Recovery.Beat(context.Background(), node); err != nil {
		t.Fatalf("Beat(%s): %v", node, err)
	}
}

// testRescue: the running jobs of self are never rescued, nor the jobs
// that are not running; on a shared database, those of a node are
// rescued once its last beat is deadAfter old and not before, and those
// of a node that never beat are left alone; on a database one process
// owns, those of every other node are rescued at once.
func testRescue[TTx any](t *testing.T, db Database[TTx]) {
	insert(t, db, 4)
	beat(t, db, "self")
	beat(t, db, "other")
	mine, _ := claim(t, db, "self")
	others, _ := claim(t, db, "other")
	stranger, _ := claim(t, db, "stranger")
	// The fourth job stays available.
	attempts := map[int64]int{mine: 1, others: 1, stranger: 1}

	n := rescue(t, db, "self", time.Hour)
	want := map[int64]rivertype.JobState{mine: rivertype.JobStateRunning, others: rivertype.JobStateRunning, stranger: rivertype.JobStateRunning}
	wantN := 0
	if !db.Shared {
		want[others], want[stranger], wantN = rivertype.JobStateAvailable, rivertype.JobStateAvailable, 2
	}
	check := func(step string) {
		t.Helper()
		if n != wantN {
			t.Errorf("%s: RescueJobs = %d, want %d", step, n, wantN)
		}
		for id, st := range want {
			j := job(t, db, id)
			if j.State != st {
				t.Errorf("%s: job %d is %s, want %s", step, id, j.State, st)
			}
			if j.Attempt != attempts[id] {
				t.Errorf("%s: job %d at attempt %d, want %d (a rescue starts no attempt)", step, id, j.Attempt, attempts[id])
			}
		}
	}
	check("every beat within the hour")
	if !db.Shared {
		return
	}

	// Beats are recorded and aged on the database's clock (now() in SQL),
	// which a test cannot set: time passes for real, well past deadAfter.
	time.Sleep(50 * time.Millisecond)
	n = rescue(t, db, "self", 10*time.Millisecond)
	want[others], wantN = rivertype.JobStateAvailable, 1
	check("other's last beat older than deadAfter")

	// A node that was forgotten and beats again is recorded anew.
	beat(t, db, "other")
	again, attempt := claim(t, db, "other")
	attempts[again] = attempt
	n = rescue(t, db, "self", time.Hour)
	want[again], wantN = rivertype.JobStateRunning, 0
	check("other beats again")
}

// testLeadership: the queue leadership of a node whose jobs would be
// rescued is dropped; self's is kept.
func testLeadership[TTx any](t *testing.T, db Database[TTx]) {
	ctx := context.Background()
	exec := db.Driver.GetExecutor()
	beat(t, db, "other")
	if _, err := exec.LeaderInsert(ctx, &riverdriver.LeaderInsertParams{LeaderID: "other", TTL: time.Hour}); err != nil {
		t.Fatalf("LeaderInsert: %v", err)
	}
	leader := func() string {
		l, err := exec.LeaderGetElectedLeader(ctx, &riverdriver.LeaderGetElectedLeaderParams{})
		if err != nil {
			return ""
		}
		return l.LeaderID
	}
	rescue(t, db, "self", time.Hour)
	if got, want := leader(), map[bool]string{true: "other", false: ""}[db.Shared]; got != want {
		t.Fatalf("leader after a rescue within the hour = %q, want %q", got, want)
	}
	if !db.Shared {
		beat(t, db, "self")
		if _, err := exec.LeaderInsert(ctx, &riverdriver.LeaderInsertParams{LeaderID: "self", TTL: time.Hour}); err != nil {
			t.Fatalf("LeaderInsert: %v", err)
		}
		rescue(t, db, "self", time.Hour)
		if got := leader(); got != "self" {
			t.Fatalf("leader = %q, want self's leadership kept", got)
		}
		return
	}
	// As in testRescue: the database's clock must pass deadAfter for real.
	time.Sleep(50 * time.Millisecond)
	rescue(t, db, "self", 10*time.Millisecond)
	if got := leader(); got != "" {
		t.Fatalf("leader = %q after its node was found dead, want none", got)
	}
}
