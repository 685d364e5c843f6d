package heuristic

import (
	"regexp"
	"slices"
	"sort"
	"strings"
	"unicode/utf8"

	"github.com/foresight-dev/foresight/internal/tickets"
)

// This file turns one section at a time into drafts: endpoints, resources,
// state machines, captioned tables, labelled items and plain requirement
// sections.

// unclaimed is the units no draft has claimed yet, in order.
func unclaimed(units []*unit) []*unit {
	var out []*unit
	for _, u := range units {
		if !u.claimed {
			out = append(out, u)
		}
	}
	return out
}

// subtreeDrafts returns the drafts built for the sections below s.
func (b *builder) subtreeDrafts(s *section) []*draft {
	var out []*draft
	for _, c := range s.children {
		out = append(out, b.info[c.index].drafts...)
		out = append(out, b.subtreeDrafts(c)...)
	}
	return out
}

// buildSection builds the drafts of one section. Sections are visited
// bottom-up so that a parent knows its children's drafts.
func (b *builder) buildSection(s *section) {
	in := b.info[s.index]
	if b.sectionBugDraft(s) {
		return
	}
	units := unclaimed(in.units)
	if b.handOver(s, units) {
		return
	}
	if len(in.endpoints) > 0 {
		b.endpointDrafts(s, units)
		units = nil
	}
	if b.shape == shapePlain && s == b.doc.root {
		b.buildPlain(s, units)
		return
	}
	if b.isIntro(s) {
		return
	}
	if s.guide {
		b.guideDraft(s, units)
		return
	}
	if len(in.states) > 0 {
		b.stateDraft(s, units)
		units = nil
	}
	if describesResource(s, in, units) {
		b.resourceDraft(s, units)
		units = nil
	}
	if len(units) == 0 || b.applyBelow(s, units) {
		return
	}
	b.workDrafts(s, units)
}

// handOver reports whether the units of s are drafted elsewhere or as one
// piece, and hands them over: a flow's steps to the flow, a use case's
// flow as one draft, a user story's acceptance scenarios to the story, and
// criteria of earlier work to that work.
func (b *builder) handOver(s *section, units []*unit) bool {
	if flow := flowOfPart(s); flow != nil {
		// "**Steps**:" of a flow is read as a heading of its own, the
		// flow's sibling: its steps are the flow's.
		b.info[flow.index].units = append(b.info[flow.index].units, units...)
		return true
	}
	if title, ok := flowTitle(s); ok && len(units) > 0 {
		// A use case's flow ("**Actors**: …", "**Trigger**: …", "**Steps**:
		// 1. …", "**Outcome**: …") is one piece of work: its labels were
		// tickets of their own ("Implement steps", "Implement admin, System
		// Trigger: …").
		for _, u := range units {
			u.claimed = true
		}
		in := b.info[s.index]
		in.drafts = append(in.drafts, b.sectionDraft(s, "", units, title))
		return true
	}
	if owner := b.acceptanceOwner(s); owner != nil {
		// "**Acceptance Scenarios**:" under a user story are the story's
		// criteria, not work of their own.
		b.info[owner.index].units = append(b.info[owner.index].units, units...)
		return true
	}
	return b.criteriaOfEarlierWork(s, units)
}

// endpointDrafts drafts each endpoint of s with its criteria and the
// section's units attached to it.
func (b *builder) endpointDrafts(s *section, units []*unit) {
	endpoints := b.info[s.index].endpoints
	b.attachToEndpoints(s, endpoints, units)
	for _, ep := range endpoints {
		d := b.endpointDraft(ep)
		sets := newListSets(len(ep.pending) + len(ep.general))
		for _, p := range ep.pending {
			sets.add(&d.crit, sentenceCase(p))
		}
		for _, g := range ep.general {
			sets.add(&d.general, sentenceCase(g))
		}
	}
}

// describesResource reports whether s describes a resource: it lists
// fields, or it is a leaf "resources" section whose few units are neither
// endpoints nor a list of requirements or orders.
func describesResource(s *section, in *sectionInfo, units []*unit) bool {
	return len(in.fields) > 0 || (in.topic == "resources" && len(s.children) == 0 && len(units) > 0 && len(in.endpoints) == 0 && len(in.items) < 6 && !labelledRequirements(in) && !orderList(in.items))
}

// applyBelow reports whether the units of s are a few sentences above
// sub-sections that hold drafts, and then adds them to each of those
// drafts' general notes: they apply to all of them, unless they propose
// work of their own.
func (b *builder) applyBelow(s *section, units []*unit) bool {
	below := b.subtreeDrafts(s)
	if len(below) == 0 || len(units) > 3 || len(b.info[s.index].rules) > 0 || proposesWork(s, units) {
		return false
	}
	for _, d := range below {
		for _, u := range units {
			d.general = appendUnique(d.general, sentenceCase(u.text))
		}
	}
	return true
}

// workDrafts drafts the units of s as work: an overview's, one draft an
// item where the section is a list of work, else the section's drafts.
func (b *builder) workDrafts(s *section, units []*unit) {
	in := b.info[s.index]
	switch {
	case in.topic == "overview":
		b.overviewDrafts(s, units)
	case in.topic == "requirements" || in.checklist || in.topic == "questions" && len(in.items) > 0 || labelledRequirements(in) ||
		len(in.items) >= 2 && !hasWorkBelow(s) && genericWorkHeading.MatchString(s.cleanedHeading()) ||
		in.topic == "testing" && len(in.items) >= 2 && len(s.children) == 0 ||
		len(s.children) == 0 && orderList(in.items):
		// A test plan's list ("Unit tests for …", "Integration test: …",
		// "E2E test: …") names tests of different kinds, each its own work.
		// A list under "Specification", "Implementation" or an RFC's
		// "Reference-level explanation" is the list of the work, and so
		// is a list of orders ("Define …", "Validate …", "Add test cases
		// …") under any heading: a KEP's "**Publishing Data:**" list was
		// one ticket with its steps packed three to a criterion.
		b.itemDrafts(s, units)
	default:
		b.sectionDrafts(s, units)
	}
}

// flowTitle titles a section that writes a use case's flow, two or more
// of the labels "Actors:", "Trigger:", "Preconditions:", "Outcome:" in its
// text, by its heading without the flow's kind
// ("Main Flow: Admin Publishes New Legal Version" is "Admin publishes new
// legal version"); ok is false for any other section.
func flowTitle(s *section) (title string, ok bool) {
	labels := 0
	for _, bl := range s.blocks {
		if bl.kind == paragraphBlock {
			labels += len(flowLabel.FindAllString(bl.text, -1))
		}
	}
	if labels < 2 {
		return "", false
	}
	h := strings.TrimSpace(flowKind.ReplaceAllString(s.cleanedHeading(), ""))
	if fieldCount(h) < 2 {
		return "", false
	}
	return upperFirst(lowerFirst(h)), true
}

// flowOfPart is the flow whose labelled part ("**Steps**:") the parser
// read as the heading of s, the section after the flow's; nil when s is
// no such part.
func flowOfPart(s *section) *section {
	if s.parent == nil || len(s.children) > 0 || !flowPart.MatchString(s.cleanedHeading()) {
		return nil
	}
	i := slices.Index(s.parent.children, s)
	if i < 1 {
		return nil
	}
	prev := s.parent.children[i-1]
	if _, ok := flowTitle(prev); !ok {
		return nil
	}
	return prev
}

var (
	// flowLabel opens a line of a use case's flow.
	flowLabel = regexp.MustCompile(`(?i)(?:^|\s)(?:actors?|trigger|preconditions?|outcome|postconditions?):`)
	// flowPart is a labelled part of a flow the parser reads as a heading.
	flowPart = regexp.MustCompile(`(?i)^(steps|main steps|flow|preconditions?|postconditions?)$`)
	// flowKind is the kind of flow a heading names before its title.
	flowKind = regexp.MustCompile(`(?i)^((main|basic|primary|alternative|alternate|exception) (flow|path|scenario)|use case( \d+)?)\s*[:—–-]?\s+`)
)

// hasWorkBelow reports whether a section under s holds work: an ADR's
// "Decision outcome" over its "Consequences" (context) lists the work
// itself.
func hasWorkBelow(s *section) bool {
	for _, c := range s.children {
		if c.class == workSection {
			return true
		}
	}
	return false
}

// proposesWork reports whether the few sentences of s above its
// sub-sections propose work of their own: a sentence in a proposal's frame
// beside a code block that defines it (KEP-592's "API Object": "We will
// add the following API fields to JobSpec" over the Go struct, above its
// "Validation"). They were the lead-in of the sub-sections' tickets, and
// the field had no ticket.
func proposesWork(s *section, units []*unit) bool {
	code := false
	for _, bl := range s.blocks {
		code = code || bl.kind == codeBlock
	}
	if !code {
		return false
	}
	for _, u := range units {
		if t := strings.TrimSpace(stripCode(u.text)); unframed(t) != t {
			return true
		}
	}
	return false
}

// acceptanceOwner is the section whose acceptance criteria s lists: s is
// a leaf below the second level titled "Acceptance criteria" or
// "Acceptance scenarios", and the owner the section just before it at its
// level (a bold line is a heading of the story's own level) or its parent,
// whichever has text of its own and at most one list item (one story).
func (b *builder) acceptanceOwner(s *section) *section {
	p := s.parent
	if p == nil || s.level < 3 || len(s.children) > 0 || !acceptanceHeading.MatchString(strings.Trim(s.cleanedHeading(), "*_: ")) {
		return nil // a PRD's "## Acceptance criteria" lists the criteria of many stories
	}
	one := func(o *section) bool { in := b.info[o.index]; return len(in.units) > 0 && len(in.items) <= 1 }
	for i, c := range p.children {
		if c == s && i > 0 && len(p.children[i-1].children) == 0 && one(p.children[i-1]) {
			return p.children[i-1]
		}
	}
	if p.parent != nil && one(p) {
		return p
	}
	return nil
}

// lateCriteria are the units of an "Acceptance criteria" section s.
type lateCriteria struct {
	s     *section
	units []*unit
}

// criteriaOfEarlierWork reports whether s is an "Acceptance criteria"
// section after sections of work at its level (an issue's
// "Implementation Tasks"): its units are criteria of that work, not work
// of their own (the issue's criteria had become tickets that repeat its
// tasks). Sections are built last first, so it records them for
// attachLateCriteria.
func (b *builder) criteriaOfEarlierWork(s *section, units []*unit) bool {
	if s.parent == nil || len(s.children) > 0 || len(units) == 0 || !acceptanceHeading.MatchString(strings.Trim(s.cleanedHeading(), "*_: ")) {
		return false
	}
	for _, c := range s.parent.children {
		if c == s {
			return false
		}
		if c.isWork() && len(b.info[c.index].units) > 0 {
			b.lateCriteria = append(b.lateCriteria, lateCriteria{s, units})
			return true
		}
	}
	return false
}

// attachLateCriteria makes each unit of the recorded acceptance criteria a
// criterion of the ticket before its section whose title shares most
// words with it ("Form validation works" of "Implement form validation"),
// or of every one of them when none does. Without tickets before it, the
// section is drafted as any other.
func (b *builder) attachLateCriteria() {
	for _, lc := range b.lateCriteria {
		var work []*draft
		for _, c := range lc.s.parent.children {
			if c == lc.s {
				break
			}
			for _, d := range append(append([]*draft{}, b.info[c.index].drafts...), b.subtreeDrafts(c)...) {
				if d.alive && d.kind != tickets.TypeEpic {
					work = append(work, d)
				}
			}
		}
		if len(work) == 0 {
			b.sectionDrafts(lc.s, lc.units)
			continue
		}
		for _, u := range lc.units {
			u.claimed = true
			own := keywords(u.text)
			var best *draft
			bestN := 0
			for _, d := range work {
				if n := d.words.overlap(own); n > bestN {
					best, bestN = d, n
				}
			}
			if best != nil {
				best.crit = appendUnique(best.crit, sentenceCase(u.text))
				continue
			}
			for _, d := range work {
				d.general = appendUnique(d.general, sentenceCase(u.text))
			}
		}
	}
}

// notesHeading is a heading of notes or constraints, context that may
// hold a rule for all the work beside it.
var notesHeading = regexp.MustCompile(`(?i)^(notes?|constraints?|notes/constraints/caveats.*)$`)

// constraintRule is a sentence that orders something of all the work
// ("Ensure sensitive data is not logged.").
var constraintRule = regexp.MustCompile(`^(Ensure|Make sure|Never|Do not|Don't|Always)\b`)

// attachNoteConstraints makes the rules of a "Notes" section (a context
// section) criteria of every ticket of the work beside it: an issue's
// "Ensure sensitive data is not logged." was lost.
func (b *builder) attachNoteConstraints() {
	for _, s := range b.doc.sections[1:] {
		if s.class != contextSection || s.parent == nil || !notesHeading.MatchString(strings.TrimSpace(s.cleanedHeading())) {
			continue
		}
		var rules []string
		for _, bl := range s.blocks {
			texts := []string{bl.text}
			if bl.kind == listBlock {
				texts = texts[:0]
				for _, it := range bl.items {
					texts = append(texts, itemText(it))
				}
			} else if bl.kind != paragraphBlock {
				continue
			}
			for _, t := range texts {
				for _, sent := range splitSentences(t) {
					if constraintRule.MatchString(sent) {
						rules = append(rules, sentenceCase(sent))
					}
				}
			}
		}
		if len(rules) == 0 {
			continue
		}
		for _, d := range b.subtreeDrafts(s.parent) {
			if d.alive && d.kind != tickets.TypeEpic {
				d.general = appendUnique(d.general, rules...)
			}
		}
	}
}

// acceptanceHeading is a heading over the acceptance criteria of the
// section above it.
var acceptanceHeading = regexp.MustCompile(`(?i)^acceptance (criteria|scenarios|tests)$`)

var (
	codeIdent = regexp.MustCompile("^`?[A-Za-z0-9_.:/-]+`?$")
	bracketed = regexp.MustCompile(`\(([^()]*)\)`)
)

// resourceName names a resource section: "Result (`tickets.result.v1`)"
// gives "tickets.result.v1 result".
func resourceName(heading string) string {
	name := cleanHeading(heading)
	if i := strings.Index(name, " as "); i > 0 {
		name = name[:i]
	}
	if m := bracketed.FindStringSubmatch(heading); m != nil {
		inner := strings.TrimSpace(m[1])
		if codeIdent.MatchString(inner) && strings.ContainsAny(inner, "._") && !strings.Contains(strings.ToLower(name), strings.ToLower(stripCode(inner))) {
			name = stripCode(inner) + " " + lowerFirst(name)
		}
	}
	return lowerFirst(name)
}

var listComma = regexp.MustCompile(`,\s+([^,]+)$`)

// resourceTitle builds the verb, subject and noun of a resource title.
func resourceTitle(name string) (verb, subject, noun string) {
	low := strings.ToLower(name)
	if strings.Count(name, ",") >= 1 && !strings.Contains(low, " and ") {
		name = listComma.ReplaceAllString(name, " and $1")
	}
	switch {
	case containsAny(low, "request") && containsAny(low, "response"):
		return "Define", name, "schema"
	case containsAny(low, "request", "body", "input", "parameters", "params", "options", "settings", "configuration", "flags"):
		return "Validate", name, ""
	case strings.Contains(low, "schema"):
		return "Define", name, ""
	default:
		return "Define", name, "schema"
	}
}

func renderTitle(verb string, subjects []string, noun string) string {
	if len(subjects) > 1 {
		// "bet" and "outcome, event and market" read as one list.
		var flat []string
		for _, s := range subjects {
			if !strings.Contains(s, "/") && (strings.Contains(s, ", ") || strings.Contains(s, " and ")) {
				for _, part := range strings.Split(strings.ReplaceAll(s, " and ", ", "), ", ") {
					flat = append(flat, strings.TrimSpace(part))
				}
				continue
			}
			flat = append(flat, s)
		}
		subjects = flat
	}
	seen := map[string]bool{}
	uniq := subjects[:0:0]
	for _, s := range subjects {
		if k := strings.ToLower(s); !seen[k] {
			seen[k] = true
			uniq = append(uniq, s)
		}
	}
	subjects = uniq
	t := verb + " " + joinAnd(subjects)
	if noun != "" {
		if len(subjects) > 1 || strings.Contains(subjects[0], " and ") {
			noun = pluralNoun(noun)
		}
		t += " " + noun
	}
	return t
}

func pluralNoun(n string) string {
	if strings.HasSuffix(n, "s") {
		return n
	}
	if strings.HasSuffix(n, "y") {
		return n[:len(n)-1] + "ies"
	}
	return n + "s"
}

// resourceDraft builds the task of a resource section with a field table or
// a description of fields.
func (b *builder) resourceDraft(s *section, units []*unit) {
	name := resourceName(s.heading)
	verb, subject, noun := resourceTitle(name)
	d := b.newDraft(tickets.TypeTask, originResource, renderTitle(verb, []string{subject}, noun), s)
	d.verb, d.subjects, d.noun = verb, []string{subject}, noun
	d.topic = "resources"
	d.conf, d.value = 0.85, 0.6
	d.phase = 1
	in := b.info[s.index]
	if verb == "Validate" {
		d.lead = "Validate the " + name + " against the field rules of the spec and reject anything else with a clear error."
		d.labels = []string{"validation"}
	} else {
		d.lead = "Define the " + name + " shape (types, required fields and rules) as the spec's field table lists it, and serialise it exactly so."
		d.labels = []string{"schema"}
	}
	addTableCriteria(&d.crit, in.fields, fieldCriterion, units)
	if len(d.crit) == 0 {
		d.crit = append(d.crit, "The "+name+" matches the spec's description field for field.")
	}
	if len(d.crit) <= 1 {
		d.value = 0.4
	}
	d.compact = b.compactResource(name, verb, in.fields, units)
	d.words = newWordSet(name)
	in.drafts = append(in.drafts, d)
}

// compactResource summarises a resource in a few criteria, used when the
// resource is folded into the endpoint that carries it.
func (b *builder) compactResource(name, verb string, fields []*table, units []*unit) []string {
	var out []string
	for _, t := range fields {
		var parts []string
		for _, row := range t.rows {
			f := stripCode(strings.TrimSpace(row[0]))
			if f == "" {
				continue
			}
			var q []string
			for i := 1; i < len(row) && i < len(t.header); i++ {
				v := strings.TrimSpace(row[i])
				h := strings.ToLower(t.header[i])
				if v == "" || strings.Contains(h, "required") && !strings.EqualFold(v, "yes") {
					continue
				}
				if strings.Contains(h, "required") {
					v = "required"
				}
				if j := strings.Index(v, ";"); j > 0 {
					v = v[:j]
				}
				q = append(q, strings.TrimRight(v, "."))
			}
			if len(q) > 0 {
				f += " (" + strings.Join(q, ", ") + ")"
			}
			parts = append(parts, f)
		}
		if len(parts) == 0 {
			continue
		}
		lead := "The " + name + " carries "
		if verb == "Validate" {
			lead = "The " + name + " is validated field by field: "
		}
		out = append(out, lead+strings.Join(parts, "; ")+".")
	}
	for _, u := range units {
		out = append(out, sentenceCase(u.text))
	}
	return out
}

// fieldCriterion renders a field-table row.
func fieldCriterion(header, row []string) string {
	field := stripCode(strings.TrimSpace(row[0]))
	if field == "" {
		return ruleRowText(header, row)
	}
	var qual []string
	var rules []string
	for i := 1; i < len(row) && i < len(header); i++ {
		v := strings.TrimSpace(row[i])
		if v == "" {
			continue
		}
		h := strings.ToLower(header[i])
		switch {
		case strings.Contains(h, "type"):
			qual = append(qual, v)
		case strings.Contains(h, "required"):
			switch strings.ToLower(v) {
			case "yes", "true", "required", "y":
				qual = append(qual, "required")
			case "no", "false", "optional", "n":
				qual = append(qual, "optional")
			default:
				rules = append(rules, "required: "+v)
			}
		default:
			rules = append(rules, strings.TrimRight(v, "."))
		}
	}
	name := field
	if !strings.ContainsAny(field, " ,") {
		name = "`" + field + "`"
	}
	out := name
	if len(qual) > 0 {
		out += " (" + strings.Join(qual, ", ") + ")"
	}
	if len(rules) > 0 {
		out += ": " + strings.Join(rules, "; ")
	}
	return sentenceCase(out)
}

// fieldSummary lists a field table compactly: "a (string); b (integer)".
func fieldSummary(t *table) string {
	var parts []string
	for _, row := range t.rows {
		f := stripCode(strings.TrimSpace(row[0]))
		if f == "" {
			continue
		}
		if i := headerIndex(t.header, "type"); i > 0 && strings.TrimSpace(row[i]) != "" {
			f += " (" + strings.TrimSpace(row[i]) + ")"
		}
		parts = append(parts, f)
	}
	return strings.Join(parts, "; ")
}

var stateWord = regexp.MustCompile(`(?i)\b([a-z]+) (?:states|statuses|status values|lifecycle)\b`)

// stateEntity names the thing whose states a section describes.
func (b *builder) stateEntity(s *section) string {
	in := b.info[s.index]
	for _, u := range in.units {
		if m := stateWord.FindStringSubmatch(u.text); m != nil && !stopWords[strings.ToLower(m[1])] {
			return strings.ToLower(m[1])
		}
	}
	exclude := map[string]bool{}
	var text []string
	for _, t := range in.states {
		for _, row := range t.rows {
			for i, c := range row {
				h := strings.ToLower(t.header[i])
				if strings.Contains(h, "state") || strings.Contains(h, "status") {
					for _, w := range keywords(c) {
						exclude[w] = true
					}
				} else {
					text = append(text, c)
				}
			}
		}
	}
	for _, u := range in.units {
		text = append(text, u.text)
	}
	for _, w := range []string{"state", "status", "trigger", "condition", "next", "also", "value", "transition", "track", "independent", "step", "internal", "uppercase", "lowercase", "case", "insensitively", "filter", "stored", "virtual", "alias", "return", "returns", "compare"} {
		exclude[w] = true
	}
	if b.headingWords == nil {
		b.headingWords = wordSet{}
		for _, sec := range b.doc.sections {
			b.headingWords.add(sec.heading)
		}
	}
	headingWords := b.headingWords
	counts := map[string]int{}
	var order []string
	for _, t := range text {
		for _, w := range keywords(t) {
			if exclude[w] || len(w) < 3 {
				continue
			}
			if counts[w] == 0 {
				order = append(order, w)
			}
			counts[w]++
		}
	}
	best, bestScore := "", 0
	for _, w := range order {
		score := counts[w]
		if headingWords[w] {
			score += 2
		}
		if score > bestScore {
			best, bestScore = w, score
		}
	}
	return best
}

// addTableCriteria appends to crit the criterion of each row of tables,
// written by criterion, then the sentence of each unit, skipping repeats, and
// claims the units.
func addTableCriteria(crit *[]string, tables []*table, criterion func(header, row []string) string, units []*unit) {
	n := len(units)
	for _, t := range tables {
		n += len(t.rows)
	}
	sets := newListSets(n)
	for _, t := range tables {
		for _, row := range t.rows {
			sets.add(crit, criterion(t.header, row))
		}
	}
	for _, u := range units {
		sets.add(crit, sentenceCase(u.text))
		u.claimed = true
	}
}

// stateDraft builds the state machine task of a section.
func (b *builder) stateDraft(s *section, units []*unit) {
	entity := b.stateEntity(s)
	title := "Implement state machine and transitions"
	if entity != "" {
		title = "Implement " + entity + " state machine and transitions"
	}
	d := b.newDraft(tickets.TypeTask, originState, title, s)
	d.topic = "states"
	d.conf, d.value = 0.85, 0.75
	what := "the states"
	if entity != "" {
		what = "the " + entity + " states"
	}
	d.lead = "Model " + what + " and allow only the transitions of the spec's state table; every other transition is refused."
	in := b.info[s.index]
	addTableCriteria(&d.crit, in.states, transitionCriterion, units)
	for _, t := range in.states {
		d.weight += len(t.rows) / 2
	}
	d.labels = []string{"state-machine"}
	d.words = newWordSet(entity, "state transition")
	in.drafts = append(in.drafts, d)
}

// transitionCriterion renders a state-table row: "`A` → `B` on T when C".
func transitionCriterion(header, row []string) string {
	get := func(names ...string) string {
		if i := headerIndex(header, names...); i >= 0 && i < len(row) {
			return strings.TrimSpace(row[i])
		}
		return ""
	}
	from := get("state", "from", "status")
	to := get("next", "to state", "target")
	trigger := get("trigger", "event")
	cond := get("condition", "guard")
	also := get("also", "effect", "notes", "action")
	if to == "" || from == "" {
		return ruleRowText(header, row)
	}
	out := from + " → " + to
	if trigger != "" {
		out += " on " + lowerFirst(trigger)
	}
	if cond != "" {
		out += " when " + lowerFirst(cond)
	}
	if also != "" {
		out += "; " + lowerFirst(also)
	}
	return sentenceCase(out)
}

// part is a piece of a section that can stand as its own ticket: a
// captioned table or a labelled list item with substance.
type part struct {
	title string
	units []*unit
	order int
	label string
	item  *itemGroup
	after *part // the part this one waits for, see splitParts
	task  bool  // a rule of the system (a limit, a table), never a story
}

// sectionDrafts builds the drafts of a section of requirements: one per
// captioned table or substantial labelled item when there are several,
// otherwise one for the section.
func (b *builder) sectionDrafts(s *section, units []*unit) {
	in := b.info[s.index]
	parts, used := b.labelledParts(in)
	var rest []*unit
	if len(parts) > 0 {
		for _, u := range units {
			if !used[u] && !u.claimed {
				rest = append(rest, u)
			}
		}
	} else {
		parts = additionParts(units)
		if len(parts) == 0 {
			parts = ruleParagraphParts(units)
		}
		if len(parts) == 0 {
			parts = b.splitParts(s, units)
		}
	}
	if len(parts) < 2 {
		d := b.sectionDraft(s, in.topic, units, "")
		in.drafts = append(in.drafts, d)
		return
	}
	residual := placeUnits(parts, rest)
	b.partDrafts(s, in, parts)
	if len(residual) >= 2 {
		d := b.sectionDraft(s, in.topic, residual, "")
		in.drafts = append(in.drafts, d)
	} else if len(residual) == 1 {
		last := in.drafts[len(in.drafts)-1]
		last.crit = appendUnique(last.crit, sentenceCase(residual[0].text))
	}
}

// labelledParts returns the parts of a section that its captioned tables
// and substantial labelled items make (an item with sub-items and two
// units, with steps, or with three units), in document order, each with
// its units no draft claimed (an item's, none a part before took); and
// the units the parts took.
func (b *builder) labelledParts(in *sectionInfo) ([]*part, map[*unit]bool) {
	var parts []*part
	used := map[*unit]bool{}
	for _, rt := range in.rules {
		if rt.caption == "" || len(rt.units) == 0 {
			continue
		}
		p := &part{title: b.partTitle(in.topic, rt.caption, rt.units), order: rt.order}
		for _, u := range rt.units {
			if !u.claimed {
				p.units = append(p.units, u)
				used[u] = true
			}
		}
		if len(p.units) > 0 {
			parts = append(parts, p)
		}
	}
	for _, ig := range in.items {
		n := 0
		for _, u := range ig.units {
			if !u.claimed && !used[u] {
				n++
			}
		}
		if n == 0 || !(ig.children && n >= 2 || ig.steps || n >= 3) {
			continue
		}
		p := &part{label: ig.label, order: ig.order, item: ig}
		for _, u := range ig.units {
			if !u.claimed && !used[u] {
				p.units = append(p.units, u)
				used[u] = true
			}
		}
		p.title = b.partTitle(in.topic, ig.label, p.units)
		parts = append(parts, p)
	}
	sort.SliceStable(parts, func(i, j int) bool { return parts[i].order < parts[j].order })
	return parts, used
}

// placeUnits adds each of the units no part took to the part whose title
// and units share the most of its words (at least three, and half of
// its own), else to the captioned table above it when they share a word
// (its notes elaborate on it); it returns the units left.
func placeUnits(parts []*part, units []*unit) (residual []*unit) {
	partWords := make([]wordSet, len(parts))
	for i, p := range parts {
		partWords[i] = newWordSet(p.title)
		for _, pu := range p.units {
			partWords[i].add(pu.text)
		}
	}
	for _, u := range units {
		best, bestN := (*part)(nil), 0
		var before *part
		beforeN := 0
		for i, p := range parts {
			n := partWords[i].overlap(u.words)
			if n > bestN {
				best, bestN = p, n
			}
			if p.order < u.order {
				before, beforeN = p, n
			}
		}
		switch {
		case best != nil && bestN >= 3 && bestN*2 >= len(u.words):
			best.units = append(best.units, u)
		case before != nil && before.label == "" && beforeN >= 1:
			// Notes below a captioned table elaborate on that table.
			before.units = append(before.units, u)
		default:
			residual = append(residual, u)
		}
	}
	return residual
}

// partDrafts adds a draft per part to the section's, each after the
// draft of the part it waits for; a part that is a rule of the system
// is a task.
func (b *builder) partDrafts(s *section, in *sectionInfo, parts []*part) {
	draftOf := map[*part]*draft{}
	for _, p := range parts {
		d := b.sectionDraft(s, in.topic, p.units, p.title)
		d.origin = originItem
		if p.task {
			d.kind, d.role = tickets.TypeTask, ""
		}
		d.sequenced = p.item != nil && p.item.sequenced
		d.order = s.index*10000 + p.order%10000
		if on := draftOf[p.after]; on != nil {
			d.deps = append(d.deps, on)
		}
		draftOf[p] = d
		in.drafts = append(in.drafts, d)
	}
}

var (
	addedTo  = regexp.MustCompile(`(?i)^(?:the )?(.{3,80}?) will (?:also )?be (?:added|introduced) to (?:the )?(.{3,80}?)(?:,|\.\s|\.$|;|:|$)`)
	willGain = regexp.MustCompile(`(?i)^(?:the )?(.{3,60}?) will gain (.{3,80}?)(?: which| that|,|\.\s|\.$|;|:|$)`)
)

// additionTitle names the work of a sentence that announces an addition
// ("The two methods will also be added to collections.UserString" gives
// "Add the two methods to collections.UserString"), or "".
func additionTitle(text string) string {
	if !strings.Contains(text, " will ") {
		return "" // both patterns need it; most sentences are not tried
	}
	t := stripCode(text)
	if m := addedTo.FindStringSubmatch(t); m != nil {
		return "Add " + lowerFirst(strings.TrimSpace(m[1])) + " to the " + strings.TrimPrefix(strings.TrimSpace(m[2]), "the ")
	}
	if m := willGain.FindStringSubmatch(t); m != nil {
		return "Add " + strings.TrimSpace(m[2]) + " to the " + lowerFirst(strings.TrimSpace(m[1]))
	}
	return ""
}

// additionParts splits a section of prose into one part per sentence that
// announces an addition, each with the sentences after it (a proposal's
// "str will gain two methods … the same methods will be added to bytes …
// and to UserString" is three pieces of work); none unless there are two.
func additionParts(units []*unit) []*part {
	var parts []*part
	for _, u := range units {
		if u.claimed || u.item != nil || u.table != nil {
			continue
		}
		if t := additionTitle(u.text); t != "" {
			parts = append(parts, &part{title: shorten(t, 14, 100), order: u.order})
		}
		if len(parts) > 0 {
			parts[len(parts)-1].units = append(parts[len(parts)-1].units, u)
		}
	}
	if len(parts) < 2 {
		return nil
	}
	return parts
}

// propertyItem reports whether a list item only states a property of what
// its list defines, a short label and a short value ("Scope: SESSION |
// GLOBAL", "Default value: (system dependent)"): a criterion of the work,
// not work of its own.
func propertyItem(ig *itemGroup) bool {
	if ig.children || ig.label == "" || fieldCount(ig.label) > 3 || ig.reqID != "" || ig.title != "" {
		return false
	}
	_, value, ok := splitLabel(ig.text)
	value = strings.TrimRight(value, ".") // itemText ends every item with a full stop
	return ok && fieldCount(value) <= 4 && !strings.ContainsAny(value, ".;")
}

// predicateOf returns the sentence a list item makes with its caption
// when the item is only a predicate of the caption's subject: "Returns an
// error for `SELECT @@var` queries" under "A removed sysvar:" is "A
// removed sysvar returns an error for …". Any other item is itself.
func predicateOf(caption, item string) string {
	w, _, _ := strings.Cut(item, " ")
	if caption == "" || fieldCount(caption) > 5 || w == "" || w == strings.ToLower(w) {
		return item
	}
	low := strings.ToLower(w)
	if !predicateVerbs[low] && !(strings.HasSuffix(low, "s") && !strings.HasSuffix(low, "ss") && baseVerbs[strings.TrimSuffix(low, "s")]) {
		return item
	}
	return caption + " " + lowerFirst(item)
}

// predicateVerbs open a predicate with no subject ("Is settable via …").
var predicateVerbs = map[string]bool{"is": true, "are": true, "has": true, "can": true, "cannot": true, "must": true, "should": true, "will": true, "does": true, "returns": true}

// ruleParagraphParts returns the parts of a section of prose whose
// paragraphs each open with a rule for a different subject, one part per
// rule with the paragraphs up to the next ("All code that is executed in
// Node.js should use the native `fetch` …", "Frontend plugins and
// packages should prefer …", "Isomorphic packages should have …": an
// ADR's decision for three kinds of code); none unless there are two.
func ruleParagraphParts(units []*unit) []*part {
	var parts []*part
	subjects := map[string]bool{}
	para := 0
	for _, u := range units {
		if u.claimed {
			continue
		}
		if u.para == 0 {
			return nil // a list or table says how the section divides
		}
		if u.para != para {
			para = u.para
			if m := matchIf(strings.Contains(u.text, " should ") || strings.Contains(u.text, " must ") || strings.Contains(u.text, " shall "), paragraphRule, stripCode(u.text)); m != nil && !subjects[strings.ToLower(m[1])] {
				subjects[strings.ToLower(m[1])] = true
				t, _ := imperative(dropParentheticals(u.text))
				if strings.HasPrefix(t, "Implement ") {
					t = ruleTitle(dropParentheticals(stripCode(u.text)))
				}
				parts = append(parts, &part{title: shorten(t, 16, 110), order: u.order, task: true})
			}
		}
		if len(parts) == 0 {
			return nil // the first paragraph states no rule
		}
		parts[len(parts)-1].units = append(parts[len(parts)-1].units, u)
	}
	if len(parts) < 2 {
		return nil
	}
	return parts
}

// ruleTitle names a rule whose subject is too long to lead its title:
// "All code that is executed in Node.js should use the native fetch for
// HTTP data fetching, and …" is "Use the native fetch for HTTP data
// fetching in code that is executed in Node.js".
func ruleTitle(text string) string {
	loc := ruleModal.FindStringIndex(text)
	if loc == nil {
		return "Implement " + lowerFirst(strings.TrimRight(text, "."))
	}
	subject := strings.TrimSpace(text[:loc[0]])
	for _, w := range []string{"All ", "Every ", "Each "} {
		subject = strings.TrimPrefix(subject, w)
	}
	what := strings.TrimRight(text[loc[1]:], ".")
	if i := strings.Index(what, ", "); i > 0 {
		what = what[:i]
	}
	return upperFirst(what) + " in " + lowerFirst(subject)
}

// ruleModal is the modal verb of a rule, with the space around it.
var ruleModal = regexp.MustCompile(` (should|must|shall) `)

// paragraphRule is a sentence that states a rule for its subject: the
// subject is group 1.
var paragraphRule = regexp.MustCompile(`^(?:All |Every |Each )?([A-Z][^,;:]{2,100}?) (?:should|must|shall) (?:prefer to |always |only )?[a-z]{2,}\b`)

// joinUnits joins the texts of units, each after a space.
func joinUnits(units []*unit) string {
	var sb strings.Builder
	for _, u := range units {
		sb.WriteString(" ")
		sb.WriteString(u.text)
	}
	return sb.String()
}

// partTitle names a captioned table or labelled item.
func (b *builder) partTitle(topic, label string, units []*unit) string {
	text := joinUnits(units)
	clean := cleanHeading(label)
	if i := strings.Index(clean, ","); i > 0 {
		clean = clean[:i]
	}
	if clean == "" || clean == "General" {
		if len(units) > 0 {
			t, _ := imperative(units[0].text)
			return shorten(t, 12, 90)
		}
		return "Implement section requirements"
	}
	low := strings.ToLower(clean)
	switch topic {
	case "auth":
		algo := signingAlgorithm(text)
		switch {
		case strings.Contains(low, "flow"):
			return "Implement " + lowerFirst(clean)
		case algo != "" && containsAny(text, "hmac", "signature"):
			return "Sign " + lowerFirst(clean) + " with " + algo
		case strings.Contains(low, "auth"):
			return verbFirst(clean)
		case containsAny(text, "jwt"):
			return "Implement " + clean + " JWT authentication"
		case containsAny(text, "bearer"):
			return "Implement " + clean + " bearer authentication"
		}
	case "errors":
		if strings.Contains(low, "error") || strings.Contains(low, "rejection") || strings.Contains(low, "code") {
			return "Handle " + lowerFirst(clean)
		}
		return "Handle " + lowerFirst(clean) + " errors"
	case "limits":
		return "Enforce " + lowerFirst(clean)
	case "events":
		return "Emit " + lowerFirst(clean)
	}
	t := verbFirst(clean)
	return shorten(t, 12, 90)
}

var algoPattern = regexp.MustCompile(`(?i)\b(HMAC-SHA(?:256|384|512|1)|RS256|RS384|RS512|ES256|ES384|PS256|EdDSA|Ed25519)\b`)

func signingAlgorithm(text string) string {
	if m := algoPattern.FindStringSubmatch(text); m != nil {
		return strings.ToUpper(m[1])
	}
	return ""
}

var headerName = regexp.MustCompile("`(X-[A-Za-z0-9-]+)`")
var callbackToken = regexp.MustCompile("`([a-z_]*(?:callback|webhook)[a-z_]*)`")

// topicTitle names a whole section by its topic, else by its heading
// (see headingTitle).
func (b *builder) topicTitle(s *section, topic string, units []*unit) string {
	if genericTopicTitle[topic] && headingTopic(s.heading) != topic {
		// "## 1. Opt-in" under "# Push notifications" names its work; the
		// topic taken from the parent named every section below it
		// "Implement event notifications", and their tickets were merged
		// into one.
		return b.headingTitle(s, units)
	}
	switch topic {
	case "auth":
		return authTitle(s, joinUnits(units))
	case "errors":
		if containsAny(joinUnits(units), "error.code", "error code", "code") {
			return "Implement error body and error code mapping"
		}
		return "Implement error responses"
	case "limits":
		return limitTitle(s, units)
	case "versioning":
		if len(units) > 0 {
			// The first rule of the section names it better than its
			// heading ("Add Deprecation and Sunset headers to v1 responses").
			t, _ := imperative(dropParentheticals(units[0].text))
			return shorten(t, 12, 90)
		}
		return shorten(verbFirst(s.cleanedHeading()), 12, 100)
	case "events":
		if t := eventsTitle(joinUnits(units)); t != genericEventsTitle || fieldCount(s.cleanedHeading()) == 1 {
			return t
		}
		// "5. Rich Notifications" names its work better than the topic
		// does (it was "Implement event notifications", and merged with
		// the opt-in at the cap).
		return b.headingTitle(s, units)
	case "states":
		if e := b.stateEntity(s); e != "" {
			return "Implement " + e + " state transitions"
		}
		return "Implement state transitions"
	case "testing":
		for _, u := range units {
			if m := testsCoverTitle.FindStringSubmatch(u.text); m != nil {
				// "Unit, integration and E2E tests cover Indexed Job
				// mechanics: pod failures." names the work better than
				// "Set up test plan".
				return shorten("Add "+lowerFirst(m[1])+" for "+m[2], 12, 90)
			}
		}
		return "Set up " + lowerFirst(s.cleanedHeading())
	}
	return namedFields(b.headingTitle(s, units), s)
}

// testsCoverTitle is a criterion of what a test plan's tests cover (see
// walkBlocks): the tests and what they cover.
var testsCoverTitle = regexp.MustCompile(`^(.*?\btests?)\s+(?:cover|covers|exercise|verify)\s+([^:]{3,60}):`)

// namedFields names the fields of "the following API fields" in a title by
// the Go struct fields that s's code defines ("Add the following API
// fields to JobSpec" over `TTLSecondsAfterFinished *int32` is "Add the
// TTLSecondsAfterFinished field to JobSpec"), when it defines one to three.
func namedFields(title string, s *section) string {
	loc := followingFields.FindStringIndex(title)
	if loc == nil {
		return title
	}
	var names []string
	for _, bl := range s.blocks {
		if bl.kind == codeBlock {
			names = append(names, goStructFields(bl.text)...)
		}
	}
	switch {
	case len(names) == 1:
		return title[:loc[0]] + "the " + names[0] + " field" + title[loc[1]:]
	case len(names) >= 2 && len(names) <= 3:
		return title[:loc[0]] + "the " + joinAnd(names) + " fields" + title[loc[1]:]
	}
	return title
}

// followingFields is "the following fields" of a title.
var followingFields = regexp.MustCompile(`(?i)\bthe following (?:new )?(?:api )?fields?\b`)

// labelOnly reports whether text is a short label and a value that says
// nothing is to be done: no verb ("Alpha: default container annotation").
func labelOnly(text string) bool {
	label, value, ok := splitLabel(text)
	return ok && fieldCount(label) <= 3 && fieldCount(value) <= 6 && !hasVerb(value)
}

// orderList reports whether items are three or more orders, each opening
// with a verb ("Define a well known annotation …", "Validate the
// annotation value …"), but for at most one.
func orderList(items []*itemGroup) bool {
	if len(items) < 3 {
		return false
	}
	others := 0
	for _, ig := range items {
		if first := firstField(ig.text); !baseVerbs[strings.ToLower(first)] || first == strings.ToLower(first) {
			others++
		}
	}
	return others <= 1
}

// genericTopicTitle are the topics whose title names the topic, not the
// section: two sections of the topic get the same title (see
// dedupeTitles).
var genericTopicTitle = map[string]bool{"events": true, "states": true, "errors": true}

// authTitle names a section about authentication from its text: the
// request signing, bearer JWT or API key, or OAuth it asks for, else its
// heading.
func authTitle(s *section, text string) string {
	algo := signingAlgorithm(text)
	header := ""
	if m := headerName.FindStringSubmatch(text); m != nil {
		header = m[1] + " "
	}
	switch {
	case algo != "" && containsAny(text, "hmac", "signature", "sign"):
		return "Implement " + header + algo + " request signing"
	case containsAny(text, "jwt") && containsAny(text, "bearer"):
		return "Implement bearer JWT authentication"
	case containsAny(text, "api key", "api_key") && containsAny(text, "bearer"):
		t := "Implement bearer API key authentication"
		if containsAny(text, "scope") {
			t += " and scopes"
		}
		return t
	case containsAny(text, "oauth"):
		return "Implement OAuth authentication"
	}
	return "Implement " + lowerFirst(s.cleanedHeading())
}

// eventsTitle names a section about events from its text: the callbacks
// or webhooks it delivers, or the real-time channel it opens.
func eventsTitle(text string) string {
	if m := callbackToken.FindStringSubmatch(text); m != nil {
		return "Deliver " + m[1] + " notifications"
	}
	if containsAny(text, "webhook") {
		return "Deliver webhook notifications"
	}
	if containsAny(text, "real-time", "realtime", "stream", "websocket", "server-sent") {
		return "Implement real-time event channel"
	}
	return genericEventsTitle
}

// genericEventsTitle names a section about events whose text names no
// channel.
const genericEventsTitle = "Implement event notifications"

// sectionNumber is a heading's leading section number ("1. ", "3.2 ").
var sectionNumber = regexp.MustCompile(`^\d+(\.\d+)*[.)]?\s+`)

// headingTitle names a section of no known topic by its heading, made an
// order; or by its first unit where the heading only says where the work
// is: an entity under "Entities", an endpoint with a description, a
// rollout stage, "General", a thing the first sentence says what it is,
// a generic heading ("Specification"), or a heading that makes only an
// "Implement …".
func (b *builder) headingTitle(s *section, units []*unit) string {
	h := s.cleanedHeading()
	if m := sectionNumber.FindStringIndex(h); m != nil && m[1] < len(h) {
		h = h[m[1]:] // "1. Push Notification Opt-in": the number places it, the title names it
	}
	if s.parent != nil && entityParent.MatchString(s.parent.cleanedHeading()) && fieldCount(h) <= 3 {
		return "Define the " + h + " entity" // "### Todo" under "## Entities"
	}
	if t, ok := endpointDescriptionTitle(h, units); ok {
		return t
	}
	if t, ok := b.stageTitle(s, h, units); ok {
		return t
	}
	if h == "General" {
		if len(units) > 0 {
			t, _ := imperative(units[0].text)
			return shorten(t, 12, 90)
		}
	}
	if t, ok := whatItIsTitle(h, units); ok {
		return t
	}
	if t, ok := b.genericHeadingTitle(h, units); ok {
		return t
	}
	title := verbFirst(h)
	if strings.HasPrefix(title, "Implement ") && len(units) > 0 {
		// "### CronJob API" opening "The .spec for a CronJob is expanded
		// with a new timeZone field …": the requirement names the work,
		// the heading only where it is.
		first := strings.TrimRight(strings.TrimSpace(stripCode(units[0].text)), ".")
		if t := activeVoice(unframed(first)); t != "" {
			return shorten(t, 12, 90)
		}
		if t, ok := componentTitle(h, first); ok {
			return t
		}
		for _, u := range units[1:min(len(units), 5)] {
			// "This proposes that we support "removed system variables"
			// by the sysvar framework" after a sentence of context: the
			// proposal names the work.
			if text := strings.TrimSpace(stripCode(u.text)); unframed(text) != text {
				if t, _ := imperative(text); !strings.HasPrefix(t, "Implement ") {
					return shorten(t, 12, 90)
				}
			}
		}
		if t, ok := statedTitle(h, units[0]); ok {
			return t
		}
	}
	return shorten(title, 12, 100)
}

// statedTitle names a section of a short heading h that only says what the
// work is about ("Pagination", "Rate limits") by the heading and what the
// first sentence of its prose states, as stageTitle does for a rollout
// stage: "List endpoints page with an opaque cursor: …" under "Pagination"
// gives "Pagination: List endpoints page with an opaque cursor", not
// "Implement pagination"; the sentence keeps its case ("Kafka retention …").
// ok is false for a heading of more than three
// words (it names the work well enough behind "Implement") or of code,
// and for a first unit that is not a statement of the work: one not of
// the section's first paragraph (a list item or table row, which the
// section's ticket holds all of, or a sentence after a code block the
// first paragraph introduces), a "Label: value" line,
// a question, a subordinate clause ("Until step 6, …"), a pointer to
// another part of the document, a hedge ("may … if necessary"), fewer
// than three words, or a clause too long for a title (18 words, 120
// characters with the heading); nor for a heading that names a part of
// the document ("User Stories", "Guide-level explanation").
func statedTitle(h string, u *unit) (title string, ok bool) {
	if fieldCount(h) > 3 || strings.ContainsAny(h, "_`()") || u.para != 1 || documentPart.MatchString(h) {
		return "", false
	}
	text := strings.TrimSpace(dropParentheticals(stripCode(u.text)))
	if i := strings.IndexAny(text, ":;"); i > 0 {
		if fieldCount(text[:i]) < 3 {
			return "", false // "Requirement keywords: MUST is …", "Scope: SESSION"
		}
		text = text[:i] // "… an opaque cursor: `?limit=` (1 to 100, …)": the clause before the detail
	}
	text = strings.TrimRight(text, ".!")
	if fieldCount(text) < 3 || strings.HasSuffix(text, "?") || statesNothing.MatchString(text) || hedged.MatchString(text) || storyInText(text) {
		return "", false // a user story is titled by what it wants (see storyImperative)
	}
	if order := unframed(text); order != text && fieldCount(order) <= 15 {
		return order, true // "We will add a TTL controller for finished Jobs": "Add a TTL controller …"
	}
	title = h + ": " + text
	if fits := func(t string) bool { return fieldCount(t) <= 18 && utf8.RuneCountInString(t) <= 120 }; !fits(title) {
		// "… to the bucket, giving point-in-time recovery …": the main
		// clause, when a comma ends it; cut anywhere else, a title would end
		// mid-phrase ("… and can add").
		m := clauseTail.FindStringIndex(text)
		if m == nil || fieldCount(text[:m[0]]) < 4 || !fits(h+": "+text[:m[0]]) {
			return "", false
		}
		title = h + ": " + text[:m[0]]
	}
	return title, true
}

// clauseTail is a comma that ends a sentence's main clause: before a
// participle or a clause of its own ("…, giving …", "…, with …", "…, which
// …"), not inside a list ("non-nil, non-empty value").
var clauseTail = regexp.MustCompile(`, (\w+ing|with|which|so|while|whereas|but|because|since|as|and then|unless|except)\b`)

// hedged is a sentence that says what may or might be, not what will,
// or what is not: "The proposed scheme may support deletion of crates, if
// necessary", "The Pod and PodSpec APIs don't get any new fields".
var hedged = regexp.MustCompile(`(?i)\b(may|might|could|would)\b|\bif (necessary|needed|required|desired)\b|n't\b|\b(not|never|no longer)\b`)

// documentPart is a heading that names a part of a design document, not
// what its work is about: its first sentence is an example or a story
// ("User Stories: The users keep creating Jobs …").
var documentPart = regexp.MustCompile(`(?i)^(user stories|stories|use cases|motivation|background|summary|goals?|non-goals|overview|context|rationale|proposal|guide-level explanation|reference-level explanation|design( details)?|detailed design|prior art|drawbacks|alternatives( considered)?|risks( and mitigations)?|notes|examples?)$`)

// statesNothing opens a sentence that points elsewhere or holds a place
// instead of stating the work.
var statesNothing = regexp.MustCompile(`(?i)^(see|refer|tbd|tbc|todo|n/a|none|note|this (section|document|page|chapter)|the following|below|above|as (described|discussed|mentioned)|there (is|are|were|was)|when|whenever|until|if|unless|while|once|after|before|because|since|whether|how|where|why|[A-Z]+-\d+)\b`)

// componentTitle names a section headed by the one-word name of a
// component ("### Cargo", "### crates.io") by what its first sentence
// says the component will do ("Cargo will stop fetching the current
// user's name …" is "Make Cargo stop fetching the current user's name
// …"); ok is false when the sentence does not open with the heading and a
// modal verb. A heading of more words ("CronJob controller") names the
// work well enough behind "Implement".
func componentTitle(h, first string) (title string, ok bool) {
	if fieldCount(h) != 1 || !strings.HasPrefix(strings.ToLower(first), strings.ToLower(h)+" ") {
		return "", false
	}
	m := matchModal(first)
	if m == nil || !strings.EqualFold(strings.TrimSpace(m[1]), h) || m[3] != "" {
		return "", false
	}
	t, _ := imperative(first)
	if strings.HasPrefix(t, "Implement ") {
		return "", false
	}
	if rest, ok := strings.CutPrefix(t, "Make "+lowerFirst(h)+" "); ok {
		t = "Make " + h + " " + rest // the component keeps its name: "Make Cargo stop …"
	}
	return shorten(t, 12, 90), true
}

// endpointDescriptionTitle names an endpoint's section, heading h ("GET
// /api/todos"), by the description its first unit gives ("**Description:**
// List all todos …"), when that starts with a verb; ok is false otherwise.
func endpointDescriptionTitle(h string, units []*unit) (title string, ok bool) {
	f := strings.Fields(h)
	if len(f) != 2 || !httpMethods[f[0]] || !strings.HasPrefix(f[1], "/") || len(units) == 0 {
		return "", false
	}
	label, rest, found := splitLabel(stripCode(units[0].text))
	if !found || !strings.EqualFold(label, "description") {
		return "", false
	}
	if w := strings.Fields(rest); len(w) > 0 && baseVerb(w[0]) != "" {
		return shorten("Implement "+h+" to "+lowerFirst(strings.TrimRight(rest, ".")), 16, 110), true
	}
	return "", false
}

// stageTitle names a rollout stage's section, heading h: "Alpha" says
// when, its list says what ("Alpha: functionality implemented behind
// feature gate"), else its first unit; ok is false when h is no stage or
// the section says nothing.
func (b *builder) stageTitle(s *section, h string, units []*unit) (title string, ok bool) {
	if m := graduationStage.FindStringSubmatch(h); m != nil && !stageHeading.MatchString(h) {
		if work := b.workName(); work != "" && !bareDocumentID.MatchString(work) {
			// A KEP's "Alpha -> Beta Graduation" lists what the feature
			// needs to reach beta: the work is that promotion ("Implement
			// alpha -> beta graduation" said nothing of what graduates).
			// A bare "Alpha" is titled by what its list says, below.
			switch stage := strings.ToLower(m[1]); stage {
			case "ga", "stable":
				return shorten("Graduate "+work+" to GA", 14, 100), true
			default:
				return shorten("Graduate "+work+" to "+stage, 14, 100), true
			}
		}
	}
	if !stageHeading.MatchString(h) {
		return "", false
	}
	if in := b.info[s.index]; len(in.items) > 0 && in.items[0].label != "" {
		return shorten(h+": "+lowerFirst(in.items[0].label), 14, 100), true
	}
	if len(units) > 0 {
		return shorten(h+": "+lowerFirst(strings.TrimRight(stripCode(units[0].text), ".")), 14, 100), true
	}
	return "", false
}

// whatItIsTitle names a section of a short heading h by what its first
// unit says the thing is ("The widget is an iframe loaded from …" under
// "Widget" gives "Implement the widget iframe"); ok is false when it says
// none.
func whatItIsTitle(h string, units []*unit) (title string, ok bool) {
	if fieldCount(h) > 2 || len(units) == 0 {
		return "", false
	}
	text := stripCode(units[0].text)
	if !mayNameWhat(text, h) {
		return "", false
	}
	re := regexp.MustCompile(`(?i)^(?:the |a |an )?` + regexp.QuoteMeta(h) + `s? (?:is|are) (?:a |an |the )?([\w-]+)`)
	if m := re.FindStringSubmatch(text); m != nil && !stopWords[strings.ToLower(m[1])] && !strings.HasSuffix(strings.ToLower(m[1]), "ed") {
		// "Session enforcement is handled by …" says how, not what it is
		// ("Implement the session enforcement handled").
		return "Implement the " + lowerFirst(h) + " " + m[1], true
	}
	return "", false
}

// genericHeadingTitle names a section whose heading h names the part of a
// document that holds the work ("Specification", "Proposal"), not the
// work: by its first sentence when that is an order ("Add a `as_millis`
// function on `std::time::Duration` …"), else by the spec's title ("Add
// union operators to dict", see workTitle); ok is false when neither
// names it or h is not generic.
func (b *builder) genericHeadingTitle(h string, units []*unit) (title string, ok bool) {
	if !genericWorkHeading.MatchString(h) {
		return "", false
	}
	if len(units) > 0 {
		if text := strings.TrimSpace(stripCode(units[0].text)); unframed(text) != text {
			// "This RFC proposes to make the `package.authors` field
			// optional", "We will gradually transition away from …": what
			// it proposes names the work.
			t, _ := imperative(text)
			if strings.HasPrefix(t, "Implement ") && strings.HasPrefix(strings.ToLower(text), "we will ") {
				t = strings.TrimRight(unframed(text), ".")
			}
			if !strings.HasPrefix(t, "Implement ") {
				return shorten(t, 12, 90), true
			}
		}
		if f := strings.Fields(stripCode(units[0].text)); len(f) > 2 && baseVerb(f[0]) != "" && strings.EqualFold(baseVerb(f[0]), f[0]) {
			return shorten(strings.TrimRight(stripCode(units[0].text), "."), 12, 90), true
		}
	}
	if t := b.workTitle(); t != "" {
		return t, true
	}
	return "", false
}

// genericWorkHeading is a heading that names the part of a document that
// holds the work, not the work.
var genericWorkHeading = regexp.MustCompile(`(?i)^(the )?(specification|proposal|decision outcome|proposed (change|design|solution)|(recommended|suggested) solution|recommendations?|design|detailed design|design details|details|implementation|solution|changes?|reference-level explanation|summary|abstract|overview|consequences|describe (the|your) (ideal |proposed |preferred )?solution( you'?d like| to this problem)?)$`)

// headerTitle is a PEP's or RFC's "Title:" header line, or an issue
// template's front matter "title:" (quoted, behind a "[FEATURE]" tag).
var headerTitle = regexp.MustCompile(`(?m)^[Tt]itle:[ \t]*(\S.*)$`)

// issueTag is the tag an issue template puts before its title.
var issueTag = regexp.MustCompile(`^\[[^\]]{1,20}\]\s*`)

// workTitle names the work of the whole spec: its "Title:" header (PEPs),
// else its workName, as an imperative.
func (b *builder) workTitle() string {
	title := ""
	head := b.req.Spec
	if len(head) > 4096 {
		head = head[:4096]
	}
	if m := headerTitle.FindStringSubmatch(head); m != nil {
		title = issueTag.ReplaceAllString(strings.Trim(strings.TrimSpace(m[1]), `"'`), "")
	}
	if title != "" {
		title = withoutDocumentID(title)
	} else {
		title = b.workName()
	}
	if title == "" {
		return ""
	}
	return shorten(verbFirst(title), 12, 100)
}

// workName is the name of the work the document specifies, its title
// without a document identifier ("Indexed Job" of "KEP-2214: Indexed
// Job"), or "" when it has no title.
func (b *builder) workName() string {
	for _, t := range []string{b.docTitle, b.req.Title} {
		if t = strings.TrimSpace(t); t != "" {
			return withoutDocumentID(strings.TrimSpace(cleanHeading(t)))
		}
	}
	return ""
}

// bareDocumentID is a title that names only the kind of document ("KEP",
// "RFC 2789").
var bareDocumentID = regexp.MustCompile(`(?i)^(?:kep|adr|rfc|pep|gep|prd|design doc(?:ument)?)(?:[- ]?\d+)?$`)

// documentID is the identifier or kind of document that opens its title
// ("KEP-2232: Suspend Jobs", "ADR-0005 — Provider abstraction …",
// "Product Requirements Document: Legal Content Management"): it names the
// document, not the work.
var documentID = regexp.MustCompile(`(?i)^(?:(?:kep|adr|rfc|pep|gep|jep|eip|tip|prd)[- ]?\d+|product requirements document|prd|design doc(?:ument)?|technical design)\s*[:—–-]?\s+`)

// withoutDocumentID is title without the document identifier it opens with,
// or title when nothing would be left.
func withoutDocumentID(title string) string {
	if loc := documentID.FindStringIndex(title); loc != nil && fieldCount(title[loc[1]:]) >= 2 {
		return title[loc[1]:]
	}
	return title
}

// entityParent is a heading whose sub-sections each describe an entity.
var entityParent = regexp.MustCompile(`(?i)^(entities|models|data models?|domain models?|data entities|schemas?)$`)

// stageHeading is a heading that names a stage, not a piece of work.
var stageHeading = regexp.MustCompile(`(?i)^(alpha|beta|ga|mvp|pilot|phase \d+|stage \d+|milestone \d+)$`)

// limitTitle names a limits section by its first bound ("Enforce 100
// requests per minute per user"), or by its heading when no sentence holds
// a number.
func limitTitle(s *section, units []*unit) string {
	for _, u := range units {
		t := strings.TrimSpace(stripCode(u.text))
		label, rest, labelled := splitLabel(t)
		if labelled {
			t = rest
		}
		if !strings.ContainsAny(t, "0123456789") {
			continue
		}
		for _, cut := range []string{";", ", then", " then ", ": "} {
			if i := strings.Index(t, cut); i > 0 {
				t = t[:i]
			}
		}
		if f := strings.Fields(t); labelled && len(f) > 0 && len(f) <= 3 && strings.ContainsAny(f[0][:1], "0123456789") {
			t = strings.TrimRight(t, ".") + " " + lowerFirst(label) // "Tickets per job: 1 to 50" is "1 to 50 tickets per job"
		}
		if f := strings.Fields(t); len(f) >= 2 && len(f) <= 12 {
			return "Enforce " + lowerFirst(strings.TrimRight(t, ".,"))
		}
	}
	return "Enforce " + lowerFirst(s.cleanedHeading())
}

// mayNameWhat is a necessary condition for text to start "The <heading>
// is a …", checked before a regular expression is compiled for it: the
// text starts with the heading (after an article) and holds " is " or
// " are ", compared as (?i) does, by case-folding orbit.
func mayNameWhat(text, heading string) bool {
	t, h := foldKey(text), foldKey(heading)
	if !strings.Contains(t, " IS ") && !strings.Contains(t, " ARE ") {
		return false
	}
	for _, article := range []string{"", "THE ", "A ", "AN "} {
		if strings.HasPrefix(t, article+h) {
			return true
		}
	}
	return false
}

var storyTopics = map[string]bool{"": true, "auth": true, "events": true, "overview": true, "requirements": true, "endpoints": true}

// sectionDraft builds one draft from units of a section.
func (b *builder) sectionDraft(s *section, topic string, units []*unit, title string) *draft {
	var story []string // the "As a …, I want …, so that …" the section opens with
	if title == "" && len(units) > 1 {
		story = storyPattern.FindStringSubmatch(strings.TrimRight(stripCode(units[0].text), "."))
	}
	var role string
	byTopic := false
	switch {
	case story != nil:
		// "As a credit card holder, I want to view my statement balance,
		// so that …" over its criteria: the story is the ticket, what it
		// wants its title.
		title, role = imperative(units[0].text)
		title = closeParenthesis(shorten(title, 12, 90))
	case title == "":
		title = b.topicTitle(s, topic, units)
		byTopic = genericTopicTitle[topic]
	}
	kind := tickets.TypeTask
	var texts []string
	for _, u := range units {
		texts = append(texts, u.text)
		u.claimed = true
	}
	joined := strings.Join(texts, " ")
	if story != nil || storyTopics[topic] && roleIn(joined) != "" && !rolloutSection(s) && graduationOf(s) == "" {
		kind = tickets.TypeStory
	}
	d := b.newDraft(kind, originSection, title, s)
	critUnits := units
	if story != nil {
		d.means, d.ends = strings.TrimSpace(story[2]), strings.TrimSpace(story[3])
		if strings.Contains(strings.ToLower(units[0].text), " to "+strings.ToLower(d.means)) {
			d.means = "to " + d.means // "I want to view …"
		}
		critUnits = units[1:]
	}
	d.topic, d.byTopic = topic, byTopic
	d.importance = priorityValue(headingPriority(s))
	d.conf, d.value = 0.75, 0.6+d.importance
	sets := newListSets(len(critUnits))
	crit := texts
	if story != nil {
		crit = itemCriteria(critUnits)
	}
	for _, t := range crit {
		sets.add(&d.crit, sentenceCase(t))
	}
	if tr, ok := topicTraits[topic]; ok {
		d.value, d.phase, d.labels = tr.value, tr.phase, []string{tr.label}
	}
	if kind == tickets.TypeStory {
		d.role = role
		if role == "" {
			d.role = b.roleFor(joined)
		}
	}
	d.lead = sectionLead(d, s)
	d.words = newWordSet(title)
	return d
}

// topicTraits are what a section's topic gives its ticket: its value, its
// phase (authentication first, the cross-cutting rules last, 2 for the
// rest as for every draft) and its label.
var topicTraits = map[string]struct {
	value float64
	phase int
	label string
}{
	"auth":       {0.8, 1, "security"},
	"errors":     {0.55, 3, "errors"},
	"limits":     {0.5, 3, "limits"},
	"versioning": {0.3, 3, "versioning"},
	"events":     {0.6, 2, "events"},
	"states":     {0.7, 2, "state-machine"},
}

// itemCriteria are the criteria of a story's units: one per sentence,
// except that the sentences of one short list item stay one criterion, as
// the spec wrote them together ("Display total balance. For example
// $3560.").
func itemCriteria(units []*unit) []string {
	out := make([]string, 0, len(units))
	for i, u := range units {
		if i > 0 && u.item != nil && u.item == units[i-1].item && len(u.item.units) <= 3 {
			out[len(out)-1] += " " + u.text
			continue
		}
		out = append(out, u.text)
	}
	return out
}

// sectionLead is the first description sentence of a section draft.
func sectionLead(d *draft, s *section) string {
	where := "the \"" + s.cleanedHeading() + "\" section"
	if len(d.crit) > 0 {
		// The spec's own first sentence, not a sentence written for the
		// topic ("the authentication rules of the … section").
		return "Deliver what " + where + " specifies, starting with: \"" + strings.TrimRight(shorten(d.crit[0], 30, 200), ".") + ".\""
	}
	return "Deliver the behaviour described in " + where + "."
}

// overviewDrafts makes stories of overview bullets that state a capability
// or rule no other ticket covers and that can be named by an action.
func (b *builder) overviewDrafts(s *section, units []*unit) {
	in := b.info[s.index]
	for _, ig := range in.items {
		own := unclaimed(ig.units)
		if len(own) == 0 || fieldCount(ig.text) < 10 {
			continue
		}
		if b.coveredElsewhere(own) {
			for _, u := range own {
				u.claimed = true
			}
			continue
		}
		title := ""
		for _, u := range own {
			if !isRequirement(u.text) && !existsPattern.MatchString(strings.TrimRight(u.text, ".")) {
				continue
			}
			if t, ok := actionTitle(u.text); ok {
				title = shorten(t, 12, 90)
				break
			}
		}
		if title == "" {
			continue
		}
		d := b.sectionDraft(s, "overview", own, title)
		d.origin = originOverview
		d.value, d.conf = 0.35, 0.6
		d.order = s.index*10000 + ig.order%10000
		in.drafts = append(in.drafts, d)
	}
}

// coveredElsewhere reports whether most words of the units already appear
// in drafts built for other sections.
func (b *builder) coveredElsewhere(units []*unit) bool {
	if b.covered == nil {
		b.covered = wordSet{}
	}
	for ; b.coveredN < len(b.drafts); b.coveredN++ {
		d := b.drafts[b.coveredN]
		b.covered.add(d.title)
		for _, c := range d.crit {
			b.covered.add(c)
		}
	}
	all := b.covered
	total, hit := 0, 0
	for _, u := range units {
		total += len(u.words)
		hit += all.overlap(u.words)
	}
	return total > 0 && hit*2 >= total
}

// itemDrafts makes one draft per list item of a requirements section, and
// one for its remaining prose.
func (b *builder) itemDrafts(s *section, units []*unit) {
	in := b.info[s.index]
	used := map[*unit]bool{}
	for _, ig := range in.items {
		if propertyItem(ig) && len(in.items) > 2 {
			continue // "Scope: SESSION | GLOBAL": a property of what the list defines, see below
		}
		var own []*unit
		for _, u := range ig.units {
			if !u.claimed {
				own = append(own, u)
				used[u] = true
			}
		}
		if len(own) == 0 || in.topic == "questions" && (len(own) < len(ig.units) || strings.Contains(ig.text, "?")) {
			// In a list of open questions, the sentences beside a question
			// are its context ("Legal is checking", "Large tenants run
			// several integrations"), not work of their own.
			continue
		}
		d := b.itemDraft(s, ig, own)
		in.drafts = append(in.drafts, d)
	}
	var rest []*unit
	for _, u := range units {
		if !used[u] && !u.claimed {
			rest = append(rest, u)
		}
	}
	if len(rest) > 0 {
		if len(in.drafts) > 0 && len(rest) <= 2 {
			for _, d := range in.drafts {
				for _, u := range rest {
					if labelOnly(u.text) {
						// "Alpha: default container annotation.", "Android:
						// Firebase Cloud Messaging (FCM)": context of the
						// list, no criterion of each of its items.
						d.notes = appendUnique(d.notes, sentenceCase(u.text))
						continue
					}
					d.general = appendUnique(d.general, sentenceCase(u.text))
				}
			}
			return
		}
		in.drafts = append(in.drafts, b.sectionDraft(s, in.topic, rest, ""))
	}
}

// requirementLabel opens a list item that is a requirement of its own:
// an identifier ("FND-1", "WO-12", "NFR-3") with, optionally, its RFC 2119
// or MoSCoW keyword or priority in parentheses ("FND-1 (MUST) Staff sign
// in …"). Groups: the identifier, the keyword, the requirement.
var requirementLabel = regexp.MustCompile(`^\**([A-Z]{2,8}-\d{1,4}[a-z]?)\**\s*(?:\(\s*(MUST|SHOULD|MAY|SHALL|COULD|WON'?T|P[0-4])\s*\)\s*)?[:.\x{2013}\x{2014}-]?\s+(\S.*)$`)

// shortRequirementLabel opens a list item with a short identifier and a
// full stop or colon ("M1. Download the inspections …" under "Must
// have"); groups as requirementLabel's, the keyword always empty.
var shortRequirementLabel = regexp.MustCompile(`^\**([A-Z]{1,2}\d{1,3})\**()[.:]\s+(\S.*)$`)

// matchRequirement matches a list item against requirementLabel, then
// shortRequirementLabel: the identifier, the keyword and the requirement,
// or nil.
func matchRequirement(s string) []string {
	if m := requirementLabel.FindStringSubmatch(s); m != nil {
		return m
	}
	return shortRequirementLabel.FindStringSubmatch(s)
}

// matchRequirementIf is matchRequirement when possible says a section
// lists labelled requirements, nil otherwise.
func matchRequirementIf(possible bool, s string) []string {
	if !possible {
		return nil
	}
	return matchRequirement(s)
}

// rolloutPlace opens a rollout step that names where or to whom the work
// is turned on ("behind the flag", "to 5 % of users").
var rolloutPlace = regexp.MustCompile(`^(behind|to|in|on|at|for|from|via|with)\s`)

// priorityValue is what a requirement's priority keyword adds to the
// value of its draft: what the spec says the release cannot ship without
// keeps its ticket at the cap before what it may ship without.
func priorityValue(keyword string) float64 {
	switch keyword {
	case "MUST", "SHALL", "P0":
		return 0.15
	case "MAY", "COULD", "P2", "P3", "P4", "WON'T", "WONT":
		return -0.15
	}
	return 0
}

// headingPriority is the priority keyword the nearest heading that states
// one gives the work of a section: "MUST" under "Must have" or "Phase 0:
// Foundations (P0)", "COULD" under "Could have", "Nice to have" or "(P2)",
// "" under "Should have", "(P1)" or no such heading.
func headingPriority(s *section) string {
	for ; s != nil && s.parent != nil; s = s.parent {
		if s.priority != "" {
			return priorityKeyword(s.priority)
		}
		switch {
		case mustHeading.MatchString(s.heading):
			return "MUST"
		case couldHeading.MatchString(s.heading):
			return "COULD"
		case shouldHeading.MatchString(s.heading):
			return ""
		}
	}
	return ""
}

var (
	mustHeading   = regexp.MustCompile(`(?i)\b(must[ -]haves?|p0)\b`)
	shouldHeading = regexp.MustCompile(`(?i)\b(should[ -]haves?|p1)\b`)
	couldHeading  = regexp.MustCompile(`(?i)\b(could[ -]haves?|nice[ -]to[ -]haves?|p[2-4])\b`)
)

// labelledRequirements reports whether a section lists its work as
// labelled requirements: two or more items, at least half of them opening
// with a requirement identifier. Each is a ticket of its own, as the
// identifier says it is one requirement.
func labelledRequirements(in *sectionInfo) bool {
	if in.labelled != 0 {
		return in.labelled > 0
	}
	n := 0
	for _, ig := range in.items {
		if len(ig.text) > 3 && (ig.text[0] >= 'A' && ig.text[0] <= 'Z' || ig.text[0] == '*') && matchRequirement(ig.text) != nil {
			n++
		}
	}
	in.labelled = -1
	if n >= 2 && 2*n >= len(in.items) {
		in.labelled = 1
	}
	return in.labelled > 0
}

// closeParenthesis cuts a shortened title before a parenthesis it left
// open ("… identity provider (OpenID Connect against" ends at "provider").
func closeParenthesis(title string) string {
	open := strings.LastIndex(title, "(")
	if open <= 0 || strings.Contains(title[open:], ")") {
		return title
	}
	if cut := strings.TrimSpace(title[:open]); fieldCount(cut) >= 3 {
		return trimTrailing(cut)
	}
	return title
}

// itemDraft builds a story or task from one list item.
func (b *builder) itemDraft(s *section, ig *itemGroup, units []*unit) *draft {
	req, first := b.itemRequirement(s, ig, units[0].text)
	title, role := b.itemTitle(s, ig, units, req, first)
	joined := joinUnits(units)
	for _, u := range units {
		u.claimed = true
	}
	if role == "" {
		role = roleIn(joined)
	}
	d := b.newDraft(b.itemKind(s, req.id, role, joined), originItem, title, s)
	d.sequenced = ig.sequenced
	d.topic = b.info[s.index].topic
	d.conf, d.value = 0.7, 0.65
	d.reqID = req.id
	keyword := req.keyword
	if keyword == "" {
		keyword = headingPriority(s)
	}
	d.importance = priorityValue(keyword)
	d.value += d.importance
	d.role = role
	if d.kind == tickets.TypeStory && d.role == "" {
		d.role = b.docRole
	}
	d.readStory(units[0].text)
	sets := newListSets(len(units))
	for i, u := range units {
		if i == 0 && len(units) > 1 && d.means != "" {
			continue
		}
		sets.add(&d.crit, outcome(u.text))
	}
	d.order = s.index*10000 + ig.order%10000
	if s.parent == nil {
		d.lead = "Deliver this item of the request: " + strings.TrimRight(stripCode(units[0].text), ".") + "."
	} else {
		d.lead = "Deliver this item of the \"" + s.cleanedHeading() + "\" list: " + strings.TrimRight(stripCode(units[0].text), ".") + "."
	}
	d.words = newWordSet(title)
	return d
}

// itemRequirement is what names a list item as a requirement.
type itemRequirement struct {
	// id is the requirement's identifier, the item's own or its table
	// row's; keyword is its priority keyword ("MUST").
	id, keyword string
	// listID is the identifier the item itself opens with.
	listID string
}

// itemRequirement reads the requirement an item of s (its group ig, its
// first sentence first) names, and returns first without its
// identifier: "FND-1 (MUST) Staff sign in …", or "M1. Download …" whose
// sentences left the short identifier out as a sentence of its own, or
// else the group's requirement table row.
func (b *builder) itemRequirement(s *section, ig *itemGroup, first string) (itemRequirement, string) {
	var req itemRequirement
	if m := matchRequirementIf(labelledRequirements(b.info[s.index]), first); m != nil {
		// "FND-1 (MUST) Staff sign in …": the title is the requirement, the
		// identifier follows it so a lead can find it in the spec.
		req.id, req.keyword, first = m[1], m[2], m[3]
	} else if m := matchRequirementIf(labelledRequirements(b.info[s.index]), ig.text); m != nil && strings.HasPrefix(m[3], first) {
		// "M1. Download …": the sentences of the item left the short
		// identifier out as a sentence of its own.
		req.id, req.keyword = m[1], m[2]
	}
	req.listID = req.id // an identifier the item itself opens with
	if req.id == "" && req.keyword == "" {
		req.id, req.keyword = ig.reqID, ig.keyword // a requirement table's row
	}
	return req, first
}

// orderLabel reports whether an item's label is an order: its first word
// a verb in base form and its second no "of"/"to" ("Configure acceptance
// rules", not "Display of …" or "Tickets per job").
func orderLabel(label string) bool {
	f := strings.Fields(cleanHeading(label))
	if len(f) < 2 || len(f) > 5 || !strings.EqualFold(baseVerb(f[0]), f[0]) {
		return false
	}
	second := strings.ToLower(f[1])
	return !stopWords[second] || subjectDeterminers[second]
}

// itemTitle is the title of the item of s made of units (its group ig,
// its requirement req, its first sentence first without identifier),
// with the identifier or label that finds it in the spec, and the role
// its first sentence names.
func (b *builder) itemTitle(s *section, ig *itemGroup, units []*unit, req itemRequirement, first string) (title, role string) {
	title, role = imperative(predicateOf(units[0].caption, first))
	if req.listID == "" && ig.label != "" && fieldCount(ig.label) <= 5 && (len(units) > 1 || orderLabel(ig.label)) {
		// "Configure acceptance rules: who must accept, and when …": a
		// label that is an order names the work; its text was titled
		// "Make who accept, and when enforcement applies".
		title = verbFirst(cleanHeading(ig.label))
	}
	if ig.title != "" && fieldCount(ig.title) <= 8 {
		// "| 1 | Save cart | As a signed-in shopper, I want … |": the
		// table names the requirement.
		title = verbFirst(cleanHeading(ig.title))
	}
	if b.info[s.index].topic == "testing" && req.listID == "" {
		// "Integration test: a pool with a 5-minute job scales down …":
		// a test plan's item says what is tested in its own words.
		title = closeParenthesis(shorten(strings.TrimRight(stripCode(first), "."), 16, 110))
	} else {
		title = closeParenthesis(shorten(title, 12, 90))
	}
	if rest, ok := strings.CutPrefix(title, "Implement "); ok && rolloutSection(s) && rolloutPlace.MatchString(rest) {
		// "Behind the shared_lists remote flag; 5 % of users …" says
		// how to roll out, not what to implement.
		title = "Roll out " + rest
	}
	if req.listID != "" {
		title += " (" + req.listID + ")"
	} else if b.info[s.index].topic != "testing" && ig.label != "" && len(units) == 1 && fieldCount(ig.label) <= 4 && !strings.Contains(strings.ToLower(title), strings.ToLower(ig.label)) {
		// "Embedded widget: respect the theme parameter" names where.
		title += " (" + ig.label + ")"
	} else if req.id != "" {
		title += " (" + req.id + ")"
	}
	return title, role
}

// itemKind is the ticket type of an item of s whose text is joined: a
// story when it names a role or a user's need (outside a rollout), a bug
// when it reports a defect and has no requirement identifier (reqID),
// else a task.
func (b *builder) itemKind(s *section, reqID, role, joined string) string {
	kind := tickets.TypeTask
	if (role != "" || b.userFacing(s, joined)) && !rolloutSection(s) {
		// A rollout step ("5 % of users for one week") is the team's
		// work, however many users it names.
		kind = tickets.TypeStory
	}
	if reqID == "" && isBugText(joined) {
		// A numbered requirement says what to build, whatever its words
		// ("must pass a virus scan"); only an unnumbered item can report
		// a defect.
		kind = tickets.TypeBug
	}
	return kind
}

// readStory sets d's means and ends from text when it is a user story
// ("As a …, I want <means> so that <ends>").
func (d *draft) readStory(text string) {
	if m := storyPattern.FindStringSubmatch(strings.TrimRight(stripCode(text), ".")); m != nil {
		d.means = strings.TrimSpace(m[2])
		d.ends = strings.TrimSpace(m[3])
		if strings.Contains(strings.ToLower(text), " to "+strings.ToLower(d.means)) {
			d.means = "to " + d.means // "I want to see my habits", not "I want see my habits"
		}
	}
}

var (
	// userCue marks a requirement someone sees or does in the product.
	userCue = regexp.MustCompile(`(?i)\b(i|me|my|user|users|member|members|owner|customer|customers|inspector|admin|admins|they|button|screen|page|menu|badge|shows?|see|sees|warn|notif\w*|email|download|upload|invite|tap|click|select|choose|assign\w*|ticking|ticked)\b`)
	// systemCue marks a requirement of the system itself: a quality to
	// hold or a piece of infrastructure.
	systemCue     = regexp.MustCompile(`(?i)\b(encrypt\w*|p9\d|latency|under \d+\s*(ms|s|seconds|milliseconds)|throughput|index|migrat\w*|schema|database|config\w*|feature flag|pipeline|ci|terraform|replica|backup\w*|log(s|ging)?|metric\w*)\b`)
	nonFunctional = regexp.MustCompile(`(?i)non[- ]functional|quality attributes|performance|security`)
)

// userFacing reports whether a requirement of a requirements list is one a
// user sees or does (a story), not a quality of the system (a task).
func (b *builder) userFacing(s *section, text string) bool {
	if in := b.info[s.index]; in.topic != "requirements" && !labelledRequirements(in) {
		return false
	}
	for c := s; c != nil && c.parent != nil; c = c.parent {
		if nonFunctional.MatchString(c.heading) {
			return false
		}
	}
	return userCue.MatchString(text) && !systemCue.MatchString(text)
}

var bugWords = regexp.MustCompile(`(?i)\b(bug|crash(es|ed|ing)?|regression|broken|fails?|failing|exception|stack ?trace|error message|500 error|doesn't work|does not work|not working)\b`)

// bugHints are words of which every match of bugWords holds one, in
// foldKey form: a text without any of them is not run through bugWords.
var crashFree = regexp.MustCompile(`(?i)\bcrash[- ]free\b`)

var bugHints = []string{"BUG", "CRASH", "REGRESSION", "BROKEN", "FAIL", "EXCEPTION", "STACK", "ERROR MESSAGE", "500 ERROR", "N'T WORK", "NOT WORK"}

func isBugText(s string) bool {
	folded := foldKey(s)
	if strings.Contains(folded, "CRASH-FREE") || strings.Contains(folded, "CRASH FREE") {
		// "if the crash-free rate holds" watches a rate; it reports no
		// crash.
		s = crashFree.ReplaceAllString(s, "")
		folded = foldKey(s)
	}
	hinted := false
	for _, h := range bugHints {
		if strings.Contains(folded, h) {
			hinted = true
			break
		}
	}
	return hinted && bugWords.MatchString(s) && !strings.Contains(strings.ToLower(s), "error code")
}

// buildPlain handles text without headings: list items become their own
// tickets, and prose becomes one story for the whole request.
func (b *builder) buildPlain(s *section, units []*unit) {
	in := b.info[s.index]
	var prose []*unit
	listed := 0
	for _, u := range units {
		if u.item != nil {
			listed++
		} else if u.table == nil {
			prose = append(prose, u)
		}
	}
	if listed > 0 && len(in.items) >= 2 {
		b.buildPlainList(s, units, prose)
		return
	}
	var rest, asks []*unit
	for _, u := range units {
		if !u.claimed {
			rest = append(rest, u)
			if askWords.MatchString(u.text) {
				asks = append(asks, u)
			}
		}
	}
	if len(asks) >= 3 {
		b.buildAsks(s, asks)
		return
	}
	if len(rest) > 0 {
		in.drafts = append(in.drafts, b.requestDraft(s, rest))
	}
}

// buildPlainList drafts a text without headings that lists its work:
// a ticket per list item, one for the units of its tables, and one for
// its prose (above the list) when that states two requirements or more;
// other prose is context.
func (b *builder) buildPlainList(s *section, units, prose []*unit) {
	in := b.info[s.index]
	for _, ig := range in.items {
		if own := unclaimed(ig.units); len(own) > 0 {
			in.drafts = append(in.drafts, b.itemDraft(s, ig, own))
		}
	}
	var tableUnits []*unit
	for _, u := range units {
		if u.table != nil && !u.claimed {
			tableUnits = append(tableUnits, u)
		}
	}
	if len(tableUnits) > 0 {
		in.drafts = append(in.drafts, b.sectionDraft(s, "", tableUnits, ""))
	}
	// Prose above a list is context, unless it states requirements.
	var reqs []*unit
	for _, u := range prose {
		if isRequirement(u.text) {
			reqs = append(reqs, u)
		}
	}
	if len(reqs) >= 2 {
		in.drafts = append(in.drafts, b.requestDraft(s, reqs))
	}
}

// buildAsks drafts a paragraph that asks for several things: each ask
// is a ticket, the sentences around them are its context. An ask for a
// page that lists events depends on a task to record them (recordTitle);
// one that refers back to a thing ("download it as CSV") depends on the
// last ask that named what it builds.
func (b *builder) buildAsks(s *section, asks []*unit) {
	in := b.info[s.index]
	var thing *draft // the last ask that names what it builds
	for _, u := range asks {
		for _, text := range splitAsk(u.text) {
			var record *draft
			if title := recordTitle(text); title != "" {
				record = b.plainDraft(s, u.order, text)
				record.title, record.kind, record.role = title, tickets.TypeTask, ""
				record.words = newWordSet(title)
			}
			d := b.plainDraft(s, u.order, text)
			pronoun := (strings.Contains(text, " it") || strings.Contains(text, " them")) && pronounObject.MatchString(text)
			switch {
			case record != nil:
				d.deps = append(d.deps, record)
			case thing != nil && pronoun:
				d.deps = append(d.deps, thing) // "download it as CSV": it is the page asked for before
			}
			if !pronoun {
				thing = d
			}
			in.drafts = append(in.drafts, d)
		}
		u.claimed = true
	}
}

// wishPrefix is the way a request opens a wish ("We'd like an audit log
// page"): the thing wished for is the work.
var wishPrefix = regexp.MustCompile(`(?i)^(we'?d like|we would like|we want)( to have)?\s+`)

// splitAsk splits an ask that joins two actions under one modal ("Admins
// should be able to filter it by date, and download it as CSV") into one
// sentence per action, each with the subject and modal; it drops a
// leading "We'd like".
func splitAsk(text string) []string {
	text = strings.TrimSpace(text)
	if m := wishPrefix.FindString(text); m != "" {
		text = "Add " + text[len(m):]
	}
	first, second, ok := strings.Cut(text, ", and ")
	if !ok {
		return []string{text}
	}
	m := matchModal(first)
	if m == nil || hasVerb(m[1]) || fieldCount(second) < 3 || baseVerb(strings.Fields(second)[0]) == "" {
		return []string{text}
	}
	lead := strings.TrimSpace(m[1] + " " + m[2] + " " + m[4])
	return []string{first + ".", lead + " " + second}
}

// askWords mark a sentence of prose that asks for something to be built.
var askWords = regexp.MustCompile(`(?i)\b(must|shall|should|needs? to|we'?d like|we would like|we want|has to|have to|(is|are) required to)\b`)

var requirementWords = regexp.MustCompile(`(?i)\b(must|shall|should|need(s)? to|needs?|required?|requires|has to|have to|will|can|may|could|never|always|only|want|allow|support|ensure|reject|return|include|display|show|send|store|export|import)\b`)

func isRequirement(s string) bool { return requirementWords.MatchString(s) }

// requestDraft builds the main story of a prose request.
func (b *builder) requestDraft(s *section, units []*unit) *draft {
	var texts []string
	for _, u := range units {
		texts = append(texts, u.text)
		u.claimed = true
	}
	joined := strings.Join(texts, " ")
	title := ""
	first3 := strings.Fields(stripCode(texts[0]))
	switch {
	case len(texts) == 1 && len(first3) > 0 && len(first3) <= 12 && baseVerb(first3[0]) != "" && strings.EqualFold(baseVerb(first3[0]), first3[0]):
		// A one-line imperative request is its own best title.
		title = strings.TrimRight(stripCode(texts[0]), ".!")
	case strings.TrimSpace(b.req.Title) != "" && fieldCount(b.req.Title) <= 12:
		title = verbFirst(stripCode(strings.TrimSpace(b.req.Title)))
	default:
		t, _ := imperative(texts[0])
		title = t
	}
	title = shorten(title, 12, 100)
	kind := tickets.TypeStory
	if isBugText(joined) {
		kind = tickets.TypeBug
	}
	d := b.newDraft(kind, originRequest, title, s)
	d.topic = "request"
	d.conf, d.value = 0.6, 0.9
	d.role = b.roleFor(joined)
	means, ends := meansAndEnds(texts[0])
	d.means, d.ends = means, ends
	if r := roleFromEnds(ends); r != "" {
		d.role = r
	}
	first := 0
	if len(texts) > 1 && (means != "" || !isRequirement(texts[0]) || strings.HasPrefix(strings.ToLower(texts[0]), "we need")) {
		first = 1
		d.context = append(d.context, texts[0])
	}
	sets := newListSets(len(texts))
	for _, t := range texts[first:] {
		for _, c := range splitClauses(t) {
			sets.add(&d.crit, outcome(c))
		}
	}
	if len(d.crit) == 0 {
		d.crit = append(d.crit, sentenceCase(texts[0]))
	}
	if len(d.crit) < 2 {
		d.crit = append(d.crit, "Automated tests cover the behaviour described in the request.")
	}
	d.lead = "Deliver the request as written: " + shorten(stripCode(texts[0]), 40, 300) + "."
	d.words = newWordSet(title, joined)
	return d
}

var (
	needPattern   = regexp.MustCompile(`(?i)^(?:we|i|they|users?|customers?|the team|[a-z]+ team)\s+(?:need|needs|want|wants|would like|require|requires)\s+(?:to\s+)?(.+?)(?:\s+so(?: that)?\s+(.+))?$`)
	soThatPattern = regexp.MustCompile(`(?i)^(.+?),?\s+so(?: that)?\s+(.+)$`)
)

var endsRole = regexp.MustCompile(`(?i)^(?:the |our |a |an )?([a-z][a-z -]{1,30}?) (?:can|could|will|may|is able to|are able to)\b`)

var clauseJoin = regexp.MustCompile(`(?i),? and (it|they|this|the \w+) (must|should|shall|will|can|may) `)

// splitClauses splits "X must a, and it must b" into two requirements, so
// each criterion checks one thing.
func splitClauses(s string) []string {
	s = strings.TrimSpace(s)
	loc := clauseJoin.FindStringSubmatchIndex(s)
	if loc == nil {
		return []string{s}
	}
	first := strings.TrimSpace(s[:loc[0]])
	subject := s[loc[2]:loc[3]]
	if strings.EqualFold(subject, "it") || strings.EqualFold(subject, "they") || strings.EqualFold(subject, "this") {
		if f := strings.Fields(first); len(f) > 2 {
			if m := matchModal(first); m != nil {
				subject = m[1]
			}
		}
	}
	second := upperFirst(subject) + " " + s[loc[4]:]
	if fieldCount(first) < 4 || fieldCount(second) < 4 {
		return []string{s}
	}
	return []string{first + ".", second}
}

// roleFromEnds finds the beneficiary of "so the finance team can …".
func roleFromEnds(ends string) string {
	if m := endsRole.FindStringSubmatch(strings.TrimSpace(ends)); m != nil && fieldCount(m[1]) <= 3 && !actorWords[strings.ToLower(m[1])] {
		return strings.ToLower(m[1])
	}
	return ""
}

// outcome is the criterion of a list item or sentence: the spec's own
// words. ("Support for iOS and Android" became "For iOS and Android works
// end to end", and "Generate TOTP codes according to RFC 6238" gained "as
// described, checked by an automated test".)
func outcome(text string) string {
	return sentenceCase(strings.TrimSpace(strings.TrimRight(text, ".")))
}

// meansAndEnds splits a need statement into what is wanted and why.
func meansAndEnds(s string) (means, ends string) {
	s = strings.TrimRight(stripCode(strings.TrimSpace(s)), ".")
	if m := needPattern.FindStringSubmatch(s); m != nil {
		return m[1], m[2]
	}
	if m := soThatPattern.FindStringSubmatch(s); m != nil && fieldCount(m[2]) >= 3 {
		return "", m[2]
	}
	return "", ""
}
