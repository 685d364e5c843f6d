package heuristic_test

import (
	"strings"
	"testing"
)

// TestRFCShape reads an RFC as a lead would: the guide-level explanation
// is context beside a reference-level one, a colon inside a code span
// labels nothing ("Add field `source: …`" keeps its verb), and "whenever"
// is no "never" rule.
func TestRFCShape(t *testing.T) {
	// rfcShape is a Rust-style RFC: a guide-level explanation that teaches by
	// example, a reference-level explanation that specifies.
	rfcShape := readSpec(t, "specs/path-in-parse-errors-rfc")
	res := generate(t, defaultRequest(rfcShape, "Path in parse errors"))
	wantNoTitleWith(t, res.Tickets, "the guide-level explanation", "guide-level")
	wantTitles(t, res.Tickets, strings.HasPrefix, "Add field source")
	for _, r := range res.Risks {
		if strings.Contains(r.Description, "\"never\" rule") {
			t.Errorf("risk from 'whenever': %s", r.Description)
		}
	}
}
