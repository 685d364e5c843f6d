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
