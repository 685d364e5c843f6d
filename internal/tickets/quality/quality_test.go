package quality_test

import (
	"context"
	"encoding/json"
	"os"
	"strings"
	"testing"

	"github.com/foresight-dev/foresight/internal/tickets"
	"github.com/foresight-dev/foresight/internal/tickets/heuristic"
	"github.com/foresight-dev/foresight/internal/tickets/quality"
)

func ticket(id, typ, title string, ac ...string) tickets.Ticket {
	three := 3
	t := tickets.Ticket{ExternalID: id, TicketType: typ, Title: title, Description: "d", AcceptanceCriteria: ac,
		Labels: []string{}, Dependencies: []string{}, StoryPoints: &three, Metadata: map[string]any{}}
	if typ == tickets.TypeEpic {
		t.StoryPoints = nil
	}
	return t
}

func score(t *testing.T, ts []tickets.Ticket, spec string) quality.Report {
	t.Helper()
	raw, _ := json.Marshal(tickets.Result{SchemaVersion: tickets.ResultSchemaVersion, JobID: "00000000-0000-4000-8000-000000000000",
		Source: tickets.Source{Title: "t", Summary: "s"}, Tickets: ts, Risks: []tickets.Risk{}, OpenQuestions: []tickets.OpenQuestion{},
		Generation: tickets.Generation{Model: "m"}})
	r, err := quality.Score(raw, spec)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func check(r quality.Report, name string) quality.Check {
	for _, c := range r.Checks {
		if c.Name == name {
			return c
		}
	}
	return quality.Check{Score: -1}
}

func TestChecks(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		ticket tickets.Ticket
		check  string
		pass   bool
	}{
		{"verb first", ticket("SPEC-1", "task", "Implement POST /v1/jobs", "returns 202"), "well_formed", true},
		{"noun first", ticket("SPEC-1", "task", "Job submission endpoint", "returns 202"), "well_formed", false},
		{"story with role", tickets.Ticket{}, "", true},
		{"two actions", ticket("SPEC-1", "task", "Validate input and store jobs", "a"), "atomic", false},
		{"path with slash is one thing", ticket("SPEC-1", "task", "Implement GET /v1/jobs/{job_id}", "a"), "atomic", true},
		{"second clause", ticket("SPEC-1", "task", "Add export: CSV and PDF", "a"), "minimal", false},
		{"braces of a path", ticket("SPEC-1", "task", "Implement DELETE /v1/jobs/{job_id}", "a"), "minimal", true},
		{"vague criterion", ticket("SPEC-1", "task", "Add search", "Search is fast"), "testable_criteria", false},
		{"observable criterion", ticket("SPEC-1", "task", "Add search", "GET /search?q=x returns matching jobs within the page limit"), "testable_criteria", true},
		{"21 points", func() tickets.Ticket {
			t := ticket("SPEC-1", "task", "Add search", "a")
			n := 21
			t.StoryPoints = &n
			return t
		}(), "estimable", false},
	}
	for _, tt := range tests {
		if tt.check == "" {
			continue
		}
		c := check(score(t, []tickets.Ticket{tt.ticket}, ""), tt.check)
		if (c.Score == 1) != tt.pass {
			t.Errorf("%s: %s = %v %v, want pass %v", tt.name, tt.check, c.Score, c.Findings, tt.pass)
		}
	}
	story := ticket("SPEC-1", "story", "Sign in with a passkey", "a")
	story.Description = "As a bettor, I want to sign in with a passkey, so that I need no password."
	if c := check(score(t, []tickets.Ticket{story}, ""), "well_formed"); c.Score != 1 {
		t.Errorf("story with a role: %v", c)
	}
	story.Description = "Passkeys everywhere."
	if c := check(score(t, []tickets.Ticket{story}, ""), "well_formed"); c.Score != 0 {
		t.Errorf("story without a role: %v", c)
	}
}

func TestUniqueCoverageQuestions(t *testing.T) {
	t.Parallel()
	spec := "# Shop\n## Checkout\nUsers pay.\n## Refunds\nTBD.\n## Loyalty points\nWho pays for points?\n"
	r := score(t, []tickets.Ticket{
		ticket("SPEC-1", "task", "Implement checkout payment", "a"),
		ticket("SPEC-2", "task", "Implement checkout payments", "a"),
	}, spec)
	if c := check(r, "unique"); c.Score != 0.5 {
		t.Errorf("unique = %v", c)
	}
	if c := check(r, "coverage"); c.Score != 0.25 || !strings.Contains(strings.Join(c.Findings, ";"), "Refunds") {
		t.Errorf("coverage = %v (only Checkout is covered)", c)
	}
	if c := check(r, "open_questions"); c.Score != 0 {
		t.Errorf("open_questions = %v", c)
	}
	if r.Score <= 0 || r.Score >= 1 || r.Tickets["SPEC-1"] != 1 {
		t.Errorf("report = %+v", r)
	}
}

func TestInvalidResultScoresZeroOnValidity(t *testing.T) {
	t.Parallel()
	bad := ticket("SPEC-1", "task", "Add search", "a")
	bad.Dependencies = []string{"SPEC-7"}
	if c := check(score(t, []tickets.Ticket{bad}, ""), "valid"); c.Score != 0 || len(c.Findings) == 0 {
		t.Errorf("valid = %v", c)
	}
}

// The heuristic engine on the spec of this service keeps a high score.
func TestHeuristicOnTicketsSpec(t *testing.T) {
	t.Parallel()
	spec, err := os.ReadFile("../heuristic/testdata/tickets-api.md")
	if err != nil {
		t.Fatal(err)
	}
	res, err := heuristic.New().Generate(context.Background(), tickets.GenerationRequest{JobID: "00000000-0000-4000-8000-000000000000",
		Title: "Tickets", Spec: string(spec), Options: tickets.Options{MaxTicketCount: 20, IncludeEpics: true, DependencyMode: "explicit", OutputDetail: "standard"}})
	if err != nil {
		t.Fatal(err)
	}
	raw, _ := json.Marshal(res)
	r, err := quality.Score(raw, string(spec))
	if err != nil {
		t.Fatal(err)
	}
	if check(r, "valid").Score != 1 || r.Score < 0.7 {
		t.Errorf("score %.2f: %+v", r.Score, r.Checks)
	}
}
