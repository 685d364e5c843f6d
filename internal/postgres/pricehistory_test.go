package postgres_test

import (
	"testing"

	"github.com/foresight-dev/foresight/internal/betting"
	"github.com/foresight-dev/foresight/internal/betting/bettingtest"
	"github.com/foresight-dev/foresight/internal/postgres/pgtest"
)

func TestPriceHistoryMigration(t *testing.T) {
	t.Parallel()
	url := pgtest.NewDatabase(t)
	bettingtest.RunPriceHistoryMigration(t, func(t *testing.T) (betting.Store, func()) {
		db := openDB(t, url)
		return db.BettingStore(), func() { db.Close() }
	}, func(t *testing.T) {
		execAll(t, url, `DROP TABLE betting_price_points`, `DELETE FROM foresight_migrations WHERE name = 'migration/0007_price_history.sql'`)
	})
}

func TestRollbackOwedMigration(t *testing.T) {
	t.Parallel()
	url := pgtest.NewDatabase(t)
	bettingtest.RunRollbackOwedMigration(t, func(t *testing.T) (betting.BetStore, func()) {
		db := openDB(t, url)
		return db.BetStore(), func() { db.Close() }
	}, func(t *testing.T) {
		execAll(t, url, `ALTER TABLE betting_bets DROP COLUMN rollback_owed`, `DELETE FROM foresight_migrations WHERE name = 'migration/0015_rollback_owed.sql'`)
	})
}
