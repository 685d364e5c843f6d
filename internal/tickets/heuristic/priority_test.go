package heuristic_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/foresight-dev/foresight/internal/tickets"
)

// TestMustHavesKeepTheirTicketsAtTheCap asks for as many tickets as the
// spec has must-haves: each must-have keeps a ticket of its own, titled by
// its action and identifier, and the should- and could-haves are named in
// an open question instead (they had kept tickets while the must-haves
// were merged into one).
func TestMustHavesKeepTheirTicketsAtTheCap(t *testing.T) {
	// moscowSpec lists its requirements under MoSCoW headings with short
	// identifiers ("M1."), one of them opening with its condition.
	moscowSpec := readSpec(t, "specs/offline-inspections-moscow")
	req := defaultRequest(moscowSpec, "Offline inspections")
	req.Options.MaxTicketCount = 4
	res := generate(t, req)
	wantTitles(t, res.Tickets, strings.Contains, "(M1)", "(M2)", "(M3)", "Keep both versions and ask the inspector which to keep (M4)")
	wantCapNames(t, req, "manual sync button", "Warn before logout", "area maps")
}

// TestConditionFirstTitles titles a requirement that opens with its
// condition by its action ("If …, keep both versions …" is not "Implement
// if the same inspection …").
func TestConditionFirstTitles(t *testing.T) {
	moscowSpec := readSpec(t, "specs/offline-inspections-moscow")
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
	spec := readSpec(t, "specs/cronjob-time-zones-kep")
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
	spec := readSpec(t, "specs/dash-launch-prd")
	res := generate(t, defaultRequest(spec, "spec"))
	got := strings.Join(titles(res.Tickets), "\n")
	wantHolds(t, "the tickets", got, "skipLibCheck", "healthy orchestrator")
	if strings.Contains(got, "completion") {
		t.Errorf("the work deferred to v2.1 has a ticket:\n%s", got)
	}
}

// TestPriorityFromTheSpec gives a must-have a high priority and a
// could-have a low one, as the spec ranks them (all were medium).
func TestPriorityFromTheSpec(t *testing.T) {
	moscowSpec := readSpec(t, "specs/offline-inspections-moscow")
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

// TestRequirementTableRows gives each row of a requirement table its
// identifier and its priority: "(R1)" in the title, P0 rows high and kept
// at the cap before P1 rows.
func TestRequirementTableRows(t *testing.T) {
	// shoppingSpec lists its requirements in a table with an identifier and a
	// priority column, and rolls out behind a flag.
	shoppingSpec := readSpec(t, "specs/shared-shopping-lists-prd")
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
	shoppingSpec := readSpec(t, "specs/shared-shopping-lists-prd")
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
