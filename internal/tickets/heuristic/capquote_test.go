package heuristic_test

import (
	"strings"
	"testing"
)

// TestCapQuotesWhatItMerges asks for fewer tickets than a spec of short
// headings has sections: an open question names each section that lost its
// ticket by what the section says, not only by its heading ("Implement
// storage" tells a lead nothing of the retention it merged away).
func TestCapQuotesWhatItMerges(t *testing.T) {
	spec := "# Audit trail\n\n## Capture\n\nEvery write to the accounts service appends an entry with the actor, the action and the time.\n\n" +
		"## Storage\n\nEntries are kept for seven years in cold storage after ninety days.\n\n" +
		"## Export\n\nCompliance officers download the entries of one tenant as a signed archive.\n\n" +
		"## Alerting\n\nA deleted entry pages the security on-call within five minutes.\n"
	req := defaultRequest(spec, "Audit trail")
	req.Options.MaxTicketCount = 1
	res := generate(t, req)
	var questions strings.Builder
	for _, q := range res.OpenQuestions {
		questions.WriteString(q.Question + "\n")
	}
	for _, tk := range res.Tickets {
		questions.WriteString("ticket: " + tk.Title + "\n")
	}
	for _, words := range []string{"seven years in cold storage", "signed archive", "pages the security on-call"} {
		if !strings.Contains(questions.String(), words) {
			t.Errorf("no open question or title says %q of the section it left out:\n%s", words, questions.String())
		}
	}
}

// TestCapQuotesEveryRequirementOfAMergedSection asks for one ticket of a
// spec whose left-out section lists more requirements than three: the open
// question quotes the later ones too (the sign-off must not go unnamed
// because three others came first).
func TestCapQuotesEveryRequirementOfAMergedSection(t *testing.T) {
	spec := "# Depot rollout\n\n## Work orders\n\n- A defect reported in the driver app creates a work order.\n- The supervisor assigns a work order to a technician.\n" +
		"- Technicians see their assigned work orders on a phone.\n- A supervisor signs off a done work order.\n" +
		"- A signed-off work order becomes read-only.\n- A vehicle page lists all its work orders.\n- Work orders export to the ERP nightly.\n\n" +
		"## Rollout\n\n- The pilot depot goes live for four weeks.\n- Three depots a week go live after the pilot review.\n" +
		"- Each depot gets a half-day training on site.\n- A per-depot feature switch turns the new flow on and off.\n" +
		"- The old system is switched off after the last depot.\n"
	req := defaultRequest(spec, "Depot rollout")
	req.Options.MaxTicketCount = 1
	res := generate(t, req)
	var questions strings.Builder
	for _, q := range res.OpenQuestions {
		questions.WriteString(q.Question + "\n")
	}
	for _, tk := range res.Tickets {
		questions.WriteString("ticket: " + tk.Title + "\n")
	}
	for _, words := range []string{"signs off a done work order", "becomes read-only"} {
		if !strings.Contains(questions.String(), words) {
			t.Errorf("no open question or title says %q of the section it left out:\n%s", words, questions.String())
		}
	}
}
