package sqlite_test

import (
	"path/filepath"
	"testing"

	"github.com/foresight-dev/foresight/internal/betting"
	"github.com/foresight-dev/foresight/internal/betting/bettingtest"
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
