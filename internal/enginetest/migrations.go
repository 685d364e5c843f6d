package enginetest

import (
	"testing"

	"github.com/foresight-dev/foresight/internal/betting/bettingtest"
)

// Migrations is an engine under test whose databases can be closed,
// changed outside the stores and opened again: what the checks of a
// migration that rewrites the rows stored before it need.
type Migrations struct {
	// NewDatabase creates an empty database for the test and returns its
	// name (a file's path, a URL).
	NewDatabase func(t testing.TB) string
	// Open opens the named database, applying the migrations.
	Open func(t *testing.T, name string) Database
	// ExecAll runs each statement on the named database outside the
	// stores, failing the test at the first error.
	ExecAll func(t *testing.T, name string, statements ...string)
}

// Database is an open database of an engine: its stores, until Close.
type Database interface {
	Stores
	Close() error
}

// RunMigrations runs the check of each migration that rewrites what was
// stored before it, in a parallel subtest with a database of its own:
// the start of the odds history (bettingtest.RunPriceHistoryMigration)
// and Bet.RollbackOwed (bettingtest.RunRollbackOwedMigration). A
// migration is undone by the same statements on every engine: one drops
// what it added, one deletes its record.
func RunMigrations(t *testing.T, m Migrations) {
	for _, c := range []struct {
		name, undo, file string
		run              func(t *testing.T, open reopen, forget func(t *testing.T))
	}{
		{"PriceHistory", `DROP TABLE betting_price_points`, "0007_price_history.sql", func(t *testing.T, open reopen, forget func(t *testing.T)) {
			bettingtest.RunPriceHistoryMigration(t, storeOf(open, Stores.BettingStore), forget)
		}},
		{"RollbackOwed", `ALTER TABLE betting_bets DROP COLUMN rollback_owed`, "0015_rollback_owed.sql", func(t *testing.T, open reopen, forget func(t *testing.T)) {
			bettingtest.RunRollbackOwedMigration(t, storeOf(open, Stores.BetStore), forget)
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			name := m.NewDatabase(t)
			c.run(t, func(t *testing.T) Database { return m.Open(t, name) }, func(t *testing.T) {
				m.ExecAll(t, name, c.undo, `DELETE FROM foresight_migrations WHERE name = 'migration/`+c.file+`'`)
			})
		})
	}
}

// reopen opens the one database of a migration's check again.
type reopen func(t *testing.T) Database

// storeOf returns the open function of a migration's check: it opens the
// database and returns the store that store picks and a function that
// closes the database.
func storeOf[S any](open reopen, store func(Stores) S) func(t *testing.T) (S, func()) {
	return func(t *testing.T) (S, func()) {
		db := open(t)
		return store(db), func() { db.Close() }
	}
}
