package heuristic_test

import (
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"
)

// TestManyChecksStayCheckable fits a section that states more checks than
// a ticket's criteria at its detail level: it gets up to the API's eight,
// every check stays a criterion, and only the shortest neighbours are
// joined, two at a time, where there are more. The checks were packed
// evenly into six, so a reader found criteria of 900 characters holding a
// whole section; and a reader of a version that moved the checks beyond
// the sixth into the description preferred them among the criteria.
func TestManyChecksStayCheckable(t *testing.T) {
	var b strings.Builder
	b.WriteString("# Artifact dependencies\n\n## Artifact dependencies\n\n")
	var sentences []string
	for i := 1; i <= 14; i++ {
		if i%3 == 0 {
			b.WriteString("\n\n")
		}
		s := fmt.Sprintf("Cargo builds artifact kind %d into its own directory, named after the dependency, the artifact kind and the metadata hash of the build.", i)
		sentences = append(sentences, s)
		b.WriteString(s + " ")
	}
	b.WriteString("\n")
	res := generate(t, defaultRequest(b.String(), "Artifact dependencies"))
	for _, tk := range res.Tickets {
		all := strings.Join(tk.AcceptanceCriteria, "\n")
		if !strings.Contains(all, "kind 1 into") {
			continue
		}
		if len(tk.AcceptanceCriteria) != 8 {
			t.Errorf("%d criteria, want 8", len(tk.AcceptanceCriteria))
		}
		for _, c := range tk.AcceptanceCriteria {
			if n := strings.Count(c, "Cargo builds"); n > 2 {
				t.Errorf("%d checks joined in one criterion: %q", n, c)
			}
		}
		for _, s := range sentences {
			if !strings.Contains(all, s) {
				t.Errorf("%q is no criterion", s)
			}
		}
		return
	}
	t.Fatalf("no ticket holds the section's checks in its criteria: %+v", res.Tickets)
}

// TestBrokenLinesAreSentences reads lines an author broke with two spaces,
// or that each open with a bold label, as sentences of their own: a use
// case's "**Actors**: Admin, System" over "**Trigger**: …" was one
// criterion "Actors: Admin, System Trigger: Admin finalizes …", and a
// meeting's "**Attendees:**" line over its "**Agenda:**" the evidence of a
// risk.
func TestBrokenLinesAreSentences(t *testing.T) {
	for _, c := range []struct{ name, sep string }{{"hard break", "  \n"}, {"bold labels", "\n"}} {
		t.Run(c.name, func(t *testing.T) {
			spec := "# Legal content\n\n## Main Flow: Admin Publishes New Legal Version\n\n" +
				"**Actors**: Admin, System" + c.sep +
				"**Trigger**: Admin finalizes the draft and selects Publish" + c.sep +
				"**Outcome**: The new version becomes current and an audit entry is recorded\n\n" +
				"**Steps**:\n\n1. Admin previews the content and reviews the change summary\n2. System publishes the new version and archives the previous one\n"
			res := generate(t, defaultRequest(spec, "Legal content"))
			for _, tk := range res.Tickets {
				for _, ac := range append(tk.AcceptanceCriteria, tk.Description) {
					if strings.Contains(ac, "System Trigger") || strings.Contains(ac, "Publish Outcome") {
						t.Errorf("%s: two lines run together: %q", tk.ExternalID, ac)
					}
				}
			}
		})
	}
}

// TestEngineWritesNoTrackingCriteria keeps the engine's own bookkeeping
// out of acceptance criteria: a reader took an epic's "All 5 child tickets
// are done and their acceptance criteria pass", "Nothing in the … section
// is left without a ticket or an open question" and a spike's "The
// decision is recorded … and the affected tickets are updated" for
// tracking, not checks. An epic's criteria name what its children deliver.
func TestEngineWritesNoTrackingCriteria(t *testing.T) {
	for _, name := range []string{"tickets-api", "bettor-and-operator-api", "aggregator-api"} {
		t.Run(name, func(t *testing.T) {
			spec, err := os.ReadFile("../../../testdata/specs/" + name + ".md")
			if err != nil {
				t.Fatal(err)
			}
			res := generate(t, defaultRequest(string(spec), name))
			epics := 0
			for _, tk := range res.Tickets {
				for _, ac := range tk.AcceptanceCriteria {
					if strings.Contains(ac, "child tickets are done") || strings.HasPrefix(ac, "Nothing in ") || strings.Contains(ac, "affected tickets are updated") {
						t.Errorf("%s %s: tracking criterion %q", tk.ExternalID, tk.TicketType, ac)
					}
				}
				if tk.TicketType == "epic" {
					epics++
					if !strings.HasPrefix(tk.AcceptanceCriteria[0], "Delivered: ") {
						t.Errorf("epic %s opens with %q, not what a child delivers", tk.ExternalID, tk.AcceptanceCriteria[0])
					}
				}
			}
			if epics == 0 {
				t.Fatal("no epic: the test reads none")
			}
		})
	}
}

// TestLinkAloneIsNoCriterion reads a paragraph that is one link and
// nothing else as a pointer to another document: KEP-592's "[K8s
// Proposal: TTL controller for finished Jobs and Pods][]" was a criterion
// of four tickets.
func TestLinkAloneIsNoCriterion(t *testing.T) {
	spec := "# TTL after finished\n\n## Proposal\n\n[K8s Proposal: TTL controller for finished Jobs and Pods][]\n\n" +
		"### Controller\n\nThe TTL controller deletes a finished Job once its TTL has expired.\n\n" +
		"### API\n\nThe JobSpec gets the field `ttlSecondsAfterFinished`, a non-negative number of seconds.\n\n" +
		"[K8s Proposal: TTL controller for finished Jobs and Pods]: https://example.com/ttl-proposal\n"
	res := generate(t, defaultRequest(spec, "TTL after finished"))
	wantNoCriterionWith(t, res.Tickets, "a link to another document", "K8s Proposal")
}

// TestWhatTestsCoverIsOneTicket reads a test plan's list under "… tests
// cover the following …:" as what the tests cover: one ticket whose
// criteria each name one thing covered, not a ticket per item whose only
// criterion is the bare item ("Pod failures.").
func TestWhatTestsCoverIsOneTicket(t *testing.T) {
	spec := "# Indexed Job\n\n## Design\n\nThe Job controller gives each Pod a completion index from 0 to completions - 1.\n\n" +
		"## Test Plan\n\nUnit, integration and E2E tests cover the following Indexed Job mechanics:\n\n" +
		"- Creation with index annotations and indexed pod hostnames.\n- Scale up and down.\n- Pod failures.\n\n" +
		"Additionally, we add unit tests for API defaulting and validation, with feature gate enabled and disabled.\n"
	res := generate(t, defaultRequest(spec, "Indexed Job"))
	var holders []string
	for _, tk := range res.Tickets {
		all := strings.Join(tk.AcceptanceCriteria, "\n")
		if strings.Contains(all, "ailures") {
			holders = append(holders, tk.Title)
			if !strings.Contains(all, "tests cover Indexed Job mechanics: pod failures.") || !strings.Contains(all, "scale up and down") {
				t.Errorf("%q: criteria %q", tk.Title, tk.AcceptanceCriteria)
			}
			if tk.Title != "Add unit, integration and E2E tests for Indexed Job mechanics" {
				t.Errorf("title %q", tk.Title)
			}
		}
	}
	if len(holders) != 1 {
		t.Errorf("pod failures are in %d tickets %q, want one", len(holders), holders)
	}
}

// TestContextOnlySectionIsNoTicket gives no ticket to a section whose every
// sentence is context: "It could be prohibitively complex …" was a ticket
// "Implement be prohibitively complex".
func TestContextOnlySectionIsNoTicket(t *testing.T) {
	spec := "# Workspace deduplication\n\n## Workspace dependencies\n\nA member declares a dependency with `workspace = true` and inherits its version from the workspace root.\n\n" +
		"## Complexity\n\nIt could be prohibitively complex to implement. An incremental design could be used to avoid a large refactoring.\n"
	res := generate(t, defaultRequest(spec, "Workspace deduplication"))
	for _, tk := range res.Tickets {
		if strings.Contains(tk.Title, "omplex") || strings.Contains(strings.Join(tk.AcceptanceCriteria, " "), "prohibitively") {
			t.Errorf("ticket %q from a section of context only: %q", tk.Title, tk.AcceptanceCriteria)
		}
	}
	if len(res.Tickets) == 0 {
		t.Fatal("no ticket at all")
	}
}

// TestGraduationIsAPromotion titles a KEP's "Alpha -> Beta Graduation" by
// the promotion of what the KEP specifies ("Implement alpha -> beta
// graduation" said nothing of what graduates), keeps it a task, and reads
// gates that others meet (time without complaints, adoption) as context.
func TestGraduationIsAPromotion(t *testing.T) {
	spec := "# KEP-2214: Indexed Job\n\n## Design Details\n\nThe Job controller gives each Pod a completion index.\n\n### Graduation Criteria\n\n" +
		"#### Alpha -> Beta Graduation\n\n- Add metrics for the Job controller's sync duration.\n- Enable the IndexedJob feature gate by default.\n\n" +
		"#### Beta -> GA Graduation\n\n- The E2E test graduates to conformance.\n- Enabled in Beta for at least two releases without complaints.\n- 2 examples of operators using Indexed Jobs.\n"
	res := generate(t, defaultRequest(spec, "KEP-2214: Indexed Job"))
	want := map[string]bool{"Graduate Indexed Job to beta": false, "Graduate Indexed Job to GA": false}
	for _, tk := range res.Tickets {
		if _, ok := want[tk.Title]; ok {
			want[tk.Title] = true
			if tk.TicketType != "task" {
				t.Errorf("%q is a %s", tk.Title, tk.TicketType)
			}
		}
	}
	for title, found := range want {
		if !found {
			t.Errorf("no ticket %q", title)
		}
	}
	wantNoCriterionWith(t, res.Tickets, "a gate others meet", "complaints", "examples of operators")
}

// TestDeclaredSchemaIsCriteria makes what a design's code block declares
// criteria of its section's ticket, and leaves an example's code alone:
// CockroachDB's web_sessions table and UserLogout RPC were in no ticket.
func TestDeclaredSchemaIsCriteria(t *testing.T) {
	spec := "# Web session login\n\n## Session table\n\nSessions are stored in a new system table:\n\n```sql\nCREATE TABLE system.web_sessions (\n  id INT NOT NULL,\n  username STRING NOT NULL,\n  expiresAt TIMESTAMP NOT NULL,\n  PRIMARY KEY (id)\n);\n```\n\n" +
		"## Logout\n\nThe Authentication service gets a logout call that revokes the session.\n\n```proto\nrpc UserLogout(UserLogoutRequest) returns (UserLogoutResponse) {}\n```\n\n" +
		"## Login page\n\nThe login page posts the username and password. For example:\n\n```sql\nCREATE TABLE demo (x INT NOT NULL\n);\n```\n"
	res := generate(t, defaultRequest(spec, "Web session login"))
	all := ""
	for _, tk := range res.Tickets {
		all += strings.Join(tk.AcceptanceCriteria, "\n") + "\n"
	}
	wantHolds(t, "the criteria", all, "Table `system.web_sessions` has the columns id, username and expiresAt.", "RPC `UserLogout` takes `UserLogoutRequest` and returns `UserLogoutResponse`.")
	if strings.Contains(all, "`demo`") {
		t.Errorf("an example's table is a criterion:\n%s", all)
	}
}

// TestIndirectQuestionIsAQuestion reads "Whether to …" under an open
// questions heading as a question (and its spike): a PRD's "Whether to
// support offline expense creation and later sync in phase 1" was a task
// "Implement whether to support offline expense creation …".
func TestIndirectQuestionIsAQuestion(t *testing.T) {
	spec := "# Group expenses\n\n## Expenses\n\nA member adds an expense with a title, an amount and the members who share it.\n\n" +
		"## Open questions / to decide\n\n- Whether to support offline expense creation and later sync in phase 1.\n- Which currency a group uses when its members live in different countries.\n"
	res := generate(t, defaultRequest(spec, "Group expenses"))
	for _, tk := range res.Tickets {
		if strings.Contains(tk.Title, "hether") && tk.TicketType != "spike" {
			t.Errorf("question as a %s: %q", tk.TicketType, tk.Title)
		}
	}
	found := false
	for _, q := range res.OpenQuestions {
		found = found || q.Question == "Whether to support offline expense creation and later sync in phase 1?"
	}
	if !found {
		t.Errorf("no open question for the offline support: %+v", res.OpenQuestions)
	}
}

// TestGuideSubsectionsRepeatNoReference reads the sub-sections of an RFC's
// guide-level explanation as the guide itself is read: what they teach
// that the reference-level explanation specifies gets no second ticket
// (RFC 2906's "## Workspace-level Dependencies" under the guide repeated
// the reference's "## New dependency directives").
func TestGuideSubsectionsRepeatNoReference(t *testing.T) {
	spec := "# Workspace deduplicate\n\n# Guide-level explanation\n\n## Workspace-level dependencies\n\n" +
		"A member declares a dependency with `workspace = true` and Cargo inherits its version and features from the workspace's `[workspace.dependencies]` table.\n\n" +
		"# Reference-level explanation\n\n## New dependency directives\n\n" +
		"A dependency with `workspace = true` inherits its version and features from the workspace's `[workspace.dependencies]` table. Specifying `version` beside `workspace = true` is an error.\n"
	res := generate(t, defaultRequest(spec, "Workspace deduplicate"))
	var holders []string
	for _, tk := range res.Tickets {
		if tk.TicketType != "epic" && strings.Contains(tk.Description+strings.Join(tk.AcceptanceCriteria, " "), "inherit") {
			holders = append(holders, tk.Title)
		}
	}
	if len(holders) != 1 {
		t.Errorf("the inherited dependency is in %d tickets %q, want one", len(holders), holders)
	}
}

// TestWorkWaitsForWhatItsNamesDeclare makes a ticket that names a field an
// earlier ticket's code block declares depend on that ticket: KEP-2214's
// completed-index tracking names `completedIndexes`, which its API
// ticket's JobStatus declares.
func TestWorkWaitsForWhatItsNamesDeclare(t *testing.T) {
	spec := "# Indexed Job\n\n## API\n\nWe add the following fields:\n\n```go\ntype JobStatus struct {\n    CompletedIndexes string\n}\n```\n\n" +
		"## Completion tracking\n\nThe Job controller keeps track of completed indexes in `.status.completedIndexes`, a compressed list of numbers.\n\n" +
		"## Metrics\n\nThe controller exports the number of syncs per completion mode.\n"
	res := generate(t, defaultRequest(spec, "Indexed Job"))
	ids := map[string]string{}
	for _, tk := range res.Tickets {
		ids[tk.Title] = tk.ExternalID
	}
	for _, tk := range res.Tickets {
		all := strings.Join(tk.AcceptanceCriteria, " ")
		switch {
		case strings.Contains(all, "compressed list"):
			var api string
			for title, id := range ids {
				if strings.Contains(title, "API") || strings.Contains(title, "fields") {
					api = id
				}
			}
			if api == "" || !slices.Contains(tk.Dependencies, api) {
				t.Errorf("%q depends on %q, want the API ticket %q (tickets %v)", tk.Title, tk.Dependencies, api, ids)
			}
		case strings.Contains(all, "syncs per completion mode") && len(tk.Dependencies) > 0:
			t.Errorf("%q names nothing declared, yet depends on %q", tk.Title, tk.Dependencies)
		}
	}
}

// TestVagueWordThatExplainsAsksNothing asks what a vague word means only
// where it states what the work must do: "…, which can be used for quickly
// identifying Pods" (KEP-2214) and "`expiresAt`, which quickly allows an
// admin to query for possibly active sessions" explain a use; "The search
// page loads quickly" asks.
func TestVagueWordThatExplainsAsksNothing(t *testing.T) {
	spec := "# Indexed Job\n\n## Pod names\n\nThe Pod name takes the form `$(job-name)-$(index)`, which can be used for quickly identifying Pods for an index.\n\n" +
		"## Search\n\nThe search page loads quickly.\n"
	res := generate(t, defaultRequest(spec, "Indexed Job"))
	var asked []string
	for _, q := range res.OpenQuestions {
		if strings.Contains(q.Question, "\"quickly\"") {
			asked = append(asked, q.Question)
		}
	}
	if len(asked) != 1 || !strings.Contains(asked[0], "search page") {
		t.Errorf("questions on \"quickly\": %q, want the search page's only", asked)
	}
}

// TestContentsListIsNoWork reads a list whose every item links to a heading
// of the document as a table of contents, wherever it stands: KEP-2599's,
// under a second copy of its title (its file opens with the template's
// comments and the copy of the title our reader's fetch put first), gave
// three tickets whose criteria were headings ("Design Details.", "Test
// Plan.").
func TestContentsListIsNoWork(t *testing.T) {
	title := "# KEP-2599: minReadySeconds for StatefulSets\n\n"
	spec := title + title + "- [Release Signoff Checklist](#release-signoff-checklist)\n- [Summary](#summary)\n- [Proposal](#proposal)\n" +
		"  - [User Stories (Optional)](#user-stories-optional)\n  - [Risks and Mitigations](#risks-and-mitigations)\n- [Design Details](#design-details)\n" +
		"  - [Test Plan](#test-plan)\n- [Infrastructure Needed (Optional)](#infrastructure-needed-optional)\n\n" +
		"## Summary\n\nStatefulSets get the field minReadySeconds.\n\n## Design Details\n\nThe controller counts a Pod available once it has been ready for minReadySeconds.\n\n### Test Plan\n\nUnit tests cover the available replicas count.\n"
	res := generate(t, defaultRequest(spec, "KEP-2599: minReadySeconds for StatefulSets"))
	wantNoCriterionWith(t, res.Tickets, "a heading of the contents", "Design Details.", "Release Signoff Checklist", "Risks and Mitigations")
}

// TestHeaderMetadataIsNoWork keeps a document's metadata out of the work
// where a header holds it: a CockroachDB RFC's "- Cockroach Issue: #15593"
// and a PRD's "**Status:**", "**Owner:**" under the first sub-section of a
// title with no text of its own were criteria of a ticket of their own.
func TestHeaderMetadataIsNoWork(t *testing.T) {
	for _, spec := range []string{
		"# Query cancellation\n\n- Feature Name: Query cancellation\n- Status: completed\n- Cockroach Issue: [#15593](https://github.com/cockroachdb/cockroach/issues/15593)\n\n# Detailed design\n\n## Query identifiers\n\nEach query gets an identifier unique across the cluster. `CANCEL QUERY <query-id>` cancels the query with that identifier.\n",
		"# Product Requirements Document (PRD)\n\n## Sabine Personal Assistant\n\n**Version:** 1.0\n**Status:** In Development\n**Owner:** Product Team\n\n## Reminders\n\nThe assistant sends a reminder by SMS one hour before each event on the family calendar.\n",
	} {
		res := generate(t, defaultRequest(spec, ""))
		wantNoCriterionWith(t, res.Tickets, "header metadata", "Issue:", "Owner:", "Version:")
	}
}
