package postgres_test

import (
	"context"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/foresight-dev/foresight/internal/postgres"
	"github.com/foresight-dev/foresight/internal/postgres/pgtest"
)

// openDB opens (and migrates) the database at url.
func openDB(t testing.TB, url string) *postgres.DB {
	t.Helper()
	db, err := postgres.Open(context.Background(), url, nil)
	if err != nil {
		t.Fatal(err)
	}
	return db
}

// openBench opens a new database for the benchmark, closed when it ends.
func openBench(b *testing.B) *postgres.DB {
	b.Helper()
	db := openDB(b, pgtest.NewDatabase(b))
	b.Cleanup(func() { db.Close() })
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

// openWithExec opens a new database for the test, closed when it ends,
// and a function that runs a statement on it outside the store (to break
// what the store guards).
func openWithExec(t *testing.T) (*postgres.DB, func(q string) error) {
	t.Helper()
	url := pgtest.NewDatabase(t)
	db := openDB(t, url)
	t.Cleanup(func() { db.Close() })
	return db, func(q string) error {
		conn, err := pgx.Connect(context.Background(), url)
		if err != nil {
			return err
		}
		defer conn.Close(context.Background())
		_, err = conn.Exec(context.Background(), q)
		return err
	}
}
