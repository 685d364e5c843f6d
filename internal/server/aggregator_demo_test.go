package server_test

import (
	"testing"

	"github.com/foresight-dev/foresight/internal/server"
)

// TestAggregatorDemoTokensDiffer: demo launches exchanged back to back
// (at least two of three in the same second) give different session
// tokens, so that demo players do not share a token's bound of open
// streams.
func TestAggregatorDemoTokensDiffer(t *testing.T) {
	t.Parallel()
	aw := newAggWorld(t, "sqlite:"+t.TempDir()+"/f.db", func(c *server.Config) { c.LauncherRateLimit = 0 })
	launches := []response{aw.launchDemo(), aw.launchDemo(), aw.launchDemo()}
	seen := map[string]int{}
	for i, l := range launches {
		token := aw.exchange(l)
		if first, ok := seen[token]; ok {
			t.Errorf("demo launches %d and %d were given the same session token", first+1, i+1)
			continue
		}
		seen[token] = i
	}
}

// TestAggregatorDemoStreamConnectRate: a demo player that opens more odds
// streams in a row than its burst gets 429, and another demo player of the
// same aggregator still connects: demo players, who have no bettor id, do
// not share one budget of stream connections.
func TestAggregatorDemoStreamConnectRate(t *testing.T) {
	t.Parallel()
	aw := newAggWorld(t, "sqlite:"+t.TempDir()+"/f.db", func(c *server.Config) {
		c.LauncherRateLimit = 0
		c.OddsStreamRateLimit, c.OddsStreamRateBurst = 0.001, 3 // no token back during the test
	})
	busy, other := aw.exchange(aw.launchDemo()), aw.exchange(aw.launchDemo())
	for i := range 3 {
		resp, s := dialStream(t, aw.url, busy)
		if s == nil {
			t.Fatalf("demo stream %d = %d, want 200", i+1, resp.StatusCode)
		}
		s.resp.Body.Close()
	}
	if resp, s := dialStream(t, aw.url, busy); s != nil || resp.StatusCode != 429 {
		t.Fatalf("a demo stream past the burst = %d, want 429", resp.StatusCode)
	}
	if resp, s := dialStream(t, aw.url, other); s == nil {
		t.Errorf("another demo player's stream = %d, want 200", resp.StatusCode)
	}
}

// TestAggregatorDemoHasNoProfile: a demo session's profile read is 403 and
// creates no bettor (the contract: a demo creates no bettor; the read
// created one without an id, and answered it against the schema).
func TestAggregatorDemoHasNoProfile(t *testing.T) {
	t.Parallel()
	aw := newAggWorld(t, "sqlite:"+t.TempDir()+"/f.db", nil)
	token := aw.exchange(aw.launchDemo())
	if me := aw.api("GET", "/api/v1/auth/me", token, ""); me.status != 403 {
		t.Errorf("a demo session's profile = %d %s, want 403", me.status, me.body)
	}
	if st, list := aw.admin("GET", "/admin/v1/bettors?operator_id=agg", ""); st != 200 || len(list["items"].([]any)) != 0 {
		t.Errorf("bettors of the aggregator after a demo's profile read = %d %v, want none", st, list)
	}
}
