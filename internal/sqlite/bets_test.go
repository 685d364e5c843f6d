package sqlite_test

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/foresight-dev/foresight/internal/betting"
)

// TestOperatorBetListReadsAnIndex checks that a page of an operator's
// bets, newest first, is read in order from an index rather than by
// sorting every bet of the operator (a temporary B-tree): at 100,000 bets
// the sort made each page of the admin API's list take a third of a
// second, and the whole list minutes.
func TestOperatorBetListReadsAnIndex(t *testing.T) {
	t.Parallel()
	db := openDB(t, filepath.Join(t.TempDir(), "test.db"))
	t.Cleanup(func() { db.Close() })
	for name, f := range map[string]betting.BetFilter{
		"first page": {OperatorID: "acme", Limit: 101},
		"next page":  {OperatorID: "acme", Limit: 101, BeforeCreatedAt: time.Now(), BeforeID: uuid.NewString()},
		"by status":  {OperatorID: "acme", Statuses: []betting.BetStatus{betting.BetSettled}, Limit: 101},
	} {
		plan, err := db.ExplainListBets(context.Background(), f)
		if err != nil {
			t.Fatal(err)
		}
		if joined := strings.Join(plan, "; "); strings.Contains(joined, "TEMP B-TREE") || !strings.Contains(joined, "INDEX") {
			t.Errorf("%s: the plan sorts instead of reading an index in order: %s", name, joined)
		}
	}
}
