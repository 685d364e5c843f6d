package server_test

import (
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/foresight-dev/foresight/internal/server"
	"github.com/foresight-dev/foresight/internal/tickets"
	"github.com/foresight-dev/foresight/internal/waitfor"
)

// TestCallbacksOwedBoundSubmissions gives a client a bound of 2 callbacks
// owed and a receiver that answers 503: once its two jobs with a
// callback_url are completed and their callbacks failed once, a third
// job with a callback_url gets 429 queue_full, while a repeat of an
// accepted key gets its job and a job without a callback_url is
// accepted. When the receiver answers again and the callbacks are
// delivered, a job with a callback_url is accepted again. Without the
// bound, a client whose receiver is down piles up callback jobs without
// end, each put back in the queue about once a minute.
func TestCallbacksOwedBoundSubmissions(t *testing.T) {
	t.Parallel()
	forEachDatabase(t, testCallbacksOwedBoundSubmissions)
}

func testCallbacksOwedBoundSubmissions(t *testing.T, db string) {
	retries := make([]time.Duration, 50) // attempts a second apart, none the last within the test
	for i := range retries {
		retries[i] = time.Second
	}
	w, recv := newCallbackWorld(t, db, func(c *server.Config) {
		c.Tickets.MaxPendingCallbacks = 2
		c.Queue.CallbackRetries = retries
	})
	recv.status.Store(http.StatusServiceUnavailable)
	hook := map[string]any{"callback_url": "https://hooks.example.com/foresight"}

	first := w.submit("owed-1", sampleSpec, hook)
	w.waitFor(w.submit("owed-2", sampleSpec, hook), tickets.StatusCompleted)
	w.waitFor(first, tickets.StatusCompleted)
	for range 2 {
		recv.next(t, 30*time.Second, "callback at the receiver")
	}

	r := w.do("POST", "/tickets/v1/jobs", w.key, submitBody("owed-3", sampleSpec, hook))
	if r.status != http.StatusTooManyRequests || r.errorCode(t) != string(tickets.CodeQueueFull) {
		t.Fatalf("a third job with a callback_url = %d %s, want 429 queue_full", r.status, r.body)
	}
	if r.header.Get("Retry-After") == "" || !strings.Contains(string(r.body), "callback") {
		t.Errorf("queue_full for callbacks owed: Retry-After %q, body %s; want both to tell when and why", r.header.Get("Retry-After"), r.body)
	}
	r = w.do("POST", "/tickets/v1/jobs", w.key, submitBody("owed-1", sampleSpec, hook))
	if r.status != http.StatusAccepted || r.json(t)["job_id"] != first {
		t.Errorf("a repeat of an accepted key = %d %s, want 202 with job %s", r.status, r.body, first)
	}
	w.submit("no callback", sampleSpec, nil)

	recv.status.Store(http.StatusNoContent)
	waitfor.Check(t, func() error {
		r := w.do("POST", "/tickets/v1/jobs", w.key, submitBody("owed-3", sampleSpec, hook))
		if r.status != http.StatusAccepted {
			return fmt.Errorf("a job with a callback_url once the callbacks can be delivered = %d %s", r.status, r.body)
		}
		return nil
	})
}

// TestReceiverBackGetsItsWaitingCallbacks fails three callbacks of a
// client (the receiver answers 503; the next attempt is an hour away),
// then lets the receiver answer: the client's next callback is delivered
// and the three waiting ones follow within seconds, not an hour later.
func TestReceiverBackGetsItsWaitingCallbacks(t *testing.T) {
	t.Parallel()
	forEachDatabase(t, testReceiverBackGetsItsWaitingCallbacks)
}

func testReceiverBackGetsItsWaitingCallbacks(t *testing.T, db string) {
	w, recv := newCallbackWorld(t, db, func(c *server.Config) { c.Queue.CallbackRetries = []time.Duration{time.Hour} })
	recv.status.Store(http.StatusServiceUnavailable)
	hook := map[string]any{"callback_url": "https://hooks.example.com/foresight"}
	var waiting []string
	for i := range 3 {
		waiting = append(waiting, w.submit(fmt.Sprintf("down-%d", i), sampleSpec, hook))
	}
	for range waiting {
		recv.next(t, 30*time.Second, "callback at the receiver")
	}

	recv.status.Store(http.StatusNoContent)
	w.submit("back", sampleSpec, hook)
	delivered := map[string]bool{}
	deadline := time.After(waitfor.Bound)
	for len(delivered) < len(waiting)+1 {
		select {
		case r := <-recv.got:
			delivered[r.header.Get("webhook-id")] = true
		case <-deadline:
			t.Fatalf("%d callbacks delivered once the receiver answered, want %d: the waiting ones wait for their next attempt", len(delivered), len(waiting)+1)
		}
	}
	for _, id := range waiting {
		if !delivered[tickets.CallbackMessageID(id, tickets.StatusCompleted)] {
			t.Errorf("job %s's callback was not delivered", id)
		}
	}
}
