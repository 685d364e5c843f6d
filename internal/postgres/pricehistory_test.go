package postgres_test

import (
	"context"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/foresight-dev/foresight/internal/betting"
	"github.com/foresight-dev/foresight/internal/betting/bettingtest"
	"github.com/foresight-dev/foresight/internal/postgres"
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

// openDB opens (and migrates) the database at url.
func openDB(t *testing.T, url string) *postgres.DB {
	t.Helper()
	db, err := postgres.Open(context.Background(), url, nil)
	if err != nil {
		t.Fatal(err)
	}
	return db
}

// execAll runs each statement on the database at url, outside the store
// (to undo a migration).
func execAll(t *testing.T, url string, statements ...string) {
	t.Helper()
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	for _, q := range statements {
		if _, err := conn.Exec(ctx, q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
}
