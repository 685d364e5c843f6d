package simulator

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata")

// TestGolden compares the events on offer for seed 1 at testStart with
// testdata/poll.golden: any change of the templates, the vocabulary, the
// schedule or the prices shows in its diff. Run go test -update to rewrite
// it, review the diff, and bump catalogVersion if existing keys changed
// meaning.
func TestGolden(t *testing.T) {
	s, _ := newSource(t, Config{Seed: 1, ImageBaseURL: "https://demo.example/feed/simulator/images"})
	got, err := json.MarshalIndent(poll(t, s), "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	got = append(got, '\n')
	path := filepath.Join("testdata", "poll.golden")
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
		t.Errorf("Poll differs from %s; run go test -update and review the diff", path)
	}
}
