package server_test

import (
	"bytes"
	"context"
	"io"
	"log/slog"
	"net"
	"net/http"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/foresight-dev/foresight/internal/server"
)

// lockedBuffer is a log destination the server and the test share.
type lockedBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *lockedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// TestServeLifecycle: a running server answers /favicon.ico with an icon,
// and says in its log when it starts stopping and when it has stopped.
func TestServeLifecycle(t *testing.T) {
	t.Parallel()
	logs := &lockedBuffer{}
	cfg := testConfig("sqlite:" + filepath.Join(t.TempDir(), "life.db"))
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	cfg.PublicURL = "http://" + l.Addr().String()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	srv, err := server.New(ctx, cfg, slog.New(slog.NewTextHandler(logs, nil)))
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	done := make(chan error, 1)
	go func() { done <- srv.Run(ctx, l) }()

	var resp *http.Response
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		if resp, err = http.Get(cfg.PublicURL + "/favicon.ico"); err == nil || time.Now().After(deadline) {
			break
		}
	}
	if err != nil {
		t.Fatal(err)
	}
	icon, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 || resp.Header.Get("Content-Type") != "image/x-icon" || !bytes.HasPrefix(icon, []byte{0, 0, 1, 0}) {
		t.Errorf("GET /favicon.ico = %d %s, %d bytes starting % x; want 200 image/x-icon with an ICO header",
			resp.StatusCode, resp.Header.Get("Content-Type"), len(icon), icon[:min(4, len(icon))])
	}

	cancel()
	if err := <-done; err != nil {
		t.Fatalf("Run: %v", err)
	}
	out := logs.String()
	stopping, stopped := strings.Index(out, "foresight stopping"), strings.Index(out, "foresight stopped")
	if stopping < 0 || stopped < stopping {
		t.Errorf("the log does not say the server is stopping, then stopped:\n%s", out)
	}
}
