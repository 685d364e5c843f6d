package heuristic

import (
	"regexp"
	"slices"
	"strings"
)

// This file classifies every section before drafting: only work sections
// become tickets. Context sections (background, motivation, summary)
// explain the work; not-work sections (non-goals, out of scope, deferred
// versions, alternatives, history, tables of contents, template prompts,
// metrics to watch, marketing, analytics, reference implementations,
// generator notes) name what the team will not build now. Risk sections
// ("Risks and Mitigations") become risks of the result, with their
// source, never tickets.

// sectionClass says what a section is to the people doing the work.
type sectionClass int

const (
	workSection sectionClass = iota
	contextSection
	notWorkSection
	riskSection
)

var (
	// headingNumber is a heading's leading number or appendix letter
	// ("10.", "3.2", "A.1", "Appendix C:").
	headingNumber  = regexp.MustCompile(`^(appendix\s+[a-z0-9]+[.:)]?\s*|[a-z]?\d+(\.\d+)*[.):]?\s+|[a-z]\.\d+(\.\d+)*[.):]?\s+)`)
	notWorkHeading = regexp.MustCompile(`^(?:` + notWorkWords + `)\b`) // see atWord
	notWorkWhole   = regexp.MustCompile(`^(contents|toc|history|references|schedule|timeline|communication|communications|communication plan|tracking|stakeholders|owners?|authors?|reviewers?|approvers?|status|related (tickets|issues|prs|pull requests|docs|documents|links|work)|other docs|other documents|links|see also|(target )?audience|acknowledge?ments?|credits|thanks|(stakeholder|community|vendor|browser) (feedback|positions?)|feedback from stakeholders|metadata|(recommended|suggested) commits?|commit messages?|examples?|usage examples?|example (commands?|usage|output|requests?|responses?|configuration|config|files?|pod yaml)|addend(a|ums?)|participate|participation|contributing|how to contribute|contribution guidelines|getting started|quick ?start|local development|development (workflow|setup|environment)|(project|folder|directory|repository) (structure|layout)|recent changes)$`)
	contextHeading = regexp.MustCompile(`^(decisions|decisions made|dependencies|external dependencies|summary|executive summary|abstract|tl;?dr|overview|document overview|introduction|motivation|motivating .*|rationale|background.*|business context|context|why|why .*|problem|the problem|problem statement|goals|objectives?|assumptions?|notes|caveats|notes/constraints/caveats.*|how to teach this|(api |design |guiding )?principles|upgrade / downgrade strategy|upgrade and downgrade strategy|version skew strategy|current state|current .* (functionality|behaviou?r|implementation|design|state)|(the )?status quo|(deficiencies|shortcomings|limitations|problems?) (of|with) .*|(backwards? )?compatibility|how .* today|what goes wrong|what exists.*|is your feature request related to a problem.*|(concrete |example )?use cases?|(implementation |technical )?feasibility|further notes|additional notes|build order)$`)
	riskHeading    = regexp.MustCompile(`^(risks|known risks|key risks|risks? (and|&) mitigations?|risk assessment|risks? (and|&) (open )?issues|impacts? (and|&) risks?)$`)
)

// notWorkWords are the words of a heading of a part that is not work;
// notWorkHeading matches them at the start of a text, atWord at the start
// of any word.
const notWorkWords = `non[- ]?goals?|out[- ]of[- ]scope|not in scope|not doing|won'?t have|won'?t do|deferred|future (work|possibilities|considerations|ideas|versions?|phases?|directions|features?|feature ideas|enhancements|improvements)|later versions?|v\d+\.\d+|roadmap|alternatives?|rejected|drawbacks|(major )?objections?|prior art|implementation history|revision history|change ?log|document history|table of contents|glossary|appendix|success metrics|success criteria|measurable outcomes|metrics to watch|kpis|marketing|launch (plan|announcement)|personas|(user |system )?actors|faq|frequently asked|screenshots?|prerequisites|attendees|spike results|follow[- ]?ups?|signoff checklist|sign-off checklist|additional context|please complete|which plan|aob|any other business|questionnaire|reference implementation|history of|analytics(?: (?:and|&) (?:tracking|instrumentation|events|metrics)| events| tracking| instrumentation)?$|event tracking|copyright|licen[cs]e|notes for (the )?generator|generator notes|template[- ]based|ai[- ]assisted|complexity score`

// atWord reports whether re, anchored at the start, matches text at the
// start of one of its words: what re without its anchor and behind a \b
// would match, tried only where a word starts instead of at every byte
// (the heading patterns were 4 % of a generation).
func atWord(re *regexp.Regexp, text string) bool {
	for i := 0; i < len(text); i++ {
		if isASCIIWordByte(text[i]) && (i == 0 || !isASCIIWordByte(text[i-1])) && re.MatchString(text[i:]) {
			return true
		}
	}
	return false
}

var (
	graduation = regexp.MustCompile(`(?i)\bgraduation\b`)
	laterStage = regexp.MustCompile(`(?i)^(beta|ga|stable|general availability|ga \(stable\))$`)
)

// closedReport matches a report's resolution when it needs no work: fixed,
// a duplicate, won't fix, an accepted risk.
var closedReport = regexp.MustCompile(`(?i)(^|[.!?]\s+|:\s*)(fixed:\s*v?\d|fixed (in|on|by)\b|retested:?\s*fixed|duplicate of\b|won'?t fix|wontfix|accepted risk|not a bug|cannot reproduce|can't reproduce|works as intended|resolved in\b)`)

// duplicateHeading is a report whose heading says it repeats another.
var duplicateHeading = regexp.MustCompile(`(?i)^(\S+\s+)?(same as|duplicate of)\b`)

// isClosedReport reports whether s is a leaf section whose own text says
// the report it holds is resolved without work.
func isClosedReport(s *section) bool {
	if len(s.children) > 0 || s.level < 2 {
		return false
	}
	if duplicateHeading.MatchString(s.heading) {
		return true
	}
	for _, bl := range s.blocks {
		if bl.kind == paragraphBlock && mayBeClosed(bl.text) && closedReport.MatchString(bl.text) {
			return true
		}
		if bl.kind == listBlock {
			// "* Fixed: 1.0.2" in the report's fields.
			for _, it := range bl.items {
				if resolutionField(it.text) && closedReport.MatchString(it.text) {
					return true
				}
			}
		}
	}
	return false
}

// mayBeClosed is a necessary condition for closedReport, checked first:
// each of its phrases holds one of these words, in any case.
func mayBeClosed(text string) bool {
	low := strings.ToLower(text)
	for _, w := range []string{"fix", "duplicate", "won", "accepted risk", "not a bug", "reproduce", "intended", "resolved"} {
		if strings.Contains(low, w) {
			return true
		}
	}
	return false
}

// resolutionField reports whether a list item can be a report's
// resolution field ("Fixed: 1.0.2", "Status: fixed in rc3"), a cheap test
// before closedReport.
func resolutionField(text string) bool {
	for _, p := range []string{"fixed", "status", "resolution", "resolved", "duplicate", "won't", "wontfix"} {
		if len(text) >= len(p) && strings.EqualFold(text[:len(p)], p) {
			return true
		}
	}
	return false
}

// classifyHeading classifies a heading by its words alone.
func classifyHeading(heading string) sectionClass {
	raw := strings.ToLower(strings.ReplaceAll(heading, "`", "")) // the patterns above are lower case
	h := strings.TrimSpace(headingNumber.ReplaceAllString(raw, ""))
	h = strings.TrimSuffix(strings.TrimSuffix(h, ":"), "?")
	switch {
	case strings.Contains(h, "risk") && riskHeading.MatchString(h):
		return riskSection
	case atWord(notWorkHeading, raw) || notWorkWhole.MatchString(h):
		return notWorkSection
	case h == "":
		return workSection
	case contextHeading.MatchString(h) || madrHeading.MatchString(h):
		return contextSection
	}
	return workSection
}

// headingPriority is a priority a heading gives its section ("User Story 1
// — Publish Legal Document (Priority: P1)", the spec-kit template's).
var headingPriorityLabel = regexp.MustCompile(`(?i)\(priority:\s*p([0-9])\)`)

// zeroPriority is a priority of a scale that starts at P0.
var zeroPriority = regexp.MustCompile(`\bP0\b`)

// readHeadingPriorities sets the priority of each section whose heading
// gives one, "(Priority: P1)": on a scale that starts at P1 (no P0 in the
// document, as in the spec-kit template, where P1 is the most critical),
// P1 is a must-have, P2 a should-have, P3 and below could-haves; on a
// scale from P0, P0 is the must-have and P1 the should-have. Read as P0
// is elsewhere, spec-kit's P1 stories were should-haves beside a
// requirement table's must-haves.
func readHeadingPriorities(doc *document) {
	fromZero := false
	for _, s := range doc.sections {
		fromZero = fromZero || zeroPriority.MatchString(s.heading)
		for _, bl := range s.blocks {
			fromZero = fromZero || zeroPriority.MatchString(bl.text)
			for _, it := range bl.items {
				fromZero = fromZero || zeroPriority.MatchString(it.text)
			}
			if bl.table != nil {
				for _, row := range bl.table.rows {
					fromZero = fromZero || slices.ContainsFunc(row, zeroPriority.MatchString)
				}
			}
		}
	}
	for _, s := range doc.sections[1:] {
		m := headingPriorityLabel.FindStringSubmatch(s.heading)
		if m == nil {
			continue
		}
		n := int(m[1][0] - '0')
		if !fromZero {
			n--
		}
		switch {
		case n <= 0:
			s.priority = "must"
		case n == 1:
			s.priority = "should"
		default:
			s.priority = "could"
		}
	}
}

// madrHeading is a heading of an ADR that weighs options (the MADR
// template), context of its decision; consequencesHeading the heading of a
// decision's effects.
var (
	madrHeading         = regexp.MustCompile(`(?i)^(decision drivers|considered options|options considered|pros and cons( of the options)?)$`)
	consequencesHeading = regexp.MustCompile(`(?i)^((positive|negative|neutral) )?consequences$`)
)

// storiesHeading is a heading of user stories or scenarios.
var storiesHeading = regexp.MustCompile(`^(user stories|stories|user scenarios|scenarios|user journeys?)( \(optional\))?$`)

// holdsStory reports whether s or a section under it writes a user story
// in the "As a …, I want …" form.
func holdsStory(s *section) bool {
	for _, bl := range s.blocks {
		if storyInText(bl.text) {
			return true
		}
		for _, it := range bl.items {
			if storyInText(it.text) {
				return true
			}
		}
	}
	for _, c := range s.children {
		if holdsStory(c) {
			return true
		}
	}
	return false
}

// storyInText reports whether text holds "As a …, I want" or "As an …, I
// need".
func storyInText(text string) bool {
	low := strings.ToLower(text)
	i := strings.Index(low, "as a")
	return i >= 0 && (strings.Contains(low[i:], " i want") || strings.Contains(low[i:], " i need") || strings.Contains(low[i:], " i would like"))
}

// classifySections sets the class of every section of doc: a section is
// of its heading's class, and what lies under a not-work or context
// section is of that section's class too.
func classifySections(doc *document) {
	readHeadingPriorities(doc)
	designed, referenced, weighed := false, false, false
	for _, s := range doc.sections[1:] {
		designed = designed || strings.EqualFold(strings.TrimSpace(s.heading), "design details")
		referenced = referenced || strings.EqualFold(strings.TrimSpace(s.heading), "reference-level explanation")
		weighed = weighed || madrHeading.MatchString(strings.TrimSpace(s.heading))
	}
	title := documentTitle(doc)
	for _, s := range doc.sections[1:] {
		s.class = classifyHeading(s.heading)
		if s == title && s.class == notWorkSection {
			// "# PRD-002: Dash v2.0 Launch Preparation" names the release
			// the document plans, not a later one it defers work to.
			s.class = classifyHeading(versionNumber.ReplaceAllString(s.heading, ""))
		}
		if s.class == notWorkSection && isPlanAppendix(s, title) {
			// "#### Appendix #2 - Removed system variables" under "##
			// Implementation Plan" is a part of the plan, not the
			// document's appendix of context.
			s.class = classifyHeading(appendixLabel.ReplaceAllString(s.heading, ""))
		}
		if designed && strings.EqualFold(strings.TrimSpace(s.heading), "proposal") && s.class == workSection {
			// A KEP's "Proposal" summarises what its "Design Details"
			// specify; the work is ticketed from the details.
			s.class = contextSection
		}
		if referenced && strings.EqualFold(strings.TrimSpace(s.heading), "guide-level explanation") && s.class == workSection {
			// An RFC's guide-level explanation teaches by example what
			// its reference-level explanation specifies; what it says
			// that the reference leaves out ("a client over its limit
			// gets a 429 with Retry-After") is work all the same, see
			// guideDrafts.
			s.guide = true
		}
		if s.parent != nil && s.parent.guide && s.class == workSection {
			// "## Workspace-level Dependencies" under "# Guide-level
			// explanation" teaches what the reference's "## New
			// dependency directives" specifies; its tickets repeated the
			// reference's.
			s.guide = true
		}
		if s.class == workSection && storiesHeading.MatchString(strings.TrimSpace(strings.ToLower(headingNumber.ReplaceAllString(strings.ToLower(s.heading), "")))) && !holdsStory(s) {
			// A KEP's "User Stories" telling how a user gets on ("The users
			// keep creating Jobs …", "1. When creating Jobs, the user sets
			// …"): a scenario the design serves, not stories to build;
			// "As a …, I want …" under it are stories.
			s.class = contextSection
		}
		if weighed && s.class == workSection && consequencesHeading.MatchString(strings.TrimSpace(s.heading)) {
			// An ADR that weighs options (MADR: "Considered options",
			// "Pros and cons of the options") lists the decision's good
			// and bad effects under "Consequences"; a plain ADR's
			// consequences say what will be done, and stay work.
			s.class = contextSection
		}
		if s.class == workSection && unfilledTemplate(s) {
			// "TODO" over the template's own prompt ("Collect a list of
			// action items …"): nothing of the spec's, nothing to ask.
			s.class = notWorkSection
		}
		if s.class == workSection && isClosedReport(s) {
			s.class, s.closed = notWorkSection, true
		}
		if s.class == workSection && s.parent != nil && graduation.MatchString(s.parent.heading) && laterStage.MatchString(strings.TrimSpace(s.heading)) {
			// The first stage of a graduation (alpha) is this work; beta
			// and GA are later milestones with their own plans.
			s.class = notWorkSection
		}
		if p := s.parent; designed && p != nil && s.class == workSection && strings.EqualFold(strings.TrimSpace(p.heading), "proposal") && proposalDetails.MatchString(strings.TrimSpace(s.heading)) {
			// KEP-2227's "Proposal Details" says what its "Design Details"
			// leave out (which commands read the annotation, the logs
			// exception): detail, not the summary its parent is.
			continue
		}
		if p := s.parent; p != nil && p.class > s.class && !(s.class == workSection && rolloutHeading.MatchString(strings.TrimSpace(headingNumber.ReplaceAllString(strings.ToLower(s.heading), ""))) && launchHeading.MatchString(strings.ToLower(p.heading))) {
			s.class = p.class
		}
	}
}

// placeholderText is the text of a template's section nobody filled in.
var placeholderText = regexp.MustCompile(`(?i)^(todo|tbd|tba|to do|to be (written|done|decided|determined))\.?$`)

// unfilledTemplate reports whether s opens with a placeholder ("TODO")
// over more text, which is then the template's prompt.
func unfilledTemplate(s *section) bool {
	return len(s.blocks) > 1 && s.blocks[0].kind == paragraphBlock && placeholderText.MatchString(strings.TrimSpace(s.blocks[0].text))
}

// proposalDetails is the heading of a proposal's details under a KEP's
// "Proposal".
var proposalDetails = regexp.MustCompile(`(?i)^(proposal )?details$`)

// appendixLabel is the label that opens an appendix's heading ("Appendix
// #1 - ", "Appendix C: ").
var appendixLabel = regexp.MustCompile(`(?i)^\s*appendix\s*#?[a-z0-9]{0,3}\s*[-:.–—]?\s*`)

// isPlanAppendix reports whether s is an appendix nested in a work section
// other than the document's title (an "Implementation Plan" made of
// appendices): its heading says appendix and nothing else that is not
// work.
func isPlanAppendix(s, title *section) bool {
	p := s.parent
	if p == nil || p.index == 0 || p == title || p.class != workSection || len(s.heading) < 8 || !strings.EqualFold(s.heading[:8], "appendix") || !appendixLabel.MatchString(s.heading) {
		return false
	}
	rest := appendixLabel.ReplaceAllString(s.heading, "")
	return rest != "" && classifyHeading(rest) != notWorkSection
}

// versionNumber is a release number in a heading ("v2.0", "V1.5").
var versionNumber = regexp.MustCompile(`(?i)\bv\d+\.\d+\b`)

// documentTitle is the heading that titles the whole document: its first
// section, of level 1, when no other section is of level 1; or nil.
func documentTitle(doc *document) *section {
	if len(doc.sections) < 2 || doc.sections[1].level != 1 {
		return nil
	}
	for _, s := range doc.sections[2:] {
		if s.level == 1 {
			return nil
		}
	}
	return doc.sections[1]
}

var (
	// rolloutHeading is a rollout: turning the work on in steps behind a
	// flag is engineering work, even in a launch plan.
	rolloutHeading = regexp.MustCompile(`^(staged |phased |gradual )?(rollout|roll-out)( plan| steps)?$|^feature flags?$`)
	// launchHeading is a launch plan, whose marketing is not work.
	launchHeading = regexp.MustCompile(`\blaunch (plan|announcement)\b`)
)

// isWork reports whether s is a section whose text becomes tickets.
func (s *section) isWork() bool { return s.class == workSection }
