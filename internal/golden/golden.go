// Package golden compares a test's output with a golden file, and rewrites
// the file instead when the test binary runs with -update.
package golden

import (
	"bytes"
	"flag"
	"os"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata")

// Check compares got with the file at path. With -update it writes got to
// path instead. A missing file, a difference or a failed write fails t; a
// difference is to be reviewed after go test -update, in the file's diff.
func Check(t testing.TB, path string, got []byte) {
	t.Helper()
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("the output differs from %s; run go test -update and review the diff", path)
	}
}
