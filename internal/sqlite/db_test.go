package sqlite_test

import (
	"context"
	"database/sql"
	"path/filepath"
	"testing"

	"github.com/foresight-dev/foresight/internal/sqlite"
)

// openDB opens (and migrates) the database file at path.
func openDB(t testing.TB, path string) *sqlite.DB {
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

// openBench opens a new database for the benchmark, closed when it ends.
func openBench(b *testing.B) *sqlite.DB {
	b.Helper()
	db := openDB(b, filepath.Join(b.TempDir(), "bench.db"))
	b.Cleanup(func() { db.Close() })
	return db
}

// openWithRaw opens a new database for the test and a second pool on
// its file, outside the store; both are closed when the test ends.
func openWithRaw(t *testing.T) (*sqlite.DB, *sql.DB) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "test.db")
	db := openDB(t, path)
	t.Cleanup(func() { db.Close() })
	raw, err := sql.Open("sqlite", "file:"+path+"?_pragma=busy_timeout(10000)")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { raw.Close() })
	return db, raw
}

// openWithExec opens a new database for the test, closed when it ends,
// and a function that runs a statement on it outside the store (to break
// what the store guards).
func openWithExec(t *testing.T) (*sqlite.DB, func(q string) error) {
	t.Helper()
	db, raw := openWithRaw(t)
	return db, func(q string) error {
		_, err := raw.Exec(q)
		return err
	}
}
