// Package servertest starts a Foresight server in-process for the tests of
// other packages: on a loopback port, with a fresh SQLite database, until
// the test ends.
package servertest

import (
	"context"
	"net"
	"net/http"
	"path/filepath"
	"testing"

	"github.com/foresight-dev/foresight/internal/server"
)

// Loopback returns a listener on a free loopback port and the
// configuration of a server behind it: its public URL the listener's
// (http://127.0.0.1:port), a fresh SQLite database named db in t's
// temporary directory, adminToken, no rate limits, and http:// and
// loopback partner URLs accepted (FORESIGHT_DEV_ALLOW_INSECURE). A
// listener that cannot be opened fails t.
func Loopback(t testing.TB, db, adminToken string) (server.Config, net.Listener) {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	cfg := server.DefaultConfig()
	cfg.DatabaseURL = "sqlite:" + filepath.Join(t.TempDir(), db)
	cfg.AdminToken = adminToken
	cfg.PublicURL = "http://" + l.Addr().String()
	cfg.RateLimit = 0
	cfg.LauncherRateLimit = 0
	cfg.BetRateLimit = 0
	cfg.DevAllowInsecure = true
	return cfg, l
}

// Run runs the server of cfg on l, every API and its background workers,
// until the test ends; an error of Run when it stops fails t.
func Run(t testing.TB, cfg server.Config, l net.Listener) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	srv := newServer(ctx, t, cfg, l, cancel)
	done := make(chan error, 1)
	go func() { done <- srv.Run(ctx, l) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("server.Run: %v", err)
		}
		srv.Close()
	})
}

// ServeAPIs serves the APIs of the server of cfg on l, without its
// background workers, until the test ends.
func ServeAPIs(t testing.TB, cfg server.Config, l net.Listener) {
	t.Helper()
	srv := newServer(context.Background(), t, cfg, l, func() {})
	hs := &http.Server{Handler: srv.Handler()}
	done := make(chan error, 1)
	go func() { done <- hs.Serve(l) }()
	t.Cleanup(func() {
		hs.Close()
		<-done
		srv.Close()
	})
}

// newServer is server.New of cfg; when it fails, it calls cancel, closes l
// and fails t.
func newServer(ctx context.Context, t testing.TB, cfg server.Config, l net.Listener, cancel func()) *server.Server {
	t.Helper()
	srv, err := server.New(ctx, cfg, nil)
	if err != nil {
		cancel()
		l.Close()
		t.Fatalf("server.New: %v", err)
	}
	return srv
}
