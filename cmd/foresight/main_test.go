package main

import (
	"bytes"
	"context"
	"encoding/json"
	"maps"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/foresight-dev/foresight/internal/waitfor"
)

func freeAddr(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().String()
}

func envOf(m map[string]string) func(string) string { return func(k string) string { return m[k] } }

// commandError is a command line that run must refuse: with args and the
// environment env, its error contains want.
type commandError struct {
	args []string
	env  map[string]string
	want string
}

// wantCommandErrors runs each command line and checks its error.
func wantCommandErrors(t *testing.T, tests []commandError) {
	t.Helper()
	for _, tt := range tests {
		err := run(context.Background(), tt.args, envOf(tt.env), &bytes.Buffer{}, &bytes.Buffer{})
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%v with %v: %v; want an error about %q", tt.args, tt.env, err, tt.want)
		}
	}
}

// TestOperatorIssuesKeyFromTerminal runs `foresight serve` and the admin
// commands an operator would type, then uses the key.
func TestOperatorIssuesKeyFromTerminal(t *testing.T) {
	t.Parallel()
	srv := serveSQLite(t, "operator-secret-0123456789abcdef01234", nil)
	addr, env, ctx := srv.addr, srv.env, srv.ctx

	admin := func(args ...string) map[string]any {
		t.Helper()
		var out, errOut bytes.Buffer
		if err := run(ctx, append([]string{"admin"}, args...), env, &out, &errOut); err != nil {
			t.Fatalf("foresight admin %v: %v %s", args, err, errOut.String())
		}
		var m map[string]any
		if err := json.Unmarshal(out.Bytes(), &m); err != nil {
			t.Fatalf("foresight admin %v printed %q", args, out.String())
		}
		return m
	}
	client := admin("ticket-clients", "create", "--name", "Payments team")
	if client["webhook_secret"] == "" || client["name"] != "Payments team" {
		t.Fatalf("client = %v", client)
	}
	key := admin("ticket-keys", "create", "--client", client["id"].(string), "--scopes", "tickets:submit,tickets:read")
	token, _ := key["key"].(string)
	if !strings.HasPrefix(token, "fsk_") {
		t.Fatalf("key = %v", key)
	}

	body := `{"schema_version":"tickets.input.v1","idempotency_key":"cli","title":"T","spec":"- Users must log in."}`
	req, _ := http.NewRequest("POST", "http://"+addr+"/tickets/v1/jobs", strings.NewReader(body))
	req.Header.Set("Authorization", "Bearer "+token)
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusAccepted {
		t.Fatalf("submit with the issued key = %d", resp.StatusCode)
	}
	jobs := admin("ticket-jobs", "list", "--client", client["id"].(string), "--limit", "5")
	items, _ := jobs["items"].([]any)
	if len(items) != 1 || jobs["next_cursor"] != nil {
		t.Fatalf("ticket-jobs list = %v; want the one job", jobs)
	}
	jobID := items[0].(map[string]any)["id"].(string)
	if job := admin("ticket-jobs", "get", "--job", jobID); job["client_name"] != "Payments team" || job["title"] != "T" {
		t.Errorf("ticket-jobs get = %v", job)
	}

	admin("ticket-keys", "revoke", "--client", client["id"].(string), "--key", key["id"].(string))
	req, _ = http.NewRequest("GET", "http://"+addr+"/tickets/v1/jobs", nil)
	req.Header.Set("Authorization", "Bearer "+token)
	resp, err = http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusUnauthorized {
		t.Errorf("revoked key = %d, want 401", resp.StatusCode)
	}

	var errOut bytes.Buffer
	bad := envOf(map[string]string{"FORESIGHT_ADDR": addr, "FORESIGHT_ADMIN_TOKEN": "wrong"})
	if err := run(ctx, []string{"admin", "ticket-clients", "list"}, bad, &bytes.Buffer{}, &errOut); err == nil || !strings.Contains(err.Error(), "unauthorized") {
		t.Errorf("admin with a wrong token: %v", err)
	}
}

// longToken is long enough for an admin or metrics token.
const longToken = "0123456789abcdef0123456789abcdef"

func TestMigrateAndConfigErrors(t *testing.T) {
	t.Parallel()
	db := "sqlite:" + filepath.Join(t.TempDir(), "m.db")
	var out bytes.Buffer
	if err := run(context.Background(), []string{"migrate", "--database-url", db}, envOf(nil), &out, &bytes.Buffer{}); err != nil {
		t.Fatalf("migrate: %v", err)
	}
	if !strings.Contains(out.String(), "migrations applied") {
		t.Errorf("migrate printed %q", out.String())
	}
	wantCommandErrors(t, []commandError{
		{[]string{"serve"}, map[string]string{"FORESIGHT_DATABASE_URL": db}, "admin token"},
		{[]string{"serve"}, map[string]string{"FORESIGHT_ADMIN_TOKEN": longToken, "FORESIGHT_DATABASE_URL": "mysql://x"}, "want sqlite:PATH or postgres"},
		{[]string{"serve"}, map[string]string{"FORESIGHT_ADMIN_TOKEN": longToken, "FORESIGHT_TICKETS_RATE_LIMIT": "fast"}, "FORESIGHT_TICKETS_RATE_LIMIT"},
		{[]string{"serve", "--tickets-engine", "magic", "--admin-token", longToken, "--database-url", db}, nil, "tickets engine"},
		{[]string{"serve"}, map[string]string{"FORESIGHT_ADMIN_TOKEN": "x", "FORESIGHT_DATABASE_URL": db}, "FORESIGHT_ADMIN_TOKEN) has 1 characters; it needs at least 32"},
		{[]string{"serve", "--admin-token", longToken[:31], "--database-url", db}, nil, "FORESIGHT_ADMIN_TOKEN) has 31 characters"},
		{[]string{"serve", "--admin-token", longToken, "--metrics-token", "short", "--database-url", db}, nil, "FORESIGHT_METRICS_TOKEN) has 5 characters"},
		{[]string{"demo", "--admin-token", "short", "--dir", t.TempDir()}, nil, "FORESIGHT_ADMIN_TOKEN) has 5 characters"},
		{[]string{"serve", "--admin-token", longToken, "--database-url", db, "--tickets-max-active-jobs", "-3"}, nil, "FORESIGHT_TICKETS_MAX_ACTIVE_JOBS is -3; it must be at least 1"},
		{[]string{"serve"}, map[string]string{"FORESIGHT_ADMIN_TOKEN": longToken, "FORESIGHT_DATABASE_URL": db, "FORESIGHT_TICKETS_WORKERS": "0"}, "FORESIGHT_TICKETS_WORKERS is 0"},
		{[]string{"demo", "--dir", t.TempDir(), "--tickets-job-lifetime", "0s"}, nil, "FORESIGHT_TICKETS_JOB_LIFETIME is 0s"},
		{[]string{"bogus"}, nil, "unknown command"},
	})
}

func TestUsageNeverShowsSecretsFromTheEnvironment(t *testing.T) {
	t.Parallel()
	env := envOf(map[string]string{"FORESIGHT_ADMIN_TOKEN": "s3cret-token", "FORESIGHT_DATABASE_URL": "postgres://u:pw123@db/f"})
	var errOut bytes.Buffer
	run(context.Background(), []string{"serve", "-h"}, env, &bytes.Buffer{}, &errOut)
	run(context.Background(), []string{"serve", "--no-such-flag"}, env, &bytes.Buffer{}, &errOut)
	if strings.Contains(errOut.String(), "s3cret-token") || strings.Contains(errOut.String(), "pw123") {
		t.Errorf("usage printed a secret:\n%s", errOut.String())
	}
	if !strings.Contains(errOut.String(), "FORESIGHT_ADMIN_TOKEN") {
		t.Errorf("usage does not name the variables:\n%s", errOut.String())
	}
}

func TestRedactURL(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		"postgres://app:s3cret@db:5432/foresight": "postgres://app:***@db:5432/foresight",
		"postgres://app@db/foresight":             "postgres://app@db/foresight",
		"sqlite:foresight.db":                     "sqlite:foresight.db",
	} {
		if got := redactURL(in); got != want {
			t.Errorf("redactURL(%q) = %q, want %q", in, got, want)
		}
	}
}

// served is a `foresight serve` of a test on a SQLite database of its
// own.
type served struct {
	addr   string // where it listens
	dbPath string // its SQLite file
	env    func(string) string
	ctx    context.Context // ends with the test
}

// serveSQLite runs `foresight serve` on a free address and a new SQLite
// database, with the admin token and the extra settings, until the test
// ends; it returns once the server answers /healthz.
func serveSQLite(t *testing.T, token string, extra map[string]string) served {
	t.Helper()
	s := served{addr: freeAddr(t), dbPath: filepath.Join(t.TempDir(), "f.db")}
	m := map[string]string{"FORESIGHT_ADDR": s.addr, "FORESIGHT_DATABASE_URL": "sqlite:" + s.dbPath, "FORESIGHT_ADMIN_TOKEN": token}
	maps.Copy(m, extra)
	s.env = envOf(m)
	s.ctx = serveInBackground(t, s.env, s.addr)
	return s
}

// serveInBackground runs `foresight serve` with env, listening on addr,
// until the test ends, and returns once it answers /healthz; the context
// it returns ends with the test.
func serveInBackground(t *testing.T, env func(string) string, addr string) context.Context {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	served := make(chan error, 1)
	go func() { served <- run(ctx, []string{"serve"}, env, &bytes.Buffer{}, &bytes.Buffer{}) }()
	t.Cleanup(func() {
		cancel()
		if err := <-served; err != nil {
			t.Errorf("serve: %v", err)
		}
	})
	waitHealthy(t, "http://"+addr)
	return ctx
}

func waitHealthy(t *testing.T, base string) {
	t.Helper()
	waitfor.True(t, "the server becoming healthy", func() bool {
		resp, err := http.Get(base + "/healthz")
		if err != nil {
			return false
		}
		resp.Body.Close()
		return resp.StatusCode == 200
	})
}

func TestTicketsLintAndBench(t *testing.T) {
	t.Parallel()
	var out bytes.Buffer
	golden := "../../internal/tickets/heuristic/testdata/tickets-api.golden.json"
	if err := run(context.Background(), []string{"tickets", "lint", "--spec", "../../internal/tickets/heuristic/testdata/tickets-api.md", golden},
		envOf(nil), &out, &bytes.Buffer{}); err != nil {
		t.Fatalf("lint of a valid result: %v\n%s", err, out.String())
	}
	if !strings.Contains(out.String(), "coverage") || !strings.Contains(out.String(), "overall") {
		t.Errorf("lint printed %s", out.String())
	}
	bad := filepath.Join(t.TempDir(), "bad.json")
	os.WriteFile(bad, []byte(`{"schema_version":"tickets.result.v1","tickets":[]}`), 0o600)
	if err := run(context.Background(), []string{"tickets", "lint", bad}, envOf(nil), &bytes.Buffer{}, &bytes.Buffer{}); err == nil {
		t.Error("lint of an invalid result succeeded")
	}
	out.Reset()
	if err := run(context.Background(), []string{"tickets", "bench", "--dir", "../../internal/tickets/heuristic/testdata"}, envOf(nil), &out, &bytes.Buffer{}); err != nil {
		t.Fatalf("bench: %v", err)
	}
	if !strings.Contains(out.String(), "| tickets-api.md | 20 |") || !strings.Contains(out.String(), "Mean score of heuristic over 3 specs") {
		t.Errorf("bench printed %s", out.String())
	}
}

func TestTicketsMeasure(t *testing.T) {
	t.Parallel()
	var out bytes.Buffer
	if err := run(context.Background(), []string{"tickets", "measure", "--ref", "../../testdata/reference", "--baselines", "-v"}, envOf(nil), &out, &bytes.Buffer{}); err != nil {
		t.Fatalf("measure: %v\n%s", err, out.String())
	}
	for _, want := range []string{"| one-line.txt | heuristic | 1 |", "| **all 27 specs** | heuristic |", "| **all 5 specs** | good |", "| **all 27 specs** | headings |", "fleet-platform-prd.md (heuristic):"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("measure printed no %q:\n%s", want, out.String())
		}
	}
	if err := run(context.Background(), []string{"tickets", "measure", "--ref", t.TempDir()}, envOf(nil), &bytes.Buffer{}, &bytes.Buffer{}); err == nil {
		t.Error("measure of a directory without references succeeded")
	}
}
