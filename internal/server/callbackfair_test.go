package server_test

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"

	"github.com/foresight-dev/foresight/internal/server"
	"github.com/foresight-dev/foresight/internal/tickets"
)

// TestCallbacksOfOneClientDoNotDelayAnother gives one ticket client 24
// completed jobs whose callback receiver never answers (each attempt holds
// a callback worker until the callback job's minute ends: the sender's
// timeout is set past it), then submits a job of another client: its
// callback arrives while the tarpit still holds the first client's
// callbacks, none of them given up yet, and the tarpit never holds more
// than 2 of them at once. Without the per-client bound the 16 callback
// workers all wait on the tarpit and the other client's callback goes out
// only when the first of them gives up, after the test's 50 s.
func TestCallbacksOfOneClientDoNotDelayAnother(t *testing.T) {
	t.Parallel()
	forEachDatabase(t, testCallbacksOfOneClientDoNotDelayAnother)
}

func testCallbacksOfOneClientDoNotDelayAnother(t *testing.T, db string) {
	recv, tr := newCallbackReceiver(t)
	tarpit := newTarpit(t)
	toReceiver := tr.DialContext
	tr.DialContext = func(ctx context.Context, network, addr string) (net.Conn, error) {
		if addr == "tarpit.example.com:443" {
			return (&net.Dialer{}).DialContext(ctx, network, tarpit.Listener.Addr().String())
		}
		return toReceiver(ctx, network, addr)
	}
	w := newWorld(t, db, worldOptions{config: func(c *server.Config) {
		c.CallbackTransport, c.CallbackTimeout = tr, 2*time.Minute
	}})

	const slow = 24 // more than the 16 callback workers
	var ids []string
	for i := range slow {
		ids = append(ids, w.submit(fmt.Sprintf("slow-%d", i), sampleSpec, map[string]any{"callback_url": "https://tarpit.example.com/hook"}))
	}
	for _, id := range ids {
		w.waitFor(id, tickets.StatusCompleted)
	}
	select {
	case <-tarpit.arrived:
	case <-time.After(30 * time.Second):
		t.Fatal("no callback reached the tarpit")
	}

	_, otherKey := w.newClient("other team", "tickets:submit", "tickets:read")
	r := w.do("POST", "/tickets/v1/jobs", otherKey, submitBody("fast", sampleSpec, map[string]any{"callback_url": "https://fast.example.com/hook"}))
	if r.status != 202 {
		t.Fatalf("submit as the other client = %d %s", r.status, r.body)
	}
	recv.next(t, 50*time.Second, "callback of the other client")
	if n := tarpit.released.Load(); n != 0 {
		t.Errorf("the other client's callback came after %d tarpit callbacks gave up: it waited for a callback worker", n)
	}
	if n := tarpit.mostHeld.Load(); n > tickets.CallbacksInFlightPerClient {
		t.Errorf("the tarpit held %d callbacks of one client at once, want at most %d", n, tickets.CallbacksInFlightPerClient)
	}
}

// tarpit is an HTTPS receiver, with the test certificate, that never
// answers: each callback is held until its sender gives up.
type tarpit struct {
	*httptest.Server
	// arrived has a value for each callback that arrived; held is the
	// number of callbacks being held, mostHeld the most held at once,
	// released the number whose sender gave up.
	arrived  chan struct{}
	held     atomic.Int32
	mostHeld atomic.Int32
	released atomic.Int32
}

func newTarpit(t *testing.T) *tarpit {
	tp := &tarpit{arrived: make(chan struct{}, 1000)}
	stop := make(chan struct{})
	tp.Server = httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		// Once the body is read, the server watches the connection and
		// ends r's context when the sender closes it.
		io.Copy(io.Discard, r.Body)
		n := tp.held.Add(1)
		defer tp.held.Add(-1)
		for {
			m := tp.mostHeld.Load()
			if n <= m || tp.mostHeld.CompareAndSwap(m, n) {
				break
			}
		}
		tp.arrived <- struct{}{}
		select {
		case <-r.Context().Done():
			tp.released.Add(1)
		case <-stop:
		}
	}))
	t.Cleanup(func() {
		close(stop)
		tp.Close()
	})
	return tp
}
