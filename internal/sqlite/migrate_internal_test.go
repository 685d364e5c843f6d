package sqlite

import (
	"context"
	"path/filepath"
	"testing"
	"testing/fstest"
)

// TestMigrationWithTrigger: a migration file is run as SQLite reads it, so
// a trigger whose body holds semicolons (the runner used to split files
// at every ";\n") is created whole, and a file is applied once.
func TestMigrationWithTrigger(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	d, err := Open(ctx, filepath.Join(t.TempDir(), "m.db"), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	files := fstest.MapFS{"9999_trigger.sql": {Data: []byte(`CREATE TABLE t_items (id INTEGER PRIMARY KEY, n INTEGER NOT NULL);
CREATE TABLE t_log (item INTEGER NOT NULL, note TEXT NOT NULL);
CREATE TRIGGER t_items_logged AFTER INSERT ON t_items
BEGIN
  INSERT INTO t_log (item, note) VALUES (NEW.id, 'added; first');
  INSERT INTO t_log (item, note) VALUES (NEW.id, 'added; second');
END;
`)}}
	for range 2 {
		if err := d.migrateFiles(ctx, files, "*.sql"); err != nil {
			t.Fatalf("migrate: %v", err)
		}
	}
	if _, err := d.writer.db.ExecContext(ctx, `INSERT INTO t_items (id, n) VALUES (1, 7)`); err != nil {
		t.Fatal(err)
	}
	var logged int
	if err := d.writer.db.QueryRowContext(ctx, `SELECT count(*) FROM t_log WHERE item = 1`).Scan(&logged); err != nil {
		t.Fatal(err)
	}
	if logged != 2 {
		t.Errorf("the trigger logged %d rows, want 2", logged)
	}
}
