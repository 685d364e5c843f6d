package sqlite_test

import (
	"path/filepath"
	"testing"

	"github.com/foresight-dev/foresight/internal/enginetest"
)

// TestMigrations runs the checks of the migrations that rewrite stored
// rows on SQLite.
func TestMigrations(t *testing.T) {
	t.Parallel()
	enginetest.RunMigrations(t, enginetest.Migrations{
		NewDatabase: func(t testing.TB) string { return filepath.Join(t.TempDir(), "test.db") },
		Open:        func(t *testing.T, path string) enginetest.Database { return openDB(t, path) },
		ExecAll:     execAll,
	})
}
