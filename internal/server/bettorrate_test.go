package server_test

import (
	"net/http"
	"strconv"
	"sync/atomic"
	"testing"

	"github.com/google/uuid"

	"github.com/foresight-dev/foresight/internal/server"
)

// TestBetRateLimitPerBettor: a bettor past its burst of new bets gets 429
// problem+json with Retry-After, and the refused bet leaves nothing behind:
// no bet, no withdrawal. A repeated key of an accepted bet still gets its
// 202, byte for byte; another bettor is not held back.
func TestBetRateLimitPerBettor(t *testing.T) {
	t.Parallel()
	forEachDatabase(t, func(t *testing.T, db string) {
		var withdrawals atomic.Int32
		bw := newBettingWorldWith(t, db, worldOptions{
			config: func(c *server.Config) { c.BetRateLimit, c.BetRateBurst = 0.001, 3 }, // no token back during the test
			partner: func(h http.Handler) http.Handler {
				return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
					if r.URL.Path == "/v1/withdrawals" {
						withdrawals.Add(1)
					}
					h.ServeHTTP(w, r)
				})
			},
		})
		alice := bw.bettor("alice", "100.00")
		var firstKey, firstBody string
		for i := range 3 {
			key := uuid.NewString()
			r := bw.place(alice, key, bw.outcome[1], "1.00")
			if r.status != 202 {
				t.Fatalf("bet %d of the burst = %d %s", i+1, r.status, r.body)
			}
			if i == 0 {
				firstKey, firstBody = key, string(r.body)
			}
			bw.settled(alice, r.json(t)["id"].(string))
		}

		refusedKey := uuid.NewString()
		r := bw.place(alice, refusedKey, bw.outcome[1], "1.00")
		if r.status != 429 || r.header.Get("Content-Type") != "application/problem+json" {
			t.Fatalf("a bet past the burst = %d %s %s, want 429 problem+json", r.status, r.header.Get("Content-Type"), r.body)
		}
		if s, err := strconv.Atoi(r.header.Get("Retry-After")); err != nil || s < 1 {
			t.Errorf("Retry-After = %q, want whole seconds", r.header.Get("Retry-After"))
		}
		if replay := bw.place(alice, firstKey, bw.outcome[0], "5.00"); replay.status != 202 || string(replay.body) != firstBody {
			t.Errorf("replay of the first key at the limit = %d %s, want 202 %s", replay.status, replay.body, firstBody)
		}
		if again := bw.place(alice, refusedKey, bw.outcome[1], "1.00"); again.status != 429 {
			t.Errorf("the refused key again = %d %s, want 429 (nothing was stored under it)", again.status, again.body)
		}

		bets := bw.api("GET", "/api/v1/bettor/bets", alice, "").json(t)["items"].([]any)
		p := bw.api("GET", "/api/v1/bettor/portfolio", alice, "").json(t)
		if len(bets) != 3 || p["total_positions"] != 3.0 || p["total_stakes"] != "3" {
			t.Errorf("after the refusals: %d bets, portfolio %v; want the burst's 3 bets, 3 staked", len(bets), p)
		}
		if n := withdrawals.Load(); n != 3 {
			t.Errorf("%d withdrawals, want 3 (none for a refused bet)", n)
		}
		if bal, _ := bw.op.Balance("alice"); bal != "97.00" {
			t.Errorf("alice's wallet balance %s, want 97.00", bal)
		}

		bob := bw.bettor("bob", "100.00")
		if r := bw.place(bob, uuid.NewString(), bw.outcome[1], "1.00"); r.status != 202 {
			t.Errorf("another bettor's bet = %d %s, want 202", r.status, r.body)
		}
	})
}
