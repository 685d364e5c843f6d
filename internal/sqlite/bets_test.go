package sqlite_test

import (
	"path/filepath"
	"testing"

	"github.com/foresight-dev/foresight/internal/enginetest"
)

// TestOperatorBetListReadsAnIndex checks ListBetsReadsAnIndex on SQLite,
// which sorts in a temporary B-tree: at 100,000 bets, a third of a second
// for each page.
func TestOperatorBetListReadsAnIndex(t *testing.T) {
	t.Parallel()
	db := openDB(t, filepath.Join(t.TempDir(), "test.db"))
	t.Cleanup(func() { db.Close() })
	enginetest.ListBetsReadsAnIndex(t, db.ExplainListBets, "TEMP B-TREE", "INDEX")
}
