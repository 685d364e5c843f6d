package server_test

import (
	"bytes"
	"io"
	"log/slog"
	"net/http"
	"path/filepath"
	"strings"
	"sync"
	"testing"
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
	w := newWorld(t, "sqlite:"+filepath.Join(t.TempDir(), "life.db"), worldOptions{log: slog.New(slog.NewTextHandler(logs, nil))})
	resp, err := http.Get(w.url + "/favicon.ico")
	if err != nil {
		t.Fatal(err)
	}
	icon, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 || resp.Header.Get("Content-Type") != "image/x-icon" || !bytes.HasPrefix(icon, []byte{0, 0, 1, 0}) {
		t.Errorf("GET /favicon.ico = %d %s, %d bytes starting % x; want 200 image/x-icon with an ICO header",
			resp.StatusCode, resp.Header.Get("Content-Type"), len(icon), icon[:min(4, len(icon))])
	}

	w.stop()
	out := logs.String()
	stopping, stopped := strings.Index(out, "foresight stopping"), strings.Index(out, "foresight stopped")
	if stopping < 0 || stopped < stopping {
		t.Errorf("the log does not say the server is stopping, then stopped:\n%s", out)
	}
}
