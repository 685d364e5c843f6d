package heuristic_test

import (
	"testing"
)

// TestTestPlanItemsAreTickets gives each kind of test a test plan lists
// its own ticket, titled in the plan's words.
func TestTestPlanItemsAreTickets(t *testing.T) {
	spec := readSpec(t, "specs/queue-retention-test-plan")
	res := generate(t, defaultRequest(spec, "Queue retention"))
	wantTitles(t, res.Tickets, sameTitle,
		"Unit tests for the sweeper's age computation and its batch size",
		"Integration test: a queue with a one-hour retention loses its two-hour-old messages after a sweep",
		"Load test: a sweep of ten million messages finishes within five minutes")
}
