package heuristic_test

import (
	"strings"
	"testing"
)

// TestRolloutInLaunchPlanIsWork keeps a launch plan's rollout behind a
// flag as work while its marketing stays out.
func TestRolloutInLaunchPlanIsWork(t *testing.T) {
	spec := readSpec(t, "specs/saved-searches-launch-plan")
	res := generate(t, defaultRequest(spec, "Saved searches"))
	var all strings.Builder
	for _, tk := range res.Tickets {
		all.WriteString(tk.Title + " " + strings.Join(tk.AcceptanceCriteria, " ") + "\n")
	}
	if !strings.Contains(all.String(), "saved_searches") {
		t.Errorf("no ticket for the rollout behind the flag:\n%s", all.String())
	}
	if strings.Contains(strings.ToLower(all.String()), "blog post") {
		t.Errorf("a ticket for the marketing:\n%s", all.String())
	}
}
