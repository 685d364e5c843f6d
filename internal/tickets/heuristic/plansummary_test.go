package heuristic_test

import (
	"strings"
	"testing"
)

// TestPlanSummaryAndRestatements gives a table that summarises phases
// detailed elsewhere no ticket (its deferred row none either), keeps each
// numbered requirement of a data section a ticket, and folds a section
// that restates a requirement by its identifier into that requirement.
func TestPlanSummaryAndRestatements(t *testing.T) {
	// planSpec summarises its phases in a table, details them in sections of
	// their own, and restates a numbered requirement in an integrations section.
	planSpec := readSpec(t, "specs/clinic-booking-prd")
	res := generate(t, defaultRequest(planSpec, "Clinic booking"))
	wantNoTitleWith(t, res.Tickets, "the plan summary", "scope and phasing", "video")
	n := 0
	for _, tk := range res.Tickets {
		if strings.Contains(strings.ToLower(tk.Title), "practice system") && !strings.Contains(tk.Title, "(BK-1)") {
			t.Errorf("ticket %q restates BK-1", tk.Title)
		}
		if strings.Contains(tk.Title, "(BK-1)") || strings.Contains(tk.Title, "(BK-2)") {
			n++
		}
	}
	if n != 2 {
		t.Errorf("%d tickets for BK-1 and BK-2, want one each: %v", n, titles(res.Tickets))
	}
}
