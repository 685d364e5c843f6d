package heuristic_test

import (
	"strings"
	"testing"

	"github.com/foresight-dev/foresight/internal/tickets"
)

// TestCapQuotesWhatItMerges asks for fewer tickets than a spec of short
// headings has sections: an open question names each section that lost its
// ticket by what the section says, not only by its heading ("Implement
// storage" tells a lead nothing of the retention it merged away).
func TestCapQuotesWhatItMerges(t *testing.T) {
	spec := readSpec(t, "specs/audit-trail-capture")
	req := defaultRequest(spec, "Audit trail")
	req.Options.MaxTicketCount = 1
	wantCapNames(t, req, "seven years in cold storage", "signed archive", "pages the security on-call")
}

// TestCapQuotesEveryRequirementOfAMergedSection asks for one ticket of a
// spec whose left-out section lists more requirements than three: the open
// question quotes the later ones too (the sign-off must not go unnamed
// because three others came first).
func TestCapQuotesEveryRequirementOfAMergedSection(t *testing.T) {
	spec := readSpec(t, "specs/depot-rollout-work-orders")
	req := defaultRequest(spec, "Depot rollout")
	req.Options.MaxTicketCount = 1
	wantCapNames(t, req, "signs off a done work order", "becomes read-only")
}

// wantCapNames generates req and checks that an open question or a ticket
// title says each of words.
func wantCapNames(t *testing.T, req tickets.GenerationRequest, words ...string) {
	t.Helper()
	res := generate(t, req)
	var said strings.Builder
	for _, q := range res.OpenQuestions {
		said.WriteString(q.Question + "\n")
	}
	for _, tk := range res.Tickets {
		said.WriteString("ticket: " + tk.Title + "\n")
	}
	for _, w := range words {
		if !strings.Contains(said.String(), w) {
			t.Errorf("no open question or title says %q of the section it left out:\n%s", w, said.String())
		}
	}
}
