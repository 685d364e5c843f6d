package feed_test

import (
	"context"
	"testing"

	"github.com/foresight-dev/foresight/internal/betting"
	"github.com/foresight-dev/foresight/internal/feed"
)

// TestSyncRecordsPriceHistory: a fed market's history starts at its import
// and gains a point when the source's probabilities change, none when they
// do not.
func TestSyncRecordsPriceHistory(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	c := newCatalog(t)
	marketID := feed.MarketID("simulator", "m")
	history := func() []betting.PricePoint {
		t.Helper()
		points, err := c.PriceHistory(ctx, betting.PriceHistoryFilter{MarketID: marketID, Limit: 100})
		if err != nil {
			t.Fatal(err)
		}
		return points
	}
	for _, step := range []struct {
		yes, no string
		points  int
	}{{"0.40", "0.60", 1}, {"0.40", "0.60", 1}, {"0.45", "0.55", 2}, {"0.45", "0.55", 2}, {"0.5", "0.5", 3}} {
		if _, _, err := feed.Sync(ctx, c, "simulator", event("e", binary("m", feed.Open, step.yes, step.no))); err != nil {
			t.Fatal(err)
		}
		h := history()
		if len(h) != step.points || !h[len(h)-1].Outcomes[0].Probability.Equal(d(step.yes)) {
			t.Fatalf("after the source's %s/%s: %d points, last %+v; want %d ending with %s", step.yes, step.no, len(h), h[len(h)-1], step.points, step.yes)
		}
	}
}
