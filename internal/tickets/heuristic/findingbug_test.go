package heuristic_test

import (
	"strings"
	"testing"
)

// TestCodeReviewFindingsAreBugs reads a code review's numbered findings,
// each with "Behavior:", "Impact:" and "Fix:" lines, as bugs titled by
// their subject without the severity, prioritised by it.
func TestCodeReviewFindingsAreBugs(t *testing.T) {
	spec := "# Review of the billing worker\n\n## Confirmed bugs\n\n" +
		"### Bug 1 — CRITICAL: Invoices issued twice after a restart\n**Behavior:** The worker re-reads the whole queue on start and issues every pending invoice again.\n**Impact:** Customers are charged twice.\n**Fix:** Mark each message done before issuing.\n\n" +
		"### Bug 2 — LOW: Log line without tenant id\n**Behavior:** The retry log line omits the tenant.\n**Fix:** Add the tenant id to the log fields.\n"
	res := generate(t, defaultRequest(spec, "Billing worker review"))
	want := map[string]string{"Fix bug 1: Invoices issued twice after a restart": "critical", "Fix bug 2: Log line without tenant id": "low"}
	for _, tk := range res.Tickets {
		prio, ok := want[tk.Title]
		if !ok {
			continue
		}
		delete(want, tk.Title)
		if tk.TicketType != "bug" || tk.Priority == nil || *tk.Priority != prio {
			t.Errorf("%q: type %s, priority %v; want a bug of priority %s", tk.Title, tk.TicketType, tk.Priority, prio)
		}
		if !strings.Contains(tk.Description, "Proposed fix:") {
			t.Errorf("%q: the proposed fix is not in the description: %s", tk.Title, tk.Description)
		}
	}
	for title := range want {
		t.Errorf("no ticket %q: %v", title, titles(res.Tickets))
	}
}
