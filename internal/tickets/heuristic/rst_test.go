package heuristic_test

import (
	"strings"
	"testing"
)

// pepSpec is the shape of a PEP's specification (PEP 616): underlined
// headings, a literal block after "::", and prose announcing three
// additions, each a piece of work.
const pepSpec = `Specification
=============

The builtin str class will gain two new methods which will behave
as follows::

    def removeprefix(self: str, prefix: str, /) -> str:
        if self.startswith(prefix):
            return self[len(prefix):]

When the arguments are instances of str subclasses, the return value should always be a base str.

Methods with the corresponding semantics will be added to the builtin
bytes and bytearray objects.  The two methods will also be added to
collections.UserString, with similar behavior.
`

func TestProseAdditionsAndLiteralBlocks(t *testing.T) {
	res := generate(t, defaultRequest(pepSpec, "PEP 616"))
	wantTitles(t, res.Tickets, strings.EqualFold, "Add two new methods to the builtin str class", "Add methods with the corresponding semantics to the builtin bytes and bytearray objects", "Add two methods to the collections.UserString")
	for _, tk := range res.Tickets {
		if strings.Contains(strings.Join(tk.AcceptanceCriteria, " "), "startswith") {
			t.Errorf("the literal block after \"::\" became criteria of %q: %q", tk.Title, tk.AcceptanceCriteria)
		}
	}
}
