package simulator

import (
	"encoding/json"
	"path/filepath"
	"testing"

	"github.com/foresight-dev/foresight/internal/golden"
)

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
	golden.Check(t, filepath.Join("testdata", "poll.golden"), got)
}
