package postgres_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/foresight-dev/foresight/internal/betting"
	"github.com/foresight-dev/foresight/internal/postgres/pgtest"
)

// TestOperatorBetListReadsAnIndex checks that a page of an operator's
// bets, newest first, is read in order from an index rather than by
// sorting every bet of the operator: at 100,000 bets the sort made the
// admin API's whole list take minutes.
func TestOperatorBetListReadsAnIndex(t *testing.T) {
	t.Parallel()
	db := openDB(t, pgtest.NewDatabase(t))
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
		if joined := strings.Join(plan, "; "); strings.Contains(joined, "Sort") || !strings.Contains(joined, "Index") {
			t.Errorf("%s: the plan sorts instead of reading an index in order: %s", name, joined)
		}
	}
}
