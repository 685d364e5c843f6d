package heuristic

import (
	"strings"
	"testing"

	"github.com/foresight-dev/foresight/internal/tickets"
)

// TestTitlesKeepTheSpecsNames: titles say a merged name once, keep path
// parameters and HTTP methods, and lower-case Title Case headings without
// touching acronyms and identifiers (seen on a public Todo API spec and a
// TOTP PRD: "Implement error responses and error responses and error
// responses", "Get /api/todos/id", "Implement user Stories").
func TestTitlesKeepTheSpecsNames(t *testing.T) {
	checkTextCases(t, "the title of heading", func(s string) string { return verbFirst(cleanHeading(s)) }, []textCase[string]{
		{"GET /api/todos/:id", "Implement GET /api/todos/:id"},
		{"DELETE /v2/invoices/{id}", "Implement DELETE /v2/invoices/{id}"},
		{"User Stories", "Implement user stories"},
		{"Non-Functional Requirements", "Implement non-functional requirements"},
		{"CronJob API", "Implement CronJob API"},
		{"Business rules", "Implement business rules"},
		{"User Story 3 - Revert to Development After Production Prep (Priority: P3)", "Revert to Development After Production Prep"},
		{"Restore the last snapshot", "Restore the last snapshot"},
		{"preserve the current version details", "Preserve the current version details"},
		{"Updates to `[workspace]`", "Update [workspace]"},
		{"Effect on `cargo publish`", "Update cargo publish"},
	})
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
	entities := "# Todo API\n\n## Entities\n\n### Todo\n\n**Fields:**\n- `id`: string (UUID, primary key)\n- `title`: string (required, max 200 chars)\n\n### User\n\n**Fields:**\n- `id`: string (UUID, primary key)\n- `email`: string (required, unique)\n\n## Business Rules\n\n- All endpoints require a valid JWT token\n- Expired tokens return 401\n"
	edoc := parseDocument(newMeter(t.Context()), entities)
	eb := newBuilder(newMeter(t.Context()), tickets.GenerationRequest{Spec: entities}, normalizeOptions(tickets.Options{}), edoc)
	eb.build()
	want := map[string]bool{"todo": false, "user": false}
	var etitles []string
	for _, d := range eb.drafts {
		if d.alive {
			etitles = append(etitles, d.title)
			for name := range want {
				want[name] = want[name] || strings.Contains(strings.ToLower(d.title), name) && !strings.Contains(strings.ToLower(d.title), "fields")
			}
		}
	}
	for title, ok := range want {
		if !ok {
			t.Errorf("no draft named after entity %q (an entity's bold \"Fields:\" label is no section of its own): %q", title, etitles)
		}
	}
	for _, g := range eb.groups {
		if g.title == "Business Rules endpoints" {
			t.Errorf("a section that lists no endpoint is an epic of endpoints: %q", g.title)
		}
	}
	spec := "# Todo API\n\n## Endpoints\n\n### GET /api/todos/:id\n\n- **Description:** Get a single item by ID\n- **Errors:** 404 when the item is missing\n"
	doc := parseDocument(newMeter(t.Context()), spec)
	bl := newBuilder(newMeter(t.Context()), tickets.GenerationRequest{Spec: spec}, normalizeOptions(tickets.Options{}), doc)
	bl.build()
	found := false
	for _, d := range bl.drafts {
		found = found || d.alive && d.title == "Implement GET /api/todos/:id to get a single item by ID"
	}
	if !found {
		var got []string
		for _, d := range bl.drafts {
			got = append(got, d.title)
		}
		t.Errorf("no draft keeps the endpoint's method and path parameter: %q", got)
	}
}

// A phrase before the subject ("By default, ") is no part of it: "this
// feature" is one ("Ensure by default, this feature are enabled" was
// KEP-2227's title).
func TestLeadingAdverbialIsNoSubject(t *testing.T) {
	if got, _ := imperative("By default, this feature should be enabled as this feature is opt-in."); !strings.HasPrefix(got, "Ensure this feature is enabled") {
		t.Errorf("title %q, want \"Ensure this feature is enabled …\"", got)
	}
}

// TestImperativeTitles titles sentences as orders. An item that opens with
// an imperative verb keeps it, and one that opens with the word joining it
// to the item before ("Then", "Finally,") loses that word (seen on public
// specs: "Make switch session read to Redis for all traffic", "Implement
// decommission the Memcached pool …", "Make then switch …"). A sentence
// that opens with a clause is titled by its main clause: Rust RFC 3028's
// "For build-dependencies, these variables are supplied to the build.rs
// script" was "Implement for build-dependencies, these variables are
// supplied …", RFC 2906's "If you have a version specifier as well, then
// the path key is deleted and …" "Implement if you have a version
// specifier as well".
func TestImperativeTitles(t *testing.T) {
	checkTextCases(t, "imperative", func(s string) string { got, _ := imperative(s); return got }, []textCase[string]{
		{"Switch session reads to Redis for all traffic", "Switch session reads to Redis for all traffic"},
		{"Decommission the Memcached pool once nothing has read from it", "Decommission the Memcached pool once nothing has read from it"},
		{"Ask the vendor whether their maintenance window moved", "Ask the vendor whether their maintenance window moved"},
		{"Respect the theme query parameter of the host page", "Respect the theme query parameter of the host page"},
		{"Redeliver failed webhook deliveries from the dashboard", "Redeliver failed webhook deliveries from the dashboard"},
		{"Then switch session reads to Redis for all traffic", "Switch session reads to Redis for all traffic"},
		{"Finally, remove the dual code path", "Remove the dual code path"},
		{"Also add a metric for drains", "Add a metric for drains"},
		{"Next, upgrade the session library", "Upgrade the session library"},
		{"Next release ships the new importer", "Make next release ship the new importer"},
		{"For build-dependencies, these variables are supplied to the build.rs script.", "Build-dependencies: These variables are supplied to the build.rs script"},
		{"If you have a version specifier as well, then the path key is deleted and the crate is uploaded with the specified version.", "Delete the path key"},
		{"When the job is suspended, the controller must delete its active Pods.", "Make the controller delete its active Pods"},
		{"If the same inspection was changed on the server, keep both versions.", "Keep both versions"},
	})
}

// TestShortenEndsOnAWholePhrase cuts a long title where its phrase ends,
// not after a word that opens what the cut leaves out: "… a possibly null
// timestamp indicating", "… a new muxing wrapper around the existing" (a
// CockroachDB design's titles).
func TestShortenEndsOnAWholePhrase(t *testing.T) {
	checkTextCases(t, "shorten", func(s string) string { return shorten(s, 12, 90) }, []textCase[string]{
		{"Ensure revokedAt is a possibly null timestamp indicating when the session was explicitly revoked by its user", "Ensure revokedAt is a possibly null timestamp"},
		{"Handle session enforcement by adding a new muxing wrapper around the existing gwMux used by the gateway services", "Handle session enforcement by adding a new muxing wrapper"},
		{"Describe the solution you'd like", "Describe the solution you'd like"},
		{"Ensure technicians record the parts used on a work order by scanning the barcode on each part", "Ensure technicians record the parts used on a work order"},
	})
}
