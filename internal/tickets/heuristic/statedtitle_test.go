package heuristic_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/foresight-dev/foresight/internal/tickets"
)

// TestShortHeadingIsTitledByWhatItStates titles the ticket of a section
// under a short heading that only says what the work is about by the
// heading and what the section's first sentence states ("Implement
// pagination" told a lead nothing the heading did not), and keeps
// "Implement <heading>" where the first unit states nothing of the work.
func TestShortHeadingIsTitledByWhatItStates(t *testing.T) {
	for _, c := range []struct{ name, section, want string }{
		{"statement", "## Pagination\n\nList endpoints page with an opaque cursor: `?limit=` (1 to 100, default 25) and `?starting_after=<id>`. The response carries `has_more`.\n",
			"Pagination: List endpoints page with an opaque cursor"},
		{"main clause of a long sentence", "## WAL archiving\n\n`archive_command` pushes each WAL segment to the bucket, giving point-in-time recovery to any second of the last 14 days and more.\n",
			"WAL archiving: archive_command pushes each WAL segment to the bucket"},
		{"long sentence without a clause to end on", "## Admin console\n\nSupport sees each tenant's current limit and its source and can add, change or remove an override with a reason and a date.\n",
			"Implement admin console"},
		{"proposal", "## TTL controller\n\nWe will add a TTL controller for finished Jobs. We considered adding it to the Job controller.\n",
			"Add a TTL controller for finished Jobs"},
		{"hedge", "## Deleted crates\n\nThe proposed scheme may support deletion of crates, if necessary. A request for a deleted crate is answered 410.\n",
			"Implement deleted crates"},
		{"document part", "## Guide-level explanation\n\nThe index is served over HTTP as plain files, one per crate.\n",
			"Serve the index over HTTP as plain files, one per crate"},
		{"label line", "## Scope\n\nRequirement keywords: MUST is needed for the phase to ship, SHOULD is expected.\n",
			"Implement scope"},
		{"subordinate clause", "## Rollback\n\nUntil step 6, setting the backend back to memcached restores the old behaviour at once.\n",
			"Implement rollback"},
		{"passive", "## Session Enforcement\n\nSession enforcement is handled by a wrapper around the gateway mux.\n",
			"Handle session enforcement by a wrapper around the gateway mux"},
		{"status quo", "## Documentation\n\nThere are currently 75 undocumented system variables in the server.\n",
			"Implement documentation"},
		{"list", "## Rollout\n\n- Private beta with three integrators behind the account flag.\n- General availability after a month.\n",
			"Implement rollout"},
	} {
		t.Run(c.name, func(t *testing.T) {
			spec := "# Invoices API v2\n\n" + c.section + "\n## Billing\n\nInvoices are issued in the account's currency.\n"
			res := generate(t, defaultRequest(spec, "Spec"))
			var got []string
			for _, tk := range res.Tickets {
				got = append(got, tk.Title)
				if tk.Title == c.want {
					return
				}
			}
			t.Errorf("no ticket titled %q: %q", c.want, got)
		})
	}
}

// TestDesignTemplateSections reads two parts of the KEP template as a lead
// would: "User Stories" that tell how a user gets on, without "As a …, I
// want …", is a scenario (it gave four tickets chained by its steps:
// "Make when creating Jobs", "Implement after a Job finishes"), while one
// that writes stories holds work; the sections under "Implementation
// Details/Notes/Constraints" are design, not limits ("Enforce TTL
// Controller").
func TestDesignTemplateSections(t *testing.T) {
	const kep = "# KEP: TTL after finished\n\n## Proposal\n\n### User Stories\n\n%s\n\n" +
		"### Implementation Details/Notes/Constraints\n\n#### TTL Controller\n\nWe will add a TTL controller for finished Jobs.\n\n" +
		"#### Finished Jobs\n\nA Job is finished when its Complete or Failed condition is true.\n"
	scenario := "The users keep creating Jobs in a small cluster.\n\nThe steps are:\n\n1. When creating Jobs, the user sets the TTL to 3600.\n1. The user deploys Jobs as usual.\n1. After a Job finishes, the result is stored elsewhere."
	stories := "- As a cluster admin, I want finished Jobs deleted after their TTL, so that etcd stays small.\n- As a user, I want to see the TTL of a Job in kubectl."
	for _, c := range []struct {
		name, body   string
		storyTickets int
	}{{"a scenario", scenario, 0}, {"stories", stories, 2}} {
		t.Run(c.name, func(t *testing.T) {
			res := generate(t, defaultRequest(fmt.Sprintf(kep, c.body), "Spec"))
			n := 0
			for _, tk := range res.Tickets {
				if strings.HasPrefix(tk.Title, "Enforce ") {
					t.Errorf("ticket %q: the section is design, not a limit", tk.Title)
				}
				if strings.Contains(tk.Description, "User Stories") {
					n++
				}
			}
			if n != c.storyTickets {
				t.Errorf("%d tickets from User Stories, want %d: %q", n, c.storyTickets, titles(res.Tickets))
			}
		})
	}
}

// TestAPIFieldOverItsValidation gives KEP-592's "API Object" a ticket of
// its own, named by the field its Go struct adds: its sentences were the
// lead-in of its "Validation" sub-section's ticket, and the new field had
// no ticket.
func TestAPIFieldOverItsValidation(t *testing.T) {
	spec := "# KEP\n\n## Detailed Design\n\n#### API Object\n\nWe will add the following API fields to `JobSpec` (`Job`'s `.spec`).\n\n" +
		"```go\ntype JobSpec struct {\n\t// ttlSecondsAfterFinished limits the lifetime of a finished Job.\n\t// +optional\n\tTTLSecondsAfterFinished *int32\n}\n```\n\n" +
		"This allows Jobs to be cleaned up after they finish.\n\n##### Validation\n\nIn Job validation, `ttlSecondsAfterFinished` of its pod template must not be set.\n"
	res := generate(t, defaultRequest(spec, "Spec"))
	if titled(res.Tickets, "Add the TTLSecondsAfterFinished field to JobSpec") < 0 {
		t.Errorf("no ticket for the new field: %q", titles(res.Tickets))
	}
	for _, tk := range res.Tickets {
		for _, c := range tk.AcceptanceCriteria {
			if strings.Contains(c, "We will add") && !strings.HasPrefix(tk.Title, "Add the TTLSecondsAfterFinished") {
				t.Errorf("%q holds the field's proposal as a criterion", tk.Title)
			}
		}
	}
}

// TestWeighedADRTicketsItsDecisionOnly reads an ADR in the MADR template
// as a lead would: the decision's work gets tickets, each labelled part of
// it its own; the drivers, the options weighed (the rejected ones above
// all), their pros and cons and the decision's consequences get none.
// They gave 13 of 16 tickets of a public ADR, "Implement option A" and
// "Implement option C" among them.
func TestWeighedADRTicketsItsDecisionOnly(t *testing.T) {
	spec := "# ADR-5: Provider abstraction\n\n## Context and problem statement\n\nThe app talks to a local model over HTTP.\n\n" +
		"## Decision drivers\n\n- **Correctness over uniformity.** Ollama needs its native API.\n- **One interface to callers.** The pipeline calls a port.\n\n" +
		"## Considered options\n\n- **Option A** — one OpenAI-compatible client for everything.\n- **Option B** — a port with two clients.\n\n" +
		"## Decision outcome\n\nChosen: **Option B.** A `Provider` port defines the inference surface:\n\n" +
		"- **Ollama-native client** — Ollama's own API, setting `num_ctx` through the native options.\n" +
		"- **OpenAI-compatible client** — `/v1/chat/completions` for every other runtime.\n\n" +
		"### Consequences\n\nPositive:\n\n- Ollama is driven correctly through its native API.\n\nNegative:\n\n- Two clients to build and maintain instead of one.\n\n" +
		"## Pros and cons of the options\n\n### Option A — One client for everything\n\n- Good, because there is one code path.\n- Bad, because Ollama ignores num_ctx.\n\n" +
		"### Option C — A heavy client library\n\n- Bad, because it dictates transport.\n"
	res := generate(t, defaultRequest(spec, "ADR-5"))
	for _, want := range []string{"Ollama-native client", "OpenAI-compatible client"} {
		found := false
		for _, tk := range res.Tickets {
			found = found || strings.Contains(strings.ToLower(tk.Title), strings.ToLower(want))
		}
		if !found {
			t.Errorf("no ticket for the decision's %q: %q", want, titles(res.Tickets))
		}
	}
	for _, tk := range res.Tickets {
		low := strings.ToLower(tk.Title)
		wantLacks(t, "ticket "+tk.Title, low, "option a", "option c", "driver", "consequence", "pros and cons", "maintain", "correctness")
	}
}

// TestSpecKitPrioritiesStartAtP1 reads the spec-kit template's story
// priorities as it means them: P1 the most critical (high), P2 the next
// (medium), P3 low; in a document that also uses P0, P1 is the second.
func TestSpecKitPrioritiesStartAtP1(t *testing.T) {
	story := func(n int, title, p string) string {
		return fmt.Sprintf("### User Story %d - %s (Priority: %s)\n\nAs an admin, I want to %s, so that the records stay right.\n\n", n, title, p, strings.ToLower(title))
	}
	for _, c := range []struct {
		name, extra string
		want        map[string]string
	}{
		{"from P1", "", map[string]string{"Publish legal documents": "high", "Export acceptance reports": "medium", "Archive old versions": "low"}},
		{"from P0", "## Requirements\n\n- P0: the service runs in two regions.\n\n", map[string]string{"Publish legal documents": "medium", "Export acceptance reports": "low"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			spec := "# Legal content\n\n" + c.extra + "## User Scenarios\n\n" + story(1, "Publish legal documents", "P1") +
				story(2, "Export acceptance reports", "P2") + story(3, "Archive old versions", "P3")
			res := generate(t, defaultRequest(spec, "Legal content"))
			for title, want := range c.want {
				found := false
				for _, tk := range res.Tickets {
					if strings.Contains(tk.Title, title) {
						found = true
						if tk.Priority == nil || *tk.Priority != want {
							t.Errorf("%q: priority %v, want %s", tk.Title, *tk.Priority, want)
						}
					}
				}
				if !found {
					t.Errorf("no ticket for %q: %q", title, titles(res.Tickets))
				}
			}
		})
	}
}

// TestUseCaseFlowIsOneTicket makes a use case's flow one ticket titled by
// its heading, its steps its criteria: a public PRD's "**Actors**:",
// "**Trigger**:" and "**Steps**:" were tickets of their own ("Implement
// admin, System Trigger: …", "Implement steps" holding both flows' steps).
func TestUseCaseFlowIsOneTicket(t *testing.T) {
	flow := func(title, actor string) string {
		return "### Main Flow: " + title + "\n\n**Actors**: " + actor + ", System  \n**Trigger**: " + actor + " signs in  \n**Outcome**: the version is current\n\n" +
			"**Steps**:\n\n1. " + actor + " opens the legal documents\n2. System records the change and notifies the " + actor + "\n\n"
	}
	spec := "# Legal content\n\n## Business Workflows\n\n" + flow("Admin Publishes New Legal Version", "Admin") + flow("User Accepts New Version", "User")
	res := generate(t, defaultRequest(spec, "Legal content"))
	for _, want := range []string{"Admin publishes new legal version", "User accepts new version"} {
		i := titled(res.Tickets, want)
		if i < 0 {
			t.Errorf("no ticket %q: %q", want, titles(res.Tickets))
			continue
		}
		if n := len(res.Tickets[i].AcceptanceCriteria); n < 2 {
			t.Errorf("%q has %d criteria, want its steps among them: %q", want, n, res.Tickets[i].AcceptanceCriteria)
		}
	}
	for _, tk := range res.Tickets {
		if low := strings.ToLower(tk.Title); strings.Contains(low, "steps") || strings.Contains(low, "trigger") {
			t.Errorf("ticket %q is a label of a flow", tk.Title)
		}
	}
}

// TestSummarySkipsContentsAndMetadata keeps a table of contents' headings
// and a document's metadata out of the result's summary: three of eight
// public specs' summaries opened with "Production Readiness Review
// Questionnaire." or "Links: PR #754 …".
func TestSummarySkipsContentsAndMetadata(t *testing.T) {
	spec := "# KEP-1: Indexed Job\n\n<!-- toc -->\n- [Summary](#summary)\n- [Production Readiness Review Questionnaire](#prr)\n<!-- /toc -->\n\n" +
		"**Status:** Draft **Owner:** sig-apps **Created:** 2026-01-02\n\n" +
		"## Summary\n\nThis KEP extends Jobs with a completion index for each Pod.\n\n## Design\n\n- Add the completion index to the Pod annotations.\n"
	got := generate(t, defaultRequest(spec, "KEP-1")).Source.Summary
	if !strings.HasPrefix(got, "This KEP extends Jobs with a completion index") {
		t.Errorf("summary %q, want it to open with the spec's own summary", got)
	}
}

// TestGraduationStagesAreMilestones gives the work of a KEP's graduation
// stages the stage as its suggested milestone: "Alpha", "Beta" of "Alpha
// -> Beta", "GA" of "Beta -> GA" (every ticket was "M2 core delivery").
func TestGraduationStagesAreMilestones(t *testing.T) {
	spec := "# KEP-2: Indexed Job\n\n## Design Details\n\n### Completion tracking\n\nThe Job controller counts succeeded Pods per completion index and records them in the Job status.\n\n" +
		"## Graduation Criteria\n\n### Alpha\n\n- Completion index in the Pod annotation.\n- Unit and integration tests.\n\n" +
		"### Alpha -> Beta Graduation\n\n- Add metrics for indexed Jobs.\n- Link the e2e tests to Testgrid.\n\n### Beta -> GA Graduation\n\n- Promote the e2e test to conformance.\n"
	res := generate(t, defaultRequest(spec, "KEP-2"))
	seen := map[string]bool{}
	for _, tk := range res.Tickets {
		m, _ := tk.Metadata["suggested_milestone"].(string)
		seen[m] = true
	}
	for _, want := range []string{"Alpha", "Beta", "GA"} {
		if !seen[want] {
			t.Errorf("no ticket with milestone %q: %v", want, seen)
		}
	}
}

// TestStoryNeedsAWant makes a task of a ticket typed story that says
// nobody's want ("As a user, I want the pod detail to work as
// specified"), and keeps a story that writes one.
func TestStoryNeedsAWant(t *testing.T) {
	spec := "# Jobs\n\n## Features\n\n### Pod detail\n\nThe user sees the completion index of each Pod in its annotations and its hostname.\n\n" +
		"## User stories\n\nAs a shopper with a booked delivery slot,\nI want a reminder the evening before my delivery,\nso that I am at home when the driver arrives.\n\n" +
		"### Acceptance criteria\n\n1. Send a push notification at 18:00 local time the day before the slot.\n2. Name the slot in the notification.\n"
	res := generate(t, defaultRequest(spec, "Jobs"))
	for _, tk := range res.Tickets {
		if tk.TicketType == tickets.TypeStory && strings.Contains(tk.Description, "to work as specified") {
			t.Errorf("story %q wants nothing: %q", tk.Title, strings.SplitN(tk.Description, "\n", 2)[0])
		}
	}
	found := false
	for _, tk := range res.Tickets {
		found = found || tk.TicketType == tickets.TypeStory && strings.Contains(tk.Description, "I want a reminder the evening before my delivery")
	}
	if !found {
		t.Errorf("the written story is no story: %q", titles(res.Tickets))
	}
}
