package heuristic_test

import (
	"strings"
	"testing"

	"github.com/foresight-dev/foresight/internal/tickets"
)

func TestIssueListGivesOneBugPerOpenIssue(t *testing.T) {
	// issueListSpec is a bug list in the shape of cagebreak's Bugs.md: "Issue
	// N" headings, a "Fixed: x.y.z" field on closed reports, a number used
	// twice, and a report that is only the request as filed, in a code block.
	issueListSpec := readSpec(t, "specs/issue-list-cagebreak")
	res := generate(t, defaultRequest(issueListSpec, "Bugs"))
	var bugs []string
	for _, tk := range res.Tickets {
		text := tk.Title + " " + tk.Description + " " + strings.Join(tk.AcceptanceCriteria, " ")
		if strings.Contains(text, "anki") {
			t.Errorf("the fixed Issue 1 became ticket %q", tk.Title)
		}
		if tk.TicketType == tickets.TypeBug {
			bugs = append(bugs, tk.Title)
		}
	}
	wantAsked(t, res, "Issue 1 (line", "names the closed Issue 1 as left out")
	all := strings.Join(bugs, "\n")
	wantHolds(t, "the bug tickets", all, "Fix issue 2: The compositor crashes", "Views can be focussed without tiles", "increments a variable and not a pointer", "load predefined defaults")
}

// A list whose reports are all closed gives one task to confirm them, not
// a ticket guessed from the title ("Implement bugs").
func TestAllClosedListGivesOneConfirmationTask(t *testing.T) {
	spec := readSpec(t, "specs/issue-list-all-closed")
	res := generate(t, defaultRequest(spec, "Bugs"))
	if len(res.Tickets) != 1 || res.Tickets[0].TicketType != tickets.TypeTask || !strings.HasPrefix(res.Tickets[0].Title, "Confirm the 2 reports marked closed") {
		t.Errorf("tickets %v, want one task confirming the 2 closed reports", titles(res.Tickets))
	}
}
