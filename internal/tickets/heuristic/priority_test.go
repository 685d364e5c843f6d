package heuristic_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/foresight-dev/foresight/internal/tickets"
)

// moscowSpec lists its requirements under MoSCoW headings with short
// identifiers ("M1."), one of them opening with its condition.
const moscowSpec = "# Offline inspections\n\n## Requirements\n\n### Must have\n\n" +
	"- M1. Download the inspections assigned to me for the next 7 days.\n" +
	"- M2. Complete an inspection offline with its checklist and photos.\n" +
	"- M3. Queue offline changes and sync them when a connection returns.\n" +
	"- M4. If the same inspection was changed on the server, keep both versions and ask the inspector which to keep.\n\n" +
	"### Should have\n\n- S1. A manual sync button in the menu.\n- S2. Warn before logout when changes wait to sync.\n\n" +
	"### Could have\n\n- C1. Download area maps for offline use.\n"

// TestMustHavesKeepTheirTicketsAtTheCap asks for as many tickets as the
// spec has must-haves: each must-have keeps a ticket of its own, titled by
// its action and identifier, and the should- and could-haves are named in
// an open question instead (they had kept tickets while the must-haves
// were merged into one).
func TestMustHavesKeepTheirTicketsAtTheCap(t *testing.T) {
	req := defaultRequest(moscowSpec, "Offline inspections")
	req.Options.MaxTicketCount = 4
	res := generate(t, req)
	got := titles(res.Tickets)
	for _, want := range []string{"(M1)", "(M2)", "(M3)", "Keep both versions and ask the inspector which to keep (M4)"} {
		if !slices.ContainsFunc(got, func(title string) bool { return strings.Contains(title, want) }) {
			t.Errorf("no ticket says %q: %v", want, got)
		}
	}
	wantCapNames(t, req, "manual sync button", "Warn before logout", "area maps")
}

// TestConditionFirstTitles titles a requirement that opens with its
// condition by its action ("If …, keep both versions …" is not "Implement
// if the same inspection …").
func TestConditionFirstTitles(t *testing.T) {
	res := generate(t, defaultRequest(moscowSpec, "Offline inspections"))
	got := titles(res.Tickets)
	if !slices.Contains(got, "Keep both versions and ask the inspector which to keep (M4)") {
		t.Errorf("no ticket titled by M4's action: %v", got)
	}
}

// TestSectionTitledByItsPassiveRequirement titles the ticket of a section
// whose heading only says where ("### CronJob API") by the requirement it
// opens with, and keeps the order its heading gives: the controller waits
// for the API.
func TestSectionTitledByItsPassiveRequirement(t *testing.T) {
	spec := "# KEP: time zones in CronJob\n\n## Design Details\n\n### CronJob API\n\n" +
		"The `.spec` for a CronJob is expanded with a new `timeZone` field which allows specifying the time zone.\n\n" +
		"### CronJob controller\n\nThe controller uses the `timeZone` field when it parses the schedule.\n"
	res := generate(t, defaultRequest(spec, "KEP: time zones in CronJob"))
	api, controller := "", ""
	for _, tk := range res.Tickets {
		switch {
		case tk.Title == "Expand the .spec for a CronJob with a new timeZone field":
			api = tk.ExternalID
		case strings.Contains(tk.Title, "controller"):
			controller = tk.ExternalID
			if api == "" || !slices.Contains(tk.Dependencies, api) {
				t.Errorf("%q does not wait for the API ticket %q: %v", tk.Title, api, tk.Dependencies)
			}
		}
	}
	if api == "" || controller == "" {
		t.Errorf("no API ticket titled by its requirement or no controller ticket: %v", titles(res.Tickets))
	}
}

// TestVersionInTheTitleIsNoDeferral reads a document titled by the release
// it plans ("Dash v2.0 launch preparation"): its requirements are work,
// where "v2.0" in the title had made the whole document deferred work and
// the result one "Implement spec" ticket.
func TestVersionInTheTitleIsNoDeferral(t *testing.T) {
	spec := "# PRD-002: Dash v2.0 launch preparation\n\n## Launch requirements\n\n" +
		"- [ ] The CLI builds without the skipLibCheck option.\n- [ ] The status command reports a healthy orchestrator.\n\n" +
		"## Deferred to v2.1\n\n- [ ] Shell completion scripts for every command.\n"
	res := generate(t, defaultRequest(spec, "spec"))
	got := strings.Join(titles(res.Tickets), "\n")
	for _, want := range []string{"skipLibCheck", "healthy orchestrator"} {
		if !strings.Contains(got, want) {
			t.Errorf("no ticket says %q:\n%s", want, got)
		}
	}
	if strings.Contains(got, "completion") {
		t.Errorf("the work deferred to v2.1 has a ticket:\n%s", got)
	}
}

// TestPriorityFromTheSpec gives a must-have a high priority and a
// could-have a low one, as the spec ranks them (all were medium).
func TestPriorityFromTheSpec(t *testing.T) {
	res := generate(t, defaultRequest(moscowSpec, "Offline inspections"))
	for _, tk := range res.Tickets {
		want := ""
		switch {
		case strings.Contains(tk.Title, "(M"):
			want = tickets.PriorityHigh
		case strings.Contains(tk.Title, "area maps"):
			want = tickets.PriorityLow
		}
		if got := priorityOf(tk); want != "" && got != want {
			t.Errorf("%q has priority %q, want %q", tk.Title, got, want)
		}
	}
}

// shoppingSpec lists its requirements in a table with an identifier and a
// priority column, and rolls out behind a flag.
const shoppingSpec = "# PRD: Shared shopping lists\n\n## Requirements\n\n| ID | Requirement | Priority |\n|---|---|---|\n" +
	"| R1 | A list owner can invite up to 5 members by link. | P0 |\n" +
	"| R2 | All members see edits within 5 seconds while online. | P0 |\n" +
	"| R3 | Edits made offline are kept and merged when the device is back online. | P0 |\n" +
	"| R4 | A push notification when someone starts shopping from the list. | P1 |\n" +
	"| R5 | Items can be assigned to a member. | P1 |\n\n" +
	"## Launch plan\n\n### Rollout\n\n- Behind the `shared_lists` remote flag; 5 % of users for one week, then everyone, if the crash-free rate holds.\n"

// TestRequirementTableRows gives each row of a requirement table its
// identifier and its priority: "(R1)" in the title, P0 rows high and kept
// at the cap before P1 rows.
func TestRequirementTableRows(t *testing.T) {
	res := generate(t, defaultRequest(shoppingSpec, "Shared lists"))
	for _, tk := range res.Tickets {
		if strings.Contains(tk.Title, "invite up to 5 members") && (!strings.HasSuffix(tk.Title, "(R1)") || priorityOf(tk) != tickets.PriorityHigh) {
			t.Errorf("R1's ticket is %q at priority %q, want its identifier and high", tk.Title, priorityOf(tk))
		}
	}
	req := defaultRequest(shoppingSpec, "Shared lists")
	req.Options.MaxTicketCount = 3
	got := titles(generate(t, req).Tickets)
	for _, id := range []string{"(R1)", "(R2)", "(R3)"} {
		if !slices.ContainsFunc(got, func(title string) bool { return strings.Contains(title, id) }) {
			t.Errorf("no ticket of %s at 3 tickets: %v", id, got)
		}
	}
}

// TestRolloutStepIsATask titles a rollout step by what it does and types
// it a task: "if the crash-free rate holds" reports no crash and "5 % of
// users" makes it no user story (it was a bug titled "Implement behind
// the shared_lists remote flag").
func TestRolloutStepIsATask(t *testing.T) {
	res := generate(t, defaultRequest(shoppingSpec, "Shared lists"))
	for _, tk := range res.Tickets {
		if strings.Contains(tk.Title, "shared_lists") {
			if tk.Title != "Roll out behind the shared_lists remote flag" || tk.TicketType != tickets.TypeTask {
				t.Errorf("rollout step: %s %q, want a task titled \"Roll out behind the shared_lists remote flag\"", tk.TicketType, tk.Title)
			}
			return
		}
	}
	t.Errorf("no rollout ticket: %v", titles(res.Tickets))
}

// priorityOf is a ticket's priority, "" when it has none.
func priorityOf(tk tickets.Ticket) string {
	if tk.Priority == nil {
		return ""
	}
	return *tk.Priority
}
