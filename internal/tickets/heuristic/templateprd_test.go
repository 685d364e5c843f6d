package heuristic_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/foresight-dev/foresight/internal/tickets"
)

// The common product-requirements template (Atlassian's, and the many
// written after it): a requirements table of # | Title | User Story |
// Importance | Notes, a questions table with their outcomes, a "Not
// Doing" list, or one story written as a paragraph over its numbered
// acceptance criteria. testdata/reference holds a whole spec of each shape
// (atlassian-prd, story-criteria).

// ticketText is everything a ticket says, for looking a phrase up.
func ticketText(tk tickets.Ticket) string {
	return tk.Title + "\n" + tk.Description + "\n" + strings.Join(tk.AcceptanceCriteria, "\n")
}

func TestNotDoingIsNoWork(t *testing.T) {
	t.Parallel()
	spec := "# Saved carts\n\n## Requirements\n\n- Save the signed-in shopper's cart to their account on every change.\n- Show the saved cart when the shopper signs in on another device.\n\n## Not Doing\n\n- Sharing a cart with another shopper.\n- Saved carts for guests.\n"
	res := generate(t, defaultRequest(spec, "Saved carts"))
	for _, tk := range res.Tickets {
		if strings.Contains(ticketText(tk), "Sharing a cart") || strings.Contains(strings.ToLower(tk.Title), "not doing") {
			t.Errorf("ticket %q holds the Not Doing list:\n%s", tk.Title, ticketText(tk))
		}
	}
}

func TestQuestionTableRows(t *testing.T) {
	t.Parallel()
	spec := "# Saved carts\n\n## Requirements\n\n- Save the signed-in shopper's cart to their account on every change.\n- Show the saved cart when the shopper signs in on another device.\n\n## Questions\n\n| Question | Outcome |\n|---|---|\n| Do we keep carts of products that were deleted? | No: the items are shown as unavailable. |\n| Do we email shoppers about a saved cart | |\n| Which currency do restored prices use? | TBD |\n"
	res := generate(t, defaultRequest(spec, "Saved carts"))
	for _, tk := range res.Tickets {
		if strings.Contains(ticketText(tk), "deleted") || strings.EqualFold(tk.Title, "Implement questions") {
			t.Errorf("ticket %q holds the answered question:\n%s", tk.Title, ticketText(tk))
		}
	}
	var asked []string
	for _, q := range res.OpenQuestions {
		asked = append(asked, q.Question)
	}
	for _, want := range []string{"Do we email shoppers about a saved cart?", "Which currency do restored prices use?"} {
		if !slices.Contains(asked, want) {
			t.Errorf("open questions %q, want %q among them", asked, want)
		}
	}
	if len(asked) != 2 {
		t.Errorf("open questions %q, want the two without an answer", asked)
	}
}

func TestRequirementTableTitleImportanceNotes(t *testing.T) {
	t.Parallel()
	spec := "# Saved carts\n\n## Requirements\n\n| # | Title | User Story | Importance | Notes |\n|---|---|---|---|---|\n| 1 | Save cart | As a signed-in shopper, I want my cart saved to my account so that I can finish on another device | Must Have | Save on every change; guests' carts stay in the browser |\n| 2 | Restore cart | As a signed-in shopper, I want the saved cart shown when I sign in on another device | Must Have | Prices are re-read from the catalog on restore |\n| 3 | Merge carts | As a shopper who signs in with items in a guest cart, I want both carts merged so that I lose nothing | Should Have | The same item in both: keep the larger quantity |\n"
	res := generate(t, defaultRequest(spec, "Saved carts"))
	want := map[string]struct{ priority, criterion string }{
		"Save cart (1)":    {"high", "Save on every change; guests' carts stay in the browser."},
		"Restore cart (2)": {"high", "Prices are re-read from the catalog on restore."},
		"Merge carts (3)":  {"medium", "The same item in both: keep the larger quantity."},
	}
	for _, tk := range res.Tickets {
		w, ok := want[tk.Title]
		if !ok {
			continue
		}
		delete(want, tk.Title)
		if tk.Priority == nil || *tk.Priority != w.priority {
			t.Errorf("%q: priority %v, want %s", tk.Title, tk.Priority, w.priority)
		}
		if !slices.Contains(tk.AcceptanceCriteria, w.criterion) {
			t.Errorf("%q: criteria %q, want the notes %q among them", tk.Title, tk.AcceptanceCriteria, w.criterion)
		}
		if tk.TicketType != tickets.TypeStory {
			t.Errorf("%q is a %s, want a story", tk.Title, tk.TicketType)
		}
	}
	for title := range want {
		var got []string
		for _, tk := range res.Tickets {
			got = append(got, tk.Title)
		}
		t.Errorf("no ticket titled %q by the table's Title column; tickets: %q", title, got)
	}
}

func TestStoryParagraphOverItsCriteria(t *testing.T) {
	t.Parallel()
	spec := "# Statement balance\n\n## User stories\n\nAs a credit card holder,\nI want to view my statement balance,\nso that I can pay the balance due.\n\n### Acceptance criteria\n\n1. Display the statement balance upon authentication. For example $1560.\n2. Display the total balance. For example $3560. Here the balance due from the current period is $2560.\n3. Show the minimum payment due. For example $140.\n4. Show the payment due date. For example May 16th.\n5. Show an error message if the service does not answer in time.\n"
	res := generate(t, defaultRequest(spec, "Statement balance"))
	if len(res.Tickets) != 1 {
		t.Fatalf("%d tickets, want the one story: %+v", len(res.Tickets), res.Tickets)
	}
	tk := res.Tickets[0]
	if tk.TicketType != tickets.TypeStory || tk.Title != "View my statement balance" {
		t.Errorf("%s %q, want the story \"View my statement balance\"", tk.TicketType, tk.Title)
	}
	want := []string{
		"Display the statement balance upon authentication. For example $1560.",
		"Display the total balance. For example $3560. Here the balance due from the current period is $2560.",
		"Show the minimum payment due. For example $140.",
		"Show the payment due date. For example May 16th.",
		"Show an error message if the service does not answer in time.",
	}
	if !slices.Equal(tk.AcceptanceCriteria, want) {
		t.Errorf("criteria:\n%s\nwant one per numbered item:\n%s", strings.Join(tk.AcceptanceCriteria, "\n"), strings.Join(want, "\n"))
	}
	if !strings.Contains(tk.Description, "As a credit card holder, I want to view my statement balance, so that I can pay the balance due") {
		t.Errorf("description does not tell the story:\n%s", tk.Description)
	}
}
