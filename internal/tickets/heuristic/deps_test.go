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
	} {
		t.Run(c.name, func(t *testing.T) {
			wantDependsOn(t, generate(t, defaultRequest(c.spec, "Spec")).Tickets, c.from, c.on)
		})
	}
}

// A phase follows the phase before it: their epics say so, and each
// ticket's suggested milestone names its phase; no ticket of one phase
// waits for a ticket of another ("Define maintenance schedules (PM-1)"
// waited for "Show a vehicle as off road (WO-9)", the last ticket of the
// phase before).
func TestPhasesWaitForEachOtherAsEpics(t *testing.T) {
	spec := "# Plan\n\n## Phase 1: Work orders\n\n" +
		"- WO-1: Drivers report defects from the driver app.\n- WO-2: Supervisors assign jobs to technicians.\n" +
		"- WO-3: Technicians record labour hours.\n- WO-4: Supervisors sign off finished repairs.\n" +
		"- WO-5: Sign-off produces a PDF job sheet.\n- WO-6: The depot board lists open jobs by bay.\n" +
		"- WO-7: Critical defects page the duty manager.\n\n" +
		"## Phase 2: Preventive maintenance\n\n" +
		"- PM-1: Fleet engineers define service intervals per vehicle type.\n- PM-2: Mileage is read nightly from telematics.\n" +
		"- PM-3: Due dates are computed from intervals and mileage.\n- PM-4: Statutory inspections are booked two weeks ahead.\n" +
		"- PM-5: Engineers export inspection history as CSV.\n- PM-6: Overdue inspections raise an alert.\n" +
		"- PM-7: Tyre tread depth is logged at each service.\n"
	ts := generate(t, defaultRequest(spec, "Spec")).Tickets
	epics := map[string]string{}
	for _, tk := range ts {
		if tk.TicketType == tickets.TypeEpic {
			epics[tk.Title] = tk.ExternalID
		}
	}
	first, second := epics["Phase 1 Work orders"], epics["Phase 2 Preventive maintenance"]
	if first == "" || second == "" {
		t.Fatalf("no epic per phase: %v", titles(ts))
	}
	for _, tk := range ts {
		switch {
		case tk.ExternalID == second:
			if !slices.Equal(tk.Dependencies, []string{first}) {
				t.Errorf("the second phase's epic depends on %v, want %s", tk.Dependencies, first)
			}
		case tk.TicketType != tickets.TypeEpic:
			for _, d := range tk.Dependencies {
				if tk.ParentExternalID == nil {
					continue
				}
				for _, other := range ts {
					if other.ExternalID == d && other.ParentExternalID != nil && *other.ParentExternalID != *tk.ParentExternalID {
						t.Errorf("%q depends on %q of the other phase: the phases' order is the epics'", tk.Title, other.Title)
					}
				}
			}
			want := map[string]string{first: "Phase 1 Work orders", second: "Phase 2 Preventive maintenance"}
			if tk.ParentExternalID != nil && tk.Metadata["suggested_milestone"] != want[*tk.ParentExternalID] {
				t.Errorf("%q: suggested milestone %v, want its phase %q", tk.Title, tk.Metadata["suggested_milestone"], want[*tk.ParentExternalID])
			}
		}
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
