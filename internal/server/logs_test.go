package server_test

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/foresight-dev/foresight/internal/logbuffer"
	"github.com/foresight-dev/foresight/internal/server"
	"github.com/foresight-dev/foresight/internal/waitfor"
)

// TestCallbackLogsHideTheToken: a callback that fails for good is logged
// (each failed attempt too, by the queue), but a token in the callback
// URL's path or query never appears in the logs.
func TestCallbackLogsHideTheToken(t *testing.T) {
	t.Parallel()
	var logs logbuffer.Buffer
	refused := &http.Transport{DialContext: func(context.Context, string, string) (net.Conn, error) {
		return nil, errors.New("connection refused")
	}}
	w := newWorld(t, "sqlite:"+filepath.Join(t.TempDir(), "foresight.db"), worldOptions{
		log: slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug})),
		config: func(c *server.Config) {
			c.CallbackTransport = refused
			c.Queue.CallbackRetries = []time.Duration{10 * time.Millisecond}
		}})
	id := w.submit("cb-logs", sampleSpec, map[string]any{"callback_url": "https://hooks.example.com/cb/path-s3cret?token=query-s3cret"})
	waitfor.Check(t, func() error {
		if !strings.Contains(logs.String(), "callback failed for good") {
			return fmt.Errorf("job %s: no \"callback failed for good\" in the logs:\n%s", id, logs.String())
		}
		return nil
	})
	if out := logs.String(); strings.Contains(out, "s3cret") {
		t.Errorf("the logs show the callback URL's token:\n%s", out)
	}
}
