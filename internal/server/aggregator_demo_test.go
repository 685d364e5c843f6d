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
