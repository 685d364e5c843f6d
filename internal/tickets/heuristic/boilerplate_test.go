package heuristic_test

import (
	"strings"
	"testing"
)

func TestCriteriaComeFromTheSpec(t *testing.T) {
	// boilerplateSpec has the sections that drew canned sentences instead of
	// the spec's words on public specs (a Todo API spec, KEP-3140): rate
	// limiting, authorization rules and a version skew strategy that says
	// there is nothing to do.
	boilerplateSpec := readSpec(t, "specs/todo-api-boilerplate")
	res := generate(t, defaultRequest(boilerplateSpec, "Todo API"))
	for _, tk := range res.Tickets {
		text := tk.Title + "\n" + tk.Description + "\n" + strings.Join(tk.AcceptanceCriteria, "\n")
		wantLacks(t, "ticket "+tk.Title, text, "Enforce documented limits", "API versioning rules", "authentication rules of", "only authenticated and authorised calls are served", "bounds listed in", "node runtime implications")
	}
	found := false
	for _, tk := range res.Tickets {
		found = found || strings.Contains(tk.Title, "100 requests per minute") && strings.Contains(strings.Join(tk.AcceptanceCriteria, " "), "100 requests per minute")
	}
	if !found {
		t.Errorf("no ticket named after the limit of the rate limiting section: %v", titles(res.Tickets))
	}
}

// TestRequirementItemsKeepTheirWords: a requirement item is its own
// criterion, word for word (a TOTP PRD's "Support for iOS and Android"
// became "For iOS and Android works end to end").
func TestRequirementItemsKeepTheirWords(t *testing.T) {
	spec := readSpec(t, "specs/authenticator-platform-list")
	res := generate(t, defaultRequest(spec, "Authenticator"))
	var all []string
	for _, tk := range res.Tickets {
		all = append(all, tk.AcceptanceCriteria...)
	}
	text := strings.Join(all, "\n")
	wantLacks(t, "the criteria", text, "works end to end", "as described, checked by an automated test")
	wantHolds(t, "the criteria", text, "Support for iOS and Android", "Generate TOTP codes according to RFC 6238")
}

// TestEndpointStoryWantsItsPurpose: the story line of an endpoint says what
// the user wants, not that the endpoint should "work as specified".
func TestEndpointStoryWantsItsPurpose(t *testing.T) {
	spec := readSpec(t, "specs/todo-api-endpoint-fields")
	res := generate(t, defaultRequest(spec, "Todo API"))
	for _, tk := range res.Tickets {
		if strings.HasPrefix(tk.Title, "Implement GET /api/todos") {
			if strings.Contains(tk.Description, "work as specified") || !strings.Contains(tk.Description, "I want to list all todos") {
				t.Errorf("story line of %q: %s", tk.Title, tk.Description)
			}
			return
		}
	}
	t.Errorf("no endpoint ticket: %v", titles(res.Tickets))
}
