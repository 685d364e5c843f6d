package heuristic

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// atWord with the anchored not-work pattern matches exactly where the
// unanchored pattern behind \b does, on every line of the repository's
// specs and on edge cases of word boundaries.
func TestAtWordMatchesLikeWordBoundary(t *testing.T) {
	unanchored := regexp.MustCompile(`\b(` + notWorkWords + `)\b`)
	lines := []string{"", "non-goals", "xnon-goals", "_faq", "faq_", "2faq", "é faq", "éfaq", "v1.2 plan", "v1.2x", "aob!", "(aob)", "the roadmap", "roadmaps", "  Drawbacks"}
	for _, dir := range []string{"../../../testdata/reference", "../../../testdata/specs", "testdata", "testdata/specs"} {
		files, _ := filepath.Glob(filepath.Join(dir, "*"))
		for _, f := range files {
			if b, err := os.ReadFile(f); err == nil && !strings.HasSuffix(f, ".json") {
				lines = append(lines, strings.Split(strings.ToLower(string(b)), "\n")...)
			}
		}
	}
	if len(lines) < 1000 {
		t.Fatalf("read only %d lines", len(lines))
	}
	for _, l := range lines {
		if got, want := atWord(notWorkHeading, l), unanchored.MatchString(l); got != want {
			t.Errorf("%q: atWord %v, \\b pattern %v", l, got, want)
		}
	}
}
