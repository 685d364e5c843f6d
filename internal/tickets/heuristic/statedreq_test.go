package heuristic

import "testing"

func TestStatedRequirement(t *testing.T) {
	for _, c := range []struct{ in, subject, infinitive string }{
		{"all members see edits (add, remove, tick) within 5 seconds (R2)", "all members", "to see edits (add, remove, tick) within 5 seconds (R2)"},
		{"a removed sysvar is not visible in SHOW VARIABLES output", "a removed sysvar", "not to be visible in SHOW VARIABLES output"},
		{"a removed sysvar is settable via a SET statement", "a removed sysvar", "to be settable via a SET statement"},
		{"the supervisor assigns a work order to a technician (WO-5)", "the supervisor", "to assign a work order to a technician (WO-5)"},
		{"work orders move through the statuses below (WO-8)", "work orders", "to move through the statuses below (WO-8)"},
		{"v1 responses get Deprecation and Sunset headers and a link", "v1 responses", "to get Deprecation and Sunset headers and a link"},
		{"each depot has a stock level per part (PRT-2)", "each depot", "to have a stock level per part (PRT-2)"},
		{"edits made offline are kept and merged (R3)", "edits made offline", "to be kept and merged (R3)"},
		{"the sysvar documentation will not document it", "the sysvar documentation", "not to document it"},
		{"the technician's screen works with poor signal (WO-11)", "the technician's screen", "to work with poor signal (WO-11)"},
		{"a defect reported in the driver app creates a work order (WO-1)", "a defect reported in the driver app", "to create a work order (WO-1)"},
		{"items can be assigned to a member (R7)", "items", "to be able to be assigned to a member (R7)"},
		{"a signed-off work order becomes read-only and produces a PDF job", "a signed-off work order", "to become read-only and produce a PDF job"},
		{"GET /v2/invoices to list invoices", "", ""},
		{"dual mode: write every session to both stores", "", ""},
		{"charts still use hard-coded colours; move the palette", "", ""},
		{"switch reads to Redis", "", ""},
		{"pagination", "", ""},
		{"in case the field is not specified or is empty", "", ""},
		{"the documentation for the switch can", "", ""},
		{"the old job was removed last year", "", ""},
	} {
		subject, infinitive, ok := statedRequirement(c.in)
		if subject != c.subject || infinitive != c.infinitive || ok != (c.subject != "") {
			t.Errorf("statedRequirement(%q) = %q, %q, %v; want %q, %q", c.in, subject, infinitive, ok, c.subject, c.infinitive)
		}
	}
}

// TestStoryWantFromTitle reads what a story's persona wants from its title
// when the spec wrote no "I want …": each case was a story's sentence a
// lead would rewrite ("I want to allow a list owner to invite …", "I want
// the a manual "Sync now" button … to work as specified").
func TestStoryWantFromTitle(t *testing.T) {
	for _, c := range []struct{ title, role, want string }{
		{"Ensure all members see edits within 5 seconds (R2)", "member", "all members to see edits within 5 seconds (R2)"},
		{"Allow a list owner to invite up to 5 members by link (R1)", "owner", "to invite up to 5 members by link (R1)"},
		{"Allow admins to filter it by member", "member", "admins to be able to filter it by member"},
		{"Make the supervisor's board show every open work order (WO-6)", "operator", "the supervisor's board to show every open work order (WO-6)"},
		{"Worker agent: receive a drain request and stop polling", "agent", "to receive a drain request and stop polling"},
		{"Implement a manual \"Sync now\" button in the menu (S1)", "member", "a manual \"Sync now\" button in the menu (S1)"},
		{"Implement 6.2 Roles and permissions", "admin", "the 6.2 Roles and permissions to work as specified"},
		{"Implement counting and enforce a limit per source IP", "tenant", "to implement counting and enforce a limit per source IP"},
		{"Implement GET /api/todos to list all todos", "user", "to list all todos"},
		{"Download area maps for offline use", "member", "to download area maps for offline use"},
	} {
		if got, _ := storyWant(&draft{title: c.title}, c.role); got != c.want {
			t.Errorf("storyWant(%q, %q) = %q, want %q", c.title, c.role, got, c.want)
		}
	}
}

// TestWantedOfOthers titles a user story whose persona wants something of
// someone or something else, from a public PRD ("Today's admins to keep
// exactly the powers they have" and "Be the only role …" were titles).
func TestWantedOfOthers(t *testing.T) {
	for _, c := range []struct{ want, role, title string }{
		{"today's admins to keep exactly the powers they have", "operator", "Make today's admins keep exactly the powers they have"},
		{"banning to remain independent of the ladder", "owner", "Make banning remain independent of the ladder"},
		{"the last owner to be undemotable", "owner", "Ensure the last owner is undemotable"},
		{"mutating controls to be absent rather than present", "member", "Ensure mutating controls are absent rather than present"},
		{"role changes enforced on the server", "owner", "Ensure role changes are enforced on the server"},
		{"be the only role that can create another owner", "owner", "Make the owner the only role that can create another owner"},
		{"be offered biometric login after my first PIN login", "user", "Ensure the user is offered biometric login after their first PIN login"},
		{"my account to keep working", "owner", "Make the owner's account keep working"},
		{"a revoked or demoted person to lose access on their next request", "owner", "Make a revoked or demoted person lose access on their next request"},
		{"the platform role and the organization role clearly distinguished in copy", "owner", "Ensure the platform role and the organization role are clearly distinguished in copy"},
		{"promote a teammate to member", "admin", ""},
		{"a reminder the evening before my delivery", "shopper", ""},
		{"access to the console", "member", ""},
	} {
		got, ok := wantedOfOthers(c.want, c.role)
		if got != c.title || ok != (c.title != "") {
			t.Errorf("wantedOfOthers(%q, %q) = %q, %v; want %q", c.want, c.role, got, ok, c.title)
		}
	}
}

// TestContextIsNoCriterion keeps out of a ticket's acceptance criteria
// the sentences a tester would not check: those that explain the work,
// hedges and plans, what nobody here builds, a use case's actors and
// trigger (an outside reader's labels of eight public specs' criteria);
// and keeps among them a rule that gives its reason, a decision, a note,
// a rule followed by a hedge and an outcome that states a result.
func TestContextIsNoCriterion(t *testing.T) {
	checkTextCases(t, "isContext", isContext, []textCase[bool]{
		{"This allows Jobs to be cleaned up after they finish.", true},
		{"Because Job controller depends on Pods to exist to work correctly.", true},
		{"Currently, `go install` does not allow version suffixes.", true},
		{"We considered adding it in Job controller.", true},
		{"See Rationale below.", true},
		{"This is to guarantee that we can keep track of completions per-index in the Job status.", true},
		{"That is, `Indexed` mode cannot be used for work queue patterns.", true},
		{"In practice it's less, because dependencies occur in multiple places.", true},
		{"Because the sysvar system supports dynamic registration, these variables should be removed when the experiment is disabled.", false},
		{"It is common for higher level resources to call generic PodSpec validation; therefore, the field is only allowed on a PodSpec with restartPolicy Never.", false},
		{"We decided not to block deletion on owners.", false},
		{"Note that the Job controller does not remove the condition.", false},
		{"Today's admin and user values keep their meaning.", false},
		{"A removed sysvar is not visible in SHOW VARIABLES output.", false},
		{"For instance, if the `cmake` crate supplies a binary named `cmake`, Cargo supplies both variables.", true},
		{"(As with any OS file path, these may or may not be valid UTF-8.)", true},
		{"We have considered making TTL controller leave a Job around after its TTL expires.", true},
		{"The Pod might not be immediately replaced, as the number of active Pods could have hit the parallelism limit.", true},
		{"The experimental switch is settable per session, but some experiments might only be available globally.", false},
		{"An incremental changelog file could be used to avoid many conditional requests.", true},
		{"As future work it can be extended to Pods.", true},
		{"We will evaluate holding off counting completed Pods that have an outlying index.", true},
		{"Keeping the size of the status small is desirable to reduce load on watchers.", true},
		{"The proposed scheme may support deletion of crates, if necessary.", true},
		{"We do not offer guarantees on creation order based on completion index.", true},
		{"The session's `expiresAt` timestamp is in the future.", false},
		{"A generic annotation is a good choice to avoid needing many new annotations in the future.", true},
		{"`optional` - this introduces an optional dependency as usual, as well as a feature named after the key.", false},
		{"This could be a string meaning a crates.io dependency or a table.", false},
		{"The application needs to handle restarts in a different Pod.", true},
		{"Those future providers are not implemented and not required in this scope.", true},
		{"Trigger: Admin sets a future effective date.", true},
		{"Outcome: Regionalized compliance.", true},
		{"Outcome: The new version becomes current and an audit entry is recorded.", false},
		{"Users must be able to read the full content before they accept.", false},
		{"The client retries the call once if the wallet answers 503.", false},
	})
}

// TestOrderLabel tells an item's label that is an order ("Configure
// acceptance rules: who must accept, and when …", whose text was titled
// "Make who accept, and when enforcement applies") from one that names.
func TestOrderLabel(t *testing.T) {
	checkTextCases(t, "orderLabel", orderLabel, []textCase[bool]{
		{"Configure acceptance rules", true},
		{"Publish the document", true},
		{"Draft/Preview/Publish", false},
		{"Tickets per job", false},
		{"Embedded widget", false},
		{"Support", false},
		{"Display of legal content", false},
	})
}

// TestWithoutDocumentID keeps a document's identifier out of the titles of
// the work it names ("Implement KEP-2232 suspend jobs", "Implement
// ADR-0005 — Provider abstraction …").
func TestWithoutDocumentID(t *testing.T) {
	checkTextCases(t, "withoutDocumentID", withoutDocumentID, []textCase[string]{
		{"KEP-2232 Suspend Jobs", "Suspend Jobs"},
		{"ADR-0005 — Provider abstraction with two clients", "Provider abstraction with two clients"},
		{"PEP 616 String methods to remove prefixes", "String methods to remove prefixes"},
		{"Product Requirements Document: Legal Content Management", "Legal Content Management"},
		{"KEP-2232", "KEP-2232"},
		{"Console Access: the role ladder", "Console Access: the role ladder"},
	})
}
