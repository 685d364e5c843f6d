package rowscan_test

import (
	"testing"
	"time"

	"github.com/foresight-dev/foresight/internal/rowscan"
)

// TestColumns reads the engine-neutral destinations from SQLite's
// encodings (PostgreSQL's are read by the store conformance suites).
func TestColumns(t *testing.T) {
	db := memoryDB(t)
	at := time.Date(2026, 11, 27, 3, 4, 5, 6000, time.UTC)
	var tm time.Time
	var nt *time.Time
	var s string
	if err := db.QueryRow(`SELECT ?, ?, 'text'`, at.UnixMicro(), at.UnixMicro()).Scan(rowscan.Time(&tm), rowscan.NullTime(&nt), rowscan.Text(&s)); err != nil {
		t.Fatal(err)
	}
	if !tm.Equal(at) || tm.Location() != time.UTC || nt == nil || !nt.Equal(at) || s != "text" {
		t.Errorf("read %v, %v, %q; want %v twice and \"text\"", tm, nt, s, at)
	}
	s = "before"
	if err := db.QueryRow(`SELECT NULL, NULL`).Scan(rowscan.NullTime(&nt), rowscan.Text(&s)); err != nil || nt != nil || s != "" {
		t.Errorf("NULLs read %v, %q, %v; want nil, \"\"", nt, s, err)
	}
	if err := db.QueryRow(`SELECT NULL`).Scan(rowscan.Time(&tm)); err == nil {
		t.Error("NULL read as a time without an error")
	}
	if err := db.QueryRow(`SELECT 1.5`).Scan(rowscan.Time(&tm)); err == nil {
		t.Error("a float read as a time without an error")
	}
}
