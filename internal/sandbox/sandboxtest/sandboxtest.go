// Package sandboxtest runs the real Foresight platform in-process, on
// loopback and SQLite, for the tests of the sandbox partners: a partner's
// registration goes through the platform's admin API and its lobby calls
// the platform's own launcher, so the tests check the partner against the
// platform's real code (signatures, paths, bodies) rather than a copy.
package sandboxtest

import (
	"bytes"
	"context"
	"io"
	"net"
	"net/http"
	"path/filepath"
	"testing"

	"github.com/foresight-dev/foresight/internal/server"
)

// AdminToken is the platform's admin token.
const AdminToken = "sandbox-test-admin-token"

// Platform is a running platform.
type Platform struct {
	// URL is its base URL (FORESIGHT_PUBLIC_URL), http://127.0.0.1:port.
	URL string
}

// StartPlatform serves a platform (every API, no background workers) with
// a fresh SQLite database until the test ends. Partner URLs may be http://
// and loopback (FORESIGHT_DEV_ALLOW_INSECURE) and the launcher has no rate
// limit.
func StartPlatform(t testing.TB) *Platform {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	cfg := server.DefaultConfig()
	cfg.DatabaseURL = "sqlite:" + filepath.Join(t.TempDir(), "platform.db")
	cfg.AdminToken = AdminToken
	cfg.PublicURL = "http://" + l.Addr().String()
	cfg.DevAllowInsecure = true
	cfg.RateLimit = 0
	cfg.LauncherRateLimit = 0
	srv, err := server.New(context.Background(), cfg, nil)
	if err != nil {
		l.Close()
		t.Fatalf("server.New: %v", err)
	}
	hs := &http.Server{Handler: srv.Handler()}
	done := make(chan error, 1)
	go func() { done <- hs.Serve(l) }()
	t.Cleanup(func() {
		hs.Close()
		<-done
		srv.Close()
	})
	return &Platform{URL: cfg.PublicURL}
}

// Admin calls the admin API with the platform's token and returns the
// status and body.
func (p *Platform) Admin(t testing.TB, method, path string, body []byte) (int, []byte) {
	t.Helper()
	req, err := http.NewRequest(method, p.URL+path, bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+AdminToken)
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode, b
}
