package postgres_test

import (
	"testing"

	"github.com/foresight-dev/foresight/internal/enginetest"
	"github.com/foresight-dev/foresight/internal/postgres/pgtest"
)

// TestMigrations runs the checks of the migrations that rewrite stored
// rows on PostgreSQL.
func TestMigrations(t *testing.T) {
	t.Parallel()
	enginetest.RunMigrations(t, enginetest.Migrations{
		NewDatabase: pgtest.NewDatabase,
		Open:        func(t *testing.T, url string) enginetest.Database { return openDB(t, url) },
		ExecAll:     execAll,
	})
}
