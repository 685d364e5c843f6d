package server_test

import (
	"bytes"
	"io"
	"log/slog"
	"net/http"
	"path/filepath"
	"strings"
	"testing"

	"github.com/foresight-dev/foresight/internal/logbuffer"
)

// TestServeLifecycle: a running server answers /favicon.ico with an icon,
// and says in its log when it starts stopping and when it has stopped.
func TestServeLifecycle(t *testing.T) {
	t.Parallel()
	logs := &logbuffer.Buffer{}
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
