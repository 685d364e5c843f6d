package sqlite_test

import (
	"context"
	"database/sql"
	"path/filepath"
	"testing"

	"github.com/foresight-dev/foresight/internal/audit/audittest"
	"github.com/foresight-dev/foresight/internal/sqlite"
)

func TestAuditStore(t *testing.T) {
	t.Parallel()
	audittest.Run(t, func(t *testing.T) audittest.Database {
		path := filepath.Join(t.TempDir(), "test.db")
		db, err := sqlite.Open(context.Background(), path, nil)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { db.Close() })
		raw, err := sql.Open("sqlite", "file:"+path+"?_pragma=busy_timeout(10000)")
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { raw.Close() })
		return audittest.Database{Store: db.AuditStore(), Exec: func(q string) error {
			_, err := raw.Exec(q)
			return err
		}}
	})
}

func BenchmarkAudit(b *testing.B) {
	db, err := sqlite.Open(context.Background(), filepath.Join(b.TempDir(), "bench.db"), nil)
	if err != nil {
		b.Fatal(err)
	}
	defer db.Close()
	audittest.Benchmark(b, db.AuditStore())
}
