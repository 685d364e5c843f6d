package heuristic_test

import (
	"slices"
	"testing"

	"github.com/foresight-dev/foresight/internal/tickets"
)

// Work waits for what the document's own order and words put before it:
// the API type written above the controller under one heading, the table
// above the console that edits it, the work above an integration test,
// the ticket an "after …" sentence names, and the work a rollout step
// turns on (the reference set's dependency recall was 0.46).
func TestOrderFromTheDocument(t *testing.T) {
	design := readSpec(t, "specs/drain-design-details")
	for _, c := range []struct{ name, spec, from, on string }{
		{"sibling layers", design, "Controller behaviour: The controller reads the drain field and stops assigning jobs to a draining worker", "API: A new optional field drain on the Pool spec"},
		{"integration test after the work", design, "Integration test: a pool scales down and its running job completes", "Controller behaviour: The controller reads the drain field and stops assigning jobs to a draining worker"},
		{"table before its console",
			"# Discounts\n\n## Design\n\n### Configuration\n\nPlan defaults live in the plans table. Overrides live in a new `discount_overrides` table with `tenant_id` and `expires_at`.\n\n### Admin console\n\nSupport sees each tenant's discount and can add or remove an override.\n",
			"Admin console: Support sees each tenant's discount and can add or remove an override", "Create the discount_overrides table"},
		{"after names a ticket",
			"# Backups\n\n## Design\n\n### Backup job\n\nA full backup runs every night on the replica.\n\n### Restore test\n\nA weekly job restores the latest backup into a scratch instance and compares row counts.\n\n" +
				"## Rollout plan\n\n1. Enable the backup job on staging.\n2. After two successful restore tests, switch off the old job.\n",
			"Switch off the old job after two successful restore tests", "Set up restore test"},
		{"rollout step turns work on",
			"# Backups\n\n## Design\n\n### WAL archiving\n\n`archive_command` pushes each WAL segment to the bucket.\n\n### Monitoring\n\nAn alert fires when the last backup is older than a day.\n\n" +
				"## Rollout plan\n\n1. Enable WAL archiving on the staging cluster.\n2. Enable it on production.\n",
			"Enable WAL archiving on the staging cluster", "WAL archiving: archive_command pushes each WAL segment to the bucket"},
		{"screens after the foundations",
			"## Tracking: Dark mode\n\nTheme work.\n\n### Foundations\n\n- [ ] Define the colour tokens for both themes.\n- [ ] Store the chosen theme in the profile of the user.\n\n" +
				"### Screens\n\n- [ ] Settings: add the Appearance section with Light and Dark.\n- [ ] Reports: move the chart palette to tokens.\n",
			"Add the Appearance section with Light and Dark (Settings)", "Store the chosen theme in the profile of the user"},
		{"phase 2 after phase 1",
			"# Plan\n\n## Phase 1: Work orders\n\n- WO-1: A defect creates a work order.\n- WO-2: A supervisor assigns a work order.\n\n" +
				"## Phase 2: Preventive maintenance\n\n- PM-1: Fleet engineers define a schedule per vehicle type.\n",
			"Ensure fleet engineers define a schedule per vehicle type (PM-1)", "Ensure a supervisor assigns a work order (WO-2)"},
	} {
		t.Run(c.name, func(t *testing.T) {
			wantDependsOn(t, generate(t, defaultRequest(c.spec, "Spec")).Tickets, c.from, c.on)
		})
	}
}

// titled is the index of the ticket titled title, or -1.
func titled(ts []tickets.Ticket, title string) int {
	return slices.IndexFunc(ts, func(tk tickets.Ticket) bool { return tk.Title == title })
}

// wantDependsOn fails t unless the tickets titled from and on exist and
// the first depends on the second.
func wantDependsOn(t *testing.T, ts []tickets.Ticket, from, on string) {
	t.Helper()
	i, j := titled(ts, from), titled(ts, on)
	if i < 0 || j < 0 {
		t.Fatalf("want tickets %q and %q: %v", from, on, titles(ts))
	}
	if !slices.Contains(ts[i].Dependencies, ts[j].ExternalID) {
		t.Errorf("%q depends on %v, want %s (%q): %v", from, ts[i].Dependencies, ts[j].ExternalID, on, titles(ts))
	}
}
