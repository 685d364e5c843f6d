package streamload

import (
	"bytes"
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/foresight-dev/foresight/internal/loadtest/betload"
)

// TestRun measures a few streams of a server in this process over either
// protocol: every change reaches every stream, and HTTP/2 shares one
// connection.
func TestRun(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		http2 bool
		want  []string
	}{
		{false, []string{"5 streams over HTTP/1.1", "(TCP connections: 5 open", "10 of 10 deliveries"}},
		{true, []string{"5 streams over HTTP/2", "(TCP connections: 1 open", "10 of 10 deliveries"}},
	} {
		url := "sqlite:" + filepath.Join(t.TempDir(), "load.db")
		w, err := betload.Start(context.Background(), betload.Config{DatabaseURL: url, DatabaseName: url, Target: betload.Target{WalletListen: "127.0.0.1:0"}, Conns: 8})
		if err != nil {
			t.Fatal(err)
		}
		var report bytes.Buffer
		err = Run(context.Background(), w, Options{Streams: 5, Changes: 2, Interval: 20 * time.Millisecond, HTTP2: tc.http2}, &report)
		w.Close()
		if err != nil {
			t.Fatalf("%v\n%s", err, report.String())
		}
		for _, want := range tc.want {
			if !strings.Contains(report.String(), want) {
				t.Errorf("report\n%s\nwithout %q", report.String(), want)
			}
		}
	}
}
