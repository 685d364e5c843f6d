package tickets_test

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"
	"time"

	"github.com/foresight-dev/foresight/internal/sqlite/sqlitetest"
	"github.com/foresight-dev/foresight/internal/tickets"
	"github.com/foresight-dev/foresight/internal/tickets/heuristic"
)

// panicEngine is an engine with a bug: it panics on every spec.
type panicEngine struct{}

func (panicEngine) Name() string { return "panicky" }
func (panicEngine) Generate(context.Context, tickets.GenerationRequest) (*tickets.Result, error) {
	panic("engine bug")
}

// claimFailStore fails every claim of a queued job, as a store that keeps
// losing its connection would.
type claimFailStore struct{ tickets.Store }

func (s claimFailStore) UpdateJob(ctx context.Context, id string, u tickets.JobUpdate) (tickets.Job, error) {
	if u.Status == tickets.StatusProcessing && len(u.From) == 1 && u.From[0] == tickets.StatusQueued {
		return tickets.Job{}, errors.New("could not serialize access")
	}
	return s.Store.UpdateJob(ctx, id, u)
}

// submitJob submits a small spec for a new client and returns the job's id.
func submitJob(t *testing.T, svc *tickets.Service) string {
	t.Helper()
	ctx := context.Background()
	c, err := svc.CreateClient(ctx, "runner")
	if err != nil {
		t.Fatal(err)
	}
	sub, err := tickets.ParseSubmission([]byte(`{"schema_version":"tickets.input.v1","idempotency_key":"k","title":"T","spec":"# Login\n- Users must sign in.\n- Users must sign out.\n"}`))
	if err != nil {
		t.Fatal(err)
	}
	j, err := svc.Submit(ctx, tickets.Principal{ClientID: c.ID}, sub)
	if err != nil {
		t.Fatal(err)
	}
	return j.ID
}

// An engine that panics fails its job with internal_error on the first
// attempt, without waiting for the job's time limit (the panic was held
// until the deadline, then retried, and the job stayed processing).
func TestRunEnginePanicFailsTheJob(t *testing.T) {
	t.Parallel()
	db := sqlitetest.Open(t)
	svc := tickets.NewService(db.TicketStore(), panicEngine{}, nil, tickets.DefaultConfig(), nil)
	id := submitJob(t, svc)
	ctx, cancel := context.WithTimeout(context.Background(), time.Hour)
	defer cancel()
	done := make(chan error, 1)
	go func() { done <- svc.Run(ctx, id, false) }()
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("Run = %v, want nil (the job is failed for good)", err)
		}
	case <-time.After(time.Minute):
		t.Fatal("Run held the engine's panic")
	}
	j, err := db.TicketStore().GetJob(context.Background(), "", id)
	if err != nil || j.Status != tickets.StatusFailed || j.ErrorCode != tickets.CodeInternalError {
		t.Errorf("job after the panic = %s %s, %v; want failed internal_error", j.Status, j.ErrorCode, err)
	}
}

// A job whose claim failed on every attempt is failed with storage_error
// by the last one, not left queued.
func TestRunLastAttemptFailsAQueuedJob(t *testing.T) {
	t.Parallel()
	db := sqlitetest.Open(t)
	store := claimFailStore{db.TicketStore()}
	svc := tickets.NewService(store, heuristic.New(), nil, tickets.DefaultConfig(), nil)
	id := submitJob(t, svc)
	if err := svc.Run(context.Background(), id, false); err == nil {
		t.Fatal("Run with a failing claim = nil, want the store's error (to be retried)")
	}
	if j, _ := store.GetJob(context.Background(), "", id); j.Status != tickets.StatusQueued {
		t.Fatalf("after a failed claim the job is %s, want queued", j.Status)
	}
	svc.Run(context.Background(), id, true) // returns the claim's error; the job is what counts
	j, err := store.GetJob(context.Background(), "", id)
	if err != nil || j.Status != tickets.StatusFailed || j.ErrorCode != tickets.CodeStorageError {
		t.Errorf("job after the last attempt = %s %s, %v; want failed storage_error", j.Status, j.ErrorCode, err)
	}
}

// flakyStageStore fails the first write of stage validating_output, as a
// store busy for a moment would.
type flakyStageStore struct {
	tickets.Store
	failed atomic.Bool
}

func (s *flakyStageStore) UpdateJob(ctx context.Context, id string, u tickets.JobUpdate) (tickets.Job, error) {
	if u.Status == tickets.StatusProcessing && u.Stage == tickets.StageValidatingOutput && s.failed.CompareAndSwap(false, true) {
		return tickets.Job{}, errors.New("database is locked")
	}
	return s.Store.UpdateJob(ctx, id, u)
}

// A brief store failure while recording a stage does not fail a finished
// generation (it was failed for good with internal_error, the result
// thrown away; found by a review): the job completes.
func TestRunStageWriteFailureCompletes(t *testing.T) {
	t.Parallel()
	db := sqlitetest.Open(t)
	store := &flakyStageStore{Store: db.TicketStore()}
	svc := tickets.NewService(store, heuristic.New(), nil, tickets.DefaultConfig(), nil)
	id := submitJob(t, svc)
	if err := svc.Run(context.Background(), id, false); err != nil {
		t.Fatal(err)
	}
	j, err := store.GetJob(context.Background(), "", id)
	if err != nil || !store.failed.Load() || j.Status != tickets.StatusCompleted {
		t.Errorf("job = %s %s, %v (stage write failed: %v); want completed", j.Status, j.ErrorCode, err, store.failed.Load())
	}
}
