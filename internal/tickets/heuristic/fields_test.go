package heuristic

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The field helpers answer exactly what strings.Fields would, on edge
// cases of white space and on every line and paragraph of the repository's
// specs.
func TestFieldHelpersAgreeWithStringsFields(t *testing.T) {
	texts := []string{"", " ", "a", " a ", "a  b", "a\tb", "a \n b", "a\u00a0b", "a\u2003 b", "\u0085a", "é b", "a\xffb", "\xe2\x80 b", "a. b, c", "  lead", "trail  ", "one two three"}
	for _, dir := range []string{"../../../testdata/reference", "../../../testdata/specs", "testdata"} {
		files, _ := filepath.Glob(filepath.Join(dir, "*"))
		for _, f := range files {
			if b, err := os.ReadFile(f); err == nil && !strings.HasSuffix(f, ".json") {
				texts = append(texts, strings.Split(string(b), "\n")...)
				texts = append(texts, strings.Split(string(b), "\n\n")...)
			}
		}
	}
	for _, s := range texts {
		fields := strings.Fields(s)
		if got := fieldCount(s); got != len(fields) {
			t.Fatalf("fieldCount(%q) = %d, want %d", s, got, len(fields))
		}
		want := ""
		if len(fields) > 0 {
			want = fields[0]
		}
		if got := firstField(s); got != want {
			t.Fatalf("firstField(%q) = %q, want %q", s, got, want)
		}
		if got, want := collapseSpaces(s), strings.Join(fields, " "); got != want {
			t.Fatalf("collapseSpaces(%q) = %q, want %q", s, got, want)
		}
		trimmed := strings.TrimSpace(s)
		wantLast := -1
		if len(fields) > 1 {
			wantLast = len(trimmed) - len(fields[len(fields)-1])
		}
		if got := lastFieldStart(trimmed); got != wantLast {
			t.Fatalf("lastFieldStart(%q) = %d, want %d", trimmed, got, wantLast)
		}
	}
}
