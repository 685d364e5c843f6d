package heuristic_test

import (
	"strings"
	"testing"

	"github.com/foresight-dev/foresight/internal/tickets"
)

// TestCodeReviewFindingsAreBugs reads a code review's numbered findings,
// each with "Behavior:", "Impact:" and "Fix:" lines, as bugs titled by
// their subject without the severity, prioritised by it.
func TestCodeReviewFindingsAreBugs(t *testing.T) {
	spec := readSpec(t, "specs/billing-worker-review")
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

// TestPenTestFindingsAreBugs reads a penetration test's findings, each a
// section "F-01 <what is wrong>" with what was seen and a
// "Recommendation:", as bugs titled by their label and subject, of the
// severity the overview table gives them (they were tasks titled "Set up
// F-01 …" at medium); the critical one keeps its ticket at the cap before the low one.
func TestPenTestFindingsAreBugs(t *testing.T) {
	spec := readSpec(t, "specs/customer-portal-pen-test")
	want := map[string]string{
		"Fix F-01: Password reset tokens do not expire":                     tickets.PriorityHigh,
		"Fix F-02: Verbose stack traces on API errors":                      tickets.PriorityLow,
		"Fix F-03: Invoices of other customers readable by changing the id": tickets.PriorityCritical,
	}
	for _, tk := range generate(t, defaultRequest(spec, "Pen test")).Tickets {
		prio, ok := want[tk.Title]
		if !ok {
			continue
		}
		delete(want, tk.Title)
		if tk.TicketType != tickets.TypeBug || priorityOf(tk) != prio {
			t.Errorf("%q: %s at %q, want a bug at %s", tk.Title, tk.TicketType, priorityOf(tk), prio)
		}
	}
	for title := range want {
		t.Errorf("no ticket %q", title)
	}
	req := defaultRequest(spec, "Pen test")
	req.Options.MaxTicketCount = 2
	if got := strings.Join(titles(generate(t, req).Tickets), "\n"); !strings.Contains(got, "Fix F-03") || strings.Contains(got, "Fix F-02") {
		t.Errorf("at two tickets:\n%s\nwant the critical F-03 kept before the low F-02", got)
	}
}
