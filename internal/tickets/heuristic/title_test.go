package heuristic

import (
	"testing"

	"github.com/foresight-dev/foresight/internal/tickets"
)

// TestTitlesKeepTheSpecsNames: titles say a merged name once, keep path
// parameters and HTTP methods, and lower-case Title Case headings without
// touching acronyms and identifiers (seen on a public Todo API spec and a
// TOTP PRD: "Implement error responses and error responses and error
// responses", "Get /api/todos/id", "Implement user Stories").
func TestTitlesKeepTheSpecsNames(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"GET /api/todos/:id", "Implement GET /api/todos/:id"},
		{"DELETE /v2/invoices/{id}", "Implement DELETE /v2/invoices/{id}"},
		{"User Stories", "Implement user stories"},
		{"Non-Functional Requirements", "Implement non-functional requirements"},
		{"CronJob API", "Implement CronJob API"},
		{"Business rules", "Implement business rules"},
	} {
		if got := verbFirst(cleanHeading(c.in)); got != c.want {
			t.Errorf("title of heading %q = %q, want %q", c.in, got, c.want)
		}
	}
	a := &draft{title: "Implement error responses", origin: originSection, sec: &section{}}
	b := &draft{title: "Implement error responses", origin: originSection, sec: a.sec}
	if got := combinedTitle(a, b); got != "Implement error responses" {
		t.Errorf("combinedTitle of two equal titles = %q", got)
	}
	if got := renderTitle("Define", []string{"relationships", "Relationships"}, "schema"); got != "Define relationships schema" {
		t.Errorf("renderTitle with a repeated subject = %q", got)
	}
	stage := "# KEP\n\n## Graduation Criteria\n\n### Alpha\n\n- Functionality implemented behind feature gate:\n  - TimeZone field added to API (kube-apiserver)\n  - CronJob controller reacting to new field\n"
	sdoc := parseDocument(newMeter(t.Context()), stage)
	sb := newBuilder(newMeter(t.Context()), tickets.GenerationRequest{Spec: stage}, normalizeOptions(tickets.Options{}), sdoc)
	sb.build()
	var stageTitles []string
	for _, d := range sb.drafts {
		if d.alive {
			stageTitles = append(stageTitles, d.title)
		}
	}
	if len(stageTitles) == 0 || stageTitles[0] != "Alpha: functionality implemented behind feature gate" {
		t.Errorf("a stage section is titled %q, want what its list says", stageTitles)
	}
	spec := "# Todo API\n\n## Endpoints\n\n### GET /api/todos/:id\n\n- **Description:** Get a single item by ID\n- **Errors:** 404 when the item is missing\n"
	doc := parseDocument(newMeter(t.Context()), spec)
	bl := newBuilder(newMeter(t.Context()), tickets.GenerationRequest{Spec: spec}, normalizeOptions(tickets.Options{}), doc)
	bl.build()
	found := false
	for _, d := range bl.drafts {
		found = found || d.alive && d.title == "Implement GET /api/todos/:id"
	}
	if !found {
		var got []string
		for _, d := range bl.drafts {
			got = append(got, d.title)
		}
		t.Errorf("no draft keeps the endpoint's method and path parameter: %q", got)
	}
}
