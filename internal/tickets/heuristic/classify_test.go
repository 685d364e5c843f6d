package heuristic

import "testing"

func TestClassifyHeading(t *testing.T) {
	checkTextCases(t, "classifyHeading", classifyHeading, []textCase[sectionClass]{
		{"Requirements", workSection},
		{"7.6 Vehicle history", workSection},
		{"Rollout plan", workSection},
		{"Open questions", workSection},
		{"3.2 Non-goals", notWorkSection},
		{"10. Out of scope and deferred to V1.5", notWorkSection},
		{"Won't have (this time)", notWorkSection},
		{"Alternatives considered", notWorkSection},
		{"Rationale and alternatives", notWorkSection},
		{"Implementation History", notWorkSection},
		{"Table of contents", notWorkSection},
		{"Appendix C: Interview notes", notWorkSection},
		{"15. Success metrics", notWorkSection},
		{"Metrics to watch", notWorkSection},
		{"Desktop (please complete the following information)", notWorkSection},
		{"Describe alternatives you've considered", notWorkSection},
		{"11.10 Contributing", notWorkSection},
		{"11.4 Getting Started", notWorkSection},
		{"11.7 Development Workflow", notWorkSection},
		{"11.2 Project Structure", notWorkSection},
		{"11.6 Recent Changes", notWorkSection},
		{"Deployment", workSection},
		{"Risks", riskSection},
		{"Risks and Mitigations", riskSection},
		{"Risks & Mitigations", riskSection},
		{"Abstract", contextSection},
		{"Rationale", contextSection},
		{"Motivating examples from the Python standard library", contextSection},
		{"Notes/Constraints/Caveats (Optional)", contextSection},
		{"Assumptions", contextSection},
		{"2. Objective", contextSection},
		{"How to Teach This", contextSection},
		{"Reference Implementation", notWorkSection},
		{"History of Major revisions", notWorkSection},
		{"7. Analytics & Tracking", notWorkSection},
		{"Notes for Generator", notWorkSection},
		{"Copyright", notWorkSection},
		{"Background", contextSection},
		{"Motivation", contextSection},
		{"1. Executive summary", contextSection},
		{"Decisions", contextSection},
		{"Dependencies", contextSection},
		{"Production Readiness Review Questionnaire", notWorkSection},
		{"Is your feature request related to a problem? Please describe.", contextSection},
		// Public specs written elsewhere (issue 17): an ADR's decision is
		// its work; rationale, today's behaviour, compatibility and later
		// directions are not.
		{"Decision", workSection},
		{"Why not GatewayClass parameters?", contextSection},
		{"Why can't vendor directories be used?", contextSection},
		{"Current `go install` and `go get` functionality", contextSection},
		{"Compatibility", contextSection},
		{"Impacts & Risks", riskSection},
		{"Future directions", notWorkSection},
		{"Future Feature Ideas", notWorkSection},
		{"Future Handling", workSection},
		{"API Principles", contextSection},
		{"Current sprint", workSection},
		// Eight more public specs (issue 17): an explainer's stakeholder
		// feedback and acknowledgements, an issue's metadata and
		// recommended commits, a KEP's example and an RFC template's
		// addendums are no work.
		// Four more public specs (session 16): a KEP's use cases, an
		// RFC's feasibility, a PRD's further notes and build order
		// explain the work; none is work of its own.
		{"Concrete Use Cases", contextSection},
		{"Implementation feasibility", contextSection},
		{"Further Notes", contextSection},
		{"Build order", contextSection},
		// An ADR in the MADR template weighs options: its drivers, the
		// options and their pros and cons explain the decision.
		{"Decision drivers", contextSection},
		{"Considered options", contextSection},
		{"Pros and cons of the options", contextSection},
		{"Stakeholder Feedback", notWorkSection},
		{"Acknowledgements", notWorkSection},
		{"Acknowledgments", notWorkSection},
		{"Metadata", notWorkSection},
		{"Recommended Commits", notWorkSection},
		{"Example Command", notWorkSection},
		{"Examples", notWorkSection},
		{"Addendums", notWorkSection},
		{"Example-driven validation", workSection},
		{"4. Analytics Dashboard", workSection},
		{"Deficiencies of the status quo", contextSection},
		{"Participate", notWorkSection},
		{"Success Criteria", notWorkSection},
		{"Product analytics", notWorkSection},
	})
}

func TestLaterGraduationStagesAreNotWork(t *testing.T) {
	wantClasses(t, "# KEP\n\n## Graduation Criteria\n\n### Alpha\n\n- Feature gate off by default.\n\n### Beta\n\n- On by default.\n\n### GA\n\n- No open bugs.\n", map[string]sectionClass{"Alpha": workSection, "Beta": notWorkSection, "GA": notWorkSection})
}

// A KEP's "Proposal" summarises its "Design Details": the work is ticketed
// once, from the details (KEP-3140 got "Implement proposal" beside its
// API and controller tickets).
func TestProposalWithDesignDetailsIsContext(t *testing.T) {
	wantClasses(t, "# KEP\n\n## Proposal\n\nAdd the field.\n\n## Design Details\n\n### API\n\nThe field is validated.\n", map[string]sectionClass{"Proposal": contextSection})
}

// An appendix nested in a work section ("Implementation Plan") is part of
// the plan; an appendix of the document stays context it does not ticket.
func TestAppendixOfAPlanIsWork(t *testing.T) {
	wantClasses(t, "# Proposal\n\n## Implementation Plan\n\n### Appendix #2 - Removed system variables\n\n* Returns an error for `SELECT @@var` queries\n\n## Appendix A: Interview notes\n\nUsers asked for it.\n", map[string]sectionClass{"Appendix #2 - Removed system variables": workSection, "Appendix A: Interview notes": notWorkSection})
}

// "The status quo" is today's state of affairs, no state machine (a PEP's
// "Deficiencies of the status quo" became "Implement zip state
// transitions").
func TestStatusQuoIsNoStateTopic(t *testing.T) {
	checkTextCases(t, "headingTopic", headingTopic, []textCase[string]{
		{"Deficiencies of the status quo", ""},
		{"Order status", "states"},
		{"Push notifications", "events"},
	})
}

// A KEP's "Proposal Details" under its "Proposal" is detail the design
// details leave out (KEP-2227: which commands read the annotation), not
// the summary its parent is.
func TestProposalDetailsAreWork(t *testing.T) {
	wantClasses(t, "# KEP\n\n## Proposal\n\nAdd the annotation.\n\n### User Stories\n\nJulia runs kubectl cp.\n\n### Proposal Details\n\n`kubectl logs` reads the annotation only without `--all-containers`.\n\n## Design Details\n\n### API\n\nThe annotation is validated.\n", map[string]sectionClass{"Proposal": contextSection, "User Stories": contextSection, "Proposal Details": workSection})
}

// wantClasses classifies the sections of markdown and reports each heading
// of want whose class is another, or that is not there.
func wantClasses(t *testing.T, markdown string, want map[string]sectionClass) {
	t.Helper()
	doc := parseDocument(newMeter(t.Context()), markdown)
	classifySections(doc)
	seen := map[string]bool{}
	for _, s := range doc.sections {
		if w, ok := want[s.heading]; ok {
			seen[s.heading] = true
			if s.class != w {
				t.Errorf("%q: class %d, want %d", s.heading, s.class, w)
			}
		}
	}
	for h := range want {
		if !seen[h] {
			t.Errorf("no section %q", h)
		}
	}
}
