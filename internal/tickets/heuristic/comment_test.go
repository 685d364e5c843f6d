package heuristic_test

import (
	"encoding/json"
	"strings"
	"testing"
)

// TestMultiLineCommentsAreNotSpec: a comment spanning several lines (a
// KEP template's commented-out graduation criteria) makes no ticket, and
// the lines after it keep their numbers in metadata.source.
func TestMultiLineCommentsAreNotSpec(t *testing.T) {
	t.Parallel()
	spec := strings.Join([]string{
		"# Time zones for scheduled jobs", // 1
		"",                                // 2
		"<!--",                            // 3
		"## Beta",                         // 4
		"- Deprecate the legacy flag",     // 5
		"- Remove the migration shim",     // 6
		"-->",                             // 7
		"",                                // 8
		"## Requirements",                 // 9
		"",                                // 10
		"- The scheduler must accept an IANA time zone name for each job.",    // 11
		"- The API must refuse an unknown time zone with a validation error.", // 12
	}, "\n")
	res := generate(t, defaultRequest(spec, "Time zones"))
	raw, _ := json.Marshal(res)
	for _, hidden := range []string{"Deprecate the legacy flag", "migration shim", "-->"} {
		if strings.Contains(string(raw), hidden) {
			t.Errorf("the commented-out text %q is in the result", hidden)
		}
	}
	found := false
	for _, tk := range res.Tickets {
		var src struct {
			FirstLine int `json:"first_line"`
		}
		b, _ := json.Marshal(tk.Metadata["source"])
		json.Unmarshal(b, &src)
		if strings.Contains(strings.Join(tk.AcceptanceCriteria, " "), "IANA time zone") {
			found = true
			if src.FirstLine != 9 {
				t.Errorf("ticket %q starts at line %d, want the Requirements heading's line 9", tk.Title, src.FirstLine)
			}
		}
	}
	if !found {
		t.Errorf("no ticket quotes the requirement with its source lines:\n%s", raw)
	}
}
