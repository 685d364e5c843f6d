package postgres_test

import (
	"context"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/foresight-dev/foresight/internal/audit/audittest"
	"github.com/foresight-dev/foresight/internal/postgres"
	"github.com/foresight-dev/foresight/internal/postgres/pgtest"
)

// TestAuditRefusesTruncate: TRUNCATE, which row triggers do not see, is
// refused too.
func TestAuditRefusesTruncate(t *testing.T) {
	t.Parallel()
	url := pgtest.NewDatabase(t)
	db, err := postgres.Open(context.Background(), url, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	conn, err := pgx.Connect(context.Background(), url)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(context.Background())
	if _, err := conn.Exec(context.Background(), `TRUNCATE audit_entries`); err == nil {
		t.Error("TRUNCATE audit_entries: accepted")
	}
}

func BenchmarkAudit(b *testing.B) {
	db, err := postgres.Open(context.Background(), pgtest.NewDatabase(b), nil)
	if err != nil {
		b.Fatal(err)
	}
	defer db.Close()
	audittest.Benchmark(b, db.AuditStore())
}
