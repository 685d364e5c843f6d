package server_test

import (
	"fmt"
	"net/http"
	"path/filepath"
	"testing"

	"github.com/foresight-dev/foresight/internal/netguard/netguardtest"
	"github.com/foresight-dev/foresight/internal/server"
)

// TestCallbackHostResolvingToLoopback: a callback_url whose host name
// resolves to a loopback or private address is refused at submission
// (400 invalid_request, the ticket API's error shape); one that resolves
// to a public address, or not at all, is accepted.
func TestCallbackHostResolvingToLoopback(t *testing.T) {
	t.Parallel()
	w := newWorld(t, "sqlite:"+filepath.Join(t.TempDir(), "foresight.db"), worldOptions{noWorkers: true,
		config: func(c *server.Config) {
			c.CallbackResolver = netguardtest.Resolver{"loop.example.com": {"127.0.0.1"}, "intranet.example.com": {"192.168.1.20"},
				"public.example.com": {"93.184.216.34"}}
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
