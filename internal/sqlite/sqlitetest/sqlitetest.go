// Package sqlitetest gives tests a throwaway SQLite store, as pgtest gives
// them a PostgreSQL database.
package sqlitetest

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/foresight-dev/foresight/internal/sqlite"
)

// Open opens (and migrates) a new SQLite database in the test's
// temporary directory, closed when the test ends. It fails the test when
// the database cannot be opened.
func Open(t testing.TB) *sqlite.DB {
	t.Helper()
	db, err := sqlite.Open(context.Background(), filepath.Join(t.TempDir(), "test.db"), nil)
	if err != nil {
		t.Fatalf("open a SQLite store: %v", err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}
