package sqlite_test

import (
	"context"
	"database/sql"
	"path/filepath"
	"testing"

	"github.com/foresight-dev/foresight/internal/betting"
	"github.com/foresight-dev/foresight/internal/betting/bettingtest"
	"github.com/foresight-dev/foresight/internal/sqlite"
)

func TestPriceHistoryMigration(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "test.db")
	bettingtest.RunPriceHistoryMigration(t, func(t *testing.T) (betting.Store, func()) {
		db := openDB(t, path)
		return db.BettingStore(), func() { db.Close() }
	}, func(t *testing.T) {
		execAll(t, path, `DROP TABLE betting_price_points`, `DELETE FROM foresight_migrations WHERE name = 'migration/0007_price_history.sql'`)
	})
}

func TestRollbackOwedMigration(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "test.db")
	bettingtest.RunRollbackOwedMigration(t, func(t *testing.T) (betting.BetStore, func()) {
		db := openDB(t, path)
		return db.BetStore(), func() { db.Close() }
	}, func(t *testing.T) {
		execAll(t, path, `ALTER TABLE betting_bets DROP COLUMN rollback_owed`, `DELETE FROM foresight_migrations WHERE name = 'migration/0015_rollback_owed.sql'`)
	})
}

// openDB opens (and migrates) the database file at path.
func openDB(t *testing.T, path string) *sqlite.DB {
	t.Helper()
	db, err := sqlite.Open(context.Background(), path, nil)
	if err != nil {
		t.Fatal(err)
	}
	return db
}

// execAll runs each statement on the database file at path, outside the
// store (to undo a migration).
func execAll(t *testing.T, path string, statements ...string) {
	t.Helper()
	raw, err := sql.Open("sqlite", "file:"+path)
	if err != nil {
		t.Fatal(err)
	}
	defer raw.Close()
	for _, q := range statements {
		if _, err := raw.Exec(q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
}
