package heuristic_test

import (
	"strings"
	"testing"
)

func TestExplanatorySectionsMakeNoTickets(t *testing.T) {
	// explanatorySpec has one section of work among the explanatory sections
	// real proposals and PRDs carry (seen on PEP 616, KEP-3140 and a TOTP
	// app's PRD): an abstract, a rationale, a reference implementation, a
	// history of revisions, analytics, notes for a code generator, and risks
	// and assumptions given as labelled lists.
	explanatorySpec := readSpec(t, "specs/prefix-removal-proposal")
	res := generate(t, defaultRequest(explanatorySpec, "Prefix removal"))
	for _, tk := range res.Tickets {
		text := strings.ToLower(tk.Title + " " + strings.Join(tk.AcceptanceCriteria, " "))
		wantLacks(t, "ticket "+tk.Title, text, "proposal to add", "confused", "megabyte", "outdated time zone", "pull request", "changed the name", "prefixes removed per day", "crud", "abstract", "rationale", "history", "analytics", "generator")
	}
	all := strings.ToLower(strings.Join(titles(res.Tickets), "\n"))
	for _, want := range []string{"removeprefix", "manual entry fallback"} {
		found := false
		for _, tk := range res.Tickets {
			found = found || strings.Contains(strings.ToLower(tk.Title+" "+strings.Join(tk.AcceptanceCriteria, " ")), want)
		}
		if !found {
			t.Errorf("no ticket carries %q (the specification and a labelled mitigation are work): %s", want, all)
		}
	}
	for _, want := range []string{"outdated time zone data might lead to wrong schedule times", "camera permissions denied"} {
		found := false
		for _, r := range res.Risks {
			low := strings.ToLower(r.Description)
			found = found || strings.Contains(low, want) && strings.Contains(low, "line")
		}
		if !found {
			t.Errorf("no risk quotes %q with its source: %+v", want, res.Risks)
		}
	}
}
