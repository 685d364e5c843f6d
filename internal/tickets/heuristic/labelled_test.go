package heuristic_test

import (
	"strings"
	"testing"
)

// TestLabelledRequirementsAreTickets gives each labelled requirement its
// own ticket, titled by what it asks and followed by its identifier,
// without the keyword; at a small cap the MUST items keep their tickets
// and the rest is named in an open question.
func TestLabelledRequirementsAreTickets(t *testing.T) {
	// labelledSpec lists its requirements with identifiers and RFC 2119
	// keywords under headings that name a topic, not "Requirements".
	labelledSpec := readSpec(t, "specs/courier-app-prd")
	res := generate(t, defaultRequest(labelledSpec, "Courier app"))
	for _, id := range []string{"DLV-1", "DLV-2", "DLV-3", "DLV-4", "DLV-5"} {
		n := 0
		for _, tk := range res.Tickets {
			if strings.Contains(tk.Title, "("+id+")") {
				n++
				if strings.Contains(tk.Title, "MUST") || strings.Contains(tk.Title, "SHOULD") {
					t.Errorf("title %q keeps the requirement keyword", tk.Title)
				}
			}
		}
		if n != 1 {
			t.Errorf("%d tickets titled with %s, want 1: %v", n, id, titles(res.Tickets))
		}
	}
	req := defaultRequest(labelledSpec, "Courier app")
	req.Options.MaxTicketCount = 3
	req.Options.IncludeEpics = false
	res = generate(t, req)
	for _, id := range []string{"DLV-1", "DLV-3", "DLV-4"} {
		found := false
		for _, tk := range res.Tickets {
			found = found || strings.Contains(tk.Title, "("+id+")")
		}
		if !found {
			t.Errorf("at max_ticket_count 3 the MUST requirement %s has no ticket: %v", id, titles(res.Tickets))
		}
	}
}

// TestOpenQuestionContextIsNoWork keeps the sentence beside an open
// question ("Legal is checking with the insurer") out of the tickets.
func TestOpenQuestionContextIsNoWork(t *testing.T) {
	labelledSpec := readSpec(t, "specs/courier-app-prd")
	res := generate(t, defaultRequest(labelledSpec, "Courier app"))
	wantNoTitleWith(t, res.Tickets, "the context of an open question", "legal", "insurer")
}

// TestLabelledRequirementIsNoBug keeps a numbered requirement a story or
// task whatever its words ("failing files are rejected" reads like a
// defect), and gives an actors table no ticket.
func TestLabelledRequirementIsNoBug(t *testing.T) {
	spec := readSpec(t, "specs/photo-shop-actors")
	res := generate(t, defaultRequest(spec, "Photo shop"))
	for _, tk := range res.Tickets {
		if tk.TicketType == "bug" {
			t.Errorf("the requirement %q is a bug", tk.Title)
		}
	}
	wantNoTitleWith(t, res.Tickets, "the actors table", "actor", "guest")
}
