package backofficetest

import (
	"context"
	"net"
	"net/http/httptest"
	"path/filepath"
	"testing"
	"time"

	"github.com/foresight-dev/foresight/internal/admin"
	"github.com/foresight-dev/foresight/internal/sandbox/operator"
	"github.com/foresight-dev/foresight/internal/server"
)

const (
	adminToken    = "backoffice-test-admin-token"
	signingSecret = "sandbox-signing-secret-0123"
)

// world is a running Foresight server (SQLite) on loopback and its admin
// API client, with the sandbox operator's wallet served beside it (not yet
// registered: tests register it when they need bets).
type world struct {
	t       *testing.T
	url     string // the platform's base URL
	admin   *admin.Client
	op      *operator.Operator
	partner string // the sandbox operator's base URL
}

func newWorld(t *testing.T) *world {
	t.Helper()
	needBrowser(t)
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	cfg := server.DefaultConfig()
	cfg.DatabaseURL = "sqlite:" + filepath.Join(t.TempDir(), "foresight.db")
	cfg.AdminToken = adminToken
	cfg.PublicURL = "http://" + l.Addr().String()
	cfg.RateLimit = 0
	cfg.DevAllowInsecure = true
	cfg.Queue.PollInterval = 50 * time.Millisecond
	ctx, cancel := context.WithCancel(context.Background())
	srv, err := server.New(ctx, cfg, nil)
	if err != nil {
		cancel()
		t.Fatalf("server.New: %v", err)
	}
	done := make(chan error, 1)
	go func() { done <- srv.Run(ctx, l) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("server.Run: %v", err)
		}
		srv.Close()
	})
	op, err := operator.New(operator.Config{ID: "sandbox", SigningSecret: signingSecret})
	if err != nil {
		t.Fatal(err)
	}
	partner := httptest.NewServer(op.Handler())
	t.Cleanup(partner.Close)
	return &world{t: t, url: cfg.PublicURL, admin: &admin.Client{BaseURL: cfg.PublicURL, Token: adminToken}, op: op, partner: partner.URL}
}

// call sends an admin request and fails the test on an error answer.
func (w *world) call(method, path string, body, out any) {
	w.t.Helper()
	if err := w.admin.Do(context.Background(), method, path, body, out); err != nil {
		w.t.Fatalf("%s %s: %v", method, path, err)
	}
}

// signIn opens the backoffice in a new tab and signs in with the admin
// token.
func (w *world) signIn() *tab {
	w.t.Helper()
	tb := newTab(w.t)
	tb.navigate(w.url + "/backoffice/")
	tb.waitFor("the sign-in form", "document.body.dataset.ready === 'true' && !document.getElementById('signin').hidden")
	tb.typeIn("#token", adminToken)
	tb.click("#signin-submit")
	tb.waitFor("the signed-in page", "document.body.dataset.signedIn === 'true'")
	return tb
}
