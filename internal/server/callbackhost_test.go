package server_test

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"path/filepath"
	"testing"

	"github.com/foresight-dev/foresight/internal/server"
)

// namesResolver answers the names of its table; other names do not
// resolve.
type namesResolver map[string]string

func (r namesResolver) LookupNetIP(_ context.Context, _, host string) ([]netip.Addr, error) {
	a, ok := r[host]
	if !ok {
		return nil, &net.DNSError{Err: "no such host", Name: host, IsNotFound: true}
	}
	return []netip.Addr{netip.MustParseAddr(a)}, nil
}

// TestCallbackHostResolvingToLoopback: a callback_url whose host name
// resolves to a loopback or private address is refused at submission
// (400 invalid_request, the ticket API's error shape); one that resolves
// to a public address, or not at all, is accepted.
func TestCallbackHostResolvingToLoopback(t *testing.T) {
	t.Parallel()
	w := newWorld(t, "sqlite:"+filepath.Join(t.TempDir(), "foresight.db"), worldOptions{noWorkers: true,
		config: func(c *server.Config) {
			c.CallbackResolver = namesResolver{"loop.example.com": "127.0.0.1", "intranet.example.com": "192.168.1.20",
				"public.example.com": "93.184.216.34"}
		}})
	for i, tt := range []struct {
		url  string
		want int
	}{
		{"https://loop.example.com/cb", http.StatusBadRequest},
		{"https://LOOP.Example.com./cb", http.StatusBadRequest},
		{"https://intranet.example.com/cb", http.StatusBadRequest},
		{"https://public.example.com/cb", http.StatusAccepted},
		{"https://unresolved.example.com/cb", http.StatusAccepted},
	} {
		body := submitBody(fmt.Sprint("resolve-", i), sampleSpec, map[string]any{"callback_url": tt.url})
		r := w.do("POST", "/tickets/v1/jobs", w.key, body)
		if r.status != tt.want {
			t.Errorf("%s: %d %s; want %d", tt.url, r.status, r.body, tt.want)
			continue
		}
		if tt.want == http.StatusBadRequest && r.errorCode(t) != "invalid_request" {
			t.Errorf("%s: error %s; want invalid_request", tt.url, r.body)
		}
	}
}
