package heuristic_test

import (
	"strings"
	"testing"
)

func TestProseAdditionsAndLiteralBlocks(t *testing.T) {
	// pepSpec is the shape of a PEP's specification (PEP 616): underlined
	// headings, a literal block after "::", and prose announcing three
	// additions, each a piece of work.
	pepSpec := readSpec(t, "specs/str-prefix-removal-pep")
	res := generate(t, defaultRequest(pepSpec, "PEP 616"))
	wantTitles(t, res.Tickets, strings.EqualFold, "Add two new methods to the builtin str class", "Add methods with the corresponding semantics to the builtin bytes and bytearray objects", "Add two methods to the collections.UserString")
	for _, tk := range res.Tickets {
		if strings.Contains(strings.Join(tk.AcceptanceCriteria, " "), "startswith") {
			t.Errorf("the literal block after \"::\" became criteria of %q: %q", tk.Title, tk.AcceptanceCriteria)
		}
	}
}
