package server_test

import (
	"context"
	"net/http"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/foresight-dev/foresight/internal/server"
)

// TestWrongTokensAreSlowed: wrong admin, operator and metrics tokens from
// one address share a failure budget; once it is used up the address's
// wrong tokens get 429 rate_limited with Retry-After on the admin API and
// on /metrics, while its valid tokens (the admin token, an operator
// credential, the admin token on /metrics) are still served: behind a
// reverse proxy every client shares the proxy's address, and one client's
// wrong tokens must not lock the others out. Valid tokens never use the
// budget.
func TestWrongTokensAreSlowed(t *testing.T) {
	t.Parallel()
	defaults := server.DefaultConfig()
	w := newWorld(t, "sqlite:"+filepath.Join(t.TempDir(), "foresight.db"), worldOptions{noWorkers: true,
		config: func(c *server.Config) {
			c.AuthFailuresPerMinute, c.AuthFailureBurst = defaults.AuthFailuresPerMinute, defaults.AuthFailureBurst
		}})
	burst := defaults.AuthFailureBurst
	if st, p := w.asAdmin(t, "POST", "/admin/v1/operators", `{"id":"rival","name":"Rival Bets","integration":"standalone",
		"wallet_url":"https://wallet.rival.example","signing_secret":"rival-signing-secret-0123","jwks_url":"https://wallet.rival.example/jwks.json",
		"currencies":[{"code":"EUR","decimals":2}],"margin":{"method":"shin","value":"0.08"},
		"limits":{"EUR":{"min_stake":"1","max_stake":"50","max_payout":"500","outcome_exposure":"5000"}},"odds_tolerance":"0.02"}`); st != http.StatusCreated {
		t.Fatalf("create operator = %d %v", st, p)
	}
	cred, err := w.admin.IssueOperatorCredential(context.Background(), "rival", "Rival staff", nil)
	if err != nil {
		t.Fatal(err)
	}

	for i := range 3 * burst {
		if st, p := w.asAdmin(t, "GET", "/admin/v1/whoami", nil); st != http.StatusOK {
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
	// The budget is used up: wrong tokens from this address wait.
	for _, token := range append(wrong, cred.Key+"x") {
		st, p := w.adminDo(t, "GET", "/admin/v1/whoami", token, nil)
		if st != http.StatusTooManyRequests || p["code"] != "rate_limited" {
			t.Fatalf("wrong token %q after %d wrong tokens = %d %v, want 429 rate_limited", token, burst, st, p)
		}
	}
	r := w.send("GET", "/admin/v1/whoami", "wrong", nil)
	if s, err := strconv.Atoi(r.header.Get("Retry-After")); err != nil || s < 1 {
		t.Errorf("429 Retry-After = %q, want whole seconds", r.header.Get("Retry-After"))
	}
	if r := w.send("GET", "/metrics", "wrong-metrics-token", nil); r.status != http.StatusTooManyRequests || r.header.Get("Retry-After") == "" {
		t.Errorf("wrong metrics token after the budget is used up = %d (Retry-After %q), want 429 with Retry-After", r.status, r.header.Get("Retry-After"))
	}
	// Valid tokens from the same address are served.
	for name, token := range map[string]string{"admin token": adminToken, "operator credential": cred.Key} {
		if st, p := w.adminDo(t, "GET", "/admin/v1/whoami", token, nil); st != http.StatusOK {
			t.Errorf("%s after the budget is used up = %d %v, want 200", name, st, p)
		}
	}
	if r := w.send("GET", "/metrics", adminToken, nil); r.status != http.StatusOK {
		t.Errorf("/metrics with the admin token after the budget is used up = %d, want 200", r.status)
	}
}
