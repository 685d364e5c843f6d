package heuristic_test

import (
	"slices"
	"strings"
	"testing"
)

// A requirement a spec states in a sentence or step of its own is a
// ticket of its own, not a criterion of its section's ticket where a lead
// would not see it (the six silent drops of the reference set): another
// actor's steps, a second deliverable after "and a way to", a new table,
// a limit of its own, what an RFC's guide-level explanation says and its
// reference-level one does not, and the records a page of events lists.
// Where the spec's words order them, the new ticket waits for the one it
// builds on.
func TestSentencesOfTheirOwnAreTickets(t *testing.T) {
	for _, c := range []struct {
		name, spec, want, dependsOn string
	}{
		{"another actor's steps",
			"# Drain\n\n## Design\n\n### Controller behaviour\n\n1. When a node is selected for removal, the controller marks the node as draining.\n" +
				"2. The node agent receives a drain request over the control channel and stops taking jobs.\n" +
				"3. The node reports each job it still holds as finished.\n4. When it holds no job, the controller deletes the node.\n\n### Metrics\n\n- `drain_seconds` histogram\n",
			"Node agent: receive a drain request over the control channel and stop taking jobs", "Implement controller behaviour"},
		{"and a way to",
			"# Export\n\n## Problem\n\nReports cannot leave the app.\n\n## Solution\n\nAn \"Export\" button on each report in the dashboard, and a way to select many reports (or all reports of one month) and export them as one archive.\n",
			"Select many reports and export them as one archive", ""},
		{"a new table",
			"# Quotas\n\n## Design\n\n### Configuration\n\nPlan defaults live in the plans table (`quota_gb`). Overrides live in a new `quota_overrides` table with `tenant_id`, `gb` and `expires_at`. The service caches both for a minute.\n\n### Enforcement\n\nThe service rejects an upload over the quota with a 413.\n",
			"Create the quota_overrides table", ""},
		{"a limit of its own",
			"# Uploads\n\n## Design\n\n### Counting\n\nThe gateway counts uploads per account in a sliding window in Redis. An upload whose account cannot be determined counts against a limit per source IP of 3 uploads per minute.\n\n### Storage\n\nUploads are stored in the bucket.\n",
			"Enforce a limit per source IP of 3 uploads per minute", ""},
		{"guide-level explanation",
			"# Summary\n\nLimits per tenant.\n\n# Guide-level explanation\n\nA client that goes over its quota gets a 429 with `Retry-After`, and every response tells it where it stands:\n\n```http\nQuota-Remaining: 12\n```\n\n" +
				"# Reference-level explanation\n\n## Counting\n\nThe gateway counts requests per tenant in Redis.\n\n## Configuration\n\nPlan defaults live in the plans table.\n\n# Drawbacks\n\nA round trip to Redis.\n",
			"Return a 429 with Retry-After to a client that goes over its quota", ""},
		{"a page of events implies their records",
			"Teams want to see who changed what. We'd like an activity page in project settings that lists setting changes and member removals, each with the actor and the time. Admins should be able to filter it by member. Admins should be able to download it as CSV. Entries must be kept for a year.",
			"Record setting changes and member removals with the actor and the time", ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			ts := generate(t, defaultRequest(c.spec, "Spec")).Tickets
			if titled(ts, c.want) < 0 {
				t.Fatalf("no ticket %q: %v", c.want, titles(ts))
			}
			if c.dependsOn != "" {
				wantDependsOn(t, ts, c.want, c.dependsOn)
			}
		})
	}
}

// The page a request asks for waits for the records it lists, and what is
// asked of "it" afterwards (filter it, download it) waits for the page.
func TestPageWaitsForItsRecords(t *testing.T) {
	spec := "We'd like an activity page in project settings that lists setting changes and member removals, each with the actor and the time. Admins should be able to filter it by member. Admins should be able to download it as CSV. Entries must be kept for a year."
	res := generate(t, defaultRequest(spec, "Activity log"))
	id := func(prefix string) string {
		for _, tk := range res.Tickets {
			if strings.HasPrefix(tk.Title, prefix) {
				return tk.ExternalID
			}
		}
		t.Fatalf("no ticket %q…: %v", prefix, titles(res.Tickets))
		return ""
	}
	record, page, download := id("Record setting changes"), id("Add an activity page"), id("Allow admins to download it")
	for _, tk := range res.Tickets {
		switch tk.ExternalID {
		case page:
			if !slices.Contains(tk.Dependencies, record) {
				t.Errorf("the page depends on %v, want %s", tk.Dependencies, record)
			}
		case download:
			if !slices.Contains(tk.Dependencies, page) {
				t.Errorf("the download depends on %v, want %s", tk.Dependencies, page)
			}
		}
	}
}

// An RFC whose headings are all of the first level opens with "# Summary",
// which names no work: the detailed design's first sentence, an order,
// titles its ticket (a public RFC's only ticket was "Implement summary").
func TestDetailedDesignTitledByItsOrder(t *testing.T) {
	spec := readSpec(t, "specs/as-micros-rfc")
	res := generate(t, defaultRequest(spec, ""))
	want := "Add a as_micros function on std::time::Duration that returns the whole microseconds"
	if titled(res.Tickets, want) < 0 {
		t.Errorf("no ticket %q: %v", want, titles(res.Tickets))
	}
}

// A feature spec in the spec-kit shape (a public one scored 3 of 10): a
// user story's "**Acceptance Scenarios**:" are the story's criteria, not
// a ticket per scenario; "*(mandatory)*" leaves no "**" in a title;
// "User Story 2 - " does not open one; measurable outcomes are no work.
func TestFeatureSpecStories(t *testing.T) {
	spec := readSpec(t, "specs/draft-exports-feature-spec")
	res := generate(t, defaultRequest(spec, ""))
	got := titles(res.Tickets)
	for _, tk := range res.Tickets {
		if strings.Contains(tk.Title, "**") || strings.HasPrefix(tk.Title, "Implement given") || strings.Contains(tk.Title, "SC-00") || strings.Contains(tk.Title, "User Story") {
			t.Errorf("ticket %q: %v", tk.Title, got)
		}
	}
	if titled(res.Tickets, "Export a draft as PDF with its Version history") < 0 {
		t.Errorf("no story \"Export a draft as PDF with its Version history\": %v", got)
	}
	i := titled(res.Tickets, "Validate Export Settings Before Sending")
	if i < 0 {
		t.Fatalf("no story \"Validate Export Settings Before Sending\": %v", got)
	}
	if !slices.ContainsFunc(res.Tickets[i].AcceptanceCriteria, func(c string) bool { return strings.Contains(c, "the export asks for one") }) {
		t.Errorf("the story's criteria lack its scenario: %q", res.Tickets[i].AcceptanceCriteria)
	}
}

// A PRD's own "## Acceptance criteria" section lists the criteria of all
// its stories: it is not folded into the "## User stories" before it.
func TestPRDAcceptanceSectionStays(t *testing.T) {
	spec := readSpec(t, "specs/exports-prd-acceptance-section")
	res := generate(t, defaultRequest(spec, ""))
	for _, tk := range res.Tickets {
		if tk.Title == "Implement user stories" {
			t.Errorf("the acceptance criteria were folded into one ticket: %v", titles(res.Tickets))
		}
	}
}
