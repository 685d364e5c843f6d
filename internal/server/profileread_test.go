package server_test

import (
	"net/http"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/foresight-dev/foresight/internal/betting/bettorhttp"
	"github.com/foresight-dev/foresight/internal/waitfor"
)

// TestProfileReadsOfABettorAreCapped: an aggregator's player, whose
// profile reads the balance from the aggregator's wallet at each request,
// has at most bettorhttp.MaxBalanceReadsInProgress of them in progress;
// one more is 429 with Retry-After, and never reaches the wallet (one
// token over HTTP/2 made the server hold 200 wallet calls at once, each on
// its own connection; found by an outside review).
func TestProfileReadsOfABettorAreCapped(t *testing.T) {
	t.Parallel()
	release := make(chan struct{})
	var holding, calls atomic.Int64
	hold := false
	var mu sync.Mutex
	aw := newAggWorldWith(t, "sqlite:"+t.TempDir()+"/f.db", worldOptions{casino: func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			mu.Lock()
			held := hold && r.URL.Path == "/v2/provider_agg.Player/Balance"
			mu.Unlock()
			if held {
				calls.Add(1)
				holding.Add(1)
				select {
				case <-release:
				case <-time.After(2 * time.Second): // the old code's extra reads end, and fail below
				}
				holding.Add(-1)
			}
			next.ServeHTTP(w, r)
		})
	}})
	token := aw.session("player-1", "EUR", uuid.NewString())
	mu.Lock()
	hold = true
	mu.Unlock()

	held := make(chan response, bettorhttp.MaxBalanceReadsInProgress)
	for range bettorhttp.MaxBalanceReadsInProgress {
		go func() { held <- aw.request(t, "GET", "/api/v1/auth/me", token, "") }()
	}
	waitfor.True(t, "the reads in progress at the wallet", func() bool { return holding.Load() == bettorhttp.MaxBalanceReadsInProgress })
	for range 3 {
		if r := aw.api("GET", "/api/v1/auth/me", token, ""); r.status != 429 || r.header.Get("Retry-After") == "" {
			t.Errorf("a profile read past the cap = %d (Retry-After %q), want 429 with Retry-After", r.status, r.header.Get("Retry-After"))
		}
	}
	close(release)
	for range bettorhttp.MaxBalanceReadsInProgress {
		if r := <-held; r.status != 200 {
			t.Errorf("a profile read within the cap = %d %s", r.status, r.body)
		}
	}
	if n := calls.Load(); n != bettorhttp.MaxBalanceReadsInProgress {
		t.Errorf("%d balance calls reached the wallet, want %d", n, bettorhttp.MaxBalanceReadsInProgress)
	}
	if r := aw.api("GET", "/api/v1/auth/me", token, ""); r.status != 200 {
		t.Errorf("a profile read once the others ended = %d", r.status)
	}
}
