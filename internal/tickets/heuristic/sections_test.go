package heuristic_test

import (
	"github.com/foresight-dev/foresight/internal/tickets"
	"os"
	"path/filepath"
	"slices"

	"strings"
	"testing"
)

func TestNotWorkSectionsMakeNoTickets(t *testing.T) {
	// classifiedSpec has one work section and, around it, the parts a lead
	// never tickets: front matter, template prompts, ticked checklist items,
	// non-goals, alternatives, an appendix and a deferred version.
	classifiedSpec := readSpec(t, "specs/bulk-export-classified")
	res := generate(t, defaultRequest(classifiedSpec, "Bulk export"))
	lines := strings.Split(classifiedSpec, "\n")
	for _, tk := range res.Tickets {
		text := strings.ToLower(tk.Title + " " + tk.Description + " " + strings.Join(tk.AcceptanceCriteria, " "))
		wantLacks(t, "ticket "+tk.Title, text, "duplicate", "pdf", "spreadsheets", "partner bucket", "reconciliation", "frustrated", "labels: enhancement", "non-goals", "glossary", "storage costs")
		src, ok := tk.Metadata["source"].(map[string]any)
		if !ok {
			t.Fatalf("ticket %q has no metadata.source", tk.Title)
		}
		first, _ := src["first_line"].(int)
		last, _ := src["last_line"].(int)
		if first < 1 || last < first || last > len(lines) {
			t.Errorf("ticket %q: source lines %d to %d are not lines of the spec", tk.Title, first, last)
		}
		if _, ok := src["heading_path"].([]string); !ok {
			t.Errorf("ticket %q: source has no heading_path", tk.Title)
		}
	}
	found := false
	for _, tk := range res.Tickets {
		if strings.Contains(strings.ToLower(tk.Title+" "+strings.Join(tk.AcceptanceCriteria, " ")), "csv") {
			found = true
		}
	}
	if !found {
		t.Errorf("the requirements section has no ticket: %v", titles(res.Tickets))
	}
}

// wantLacks reports each phrase that text says; what names text in the
// report.
func wantLacks(t *testing.T, what, text string, phrases ...string) {
	t.Helper()
	for _, p := range phrases {
		if strings.Contains(text, p) {
			t.Errorf("%s says %q:\n%s", what, p, text)
		}
	}
}

// wantHolds reports each phrase that text does not say; what names text
// in the report.
func wantHolds(t *testing.T, what, text string, phrases ...string) {
	t.Helper()
	for _, p := range phrases {
		if !strings.Contains(text, p) {
			t.Errorf("%s does not say %q:\n%s", what, p, text)
		}
	}
}

func titles(ts []tickets.Ticket) []string {
	var out []string
	for _, t := range ts {
		out = append(out, t.Title)
	}
	return out
}

// wantTitles reports each title of want that no ticket of ts has, as match
// compares them (sameTitle, strings.HasPrefix, strings.EqualFold).
func wantTitles(t *testing.T, ts []tickets.Ticket, match func(title, want string) bool, want ...string) {
	t.Helper()
	got := titles(ts)
	for _, w := range want {
		if !slices.ContainsFunc(got, func(title string) bool { return match(title, w) }) {
			t.Errorf("no ticket %q: %q", w, got)
		}
	}
}

// sameTitle reports whether a ticket's title is want to the letter.
func sameTitle(title, want string) bool { return title == want }

// wantNoTitleWith reports each ticket of ts whose title holds one of words
// (lower case) in any case: those words belong to a part of the spec that
// is no work, which from names in the message.
func wantNoTitleWith(t *testing.T, ts []tickets.Ticket, from string, words ...string) {
	t.Helper()
	for _, tk := range ts {
		low := strings.ToLower(tk.Title)
		for _, w := range words {
			if strings.Contains(low, w) {
				t.Errorf("ticket %q comes from %s (its title has %q)", tk.Title, from, w)
			}
		}
	}
}

// wantNoCriterionWith reports every criterion of ts that holds one of
// phrases; what says what such a criterion is.
func wantNoCriterionWith(t *testing.T, ts []tickets.Ticket, what string, phrases ...string) {
	t.Helper()
	for _, tk := range ts {
		for _, ac := range tk.AcceptanceCriteria {
			for _, p := range phrases {
				if strings.Contains(ac, p) {
					t.Errorf("%s %q: %s as a criterion (%q): %q", tk.ExternalID, tk.Title, what, p, ac)
				}
			}
		}
	}
}

// wantAsked reports a result none of whose open questions contains
// substr; what says what that question should have done.
func wantAsked(t *testing.T, res *tickets.Result, substr, what string) {
	t.Helper()
	for _, q := range res.OpenQuestions {
		if strings.Contains(q.Question, substr) {
			return
		}
	}
	t.Errorf("no open question %s (%q): %+v", what, substr, res.OpenQuestions)
}

// wantOneTitledEach reports each word that is not in the title of exactly one
// ticket of ts, in any case.
func wantOneTitledEach(t *testing.T, ts []tickets.Ticket, words ...string) {
	t.Helper()
	for _, word := range words {
		n := 0
		for _, tk := range ts {
			if strings.Contains(strings.ToLower(tk.Title), word) {
				n++
			}
		}
		if n != 1 {
			t.Errorf("%d tickets have %q in their title, want 1: %v", n, word, titles(ts))
		}
	}
}

func TestBugListGivesOneBugPerOpenReport(t *testing.T) {
	bugListSpec := readSpec(t, "specs/checkout-bug-bash")
	res := generate(t, defaultRequest(bugListSpec, "Bug bash"))
	wantNoTitleWith(t, res.Tickets, "the fixed report CK-03", "password")
	bugs := map[string]tickets.Ticket{}
	for _, tk := range res.Tickets {
		if tk.TicketType == tickets.TypeBug {
			bugs[tk.Title] = tk
		}
	}
	for title, prio := range map[string]string{
		"Fix CK-01: Order total ignores the shipping discount": tickets.PriorityMedium,
		"Fix CK-02: Double charge when pressing Pay twice":     tickets.PriorityCritical,
	} {
		tk, ok := bugs[title]
		if !ok {
			t.Errorf("no bug %q in %v", title, titles(res.Tickets))
			continue
		}
		if tk.Priority == nil || *tk.Priority != prio {
			t.Errorf("bug %q: priority %v, want %s (its severity)", title, tk.Priority, prio)
		}
	}
}

// TestCapNamesWhatItLeavesOut asks for fewer tickets than the spec has
// work: every requirement keeps a ticket or is named in an open question
// with the max_ticket_count that would fit it.
func TestCapNamesWhatItLeavesOut(t *testing.T) {
	spec := readSpec(t, "specs/invoices-six-requirements")
	req := defaultRequest(spec, "Invoices")
	req.Options.MaxTicketCount = 2
	res := generate(t, req)
	var all strings.Builder
	for _, tk := range res.Tickets {
		all.WriteString(tk.Title + " " + tk.Description + " " + strings.Join(tk.AcceptanceCriteria, " ") + "\n")
	}
	var questions strings.Builder
	for _, q := range res.OpenQuestions {
		questions.WriteString(q.Question + "\n")
	}
	for _, word := range []string{"CSV", "void", "reminder", "resend", "prefix", "change log"} {
		if !strings.Contains(strings.ToLower(all.String()), strings.ToLower(word)) && !strings.Contains(strings.ToLower(questions.String()), strings.ToLower(word)) {
			t.Errorf("the requirement about %q has no ticket and no open question names it:\n%s\n%s", word, all.String(), questions.String())
		}
	}
	if !strings.Contains(questions.String(), "max_ticket_count") {
		t.Errorf("no open question says which max_ticket_count would fit the work:\n%s", questions.String())
	}
}

// TestRequirementTableRowsAreTickets gives each row of a requirement
// table its own ticket; a P2 row is named in an open question instead.
func TestRequirementTableRowsAreTickets(t *testing.T) {
	spec := readSpec(t, "specs/shared-lists-requirement-table")
	res := generate(t, defaultRequest(spec, "Shared lists"))
	var work []tickets.Ticket
	for _, tk := range res.Tickets {
		if tk.TicketType != tickets.TypeEpic {
			work = append(work, tk)
		}
	}
	wantOneTitledEach(t, work, "invite", "edits", "ticked")
	wantNoTitleWith(t, res.Tickets, "the P2 row", "comments")
	wantAsked(t, res, "Per-item comments", "names the P2 row")
}

// TestSmallSpecHasNoEpics: an epic over three tickets of a six-ticket spec
// repeats their titles; a lead reads such a spec as a flat list.
func TestSmallSpecHasNoEpics(t *testing.T) {
	spec := readSpec(t, "specs/invoices-moscow-small")
	res := generate(t, defaultRequest(spec, "Invoices"))
	for _, tk := range res.Tickets {
		if tk.TicketType == tickets.TypeEpic {
			t.Errorf("epic %q in a spec of %d tickets: %v", tk.Title, len(res.Tickets), titles(res.Tickets))
		}
	}
}

// TestNoBoilerplateCriteria: every criterion says something of its own
// ticket; "An automated test checks this behaviour end to end." on most
// tickets of a result said nothing.
func TestNoBoilerplateCriteria(t *testing.T) {
	for _, in := range inputs(t) {
		res := generate(t, defaultRequest(in.spec, in.title))
		for _, tk := range res.Tickets {
			for _, c := range tk.AcceptanceCriteria {
				if c == "An automated test checks this behaviour end to end." {
					t.Errorf("%s: ticket %q has the boilerplate criterion %q", in.name, tk.Title, c)
				}
			}
		}
	}
}

// TestUserFacingRequirementsAreStories: in a requirements list, what a
// user sees or does is a story, a quality of the system a task.
func TestUserFacingRequirementsAreStories(t *testing.T) {
	spec := readSpec(t, "specs/field-app-requirements")
	res := generate(t, defaultRequest(spec, "Field app"))
	found := 0
	for _, tk := range res.Tickets {
		low := strings.ToLower(tk.Title)
		switch {
		case strings.Contains(low, "badge") || strings.Contains(low, "logout"):
			found++
			if tk.TicketType != tickets.TypeStory {
				t.Errorf("%q is a %s, want a story", tk.Title, tk.TicketType)
			}
		case strings.Contains(low, "encrypt"):
			if tk.TicketType != tickets.TypeTask {
				t.Errorf("%q is a %s, want a task", tk.Title, tk.TicketType)
			}
		}
	}
	if found != 2 {
		t.Errorf("%d tickets for the badge and the logout warning, want 2: %v", found, titles(res.Tickets))
	}
}

// TestChecklistItemsAreTickets: each open item of a tracking issue's
// checklist is a ticket; a done item and an item that says it is out of
// scope are none.
func TestChecklistItemsAreTickets(t *testing.T) {
	spec := readSpec(t, "specs/dark-mode-tracking-checklist")
	res := generate(t, defaultRequest(spec, "Dark mode"))
	wantOneTitledEach(t, res.Tickets, "palette", "appearance", "widget")
	for _, tk := range res.Tickets {
		text := strings.ToLower(tk.Title + " " + strings.Join(tk.AcceptanceCriteria, " "))
		if strings.Contains(text, "email templates") || strings.Contains(text, "sign-up") {
			t.Errorf("ticket %q holds an item that is no work: %s", tk.Title, text)
		}
	}
}

// TestStepsDependOnTheStepBefore: the steps of a plan are written in the
// order they build on each other.
func TestStepsDependOnTheStepBefore(t *testing.T) {
	spec := readSpec(t, "specs/redis-sessions-plan")
	res := generate(t, defaultRequest(spec, "Sessions"))
	id := map[string]string{}
	deps := map[string][]string{}
	for _, tk := range res.Tickets {
		for _, w := range []string{"library", "backend", "dual"} {
			if strings.Contains(strings.ToLower(tk.Title), w) {
				id[w], deps[w] = tk.ExternalID, tk.Dependencies
			}
		}
	}
	for _, pair := range [][2]string{{"backend", "library"}, {"dual", "backend"}} {
		if id[pair[0]] == "" || id[pair[1]] == "" || !slices.Contains(deps[pair[0]], id[pair[1]]) {
			t.Errorf("the %s step does not depend on the %s step: %v %v", pair[0], pair[1], id, deps)
		}
	}
}

// TestParagraphAsksAreTickets: a one-paragraph request that asks for
// several things gives a ticket per ask, an ask of two actions two.
func TestParagraphAsksAreTickets(t *testing.T) {
	spec := "Our customers keep asking who changed what. We'd like an audit log page in workspace settings that lists setting changes. " +
		"Admins should be able to filter it by member and by date range, and download it as CSV for their compliance reviews. " +
		"Entries should be kept for at least a year. We don't need this for the free plan."
	res := generate(t, defaultRequest(spec, "Audit log"))
	wantOneTitledEach(t, res.Tickets, "audit log page", "filter", "csv", "kept for at least a year")
}

// TestSpecWordsKept: criteria quote the spec; no word-level rewriting
// ("etcd" lost its "etc", "may not" became "can not") and no vague
// sentence deleted in silence.
func TestSpecWordsKept(t *testing.T) {
	spec := readSpec(t, "specs/config-service-requirements")
	res := generate(t, defaultRequest(spec, "Config service"))
	var all strings.Builder
	for _, tk := range res.Tickets {
		all.WriteString(strings.Join(tk.AcceptanceCriteria, "\n") + "\n")
	}
	for _, want := range []string{"etcd", "may not see draft", "loads fast"} {
		if !strings.Contains(all.String(), want) {
			t.Errorf("no criterion keeps %q:\n%s", want, all.String())
		}
	}
	wantAsked(t, res, "fast", "asks what \"fast\" means")
}

// TestHeadedSectionsStayApart: a section under its own heading is a piece
// of work of its own, not merged into a sibling it shares words with (the
// RFC of the reference set had its counting, failure mode and admin
// console in one ticket).
func TestHeadedSectionsStayApart(t *testing.T) {
	raw, err := os.ReadFile(filepath.Join("..", "..", "..", "testdata", "reference", "rfc-tenant-limits.md"))
	if err != nil {
		t.Fatal(err)
	}
	res := generate(t, defaultRequest(string(raw), "Per-tenant rate limits"))
	holder := map[string]string{}
	for _, word := range []string{"sliding window", "fails open", "remove an override"} {
		for _, tk := range res.Tickets {
			text := strings.ToLower(tk.Title + " " + strings.Join(tk.AcceptanceCriteria, " "))
			if tk.TicketType != tickets.TypeEpic && strings.Contains(text, word) {
				holder[word] += tk.ExternalID + " "
			}
		}
	}
	if len(holder) != 3 || holder["sliding window"] == holder["fails open"] || holder["fails open"] == holder["remove an override"] {
		t.Errorf("the counting, failure mode and admin console sections share tickets: %v in %v", holder, titles(res.Tickets))
	}
}
