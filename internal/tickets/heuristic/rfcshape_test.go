package heuristic_test

import (
	"strings"
	"testing"
)

// rfcShape is a Rust-style RFC: a guide-level explanation that teaches by
// example, a reference-level explanation that specifies.
const rfcShape = "- Feature Name: `path_in_parse_errors`\n\n# Summary\n\nParse errors name the file they come from.\n\n" +
	"# Guide-level explanation\n\nA user who loads a broken config now sees the file name in the message. The message also points at the line.\n\n" +
	"# Reference-level explanation\n\n- Add field `source: Option<PathBuf>` to struct `config::ParseError`\n" +
	"  - Whenever a config file fails to parse, set the `source` field to its path\n" +
	"- Print the path before the line number in `Display`\n\n# Drawbacks\n\nErrors get larger.\n"

// TestRFCShape reads an RFC as a lead would: the guide-level explanation
// is context beside a reference-level one, a colon inside a code span
// labels nothing ("Add field `source: …`" keeps its verb), and "whenever"
// is no "never" rule.
func TestRFCShape(t *testing.T) {
	res := generate(t, defaultRequest(rfcShape, "Path in parse errors"))
	wantNoTitleWith(t, res.Tickets, "the guide-level explanation", "guide-level")
	wantTitles(t, res.Tickets, strings.HasPrefix, "Add field source")
	for _, r := range res.Risks {
		if strings.Contains(r.Description, "\"never\" rule") {
			t.Errorf("risk from 'whenever': %s", r.Description)
		}
	}
}
