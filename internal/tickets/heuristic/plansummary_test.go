package heuristic_test

import (
	"strings"
	"testing"
)

// planSpec summarises its phases in a table, details them in sections of
// their own, and restates a numbered requirement in an integrations section.
const planSpec = "# Clinic booking PRD\n\n## 3. Scope and phasing\n\n| Phase | Content | Priority |\n|---|---|---|\n" +
	"| Phase 1 | Booking and reminders | P0 |\n| Phase 2 | Payments at booking | P1 |\n| V2 | Video consultations | deferred |\n\n" +
	"## 4. Phase 1: Booking (P0)\n\n### 4.1 Patient data\n\n- BK-1 (MUST) Patient records are synchronised from the practice system every night; the app never edits them.\n" +
	"- BK-2 (SHOULD) A patient who moves practice keeps their upcoming bookings.\n\n" +
	"### 4.2 Booking\n\n- BK-3 (MUST) Patients book a free slot of their practice in at most three taps.\n\n" +
	"## 5. Phase 2: Payments (P1)\n\n- PAY-1 (MUST) Patients pay the consultation fee when they book.\n\n" +
	"## 6. Integrations\n\n### 6.1 Practice system\n\nRead-only, nightly (BK-1). The practice system offers a REST feed of patients.\n"

// TestPlanSummaryAndRestatements gives a table that summarises phases
// detailed elsewhere no ticket (its deferred row none either), keeps each
// numbered requirement of a data section a ticket, and folds a section
// that restates a requirement by its identifier into that requirement.
func TestPlanSummaryAndRestatements(t *testing.T) {
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
