package server_test

import (
	"math/rand/v2"
	"net/http"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/foresight-dev/foresight/internal/betting"
	"github.com/foresight-dev/foresight/internal/server"
)

// metricsSeries returns the foresight_http_requests_total series of a
// scrape, and fails the test unless the scrape answered 200.
func metricsSeries(t *testing.T, w *world, token string) []string {
	t.Helper()
	r := w.send("GET", "/metrics", token, nil)
	if r.status != http.StatusOK {
		t.Fatalf("GET /metrics = %d: %s", r.status, r.body)
	}
	var series []string
	for line := range strings.SplitSeq(string(r.body), "\n") {
		if strings.HasPrefix(line, "foresight_http_requests_total{") {
			series = append(series, line)
		}
	}
	return series
}

// TestMetricsMethodLabel sends requests with made-up methods: each must be
// counted under method "other", not add a series of its own.
func TestMetricsMethodLabel(t *testing.T) {
	t.Parallel()
	w := newWorld(t, "sqlite:"+filepath.Join(t.TempDir(), "foresight.db"), worldOptions{noWorkers: true})
	w.send("GET", "/tickets/v1/jobs", w.key, nil)
	before := metricsSeries(t, w, adminToken)
	letters := "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
	for range 50 {
		method := make([]byte, 40)
		for i := range method {
			method[i] = letters[rand.IntN(len(letters))]
		}
		w.send(string(method), "/tickets/v1/jobs", w.key, nil)
	}
	after := metricsSeries(t, w, adminToken)
	if len(after) > len(before)+1 {
		t.Errorf("50 requests with made-up methods added %d series, want at most 1 (method=\"other\")", len(after)-len(before))
	}
	method := regexp.MustCompile(`method="([^"]*)"`)
	for _, s := range after {
		switch m := method.FindStringSubmatch(s); {
		case m == nil:
			t.Errorf("series without a method label: %s", s)
		case !strings.Contains(" GET HEAD POST PUT PATCH DELETE CONNECT OPTIONS TRACE other ", " "+m[1]+" "):
			t.Errorf("method label %q is outside the closed set: %s", m[1], s)
		}
	}
}

// TestMetricsAccess: /metrics takes the metrics token or the admin token,
// 401 otherwise; /healthz stays open.
func TestMetricsAccess(t *testing.T) {
	t.Parallel()
	const metricsToken = "metrics-token-0123456789abcdef0123456789"
	w := newWorld(t, "sqlite:"+filepath.Join(t.TempDir(), "foresight.db"), worldOptions{noWorkers: true,
		config: func(c *server.Config) { c.MetricsToken = metricsToken }})
	for _, tt := range []struct {
		name, header string
		want         int
	}{
		{"no token", "", http.StatusUnauthorized},
		{"wrong token", "Bearer wrong-token", http.StatusUnauthorized},
		{"a ticket API key", "Bearer " + w.key, http.StatusUnauthorized},
		{"not a bearer token", "Basic " + metricsToken, http.StatusUnauthorized},
		{"metrics token", "Bearer " + metricsToken, http.StatusOK},
		{"admin token", "Bearer " + adminToken, http.StatusOK},
	} {
		r := w.send("GET", "/metrics", "", nil, "Authorization", tt.header)
		if r.status != tt.want {
			t.Errorf("%s: GET /metrics = %d, want %d", tt.name, r.status, tt.want)
		}
		if r.status == http.StatusUnauthorized && !strings.HasPrefix(r.header.Get("WWW-Authenticate"), "Bearer") {
			t.Errorf("%s: 401 without a Bearer challenge: %q", tt.name, r.header.Get("WWW-Authenticate"))
		}
	}
	if r := w.send("GET", "/healthz", "", nil); r.status != http.StatusOK {
		t.Errorf("GET /healthz without a token = %d, want 200", r.status)
	}
}

// metricValue returns the value of a series without labels in a scrape,
// "" when it is not there.
func metricValue(t *testing.T, w *world, name string) string {
	t.Helper()
	r := w.send("GET", "/metrics", adminToken, nil)
	if r.status != http.StatusOK {
		t.Fatalf("GET /metrics = %d: %s", r.status, r.body)
	}
	for line := range strings.SplitSeq(string(r.body), "\n") {
		if v, ok := strings.CutPrefix(line, name+" "); ok {
			return v
		}
	}
	return ""
}

// TestMetricsOddsStreamDrops: a subscriber of the odds streams' hub that
// falls behind is dropped, and /metrics counts it.
func TestMetricsOddsStreamDrops(t *testing.T) {
	t.Parallel()
	w := newWorld(t, "sqlite:"+filepath.Join(t.TempDir(), "foresight.db"), worldOptions{noWorkers: true})
	hub := w.srv.Betting().Hub()
	if got := metricValue(t, w, "foresight_odds_stream_drops_total"); got != "0" {
		t.Fatalf("drops before any = %q, want 0", got)
	}
	changes, stop := hub.Subscribe()
	defer stop()
	if got := metricValue(t, w, "foresight_odds_streams"); got != "1" {
		t.Errorf("streams open = %q, want 1", got)
	}
	t0 := time.Date(2026, 11, 26, 12, 0, 0, 0, time.UTC)
	// Never read: the hub drops the subscriber once its buffer is full.
	for i := 0; hub.Subscribers() > 0; i++ {
		if i == 10_000 {
			t.Fatalf("the hub still holds a subscriber %d changes behind", i)
		}
		hub.Publish(betting.Event{ID: "e", UpdatedAt: t0.Add(time.Duration(i) * time.Second)})
	}
	for range changes {
	}
	if got := metricValue(t, w, "foresight_odds_stream_drops_total"); got != "1" {
		t.Errorf("drops = %q, want 1", got)
	}
	if got := metricValue(t, w, "foresight_odds_streams"); got != "0" {
		t.Errorf("streams open after the drop = %q, want 0", got)
	}
}
