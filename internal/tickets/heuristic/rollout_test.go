package heuristic_test

import (
	"strings"
	"testing"
)

// TestRolloutInLaunchPlanIsWork keeps a launch plan's rollout behind a
// flag as work while its marketing stays out.
func TestRolloutInLaunchPlanIsWork(t *testing.T) {
	spec := "# PRD: Saved searches\n\n## Requirements\n\n- Users can save a search and rerun it from the sidebar.\n\n## Launch plan\n\n### Rollout\n\n" +
		"- Behind the `saved_searches` remote flag; 10 % of users for a week, then everyone.\n\n### Marketing\n\n- A blog post and a tweet on launch day.\n"
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
