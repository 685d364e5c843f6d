package admin

import (
	"bytes"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"
)

func TestPacedWriterDeadline(t *testing.T) {
	t.Parallel()
	start := time.Date(2026, 11, 27, 12, 0, 0, 0, time.UTC)
	p := &pacedWriter{start: start, grace: exportGrace, bytesPerSecond: exportMinRate}
	for _, c := range []struct {
		sent int64
		want time.Duration
	}{
		{0, time.Minute},
		{16 << 10, time.Minute + time.Second},
		{20 << 20, time.Minute + 1280*time.Second}, // 20 MiB, a large statement: 22 min 20 s at the slowest
	} {
		if got := p.deadline(c.sent).Sub(start); got != c.want {
			t.Errorf("deadline of %d bytes = start + %v, want start + %v", c.sent, got, c.want)
		}
	}
}

// TestPacedWriterEndsSlowReaders: over TCP, a client that reads an export
// slower than the minimum rate loses it, while one that reads at once
// gets it whole, though both take longer than the grace.
func TestPacedWriterEndsSlowReaders(t *testing.T) {
	t.Parallel()
	const size = 32 << 20 // more than the sockets' buffers hold
	chunk := bytes.Repeat([]byte("x"), 64<<10)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		p, err := newPacedWriter(w)
		if err != nil {
			t.Error(err)
			return
		}
		p.grace, p.bytesPerSecond = time.Second, 16<<20 // 3 s for the whole
		for sent := 0; sent < size; sent += len(chunk) {
			if _, err := p.Write(chunk); err != nil {
				return
			}
		}
	}))
	defer srv.Close()
	read := func(pause time.Duration) (int64, time.Duration) {
		start := time.Now()
		resp, err := http.Get(srv.URL)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var n int64
		buf := make([]byte, 64<<10)
		for {
			m, err := resp.Body.Read(buf)
			n += int64(m)
			if err != nil {
				return n, time.Since(start)
			}
			time.Sleep(pause)
		}
	}
	if n, took := read(0); n != size {
		t.Errorf("a client reading at once got %d bytes of %d in %v", n, size, took)
	}
	// 64 KiB every 20 ms: 3.2 MiB/s, a fifth of the minimum rate.
	if n, took := read(20 * time.Millisecond); n == size || took > 20*time.Second {
		t.Errorf("a client reading at a fifth of the minimum rate got %d bytes of %d in %v; want it cut after about 3 s", n, size, took)
	}
}
