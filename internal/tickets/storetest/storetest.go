// Package storetest is the conformance suite every tickets.Store passes.
// Each engine's package runs it against a real database:
//
//	storetest.Run(t, func(t *testing.T) tickets.Store { … })
package storetest

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/foresight-dev/foresight/internal/tickets"
)

// Run runs the suite. newStore returns an empty store for one test.
func Run(t *testing.T, newStore func(t *testing.T) tickets.Store) {
	t.Run("Clients", func(t *testing.T) { t.Parallel(); testClients(t, newStore(t)) })
	t.Run("Keys", func(t *testing.T) { t.Parallel(); testKeys(t, newStore(t)) })
	t.Run("CreateJobIdempotent", func(t *testing.T) { t.Parallel(); testCreateJob(t, newStore(t)) })
	t.Run("QueueBound", func(t *testing.T) { t.Parallel(); testQueueBound(t, newStore(t)) })
	t.Run("JobsAreOwned", func(t *testing.T) { t.Parallel(); testOwnership(t, newStore(t)) })
	t.Run("ListJobSummaryPages", func(t *testing.T) { t.Parallel(); testListJobSummaryPages(t, newStore(t)) })
	t.Run("UpdateJob", func(t *testing.T) { t.Parallel(); testUpdateJob(t, newStore(t)) })
	t.Run("CallbackFailed", func(t *testing.T) { t.Parallel(); testCallbackFailed(t, newStore(t)) })
	t.Run("PendingCallbacks", func(t *testing.T) { t.Parallel(); testPendingCallbacks(t, newStore(t)) })
	t.Run("CancelStaleJobs", func(t *testing.T) { t.Parallel(); testCancelStaleJobs(t, newStore(t)) })
	t.Run("ExpireJobs", func(t *testing.T) { t.Parallel(); testExpireJobs(t, newStore(t)) })
	t.Run("JobSummaries", func(t *testing.T) { t.Parallel(); testJobSummaries(t, newStore(t)) })
	t.Run("JobSummaryLifecycle", func(t *testing.T) { t.Parallel(); testJobSummaryLifecycle(t, newStore(t)) })
}

var t0 = time.Date(2026, 11, 21, 10, 0, 0, 123456000, time.UTC)

func newClient(t *testing.T, s tickets.Store, name string) tickets.Client {
	t.Helper()
	c := tickets.Client{ID: uuid.NewString(), Name: name, WebhookSecret: "whsec_" + name, TicketsEnabled: true, CreatedAt: t0}
	if err := s.CreateClient(context.Background(), c); err != nil {
		t.Fatalf("CreateClient: %v", err)
	}
	return c
}

func newJob(clientID, key string, created time.Time) tickets.Job {
	return tickets.Job{
		ID: uuid.NewString(), ClientID: clientID, IdempotencyKey: key, RequestHash: "hash-" + key,
		Request: tickets.Request{Title: "T " + key, Spec: "spec", CallbackURL: "https://example.com/cb",
			Options: tickets.Options{MaxTicketCount: 20, IncludeEpics: true, DependencyMode: "explicit", OutputDetail: "standard"}},
		Status: tickets.StatusQueued, Stage: tickets.StageQueued,
		CreatedAt: created, UpdatedAt: created, ExpiresAt: created.Add(7 * 24 * time.Hour),
	}
}

func mustCreateJob(t *testing.T, s tickets.Store, j tickets.Job) tickets.Job {
	t.Helper()
	got, created, err := s.CreateJob(context.Background(), j, 100)
	if err != nil || !created {
		t.Fatalf("CreateJob = created %v, %v", created, err)
	}
	return got
}

// mustUpdateJob applies u to job id; the test stops when the store refuses.
func mustUpdateJob(t *testing.T, s tickets.Store, id string, u tickets.JobUpdate) {
	t.Helper()
	if _, err := s.UpdateJob(context.Background(), id, u); err != nil {
		t.Fatalf("UpdateJob(%s → %s): %v", id, u.Status, err)
	}
}

func testClients(t *testing.T, s tickets.Store) {
	ctx := context.Background()
	c := newClient(t, s, "alpha")
	got, err := s.GetClient(ctx, c.ID)
	if err != nil || got != c {
		t.Fatalf("GetClient = %+v, %v; want %+v", got, err, c)
	}
	if _, err := s.GetClient(ctx, uuid.NewString()); !errors.Is(err, tickets.ErrNotFound) {
		t.Errorf("GetClient(missing) err = %v, want ErrNotFound", err)
	}
	yes, no := true, false
	got, err = s.UpdateClient(ctx, c.ID, tickets.ClientUpdate{Suspended: &yes})
	if err != nil || !got.Suspended || !got.TicketsEnabled {
		t.Fatalf("UpdateClient(suspend) = %+v, %v", got, err)
	}
	got, err = s.UpdateClient(ctx, c.ID, tickets.ClientUpdate{TicketsEnabled: &no})
	if err != nil || !got.Suspended || got.TicketsEnabled {
		t.Fatalf("UpdateClient(disable) = %+v, %v; the earlier change must stay", got, err)
	}
	if _, err := s.UpdateClient(ctx, uuid.NewString(), tickets.ClientUpdate{Suspended: &yes}); !errors.Is(err, tickets.ErrNotFound) {
		t.Errorf("UpdateClient(missing) err = %v, want ErrNotFound", err)
	}
	d := newClient(t, s, "beta")
	all, err := s.ListClients(ctx, "", 10)
	if err != nil || len(all) != 2 {
		t.Fatalf("ListClients = %d clients, %v; want 2", len(all), err)
	}
	page, err := s.ListClients(ctx, all[0].ID, 10)
	if err != nil || len(page) != 1 || page[0].ID != all[1].ID {
		t.Fatalf("ListClients(after first) = %+v, %v", page, err)
	}
	_ = d
}

func testKeys(t *testing.T, s tickets.Store) {
	ctx := context.Background()
	c := newClient(t, s, "keys")
	exp := t0.Add(time.Hour)
	k := tickets.APIKey{ID: uuid.NewString(), ClientID: c.ID, SecretHash: []byte{1, 2, 3},
		Scopes: []tickets.Scope{tickets.ScopeSubmit, tickets.ScopeRead}, ExpiresAt: &exp, CreatedAt: t0}
	if err := s.CreateKey(ctx, k); err != nil {
		t.Fatalf("CreateKey: %v", err)
	}
	gotK, gotC, err := s.GetKey(ctx, k.ID)
	if err != nil {
		t.Fatalf("GetKey: %v", err)
	}
	if gotC != c || string(gotK.SecretHash) != string(k.SecretHash) || len(gotK.Scopes) != 2 ||
		gotK.Scopes[1] != tickets.ScopeRead || gotK.ExpiresAt == nil || !gotK.ExpiresAt.Equal(exp) || gotK.RevokedAt != nil {
		t.Fatalf("GetKey = %+v, %+v", gotK, gotC)
	}
	if _, _, err := s.GetKey(ctx, uuid.NewString()); !errors.Is(err, tickets.ErrNotFound) {
		t.Errorf("GetKey(missing) err = %v, want ErrNotFound", err)
	}
	if err := s.CreateKey(ctx, tickets.APIKey{ID: uuid.NewString(), ClientID: uuid.NewString(), SecretHash: []byte{1}, CreatedAt: t0}); !errors.Is(err, tickets.ErrNotFound) {
		t.Errorf("CreateKey(missing client) err = %v, want ErrNotFound", err)
	}
	if err := s.RevokeKey(ctx, c.ID, k.ID, t0.Add(time.Minute)); err != nil {
		t.Fatalf("RevokeKey: %v", err)
	}
	if err := s.RevokeKey(ctx, c.ID, k.ID, t0.Add(time.Hour)); err != nil {
		t.Fatalf("RevokeKey again: %v", err)
	}
	gotK, _, _ = s.GetKey(ctx, k.ID)
	if gotK.RevokedAt == nil || !gotK.RevokedAt.Equal(t0.Add(time.Minute)) {
		t.Errorf("RevokedAt = %v, want the first revocation time %v", gotK.RevokedAt, t0.Add(time.Minute))
	}
	other := newClient(t, s, "other")
	if err := s.RevokeKey(ctx, other.ID, k.ID, t0); !errors.Is(err, tickets.ErrNotFound) {
		t.Errorf("RevokeKey(other client's key) err = %v, want ErrNotFound", err)
	}
	keys, err := s.ListKeys(ctx, c.ID)
	if err != nil || len(keys) != 1 || keys[0].ID != k.ID {
		t.Errorf("ListKeys = %+v, %v", keys, err)
	}
}

func testCreateJob(t *testing.T, s tickets.Store) {
	ctx := context.Background()
	c := newClient(t, s, "jobs")
	j := newJob(c.ID, "k1", t0)
	got := mustCreateJob(t, s, j)
	if got.ID != j.ID {
		t.Fatalf("CreateJob returned job %s, want %s", got.ID, j.ID)
	}
	dup := newJob(c.ID, "k1", t0.Add(time.Second))
	dup.RequestHash = "different"
	got, created, err := s.CreateJob(ctx, dup, 100)
	if err != nil || created || got.ID != j.ID || got.RequestHash != j.RequestHash {
		t.Fatalf("CreateJob(same key) = %s created %v, %v; want the original %s", got.ID, created, err, j.ID)
	}
	other := newClient(t, s, "other")
	mustCreateJob(t, s, newJob(other.ID, "k1", t0)) // keys are per client

	stored, err := s.GetJob(ctx, c.ID, j.ID)
	if err != nil {
		t.Fatalf("GetJob: %v", err)
	}
	if stored.Request != j.Request || stored.Status != tickets.StatusQueued || stored.Stage != tickets.StageQueued ||
		!stored.CreatedAt.Equal(j.CreatedAt) || !stored.ExpiresAt.Equal(j.ExpiresAt) || stored.Result != nil || stored.ErrorCode != "" {
		t.Fatalf("GetJob = %+v, want %+v", stored, j)
	}
}

func testOwnership(t *testing.T, s tickets.Store) {
	ctx := context.Background()
	a, b := newClient(t, s, "a"), newClient(t, s, "b")
	j := mustCreateJob(t, s, newJob(a.ID, "k", t0))
	if _, err := s.GetJob(ctx, b.ID, j.ID); !errors.Is(err, tickets.ErrNotFound) {
		t.Errorf("GetJob(other client) err = %v, want ErrNotFound", err)
	}
	if _, err := s.GetJob(ctx, "", j.ID); err != nil {
		t.Errorf("GetJob(any client) err = %v", err)
	}
	if _, err := s.GetJob(ctx, a.ID, uuid.NewString()); !errors.Is(err, tickets.ErrNotFound) {
		t.Errorf("GetJob(missing) err = %v, want ErrNotFound", err)
	}
	jobs, err := s.ListJobSummaries(ctx, tickets.JobFilter{ClientID: b.ID, Limit: 10})
	if err != nil || len(jobs) != 0 {
		t.Errorf("ListJobSummaries(other client) = %d jobs, %v", len(jobs), err)
	}
}

func testListJobSummaryPages(t *testing.T, s tickets.Store) {
	ctx := context.Background()
	c := newClient(t, s, "list")
	var ids []string
	for i := range 5 {
		// Two jobs share a creation time, so the id breaks the tie.
		j := mustCreateJob(t, s, newJob(c.ID, fmt.Sprint("k", i), t0.Add(time.Duration(i/2)*time.Second)))
		ids = append(ids, j.ID)
	}
	all, err := s.ListJobSummaries(ctx, tickets.JobFilter{ClientID: c.ID, Limit: 10})
	if err != nil || len(all) != 5 {
		t.Fatalf("ListJobSummaries = %d, %v", len(all), err)
	}
	for i := 1; i < len(all); i++ {
		prev, cur := all[i-1], all[i]
		if cur.CreatedAt.After(prev.CreatedAt) || (cur.CreatedAt.Equal(prev.CreatedAt) && cur.ID > prev.ID) {
			t.Fatalf("ListJobSummaries not newest first at %d: %v %s after %v %s", i, cur.CreatedAt, cur.ID, prev.CreatedAt, prev.ID)
		}
	}
	var paged []string
	f := tickets.JobFilter{ClientID: c.ID, Limit: 2}
	for {
		page, err := s.ListJobSummaries(ctx, f)
		if err != nil {
			t.Fatal(err)
		}
		for _, j := range page {
			paged = append(paged, j.ID)
		}
		if len(page) < 2 {
			break
		}
		f.BeforeCreatedAt, f.BeforeID = page[1].CreatedAt, page[1].ID
	}
	if len(paged) != 5 {
		t.Fatalf("paging returned %d jobs, want 5: %v", len(paged), paged)
	}
	for i, id := range paged {
		if id != all[i].ID {
			t.Fatalf("page order %v, want %v", paged, all)
		}
	}
	if _, err := s.UpdateJob(ctx, ids[0], tickets.JobUpdate{From: []tickets.Status{tickets.StatusQueued}, Status: tickets.StatusProcessing, At: t0}); err != nil {
		t.Fatal(err)
	}
	proc, err := s.ListJobSummaries(ctx, tickets.JobFilter{ClientID: c.ID, Status: tickets.StatusProcessing, Limit: 10})
	if err != nil || len(proc) != 1 || proc[0].ID != ids[0] {
		t.Errorf("ListJobSummaries(status processing) = %v, %v", proc, err)
	}

}

func testUpdateJob(t *testing.T, s tickets.Store) {
	ctx := context.Background()
	c := newClient(t, s, "update")
	j := mustCreateJob(t, s, newJob(c.ID, "k", t0))
	at := t0.Add(time.Minute)
	got, err := s.UpdateJob(ctx, j.ID, tickets.JobUpdate{From: []tickets.Status{tickets.StatusQueued},
		Status: tickets.StatusProcessing, Stage: tickets.StagePreparingPrompt, At: at})
	if err != nil || got.Status != tickets.StatusProcessing || got.Stage != tickets.StagePreparingPrompt || !got.UpdatedAt.Equal(at) {
		t.Fatalf("UpdateJob(claim) = %+v, %v", got, err)
	}
	if _, err := s.UpdateJob(ctx, j.ID, tickets.JobUpdate{From: []tickets.Status{tickets.StatusQueued}, Status: tickets.StatusProcessing, At: at}); !errors.Is(err, tickets.ErrConflict) {
		t.Fatalf("UpdateJob(from wrong status) err = %v, want ErrConflict", err)
	}
	if _, err := s.UpdateJob(ctx, uuid.NewString(), tickets.JobUpdate{From: []tickets.Status{tickets.StatusQueued}, Status: tickets.StatusProcessing, At: at}); !errors.Is(err, tickets.ErrNotFound) {
		t.Fatalf("UpdateJob(missing) err = %v, want ErrNotFound", err)
	}
	got, err = s.UpdateJob(ctx, j.ID, tickets.JobUpdate{From: []tickets.Status{tickets.StatusProcessing}, Status: tickets.StatusCancelRequested, At: at})
	if err != nil || got.Stage != tickets.StagePreparingPrompt {
		t.Fatalf("UpdateJob(without stage) = %+v, %v; the stage must stay", got, err)
	}
	got, err = s.UpdateJob(ctx, j.ID, tickets.JobUpdate{From: []tickets.Status{tickets.StatusCancelRequested, tickets.StatusProcessing},
		Status: tickets.StatusFailed, Stage: tickets.StageFailed, ErrorCode: tickets.CodeModelTimeout, ErrorMessage: "slow", Callback: true, At: at})
	if err != nil || got.ErrorCode != tickets.CodeModelTimeout || got.ErrorMessage != "slow" {
		t.Fatalf("UpdateJob(fail) = %+v, %v", got, err)
	}

	k := mustCreateJob(t, s, newJob(c.ID, "k2", t0))
	result := []byte(`{"schema_version":"tickets.result.v1"}`)
	if _, err := s.UpdateJob(ctx, k.ID, tickets.JobUpdate{From: []tickets.Status{tickets.StatusQueued}, Status: tickets.StatusCompleted,
		Stage: tickets.StageCompleted, Result: result, Callback: true, At: at}); err != nil {
		t.Fatal(err)
	}
	stored, err := s.GetJob(ctx, c.ID, k.ID)
	if err != nil || string(stored.Result) != string(result) || stored.Status != tickets.StatusCompleted {
		t.Fatalf("completed job = %+v, %v", stored, err)
	}
	if st, err := s.JobStatus(ctx, k.ID); err != nil || st != tickets.StatusCompleted {
		t.Errorf("JobStatus = %s, %v", st, err)
	}
	if _, err := s.JobStatus(ctx, uuid.NewString()); !errors.Is(err, tickets.ErrNotFound) {
		t.Errorf("JobStatus(missing) err = %v", err)
	}
}

func testCallbackFailed(t *testing.T, s tickets.Store) {
	ctx := context.Background()
	c := newClient(t, s, "cb")
	done := mustCreateJob(t, s, newJob(c.ID, "done", t0))
	failed := mustCreateJob(t, s, newJob(c.ID, "failed", t0))
	mustUpdateJob(t, s, done.ID, tickets.JobUpdate{From: []tickets.Status{tickets.StatusQueued}, Status: tickets.StatusCompleted, Stage: tickets.StageCompleted, Result: []byte(`{}`), At: t0})
	mustUpdateJob(t, s, failed.ID, tickets.JobUpdate{From: []tickets.Status{tickets.StatusQueued}, Status: tickets.StatusFailed, Stage: tickets.StageFailed,
		ErrorCode: tickets.CodeEngineUnavailable, ErrorMessage: "down", At: t0})
	for _, id := range []string{done.ID, failed.ID} {
		if err := s.MarkCallbackFailed(ctx, id, "no answer", t0.Add(time.Hour)); err != nil {
			t.Fatal(err)
		}
	}
	got, _ := s.GetJob(ctx, c.ID, done.ID)
	if !got.CallbackFailed || got.Status != tickets.StatusCompleted || got.ErrorCode != tickets.CodeCallbackFailed || got.ErrorMessage != "no answer" {
		t.Errorf("completed job after callback failure = %+v", got)
	}
	got, _ = s.GetJob(ctx, c.ID, failed.ID)
	if !got.CallbackFailed || got.ErrorCode != tickets.CodeEngineUnavailable {
		t.Errorf("failed job after callback failure = %+v; its own error must stay", got)
	}
}

// testPendingCallbacks counts a client's callbacks owed: its jobs with a
// callback_url, unfinished or finished, whose callback is neither
// delivered nor failed for good and that were updated since the time
// asked, up to atMost.
func testPendingCallbacks(t *testing.T, s tickets.Store) {
	ctx := context.Background()
	c := newClient(t, s, "owing")
	other := newClient(t, s, "other")
	complete := func(id string, at time.Time) {
		t.Helper()
		if _, err := s.UpdateJob(ctx, id, tickets.JobUpdate{From: []tickets.Status{tickets.StatusQueued},
			Status: tickets.StatusCompleted, Stage: tickets.StageCompleted, Result: []byte(`{}`), At: at}); err != nil {
			t.Fatal(err)
		}
	}
	pending := func(since time.Time, atMost int) int {
		t.Helper()
		n, err := s.PendingCallbacks(ctx, c.ID, since, atMost)
		if err != nil {
			t.Fatalf("PendingCallbacks: %v", err)
		}
		return n
	}
	mustCreateJob(t, s, newJob(c.ID, "queued", t0))
	complete(mustCreateJob(t, s, newJob(c.ID, "owed", t0)).ID, t0.Add(time.Minute))
	delivered := mustCreateJob(t, s, newJob(c.ID, "delivered", t0))
	complete(delivered.ID, t0.Add(time.Minute))
	if err := s.MarkCallbackDelivered(ctx, delivered.ID, t0.Add(2*time.Minute)); err != nil {
		t.Fatal(err)
	}
	failed := mustCreateJob(t, s, newJob(c.ID, "failed", t0))
	complete(failed.ID, t0.Add(time.Minute))
	if err := s.MarkCallbackFailed(ctx, failed.ID, "no answer", t0.Add(time.Hour)); err != nil {
		t.Fatal(err)
	}
	silent := newJob(c.ID, "no callback", t0)
	silent.Request.CallbackURL = ""
	complete(mustCreateJob(t, s, silent).ID, t0.Add(time.Minute))
	mustCreateJob(t, s, newJob(other.ID, "other", t0))

	if n := pending(time.Time{}, 100); n != 2 {
		t.Errorf("callbacks owed = %d, want 2 (a queued job and a completed one, both with a callback_url)", n)
	}
	if n := pending(time.Time{}, 1); n != 1 {
		t.Errorf("callbacks owed, at most 1 = %d", n)
	}
	if n := pending(t0.Add(time.Minute), 100); n != 1 {
		t.Errorf("callbacks owed of jobs updated since the completion = %d, want 1", n)
	}

	// maxActive 0 looks the key up only: the job of a key already used,
	// or ErrQueueFull and nothing inserted.
	got, created, err := s.CreateJob(ctx, newJob(c.ID, "owed", t0.Add(time.Hour)), 0)
	if err != nil || created || got.IdempotencyKey != "owed" {
		t.Errorf("CreateJob(used key, 0) = %q created %v, %v; want the job of the key", got.IdempotencyKey, created, err)
	}
	if _, _, err := s.CreateJob(ctx, newJob(c.ID, "new", t0.Add(time.Hour)), 0); !errors.Is(err, tickets.ErrQueueFull) {
		t.Errorf("CreateJob(new key, 0): err = %v, want ErrQueueFull", err)
	}
	if n := pending(time.Time{}, 100); n != 2 {
		t.Errorf("callbacks owed after CreateJob(new key, 0) = %d, want 2: it must insert nothing", n)
	}
}

func testExpireJobs(t *testing.T, s tickets.Store) {
	ctx := context.Background()
	c := newClient(t, s, "expire")
	old := mustCreateJob(t, s, newJob(c.ID, "old", t0))
	mustUpdateJob(t, s, old.ID, tickets.JobUpdate{From: []tickets.Status{tickets.StatusQueued}, Status: tickets.StatusCompleted, Stage: tickets.StageCompleted, Result: []byte(`{}`), At: t0})
	queued := mustCreateJob(t, s, newJob(c.ID, "queued", t0))
	fresh := mustCreateJob(t, s, newJob(c.ID, "fresh", t0.Add(48*time.Hour)))

	n, err := s.ExpireJobs(ctx, t0.Add(7*24*time.Hour))
	if err != nil || n != 2 {
		t.Fatalf("ExpireJobs = %d, %v; want 2", n, err)
	}
	for _, id := range []string{old.ID, queued.ID} {
		got, _ := s.GetJob(ctx, c.ID, id)
		if got.Status != tickets.StatusExpired || got.Result != nil {
			t.Errorf("job %s after expiry: status %s, result %q", id, got.Status, got.Result)
		}
	}
	got, _ := s.GetJob(ctx, c.ID, old.ID)
	if got.Stage != tickets.StageCompleted {
		t.Errorf("expired job stage = %s, want the last stage kept", got.Stage)
	}
	got, _ = s.GetJob(ctx, c.ID, fresh.ID)
	if got.Status != tickets.StatusQueued {
		t.Errorf("unexpired job status = %s", got.Status)
	}
	if n, err := s.ExpireJobs(ctx, t0.Add(7*24*time.Hour)); err != nil || n != 0 {
		t.Errorf("second ExpireJobs = %d, %v; want 0", n, err)
	}

	// Purging deletes expired jobs past the retention, and frees their keys.
	if n, err := s.PurgeExpiredJobs(ctx, t0.Add(7*24*time.Hour)); err != nil || n != 0 {
		t.Errorf("PurgeExpiredJobs(at expiry) = %d, %v; want 0", n, err)
	}
	if n, err := s.PurgeExpiredJobs(ctx, t0.Add(8*24*time.Hour)); err != nil || n != 2 {
		t.Errorf("PurgeExpiredJobs = %d, %v; want 2", n, err)
	}
	if _, err := s.GetJob(ctx, c.ID, old.ID); !errors.Is(err, tickets.ErrNotFound) {
		t.Errorf("purged job: %v, want ErrNotFound", err)
	}
	if _, err := s.GetJob(ctx, c.ID, fresh.ID); err != nil {
		t.Errorf("unexpired job was purged: %v", err)
	}
	if _, created, err := s.CreateJob(ctx, newJob(c.ID, "old", t0.Add(9*24*time.Hour)), 100); err != nil || !created {
		t.Errorf("reusing a purged job's key = created %v, %v", created, err)
	}
}

func testQueueBound(t *testing.T, s tickets.Store) {
	ctx := context.Background()
	c := newClient(t, s, "bound")
	other := newClient(t, s, "other")
	first := newJob(c.ID, "a", t0)
	for _, key := range []string{"a", "b"} {
		j := first
		if key != "a" {
			j = newJob(c.ID, key, t0)
		}
		if _, created, err := s.CreateJob(ctx, j, 2); err != nil || !created {
			t.Fatalf("CreateJob(%s) = created %v, %v", key, created, err)
		}
	}
	if _, _, err := s.CreateJob(ctx, newJob(c.ID, "c", t0), 2); !errors.Is(err, tickets.ErrQueueFull) {
		t.Fatalf("third job with a bound of 2: err = %v, want ErrQueueFull", err)
	}
	got, created, err := s.CreateJob(ctx, newJob(c.ID, "a", t0), 2)
	if err != nil || created || got.ID != first.ID {
		t.Fatalf("retry with a full queue = %s created %v, %v; want the original job", got.ID, created, err)
	}
	if _, created, err := s.CreateJob(ctx, newJob(other.ID, "c", t0), 2); err != nil || !created {
		t.Fatalf("another client's job = created %v, %v", created, err)
	}
	if _, err := s.UpdateJob(ctx, first.ID, tickets.JobUpdate{From: []tickets.Status{tickets.StatusQueued},
		Status: tickets.StatusCompleted, Stage: tickets.StageCompleted, Result: []byte(`{}`), At: t0}); err != nil {
		t.Fatal(err)
	}
	if _, created, err := s.CreateJob(ctx, newJob(c.ID, "c", t0), 2); err != nil || !created {
		t.Fatalf("job after one finished = created %v, %v", created, err)
	}

	// Concurrent submissions cannot overrun the bound.
	burst := newClient(t, s, "burst")
	results := make(chan error, 20)
	for i := range 20 {
		go func() {
			_, _, err := s.CreateJob(ctx, newJob(burst.ID, fmt.Sprint("burst-", i), t0), 5)
			results <- err
		}()
	}
	accepted := 0
	for range 20 {
		switch err := <-results; {
		case err == nil:
			accepted++
		case !errors.Is(err, tickets.ErrQueueFull):
			t.Errorf("concurrent CreateJob: %v", err)
		}
	}
	if accepted != 5 {
		t.Errorf("20 concurrent submissions with a bound of 5 accepted %d", accepted)
	}
}

func testCancelStaleJobs(t *testing.T, s tickets.Store) {
	ctx := context.Background()
	c := newClient(t, s, "stale")
	var ids []string
	for i, at := range []time.Time{t0, t0.Add(time.Minute)} {
		j := mustCreateJob(t, s, newJob(c.ID, fmt.Sprint("s", i), t0))
		mustUpdateJob(t, s, j.ID, tickets.JobUpdate{From: []tickets.Status{tickets.StatusQueued}, Status: tickets.StatusProcessing, Stage: tickets.StageGeneratingTickets, At: at})
		mustUpdateJob(t, s, j.ID, tickets.JobUpdate{From: []tickets.Status{tickets.StatusProcessing}, Status: tickets.StatusCancelRequested, At: at})
		ids = append(ids, j.ID)
	}
	processing := mustCreateJob(t, s, newJob(c.ID, "p", t0))
	mustUpdateJob(t, s, processing.ID, tickets.JobUpdate{From: []tickets.Status{tickets.StatusQueued}, Status: tickets.StatusProcessing, At: t0})

	n, err := s.CancelStaleJobs(ctx, t0.Add(30*time.Second), t0.Add(2*time.Minute))
	if err != nil || n != 1 {
		t.Fatalf("CancelStaleJobs = %d, %v; want 1", n, err)
	}
	got, _ := s.GetJob(ctx, c.ID, ids[0])
	if got.Status != tickets.StatusCancelled || got.ErrorCode != tickets.CodeJobCancelled || got.Stage != tickets.StageGeneratingTickets {
		t.Errorf("stale cancel_requested job = %+v", got)
	}
	for id, want := range map[string]tickets.Status{ids[1]: tickets.StatusCancelRequested, processing.ID: tickets.StatusProcessing} {
		if st, _ := s.JobStatus(ctx, id); st != want {
			t.Errorf("job %s is %s, want %s", id, st, want)
		}
	}
}

func summary(t *testing.T, s tickets.Store, id string) tickets.JobSummary {
	t.Helper()
	j, err := s.GetJobSummary(context.Background(), id)
	if err != nil {
		t.Fatalf("GetJobSummary(%s): %v", id, err)
	}
	return j
}

func summaryIDs(js []tickets.JobSummary) []string {
	ids := make([]string, len(js))
	for i, j := range js {
		ids[i] = j.ID
	}
	return ids
}

// testJobSummaries: every client's jobs newest first (the id breaks ties),
// by client, by status, by both, paged; each item is what GetJobSummary
// answers.
func testJobSummaries(t *testing.T, s tickets.Store) {
	ctx := context.Background()
	a, b := newClient(t, s, "alpha"), newClient(t, s, "beta")
	var all []tickets.Job // in creation order
	for i, c := range []tickets.Client{a, b, a, b, a} {
		all = append(all, mustCreateJob(t, s, newJob(c.ID, fmt.Sprint("k", i), t0.Add(time.Duration(i/2)*time.Second))))
	}
	if _, err := s.UpdateJob(ctx, all[1].ID, tickets.JobUpdate{From: []tickets.Status{tickets.StatusQueued}, Status: tickets.StatusFailed,
		Stage: tickets.StageFailed, ErrorCode: tickets.CodeEngineUnavailable, ErrorMessage: "down", At: t0}); err != nil {
		t.Fatal(err)
	}
	if _, err := s.UpdateJob(ctx, all[2].ID, tickets.JobUpdate{From: []tickets.Status{tickets.StatusQueued}, Status: tickets.StatusFailed,
		Stage: tickets.StageFailed, ErrorCode: tickets.CodeModelTimeout, ErrorMessage: "slow", At: t0}); err != nil {
		t.Fatal(err)
	}
	newestFirst := slices.Clone(all)
	slices.SortFunc(newestFirst, func(x, y tickets.Job) int {
		if c := y.CreatedAt.Compare(x.CreatedAt); c != 0 {
			return c
		}
		return strings.Compare(y.ID, x.ID)
	})
	want := func(keep func(tickets.Job) bool) []string {
		var ids []string
		for _, j := range newestFirst {
			if keep(j) {
				ids = append(ids, j.ID)
			}
		}
		return ids
	}
	failed := map[string]bool{all[1].ID: true, all[2].ID: true}
	tests := []struct {
		name string
		f    tickets.JobFilter
		want []string
	}{
		{"every client", tickets.JobFilter{}, want(func(tickets.Job) bool { return true })},
		{"one client", tickets.JobFilter{ClientID: a.ID}, want(func(j tickets.Job) bool { return j.ClientID == a.ID })},
		{"one status", tickets.JobFilter{Status: tickets.StatusFailed}, want(func(j tickets.Job) bool { return failed[j.ID] })},
		{"client and status", tickets.JobFilter{ClientID: b.ID, Status: tickets.StatusFailed}, []string{all[1].ID}},
		{"client without jobs", tickets.JobFilter{ClientID: uuid.NewString()}, nil},
		{"status without jobs", tickets.JobFilter{Status: tickets.StatusProcessing}, nil},
	}
	for _, tc := range tests {
		for _, limit := range []int{100, 2} {
			f := tc.f
			f.Limit = limit
			var got []string
			for range 10 {
				page, err := s.ListJobSummaries(ctx, f)
				if err != nil {
					t.Fatalf("%s: ListJobSummaries: %v", tc.name, err)
				}
				if len(page) > limit {
					t.Fatalf("%s: a page of %d with limit %d", tc.name, len(page), limit)
				}
				for _, j := range page {
					if g := summary(t, s, j.ID); !reflect.DeepEqual(g, j) {
						t.Errorf("%s: listed %+v, GetJobSummary %+v", tc.name, j, g)
					}
				}
				got = append(got, summaryIDs(page)...)
				if len(page) < limit {
					break
				}
				f.BeforeCreatedAt, f.BeforeID = page[len(page)-1].CreatedAt, page[len(page)-1].ID
			}
			if !slices.Equal(got, tc.want) {
				t.Errorf("%s, %d a page: %v, want %v", tc.name, limit, got, tc.want)
			}
		}
	}

	j := summary(t, s, all[1].ID)
	if j.ClientID != b.ID || j.ClientName != "beta" || j.Title != "T k1" || j.Status != tickets.StatusFailed || j.Stage != tickets.StageFailed ||
		j.ErrorCode != tickets.CodeEngineUnavailable || j.ErrorMessage != "down" || !j.HasCallback || !j.CreatedAt.Equal(all[1].CreatedAt) ||
		!j.ExpiresAt.Equal(all[1].ExpiresAt) || !j.UpdatedAt.Equal(t0) {
		t.Errorf("summary of a failed job = %+v", j)
	}
	if _, err := s.GetJobSummary(ctx, uuid.NewString()); !errors.Is(err, tickets.ErrNotFound) {
		t.Errorf("GetJobSummary(missing) err = %v, want ErrNotFound", err)
	}
}

// testJobSummaryLifecycle: the start time, engine and attempts a worker
// records, the finish time of each terminal status, the ticket count of a
// result (kept when it expires) and the callback's delivery.
func testJobSummaryLifecycle(t *testing.T, s tickets.Store) {
	ctx := context.Background()
	c := newClient(t, s, "life")
	j := mustCreateJob(t, s, newJob(c.ID, "done", t0))
	got := summary(t, s, j.ID)
	if got.Attempts != 0 || got.Engine != "" || got.StartedAt != nil || got.FinishedAt != nil || got.TicketCount != 0 ||
		got.Callback() != tickets.CallbackPending || got.CallbackDeliveredAt != nil {
		t.Fatalf("a queued job's summary = %+v", got)
	}
	claim, resume, done := t0.Add(time.Second), t0.Add(time.Minute), t0.Add(2*time.Minute)
	steps := []tickets.JobUpdate{
		{From: []tickets.Status{tickets.StatusQueued}, Status: tickets.StatusProcessing, Stage: tickets.StagePreparingPrompt, Attempt: true, Engine: "heuristic", At: claim},
		{From: []tickets.Status{tickets.StatusProcessing}, Status: tickets.StatusProcessing, Stage: tickets.StageGeneratingTickets, At: claim.Add(time.Second)},
		{From: []tickets.Status{tickets.StatusProcessing}, Status: tickets.StatusProcessing, Attempt: true, Engine: "openai", At: resume},
	}
	for _, u := range steps {
		mustUpdateJob(t, s, j.ID, u)
	}
	got = summary(t, s, j.ID)
	if got.Attempts != 2 || got.Engine != "openai" || got.StartedAt == nil || !got.StartedAt.Equal(claim) || got.FinishedAt != nil ||
		got.Stage != tickets.StageGeneratingTickets {
		t.Fatalf("a resumed job's summary = %+v; want 2 attempts, engine openai, started at the claim %v", got, claim)
	}
	if _, err := s.UpdateJob(ctx, j.ID, tickets.JobUpdate{From: []tickets.Status{tickets.StatusProcessing}, Status: tickets.StatusCompleted,
		Stage: tickets.StageCompleted, Result: []byte(`{"tickets":[{},{},{}]}`), TicketCount: 3, At: done}); err != nil {
		t.Fatal(err)
	}
	got = summary(t, s, j.ID)
	if got.TicketCount != 3 || got.FinishedAt == nil || !got.FinishedAt.Equal(done) || got.Attempts != 2 || got.ErrorCode != "" {
		t.Fatalf("a completed job's summary = %+v; want 3 tickets, finished at %v", got, done)
	}
	delivered := done.Add(time.Second)
	if err := s.MarkCallbackDelivered(ctx, j.ID, delivered); err != nil {
		t.Fatal(err)
	}
	if err := s.MarkCallbackDelivered(ctx, uuid.NewString(), delivered); err != nil {
		t.Errorf("MarkCallbackDelivered(missing) = %v, want nil", err)
	}
	got = summary(t, s, j.ID)
	if got.Callback() != tickets.CallbackDelivered || got.CallbackDeliveredAt == nil || !got.CallbackDeliveredAt.Equal(delivered) {
		t.Errorf("after delivery: callback %s at %v", got.Callback(), got.CallbackDeliveredAt)
	}

	quiet := newJob(c.ID, "quiet", t0)
	quiet.Request.CallbackURL = ""
	mustCreateJob(t, s, quiet)
	if got := summary(t, s, quiet.ID); got.HasCallback || got.Callback() != tickets.CallbackNone {
		t.Errorf("a job without callback_url: callback %s", got.Callback())
	}
	failing := mustCreateJob(t, s, newJob(c.ID, "failing", t0))
	mustUpdateJob(t, s, failing.ID, tickets.JobUpdate{From: []tickets.Status{tickets.StatusQueued}, Status: tickets.StatusCancelled,
		ErrorCode: tickets.CodeJobCancelled, ErrorMessage: "cancelled", At: claim})
	if err := s.MarkCallbackFailed(ctx, failing.ID, "no answer", done); err != nil {
		t.Fatal(err)
	}
	got = summary(t, s, failing.ID)
	if got.Callback() != tickets.CallbackFailed || got.FinishedAt == nil || !got.FinishedAt.Equal(claim) || got.StartedAt != nil || got.Attempts != 0 {
		t.Errorf("a job cancelled while queued, callback failed = %+v", got)
	}

	stale := mustCreateJob(t, s, newJob(c.ID, "stale", t0))
	mustUpdateJob(t, s, stale.ID, tickets.JobUpdate{From: []tickets.Status{tickets.StatusQueued}, Status: tickets.StatusProcessing, Attempt: true, Engine: "heuristic", At: claim})
	mustUpdateJob(t, s, stale.ID, tickets.JobUpdate{From: []tickets.Status{tickets.StatusProcessing}, Status: tickets.StatusCancelRequested, At: claim})
	if _, err := s.CancelStaleJobs(ctx, resume, resume); err != nil {
		t.Fatal(err)
	}
	if got := summary(t, s, stale.ID); got.Status != tickets.StatusCancelled || got.FinishedAt == nil || !got.FinishedAt.Equal(resume) {
		t.Errorf("a stale cancel's summary = %+v; want cancelled, finished at %v", got, resume)
	}

	// Expiry: the completed job keeps its finish time and ticket count;
	// the queued one finishes at the expiry.
	expiry := t0.Add(7 * 24 * time.Hour)
	if _, err := s.ExpireJobs(ctx, expiry); err != nil {
		t.Fatal(err)
	}
	got = summary(t, s, j.ID)
	if got.Status != tickets.StatusExpired || got.TicketCount != 3 || !got.FinishedAt.Equal(done) {
		t.Errorf("an expired completed job = %+v; want 3 tickets, finished at %v", got, done)
	}
	if got := summary(t, s, quiet.ID); got.Status != tickets.StatusExpired || got.FinishedAt == nil || !got.FinishedAt.Equal(expiry) {
		t.Errorf("an expired queued job = %+v; want finished at %v", got, expiry)
	}
}
