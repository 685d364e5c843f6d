package heuristic_test

import (
	"fmt"
	"strings"
	"testing"
	"unicode/utf8"
)

// TestManyChecksStayCheckable fits a section that states more checks than
// a ticket has criteria: neighbours are joined only while the criterion
// stays short, and the checks that do not fit are listed in the
// description, not packed into paragraphs a tester cannot tick off (a
// reader found criteria of 900 characters holding a whole section).
func TestManyChecksStayCheckable(t *testing.T) {
	var b strings.Builder
	b.WriteString("# Artifact dependencies\n\n## Artifact dependencies\n\n")
	var sentences []string
	for i := 1; i <= 14; i++ {
		if i%3 == 0 {
			b.WriteString("\n\n")
		}
		s := fmt.Sprintf("Cargo builds artifact kind %d into its own directory, named after the dependency, the artifact kind and the metadata hash of the build.", i)
		sentences = append(sentences, s)
		b.WriteString(s + " ")
	}
	b.WriteString("\n")
	res := generate(t, defaultRequest(b.String(), "Artifact dependencies"))
	for _, tk := range res.Tickets {
		if !strings.Contains(tk.Description+strings.Join(tk.AcceptanceCriteria, " "), "kind 1 into") {
			continue
		}
		if len(tk.AcceptanceCriteria) > 6 {
			t.Errorf("%d criteria, want at most 6", len(tk.AcceptanceCriteria))
		}
		for _, c := range tk.AcceptanceCriteria {
			if n := utf8.RuneCountInString(c); n > 200 {
				t.Errorf("criterion of %d characters: %q", n, c)
			}
		}
		for _, s := range sentences {
			if !strings.Contains(strings.Join(tk.AcceptanceCriteria, " "), s) && !strings.Contains(tk.Description, "Further requirements from the spec: ") {
				t.Errorf("%q is in neither the criteria nor the description's further requirements", s)
			}
			if !strings.Contains(tk.Description+" "+strings.Join(tk.AcceptanceCriteria, " "), s) {
				t.Errorf("%q is lost", s)
			}
		}
		return
	}
	t.Fatalf("no ticket holds the section's checks: %+v", res.Tickets)
}
