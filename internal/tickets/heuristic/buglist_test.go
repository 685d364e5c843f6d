package heuristic_test

import (
	"strings"
	"testing"

	"github.com/foresight-dev/foresight/internal/tickets"
)

// issueListSpec is a bug list in the shape of cagebreak's Bugs.md: "Issue
// N" headings, a "Fixed: x.y.z" field on closed reports, a number used
// twice, and a report that is only the request as filed, in a code block.
const issueListSpec = "# Bugs\n\n## Issues\n\n" +
	"### Issue 1\n\n  * Github issue number: N/A\n  * Fixed: 1.0.2\n\nThis issue is a focussing bug when using anki in release 1.0.1.\n\n" +
	"### Issue 2\n\n  * Github issue number: N/A\n\nThe compositor crashes when a popup closes.\n\nSteps to reproduce:\n\n  * start the compositor\n  * open a popup and close it\n\n" +
	"### Issue 24\n\n  * Github issue number: N/A\n\nViews can be focussed without tiles.\n\n" +
	"### Issue 24\n\n  * Github issue number: N/A\n\nThe surface iterator increments a variable and not a pointer.\n\n" +
	"### Issue 25\n\n  * github issue number: #8\n\n```\nPlease load predefined defaults when no config file is found.\n```\n"

func TestIssueListGivesOneBugPerOpenIssue(t *testing.T) {
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
	for _, want := range []string{"Fix issue 2: The compositor crashes", "Views can be focussed without tiles", "increments a variable and not a pointer", "load predefined defaults"} {
		if !strings.Contains(all, want) {
			t.Errorf("no bug ticket with %q: %v", want, titles(res.Tickets))
		}
	}
}

// A list whose reports are all closed gives one task to confirm them, not
// a ticket guessed from the title ("Implement bugs").
func TestAllClosedListGivesOneConfirmationTask(t *testing.T) {
	spec := "# Bugs\n\n## Issues\n\n### Issue 1\n\n  * Fixed: 1.0.2\n\nThe keyboard stops entering keystrokes.\n\n### Issue 2\n\n  * Fixed: 1.0.4\n\nA modifier key is consumed wrongly.\n"
	res := generate(t, defaultRequest(spec, "Bugs"))
	if len(res.Tickets) != 1 || res.Tickets[0].TicketType != tickets.TypeTask || !strings.HasPrefix(res.Tickets[0].Title, "Confirm the 2 reports marked closed") {
		t.Errorf("tickets %v, want one task confirming the 2 closed reports", titles(res.Tickets))
	}
}
