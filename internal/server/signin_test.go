package server_test

import (
	"net/http"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/foresight-dev/foresight/internal/server"
)

// TestWrongTokensAreSlowed: wrong admin, operator and metrics tokens from
// one address share a failure budget; once it is used up the address gets
// 429 rate_limited with Retry-After on the admin API (even with the admin
// token, which would otherwise tell a guesser its guess was right) and on
// /metrics. Valid tokens never use the budget.
func TestWrongTokensAreSlowed(t *testing.T) {
	t.Parallel()
	defaults := server.DefaultConfig()
	w := newWorld(t, "sqlite:"+filepath.Join(t.TempDir(), "foresight.db"), worldOptions{noWorkers: true,
		config: func(c *server.Config) {
			c.AuthFailuresPerMinute, c.AuthFailureBurst = defaults.AuthFailuresPerMinute, defaults.AuthFailureBurst
		}})
	burst := defaults.AuthFailureBurst

	for i := range 3 * burst {
		if st, p := w.adminDo(t, "GET", "/admin/v1/whoami", adminToken, nil); st != http.StatusOK {
			t.Fatalf("valid request %d = %d %v", i+1, st, p)
		}
	}
	wrong := []string{"wrong", "fso_00000000000000000000000000000000", ""}
	for i := range burst - 1 {
		if st, p := w.adminDo(t, "GET", "/admin/v1/whoami", wrong[i%len(wrong)], nil); st != http.StatusUnauthorized {
			t.Fatalf("wrong token %d = %d %v, want 401", i+1, st, p)
		}
	}
	if r := w.send("GET", "/metrics", "wrong-metrics-token", nil); r.status != http.StatusUnauthorized {
		t.Fatalf("wrong metrics token = %d, want 401", r.status)
	}
	// The budget is used up: every request from this address waits.
	for _, token := range []string{"wrong", adminToken} {
		st, p := w.adminDo(t, "GET", "/admin/v1/whoami", token, nil)
		if st != http.StatusTooManyRequests || p["code"] != "rate_limited" {
			t.Fatalf("after %d wrong tokens = %d %v, want 429 rate_limited", burst, st, p)
		}
	}
	r := w.send("GET", "/admin/v1/whoami", "wrong", nil)
	if s, err := strconv.Atoi(r.header.Get("Retry-After")); err != nil || s < 1 {
		t.Errorf("429 Retry-After = %q, want whole seconds", r.header.Get("Retry-After"))
	}
	if r := w.send("GET", "/metrics", adminToken, nil); r.status != http.StatusTooManyRequests || r.header.Get("Retry-After") == "" {
		t.Errorf("/metrics after the budget is used up = %d (Retry-After %q), want 429 with Retry-After", r.status, r.header.Get("Retry-After"))
	}
}
