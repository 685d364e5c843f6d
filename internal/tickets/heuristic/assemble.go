package heuristic

import (
	"math"
	"regexp"
	"slices"
	"sort"
	"strings"
	"unicode/utf8"

	"github.com/foresight-dev/foresight/internal/tickets"
)

// This file numbers the fitted drafts and renders them, with the risks and
// open questions, into a tickets.result.v1 document.

// slot is one ticket of the result in output order.
type slot struct {
	d    *draft // nil for an epic
	epic *group
	id   string
}

// assemble renders the result.
func (b *builder) assemble() *tickets.Result {
	b.titleStatements()
	b.storiesWithoutWant()
	slots := b.layout()
	idOf := map[*draft]string{}
	epicID := map[*group]string{}
	pos := map[string]int{}
	for i := range slots {
		slots[i].id = "SPEC-" + itoa(i+1)
		pos[slots[i].id] = i
		if slots[i].d != nil {
			idOf[slots[i].d] = slots[i].id
		} else {
			epicID[slots[i].epic] = slots[i].id
		}
	}
	ref := func(d *draft) string {
		if r := resolve(d); r != nil {
			return idOf[r]
		}
		return ""
	}
	questions := b.renderQuestions(ref)
	qids := map[*question]string{}
	for i, q := range b.liveQuestions() {
		qids[q] = questions[i].ID
	}
	res := &tickets.Result{
		SchemaVersion: tickets.ResultSchemaVersion,
		JobID:         b.req.JobID,
		Source:        tickets.Source{Title: b.sourceTitle(), Summary: b.summary()},
		Tickets:       make([]tickets.Ticket, 0, len(slots)),
		OpenQuestions: questions,
	}
	for i, sl := range slots {
		var t tickets.Ticket
		if sl.d == nil {
			t = b.renderEpic(sl.epic, slots)
			if id := b.epicBefore(sl.epic, epicID); id != "" {
				t.Dependencies = []string{id} // "Phase 2" waits for "Phase 1"
			}
		} else {
			b.m.tick(1 + len(sl.d.crit) + len(sl.d.general) + len(sl.d.also))
			t = b.renderDraft(sl.d, qids)
			if id, ok := epicID[sl.d.grp]; ok {
				t.ParentExternalID = &id
			}
			t.Dependencies = b.dependencies(sl.d, i, ref, pos, slots)
			if b.opts.OutputDetail == tickets.DetailDetailed && len(t.Dependencies) > 0 {
				t.Description = strings.Replace(t.Description, "\n\nSource: ", "\n\nDepends on: "+strings.Join(t.Dependencies, ", ")+".\n\nSource: ", 1)
			}
		}
		t.ExternalID = sl.id
		res.Tickets = append(res.Tickets, t)
	}
	b.uniqueTitles(res.Tickets, slots)
	res.OpenQuestions = append(res.OpenQuestions, b.vagueQuestions(res.Tickets, len(res.OpenQuestions))...)
	res.Risks = b.risks(res.Tickets, slots)
	finish := "stop"
	res.Generation = tickets.Generation{Model: ModelName, FinishReason: &finish}
	return res
}

// epicBefore is the id of the epic that the epic of g waits for: the
// epic of the phase or the foundations before g's (phaseDependencies),
// when both are epics of a major section; "" otherwise.
func (b *builder) epicBefore(g *group, epicID map[*group]string) string {
	before := b.sectionAfter[g.sec]
	if before == nil {
		return ""
	}
	for other, id := range epicID {
		if other.sec == before {
			return id
		}
	}
	return ""
}

// vagueQuestions asks what a vague criterion quoted from the spec means
// ("fast", "user-friendly", "TBD"): the words stay in the ticket, and the
// question names the ticket. n is the number of questions before them.
func (b *builder) vagueQuestions(ts []tickets.Ticket, n int) []tickets.OpenQuestion {
	var out []tickets.OpenQuestion
	seen := map[string]bool{}
	for _, t := range ts {
		for _, c := range t.AcceptanceCriteria {
			b.m.tick(1)
			low := strings.ToLower(c)
			if countLower(low, vagueHints...) == 0 {
				continue
			}
			word := vague.FindString(c)
			if word == "" || seen[foldKey(c)] || word != strings.ToUpper(word) && strings.ContainsAny(prose(c), "0123456789") {
				// A number makes a vague word testable: "Fast code
				// generation (<1s)"; a TBD stays open whatever its numbers.
				continue
			}
			if explainingVague.MatchString(c) {
				// "The Pod name takes the form …, which can be used for
				// quickly identifying Pods": the word explains a use, it
				// asks nothing (readers of two KEPs and a design found
				// such questions noise).
				continue
			}
			seen[foldKey(c)] = true
			q := "What does \"" + word + "\" mean, in terms a test can check, in \"" + strings.TrimRight(c, ".") + "\"?"
			out = append(out, tickets.OpenQuestion{ID: "Q-" + itoa(n+len(out)+1), Question: q, RelatedTicketIDs: []string{t.ExternalID}})
		}
	}
	return out
}

// explainingVague is a vague word in a clause that says what something
// allows, not what it must do: "which quickly allows an admin to query",
// "can be used for quickly identifying Pods".
var explainingVague = regexp.MustCompile(`(?i)\b(?:which|that|so that|used (?:for|to)|can be used (?:for|to)|allows?(?: \w+)? to)\s+(?:\w+\s+){0,2}(?:quickly|fast|easily|easy)\b`)

// uniqueTitles makes every title unique: a repeated title gets the name of
// its section, then a part number.
func (b *builder) uniqueTitles(ts []tickets.Ticket, slots []slot) {
	used := map[string]bool{}
	for i := range ts {
		title := ts[i].Title
		if used[strings.ToLower(title)] {
			var sec *section
			if slots[i].d != nil {
				sec = slots[i].d.sec
			} else {
				sec = slots[i].epic.sec
			}
			if sec != nil && sec.parent != nil && sec.parent.parent != nil {
				title = b.finalTitle(truncateRunes(title, 80) + " for " + sec.parent.cleanedHeading())
			}
			for n := 2; used[strings.ToLower(title)]; n++ {
				suffix := " part " + itoa(n)
				title = b.finalTitle(truncateRunes(ts[i].Title, 120-runeLen(suffix)) + suffix)
			}
			ts[i].Title = title
		}
		used[strings.ToLower(title)] = true
	}
}

// layout lays the live drafts out: groups in spec order, each epic before
// its children, children in spec order.
func (b *builder) layout() []slot {
	epics := map[*group]bool{}
	for _, g := range b.epicGroups() {
		epics[g] = true
	}
	live := b.live()
	var out []slot
	groups := append([]*group{}, b.groups...)
	sort.SliceStable(groups, func(i, j int) bool { return groups[i].order < groups[j].order })
	placed := map[*draft]bool{}
	for _, g := range groups {
		first := true
		for _, d := range live {
			if d.grp != g {
				continue
			}
			if first && epics[g] {
				out = append(out, slot{epic: g})
			}
			first = false
			out = append(out, slot{d: d})
			placed[d] = true
		}
	}
	for _, d := range live {
		if !placed[d] {
			out = append(out, slot{d: d})
		}
	}
	return out
}

// dependencies lists the ids a ticket depends on: only earlier tickets, so
// the graph has no cycles.
func (b *builder) dependencies(d *draft, at int, ref func(*draft) string, pos map[string]int, slots []slot) []string {
	var cands []string
	for _, dep := range d.deps {
		cands = append(cands, ref(dep))
	}
	for _, c := range d.covers {
		cands = append(cands, ref(c))
	}
	if d.origin != originSpike {
		// Work in a section waits for the decisions of that section.
		for _, sl := range slots[:at] {
			if sl.d != nil && sl.d.origin == originSpike && sl.d.sec == d.sec && d.sec != nil {
				cands = append(cands, sl.id)
			}
		}
	}
	if prev := b.previousInList(d, at, slots); prev != "" {
		cands = append(cands, prev)
	}
	seen := map[string]bool{}
	var out []string
	for _, c := range cands {
		if c == "" || seen[c] {
			continue
		}
		p, ok := pos[c]
		if !ok || p >= at {
			continue
		}
		seen[c] = true
		out = append(out, c)
	}
	sort.Slice(out, func(i, j int) bool { return pos[out[i]] < pos[out[j]] })
	if len(out) > 6 {
		out = out[:6]
	}
	if out == nil {
		out = []string{}
	}
	return out
}

// previousInList is the ticket of the item listed just before d in its
// section, which d follows when the spec writes its list in order: a
// plan's steps, a rollout's stages ("Requires step 2", "after step 4";
// see listedInOrder). It is "" for a draft that is no list item, for the
// first item of a list and for work the spec lists in no order (a
// bulleted list of requirements, rules of separate paragraphs).
func (b *builder) previousInList(d *draft, at int, slots []slot) string {
	if d.origin != originItem || d.sec == nil || !d.sequenced {
		return ""
	}
	for i := at - 1; i >= 0; i-- {
		b.m.tick(1)
		p := slots[i].d
		if p == nil || p.sec != d.sec {
			continue
		}
		if p.origin == originItem {
			return slots[i].id
		}
	}
	return ""
}

// criteriaCap is the number of acceptance criteria per detail level.
func (b *builder) criteriaCap() int {
	switch b.opts.OutputDetail {
	case tickets.DetailCompact:
		return 3
	case tickets.DetailDetailed:
		return 8
	}
	return 6
}

var vague = regexp.MustCompile(`\b(TBD|TBC|TODO|FIXME)|(?i)\b(user-friendly|user friendly|as appropriate|and so on|not shown)|\b(fast|quickly|easy to use|intuitive)\b`)
var vagueHints = []string{"tbd", "tbc", "todo", "fixme", "friendly", "appropriate", "so on", "fast", "quickly", "easy", "intuitive", "not shown"}

var etcWord = regexp.MustCompile(`(?i),?\s*\betc\b\.?`)

// generatedPrefixes start the criteria the engine writes itself; these are
// kept and cleaned when they quote a vague word, while vague sentences of
// the spec are dropped.
var generatedPrefixes = []string{"A written decision answers", "The scope of", "Delivered:", "Done:", "Nothing in", "Following the steps", "The reported", "An automated", "Automated tests", "The behaviour described", "All "}

var vagueToken = regexp.MustCompile(`\b(TBD|TBC|TODO|FIXME)|(?i)\b(user-friendly|user friendly|etc\b\.?|fast|quickly)\b`)

// sanitize removes vague words from a criterion the engine wrote.
func sanitize(c string) string {
	c = vagueToken.ReplaceAllString(c, "")
	return collapseSpaces(c)
}

// cleanCriteria drops vague criteria and fixes their form.
func cleanCriteria(list []string) []string {
	var out []string
	sets := newListSets(len(list))
	for _, c := range list {
		generated := false
		for _, p := range generatedPrefixes {
			if strings.HasPrefix(c, p) {
				generated = true
			}
		}
		if generated && vagueToken.MatchString(c) {
			c = sanitize(c)
		}
		low := strings.ToLower(c)
		if strings.Contains(low, "etc") {
			c = etcWord.ReplaceAllString(c, "")
		}
		c = strings.TrimSpace(c)
		if c == "" {
			continue
		}
		// The spec's own words stay as written ("may not" is no "can
		// not"); a vague criterion is kept and asked about (vagueQuestions).
		sets.add(&out, sentenceCase(c))
	}
	return out
}

// maxCriteria is the most acceptance criteria a ticket may have (the
// API's bound): a section that states more checks than its detail level's
// number gets up to this many before any are joined.
const maxCriteria = 8

// fit fits checks into at most n criteria, joining, while there are too
// many, the two neighbours whose joined text is shortest: every check
// stays a criterion, and the joined ones are the shortest that could be.
// It decides on lengths and joins the texts once; past fitGreedyMost checks
// (a list of thousands of bullets) it joins even runs of neighbours, as the
// greedy would take time in the square of their number.
func fit(checks []string, n int) []string {
	if len(checks) <= n {
		return checks
	}
	if len(checks) > fitGreedyMost {
		return joinRuns(checks, n)
	}
	type run struct{ from, to, length int } // checks[from:to], their runes
	runs := make([]run, len(checks))
	for i, c := range checks {
		runs[i] = run{i, i + 1, utf8.RuneCountInString(c)}
	}
	for len(runs) > n {
		best := 0
		for i := 1; i+1 < len(runs); i++ {
			if runs[i].length+runs[i+1].length < runs[best].length+runs[best+1].length {
				best = i
			}
		}
		runs[best] = run{runs[best].from, runs[best+1].to, runs[best].length + 1 + runs[best+1].length}
		runs = slices.Delete(runs, best+1, best+2)
	}
	out := make([]string, len(runs))
	for i, r := range runs {
		out[i] = strings.Join(checks[r.from:r.to], " ")
	}
	return out
}

// fitGreedyMost is the most checks fit joins by the greedy.
const fitGreedyMost = 64

// joinRuns joins list into n runs of neighbours as even as can be.
func joinRuns(list []string, n int) []string {
	out := make([]string, 0, n)
	per, extra := len(list)/n, len(list)%n
	for i, k := 0, 0; k < n; k++ {
		size := per
		if k < extra {
			size++
		}
		out = append(out, strings.Join(list[i:i+size], " "))
		i += size
	}
	return out
}

// draftCriteria is what a tester reads of a draft's sentences: the
// acceptance criteria, and the sentences that check nothing (context),
// which go to the description.
type draftCriteria struct {
	criteria, context []string
}

// criteria selects and shapes a draft's acceptance criteria: its own
// checks first, then the checks of its section's text above it while
// there is room. Compact keeps the first checks only; standard and
// detailed keep every check, up to maxCriteria when there are more than
// the level's number, and join the shortest neighbours beyond that. An
// outside reader preferred every check of the spec among the criteria,
// some joined, to checks moved into the description.
func (b *builder) criteria(d *draft) draftCriteria {
	limit := b.criteriaCap()
	crit, why := b.splitChecks(cleanCriteria(d.crit))
	general, whyAll := b.splitChecks(cleanCriteria(d.general))
	dc := draftCriteria{context: append(why, whyAll...)}
	if b.opts.OutputDetail == tickets.DetailCompact {
		dc.criteria = crit[:min(len(crit), limit)]
	} else {
		dc.criteria = fit(crit, max(limit, min(len(crit), maxCriteria)))
	}
	for _, g := range general {
		if len(dc.criteria) >= limit {
			break
		}
		dc.criteria = appendUnique(dc.criteria, g)
	}
	if len(dc.criteria) == 0 {
		if stage := graduationOf(d.sec); stage != "" && len(dc.context) > 0 {
			// "Implemented feedback from alpha testers" is a gate others
			// meet; the promotion is checked against it.
			dc.criteria = append(dc.criteria, "The spec's criteria for "+stage+" are met (see the context from the spec).")
		} else {
			dc.criteria = append(dc.criteria, sanitize("The behaviour described in "+b.sourceRef(d)+" is implemented and covered by an automated test."))
		}
	}
	return dc
}

// splitChecks separates from a draft's sentences those a tester would not
// check of its work (its context) from the checks. The context goes to
// the ticket's description (see description), so that nothing of the spec
// is lost. Context is:
//   - rationale: why the work is done ("This allows Jobs to be cleaned up
//     …", "Because Job controller depends on Pods …"), what was considered
//     ("We have considered …"), today's state ("Currently, …"), a pointer
//     ("See Rationale below"), an example ("For instance, …"); not one
//     whose later clause is a rule ("Because …, these variables should be
//     removed …", "It is common …; therefore, … is only allowed …"), nor a
//     decision or a note ("We decided not to block deletion on owners",
//     "Note that … it does not remove the condition");
//   - a hedge or a plan: what might happen or could be done later ("The
//     Pod might not be immediately replaced", "could be extended to …",
//     "as future work", "We will evaluate …", "may support deletion of
//     crates, if necessary");
//   - what nobody here builds: a guarantee not given ("We do not offer
//     guarantees on creation order"), what the users' application must do
//     ("The application needs to handle restarts"), what is out of scope;
//   - a use case's actors and trigger ("Trigger: Admin sets a future
//     effective date"), and an outcome that names a benefit, not a result
//     ("Outcome: Regionalized compliance").
//
// An outside reader labelled these kinds in the criteria of eight public
// specs (docs/tickets-quality.md). Each sentence is read once for all the
// drafts that hold it (a section's text above its sub-sections is a
// sentence of each of their drafts).
func (b *builder) splitChecks(sentences []string) (checks, context []string) {
	if b.contextOf == nil {
		b.contextOf = map[string]bool{}
	}
	for _, s := range sentences {
		c, ok := b.contextOf[s]
		if !ok {
			c = isContext(s)
			b.contextOf[s] = c
		}
		if c {
			context = append(context, s)
		} else {
			checks = append(checks, s)
		}
	}
	return checks, context
}

// contextWords are the words one of which hedge, plan and notOurs each
// need; a sentence with none of them skips their regular expressions
// (holdsContextWord).
var contextWords = []string{"might", "could", "extended", "future", "chances", "desirable", "would be", "possible", "we will", "we would", "we may", "we might", "we plan", "we intend", "if necessary", "if needed", "if desired", "guarantee", "need to", "needs to", "has to", "have to", "scope", "complaints", "examples of", "confident"}

// holdsContextWord reports whether s holds one of contextWords, in any
// case.
func holdsContextWord(s string) bool {
	low := strings.ToLower(s)
	for _, w := range contextWords {
		if strings.Contains(low, w) {
			return true
		}
	}
	return false
}

// planned reports whether s says what could be done later or is still
// to be decided (plan), a value that lies in the future aside.
func planned(s string) bool {
	if strings.Contains(s, " in the future") {
		s = futureValue.ReplaceAllString(s, "")
	}
	return plan.MatchString(s)
}

// firstClause is s up to its first comma, semicolon or dash.
func firstClause(s string) string {
	if i := strings.IndexAny(s, ",;\u2014"); i >= 0 {
		return s[:i]
	}
	return s
}

// isContext reports whether sentence s is context, not a check (see
// splitChecks).
func isContext(s string) bool {
	switch {
	case rationaleOpener.MatchString(s):
		return !ruleAfterReason.MatchString(s)
	case flowContext.MatchString(s):
		return true
	case holdsContextWord(s) && (hedge.MatchString(firstClause(s)) && !couldBeWhat.MatchString(s) || planned(s) || notOurs.MatchString(s)):
		return true
	case flowOutcome.MatchString(s):
		return !hasVerb(flowOutcome.ReplaceAllString(s, ""))
	}
	return false
}

var (
	// ruleAfterReason is a rule after a sentence's opening reason:
	// "Because the sysvar system supports …, these variables should be
	// removed …" is a requirement with its reason.
	ruleAfterReason = regexp.MustCompile(`[,;][^,;]*\b(?:should|must|shall|will|need to|needs to|has to|have to|therefore)\b`)

	// rationaleOpener opens a sentence that explains the work: its reason,
	// its history or today's state, an aside, an example.
	rationaleOpener = regexp.MustCompile(`^(?:This (?:allows|lets|enables|makes|means|is because|is why|is to|way|can be used|could be used)|That is,|I\.e\.,|These (?:allow|let|enable|make|mean)|Because\b|Since\b|As a result\b|In practice\b|Currently\b|Today,|Historically\b|We (?:have |had )?(?:considered|looked at|discussed|originally)|It is common\b|It's common\b|See (?:the )?(?:[A-Z]\w+ )*(?:below|above|section)|The (?:reason|motivation|rationale|prior art)\b|For (?:instance|example),|E\.g\.,|\(.*\)\.?$)`)

	// hedge is a main clause that says what might happen or could be
	// done ("The Pod might not be immediately replaced, as …"); a hedge
	// after a rule ("… is settable per session, but some experiments might
	// only be global") leaves the rule a check.
	hedge = regexp.MustCompile(`(?i)\bmight\b|\bcould (?:be|also|then|later)\b`)

	// futureValue is a value that lies in the future ("The session's
	// `expiresAt` timestamp is in the future"): a check, not a plan.
	futureValue = regexp.MustCompile(`(?i)\b(?:is|are|be|was|were) in the future\b`)

	// couldBeWhat is "could be" that says what a value may be ("This
	// could be a string meaning a crates.io dependency or a table"), no
	// hedge.
	couldBeWhat = regexp.MustCompile(`(?i)\bcould be (?:a|an|one|any|either)\b`)

	// plan is a sentence that says what could be done later or what is
	// still to be decided.
	plan = regexp.MustCompile(`(?i)\bcan be extended\b|\bin the future\b|\bfuture work\b|\bchances are\b|\bis desirable\b|^It would be\b|^It(?:'s| is) possible\b|^We (?:will|would|may|might|could|plan to|intend to) (?:evaluate|consider|explore|investigate|revisit|look into)\b|\bmay\b[^.]*\bif (?:necessary|needed|desired)\b`)

	// notOurs is a sentence about what the team does not build: a
	// guarantee not given, the users' application's duty, what is out of
	// scope, a graduation gate that others meet (adoption, time without
	// complaints, the authors' confidence).
	notOurs = regexp.MustCompile(`(?i)\bwithout (?:any )?complaints\b|\b\d+ examples? of\b[^.]*\busing\b|\bwe(?:'re| are) confident\b|\b(?:no|not offer|not provide|not give|don't offer|doesn't offer|doesn't provide|don't provide) guarantees?\b|\bnot guaranteed\b|^(?:The |Your |Their )?(?:user's )?(?:application|app|workload)s? (?:needs?|has|have) to\b|\b(?:not (?:required |included )?in (?:this )?scope|out of scope)\b`)

	// flowContext is a use case's actors or trigger: who takes part and
	// what starts it, which a tester sets up, not checks.
	flowContext = regexp.MustCompile(`^(?:Actors?|Triggers?|Preconditions?):`)

	// flowOutcome is the label of a use case's outcome; the outcome is a
	// check when it states a result ("New version becomes current"), not
	// when it names a benefit ("Regionalized compliance").
	flowOutcome = regexp.MustCompile(`^(?:Outcome|Postconditions?):\s*`)
)

// sourceRef names where a draft came from.
func (b *builder) sourceRef(d *draft) string {
	if d.sec == nil || d.sec.parent == nil {
		return "the request"
	}
	return "\"" + b.sectionName(d.sec) + "\""
}

// sectionName is the heading path of a section without the spec's title.
func (b *builder) sectionName(s *section) string {
	p := cleanPath(s)
	if len(p) > 1 && b.docTitle != "" && p[0] == cleanHeading(b.docTitle) {
		p = p[1:]
	}
	return strings.Join(p, " > ")
}

func cleanPath(s *section) []string {
	var out []string
	for c := s; c != nil && c.parent != nil; c = c.parent {
		out = append(out, c.cleanedHeading())
	}
	slices.Reverse(out)
	return out
}

// draftSource is metadata.source of a draft: where in the spec it comes
// from, as the heading path of its section and the 1-based first and last
// lines of the text it was drafted from (its section's own text, widened to
// the sections of the drafts merged into it), so a reader can check it
// against the spec.
func (b *builder) draftSource(d *draft) map[string]any {
	s := d.sec
	if s == nil {
		s = b.doc.root
	}
	first, last := s.first, s.last
	for _, p := range d.parts {
		if p.sec != nil && p.sec != s {
			first, last = min(first, p.sec.first), max(last, p.sec.last)
		}
	}
	return sourceOf(s, first, last)
}

// sourceOf is a metadata.source value: a heading path and a line span.
func sourceOf(s *section, first, last int) map[string]any {
	path := s.path()
	if path == nil {
		path = []string{}
	}
	return map[string]any{"heading_path": path, "first_line": first, "last_line": max(first, last)}
}

// component is the metadata.component of a draft: its section.
func (b *builder) component(d *draft) string {
	if d.sec == nil || d.sec.parent == nil {
		if b.docTitle != "" {
			return cleanHeading(b.docTitle)
		}
		return "General"
	}
	return b.sectionName(d.sec)
}

// graduationStage is a stage of a KEP's graduation criteria, m[1] the stage
// its work ships in: "Alpha", "Beta" of "Alpha -> Beta", "GA" of "Beta ->
// GA".
var graduationStage = regexp.MustCompile(`(?i)^(?:(?:alpha|beta)\s*(?:->|→|to)\s*)?(alpha|beta|ga|stable)(?: graduation)?$`)

var milestones = map[int]string{1: "M1 foundations", 2: "M2 core delivery", 3: "M3 hardening"}

// milestone is the suggested milestone of work in section s: the
// graduation stage of a KEP that holds it ("Beta" of "Alpha -> Beta"), the phase
// of the spec that holds it ("Phase 2: Preventive maintenance", "Phase 0:
// Foundations (P0)"), which says the phases' order where no dependency
// does (see phaseDependencies); else the milestone of its estimated phase
// (1 to 3).
func (b *builder) milestone(s *section, phase int) string {
	if stage := graduationOf(s); stage != "" {
		return stage
	}
	if s != nil {
		if m := b.major(s); m != nil {
			h := strings.TrimSpace(headingNumber.ReplaceAllString(m.cleanedHeading(), ""))
			if phaseHeading.MatchString(h) || foundationsHeading.MatchString(h) {
				return h
			}
		}
	}
	return milestones[max(1, min(3, phase))]
}

// graduationOf is the stage of a KEP's graduation criteria that section s
// lies in, the stage its work ships in ("Beta" of "Alpha -> Beta"), or "".
func graduationOf(s *section) string {
	for c := s; c != nil && c.parent != nil; c = c.parent {
		if m := graduationStage.FindStringSubmatch(c.cleanedHeading()); m != nil {
			return strings.ToUpper(m[1][:1]) + m[1][1:]
		}
	}
	return ""
}

// renderDraft turns a draft into a ticket (ids are set by the caller).
func (b *builder) renderDraft(d *draft, qids map[*question]string) tickets.Ticket {
	dc := b.criteria(d)
	t := tickets.Ticket{
		TicketType:         d.kind,
		Title:              b.finalTitle(d.title),
		Description:        b.description(d, dc, qids),
		AcceptanceCriteria: dc.criteria,
		Labels:             b.labels(d),
		Dependencies:       []string{},
		Metadata: map[string]any{
			"component":           b.component(d),
			"confidence":          b.confidence(d),
			"suggested_milestone": b.milestone(d.sec, d.phase),
			"source":              b.draftSource(d),
		},
	}
	sp := b.storyPoints(d)
	t.StoryPoints = &sp
	if p := b.priority(d); p != "" {
		t.Priority = &p
	}
	return t
}

// finalTitle enforces the title rules: 1 to 120 runes, no trailing
// punctuation.
func (b *builder) finalTitle(title string) string {
	title = collapseSpaces(title)
	title = truncateRunes(title, 120)
	title = strings.TrimRight(title, ".,;:!? ")
	if title == "" {
		title = "Untitled ticket"
	}
	return upperFirst(title)
}

// description writes the ticket description for the detail level.
func (b *builder) description(d *draft, dc draftCriteria, qids map[*question]string) string {
	var parts []string
	if d.kind == tickets.TypeStory {
		parts = append(parts, b.storySentence(d))
	}
	lead := d.lead
	if lead == "" {
		lead = "Deliver \"" + d.title + "\"."
	}
	parts = append(parts, lead)
	detail := b.opts.OutputDetail
	if detail != tickets.DetailCompact {
		parts = append(parts, d.notes...)
		if len(dc.context) > 0 {
			parts = append(parts, "Context from the spec: "+strings.Join(dc.context, " "))
		}
		if len(d.also) > 0 {
			parts = append(parts, "Also covers: "+strings.Join(d.also, "; ")+".")
		}
		if detail == tickets.DetailDetailed {
			if d.ep != nil {
				var cells []string
				for i, h := range d.ep.header {
					if v := strings.TrimSpace(d.ep.row[i]); v != "" {
						cells = append(cells, h+": "+v)
					}
				}
				parts = append(parts, "Spec table row: "+strings.Join(cells, "; ")+".")
			}
			for i, c := range d.context {
				if i >= 3 {
					break
				}
				parts = append(parts, "Spec: \""+strings.TrimRight(c, " ")+"\"")
			}
			if sum := b.sectionSummary(d.sec); sum != "" && d.sec != nil && d.sec.parent != nil && !strings.Contains(strings.Join(append(append([]string{}, d.crit...), d.general...), " "), strings.TrimSuffix(sum, ".")) {
				parts = append(parts, "Section context: "+sum)
			}
		}
		var qs []string
		for _, q := range b.relatedQuestions(d) {
			if id := qids[q]; id != "" {
				qs = append(qs, id)
			}
		}
		if len(qs) > 0 {
			parts = append(parts, "Open questions: "+strings.Join(qs, ", ")+".")
		}
	}
	parts = append(parts, "Source: "+b.sourceRef(d)+".")
	sep := "\n\n"
	if detail == tickets.DetailCompact {
		sep = " "
	}
	return strings.Join(parts, sep)
}

// titleStatements titles a draft whose requirement is written as a
// statement of how things will be, titled "Implement <statement>" by the
// build ("Implement all members see edits within 5 seconds"), "Ensure
// <statement>" instead. It runs once the drafts are fitted to the ticket
// count, whose merges weigh the words of titles: the verb a title is given
// does not choose which drafts keep a ticket.
func (b *builder) titleStatements() {
	for _, d := range b.drafts {
		b.m.tick(1)
		if rest, ok := strings.CutPrefix(d.title, "Implement "); ok {
			if _, _, ok := statedRequirement(rest); ok {
				d.title = "Ensure " + rest
			}
		}
	}
}

// storiesWithoutWant makes a task of a story that says nobody's want: no
// "I want …" of the spec, and a title that gives none, whose sentence
// would be "As a user, I want the pod detail to work as specified". A
// reader of a KEP found such "stories" to be controller tasks.
func (b *builder) storiesWithoutWant() {
	for _, d := range b.drafts {
		if d.kind != tickets.TypeStory || d.means != "" || !d.alive {
			continue
		}
		role := d.role
		if role == "" {
			role = b.docRole
		}
		if want, _ := storyWant(d, role); strings.HasSuffix(want, " to work as specified") {
			d.kind = tickets.TypeTask
		}
	}
}

// storySentence is the "As a …, I want …, so that …" line of a story.
func (b *builder) storySentence(d *draft) string {
	role := d.role
	if role == "" {
		role = b.docRole
	}
	means, ofOthers := d.means, false
	if means == "" {
		means, ofOthers = storyWant(d, role)
	} else if !strings.HasPrefix(strings.ToLower(means), "to ") {
		if f := strings.Fields(means); len(f) > 0 && baseVerb(f[0]) != "" {
			means = "to " + means
		}
	}
	if !ofOthers { // "technicians to see their work orders" speaks of others
		means = strings.ReplaceAll(" "+means+" ", " their ", " my ")
		means = strings.ReplaceAll(means, " them ", " me ")
	}
	means = strings.TrimSpace(means)
	who := article(role) + " " + role
	if strings.HasSuffix(role, " team") || role == "team" {
		who = "a member of the " + role
	}
	s := "As " + who + ", I want " + strings.TrimRight(means, ". ")
	ends := d.ends
	if ends == "" {
		ends = topicEnds[d.topic]
	}
	if ends != "" {
		s += ", so that " + strings.TrimRight(ends, ". ")
	}
	return s + "."
}

// storyWant is what a story's persona, role, wants when the spec wrote no
// "I want …": read from the draft's title, as an infinitive ("to list all
// todos") or an object and its infinitive ("all members to see edits"),
// with ofOthers true when it speaks of people other than the persona.
func storyWant(d *draft, role string) (want string, ofOthers bool) {
	title := d.title
	if rest, ok := strings.CutPrefix(title, "Ensure "); ok {
		if subject, infinitive, ok := statedRequirement(rest); ok {
			return lowerFirst(subject) + " " + infinitive, true // "I want all members to see edits …"
		}
	}
	if h, ok := d.statedHeading(); ok {
		// "Counting: The gateway counts requests …" wants no "I want to
		// counting: …".
		return "the " + strings.TrimPrefix(lowerFirst(h), "the ") + " to work as specified", false
	}
	fields := strings.Fields(title)
	if len(fields) < 2 {
		return "to " + lowerFirst(title), false
	}
	verb, rest := strings.ToLower(fields[0]), strings.Join(fields[1:], " ")
	switch {
	case verb == "implement" && strings.Contains(rest, " to "):
		// "Implement GET /api/todos to list all todos …": what the user
		// wants is the purpose, not the endpoint "to work as specified".
		_, purpose, _ := strings.Cut(rest, " to ")
		if f := strings.Fields(purpose); len(f) > 1 && baseVerb(f[0]) == strings.ToLower(f[0]) {
			return "to " + purpose, false
		}
	case verb == "make":
		// "Make the supervisor's board show every open work order": "I
		// want the supervisor's board to show …".
		for i := 2; i < len(fields) && i <= 6; i++ {
			if w := strings.ToLower(fields[i]); baseVerb(w) == w || presentVerb(w) == w {
				return lowerFirst(strings.Join(fields[1:i], " ")) + " to " + strings.Join(fields[i:], " "), true
			}
		}
	case verb == "allow":
		// "Allow a list owner to invite …" of an owner: "I want to invite …";
		// of someone else: "I want admins to be able to …".
		if subject, action, ok := strings.Cut(rest, " to "); ok && fieldCount(subject) <= 4 {
			if role != "" && containsWord(strings.TrimSuffix(subject, "s"), strings.TrimSuffix(role, "s")) {
				return "to " + action, false
			}
			return lowerFirst(subject) + " to be able to " + action, true
		}
	}
	if label, after, ok := strings.Cut(title, ": "); ok && fieldCount(label) <= 4 {
		// "Worker agent: receive a drain request …": "I want to receive …"
		if f := strings.Fields(after); len(f) > 1 && baseVerb(f[0]) == strings.ToLower(f[0]) {
			return "to " + lowerFirst(after), false
		}
	}
	if _, after, ok := strings.Cut(title, " and "); ok && baseVerb(strings.SplitN(after, " ", 2)[0]) != "" {
		return "to " + lowerFirst(title), false // "Implement counting and enforce a limit …"
	}
	if verb == "implement" || verb == "support" {
		if article := strings.ToLower(fields[1]); article == "a" || article == "an" {
			return rest, false // "I want a manual "Sync now" button in the menu (S1)"
		}
		return "the " + strings.TrimPrefix(lowerFirst(rest), "the ") + " to work as specified", false
	}
	return "to " + lowerFirst(title), false
}

var topicEnds = map[string]string{
	"events":   "I learn about changes without polling",
	"request":  "",
	"overview": "",
}

// relatedQuestions returns the open questions of a draft: its own (for a
// spike) and those of its section.
func (b *builder) relatedQuestions(d *draft) []*question {
	var out []*question
	seen := map[*question]bool{}
	for _, q := range d.qs {
		if !seen[q] {
			seen[q] = true
			out = append(out, q)
		}
	}
	if d.origin == originSpike {
		return out
	}
	for _, q := range b.questions {
		if seen[q] || d.sec == nil || q.sec != d.sec {
			continue
		}
		seen[q] = true
		out = append(out, q)
	}
	return out
}

// labels builds the label list of a draft.
func (b *builder) labels(d *draft) []string {
	var out []string
	if d.sec != nil && d.sec.parent != nil {
		if l := kebab(d.sec.cleanedHeading()); l != "" {
			out = append(out, l)
		}
	}
	topicLabels := map[string]string{"endpoints": "api", "states": "state-machine", "auth": "security", "errors": "errors", "limits": "limits", "events": "events", "versioning": "versioning", "commands": "cli", "spike": "spike", "bug": "bug"}
	if l := topicLabels[d.topic]; l != "" {
		out = appendUnique(out, l)
	}
	for _, l := range d.labels {
		out = appendUnique(out, kebab(l))
	}
	if moneySignal(d) > 1 {
		out = appendUnique(out, "payments")
	}
	if securitySignal(d) > 1 {
		out = appendUnique(out, "security")
	}
	var clean []string
	for _, l := range out {
		if l != "" && runeLen(l) <= 40 {
			clean = appendUnique(clean, l)
		}
	}
	if len(clean) > 5 {
		clean = clean[:5]
	}
	if len(clean) == 0 {
		clean = []string{"general"}
	}
	return clean
}

// storyPoints estimates size on the 1, 2, 3, 5, 8, 13 scale.
func (b *builder) storyPoints(d *draft) int {
	if d.origin == originSpike {
		switch {
		case len(d.qs) <= 1:
			return 2
		case len(d.qs) <= 3:
			return 3
		}
		return 5
	}
	size := len(d.crit) + len(d.general)/3 + d.weight
	if moneySignal(d) > 1 {
		size += 2
	}
	if securitySignal(d) > 1 {
		size++
	}
	if d.ep != nil && !d.ep.inbound {
		size++
	}
	if d.kind == tickets.TypeBug {
		size = max(size, 3)
	}
	switch {
	case size <= 1:
		return 1
	case size <= 3:
		return 2
	case size <= 5:
		return 3
	case size <= 8:
		return 5
	case size <= 12:
		return 8
	}
	return 13
}

// confidence rates how directly the spec supports a draft.
func (b *builder) confidence(d *draft) float64 {
	c := d.conf
	c -= 0.03 * float64(min(len(b.relatedQuestions(d)), 4))
	if len(d.parts) > 2 {
		c -= 0.05
	}
	return boundedConfidence(c)
}

// boundedConfidence holds c within [0.1, 0.95], since the heuristic never
// calls a draft certain or baseless, and rounds it as every engine reports
// a confidence.
func boundedConfidence(c float64) float64 {
	return tickets.RoundConfidence(math.Max(0.1, math.Min(0.95, c)))
}

var (
	shouldWords = regexp.MustCompile(`(?i)\b(should|recommended)\b`)
	mayWords    = regexp.MustCompile(`(?i)\b(may|could|optional|nice to have)\b`)
)

// priority derives a priority from requirement words and risk signals.
func (b *builder) priority(d *draft) string {
	if d.prio == "" {
		d.prio = b.computePriority(d)
	}
	return d.prio
}

func (b *builder) computePriority(d *draft) string {
	text := d.lower()
	level := 2
	switch d.origin {
	case originSpike:
		level = 1
		for _, q := range d.qs {
			if q.block >= 2 || b.shape == shapeQuestions {
				level = 2
			}
		}
		return levelName(level)
	case originFollowUp, originDocs:
		return levelName(1)
	case originTest:
		return levelName(2)
	case originOverview:
		level = 1
	}
	switch d.topic {
	case "versioning":
		level = 1
	case "auth":
		level = 3
	}
	if d.ep != nil && d.ep.method != "" && d.ep.method != "GET" {
		level = max(level, 3)
	}
	musts := 0
	for w := range strings.FieldsSeq(text) {
		switch strings.Trim(w, ".,;:()\"'") {
		case "must", "shall", "required", "never", "always", "only", "mandatory":
			musts++
		}
	}
	switch {
	case musts >= 2:
		level = max(level, 3)
	case musts == 0 && d.origin == originItem && mayWords.MatchString(text) && !shouldWords.MatchString(text):
		level = min(level, 1)
	}
	switch {
	case d.importance > 0:
		// "Must have", "(P0)", "FND-1 (MUST)": the spec's own priority.
		level = max(level, 3)
	case d.importance < 0:
		level = min(level, 1)
	}
	money, security := moneySignal(d), securitySignal(d)
	if money > 1 || security > 1 || containsAny(text, "critical") {
		level++
	}
	if level >= 4 && !(money > 2 && containsAny(text, "twice", "second time", "double", "never lost", "stake twice") || containsAny(text, "critical", "data loss", "outage")) {
		level = 3
	}
	if d.kind == tickets.TypeBug {
		level = max(level, 2)
		if containsAny(b.lowerSpec, "crash", "data loss", "security", "payment", "outage", "production") {
			level = max(level, 3)
		}
	}
	return levelName(min(level, 4))
}

func levelName(l int) string {
	switch l {
	case 1:
		return tickets.PriorityLow
	case 2:
		return tickets.PriorityMedium
	case 3:
		return tickets.PriorityHigh
	}
	return tickets.PriorityCritical
}

var (
	moneyTerms    = []string{"money", "payout", "stake", "balance", "debit", "credit", "wallet", "payment", "refund", "withdrawal", "deposit", "currency", "invoice", "price", "billing", "charge", "amount"}
	securityTerms = []string{"signature", "hmac", "secret", "token", "jwt", "bearer", "api key", "authenticat", "authoris", "authoriz", "private key", "ssrf", "localhost", "https only", "password", "credential", "encrypt", "jwks"}
)

// moneySignal and securitySignal count the money and the security terms
// in the draft's lower(), once.
func moneySignal(d *draft) int    { return d.countSignals().money }
func securitySignal(d *draft) int { return d.countSignals().security }

type draftSignals struct{ money, security int }

func (d *draft) countSignals() *draftSignals {
	if d.signals == nil {
		ix := d.lowerIndex()
		d.signals = &draftSignals{money: ix.count(moneyTerms...), security: ix.count(securityTerms...)}
	}
	return d.signals
}

// renderEpic renders the epic of group g, whose tickets are the drafts of
// slots that belong to it.
func (b *builder) renderEpic(g *group, slots []slot) tickets.Ticket {
	var children []*draft
	for _, sl := range slots {
		if sl.d != nil && sl.d.grp == g {
			children = append(children, sl.d)
		}
	}
	crit := b.epicCriteria(children)
	prio := b.epicPriority(children)
	desc := b.epicDescription(g, len(children))
	label := "general"
	if g.sec != nil {
		label = kebab(g.sec.cleanedHeading())
	}
	if label == "" {
		label = "general"
	}
	phase, conf := b.earliestPhaseAndMeanConfidence(children)
	comp := b.mainTitle()
	if g.sec != nil {
		comp = b.sectionName(g.sec)
	}
	return tickets.Ticket{
		TicketType:         tickets.TypeEpic,
		Title:              b.finalTitle(g.title),
		Description:        desc,
		AcceptanceCriteria: crit,
		Labels:             []string{label, "epic"},
		Dependencies:       []string{},
		Priority:           &prio,
		Metadata: map[string]any{
			"component":           comp,
			"confidence":          boundedConfidence(conf),
			"suggested_milestone": b.milestone(g.sec, phase),
			"source":              b.groupSource(g),
		},
	}
}

// epicCriteria are the acceptance criteria of an epic: each piece of work
// among its children (not a spike) is delivered, named by its title; when
// they are more than the criteria, the last criterion names the rest. That
// nothing of its part of the spec is left out is the epic's scope, which
// its description states; a reader took "All 5 child tickets are done"
// and "Nothing in … is left without a ticket" for tracking, not checks.
func (b *builder) epicCriteria(children []*draft) []string {
	var work []*draft
	for _, c := range children {
		if c.origin != originSpike {
			work = append(work, c)
		}
	}
	var crit []string
	limit := b.criteriaCap()
	for i, c := range work {
		if len(work) > limit && i == limit-1 {
			var rest []string
			for _, r := range work[i:] {
				rest = append(rest, b.finalTitle(r.title))
			}
			also := "Also delivered: " + strings.Join(rest, "; ") + "."
			if utf8.RuneCountInString(also) > maxAlsoDelivered {
				also = "Also delivered: the other " + itoa(len(rest)) + " child tickets."
			}
			crit = append(crit, also)
			break
		}
		crit = append(crit, "Delivered: "+b.finalTitle(c.title)+".")
	}
	if len(crit) == 0 {
		crit = append(crit, "All "+itoa(len(children))+" child tickets are done and their acceptance criteria pass.")
	}
	return cleanCriteria(crit)
}

// maxAlsoDelivered is the length in runes up to which an epic's last
// criterion names the children the others leave out.
const maxAlsoDelivered = 200

// epicPriority is the priority of an epic: its most urgent child's, low
// at least.
func (b *builder) epicPriority(children []*draft) string {
	level := 1
	for _, c := range children {
		switch b.priority(c) {
		case tickets.PriorityMedium:
			level = max(level, 2)
		case tickets.PriorityHigh:
			level = max(level, 3)
		case tickets.PriorityCritical:
			level = max(level, 4)
		}
	}
	return levelName(level)
}

// epicDescription is the description of the epic of g: the part of the
// spec it covers and, but for compact output, that part's summary and
// how many child tickets (childCount) it has.
func (b *builder) epicDescription(g *group, childCount int) string {
	desc := "Epic for " + b.groupRef(g) + " of the spec"
	if g.sec == nil {
		desc = "Epic for the whole request"
	}
	if s := b.sectionSummary(g.sec); s != "" && b.opts.OutputDetail != tickets.DetailCompact {
		desc += ". " + s
	} else {
		desc += "."
	}
	if b.opts.OutputDetail != tickets.DetailCompact {
		desc += "\n\nChild tickets: " + itoa(childCount) + "."
	}
	return desc
}

// earliestPhaseAndMeanConfidence are the earliest phase of children (3
// at most) and their mean confidence (0 for none).
func (b *builder) earliestPhaseAndMeanConfidence(children []*draft) (phase int, conf float64) {
	phase = 3
	for _, c := range children {
		phase = min(phase, c.phase)
		conf += b.confidence(c)
	}
	if len(children) > 0 {
		conf /= float64(len(children))
	}
	return phase, conf
}

// groupSource is metadata.source of an epic: its section with everything
// under it.
func (b *builder) groupSource(g *group) map[string]any {
	s := g.sec
	if s == nil {
		s = b.doc.root
		return sourceOf(s, s.first, s.end)
	}
	return sourceOf(s, s.first, s.end)
}

func (b *builder) groupRef(g *group) string {
	if g.sec == nil {
		return "the request"
	}
	return "the \"" + g.sec.cleanedHeading() + "\" section"
}

// sectionSummary is the first sentence of a section or its first child.
func (b *builder) sectionSummary(s *section) string {
	if s == nil {
		return ""
	}
	for _, c := range append([]*section{s}, s.children...) {
		for _, bl := range c.blocks {
			var text string
			switch bl.kind {
			case paragraphBlock:
				text = bl.text
			case listBlock:
				if len(bl.items) > 0 {
					text = bl.items[0].text
				}
			}
			for _, sent := range splitSentences(text) {
				if strings.HasSuffix(sent, ":") || hasMarker(sent) || fieldCount(sent) < 4 {
					continue
				}
				return shorten(sent, 45, 300) + "."
			}
		}
	}
	return ""
}

// liveQuestions are the open questions in output order.
func (b *builder) liveQuestions() []*question {
	out := append([]*question{}, b.questions...)
	sort.SliceStable(out, func(i, j int) bool { return out[i].order < out[j].order })
	return out
}

// renderQuestions renders the open questions with their related tickets.
func (b *builder) renderQuestions(ref func(*draft) string) []tickets.OpenQuestion {
	out := []tickets.OpenQuestion{}
	live := b.live()
	// The first related tickets of each section: those of its drafts, in
	// draft order, without repeats; five, as one may be a question's spike.
	sectionRefs := map[*section][]string{}
	for _, d := range b.drafts {
		b.m.tick(1)
		refs := sectionRefs[d.sec]
		if len(refs) >= 5 || d.origin == originSpike || resolve(d) == nil {
			continue
		}
		if r := ref(d); r != "" && !slices.Contains(refs, r) {
			sectionRefs[d.sec] = append(refs, r)
		}
	}
	for i, q := range b.liveQuestions() {
		b.m.tick(1)
		var related []string
		if id := ref(q.spike); id != "" {
			related = append(related, id)
		}
		for _, r := range sectionRefs[q.sec] {
			if len(related) >= 4 {
				break
			}
			related = appendUnique(related, r)
		}
		if len(related) == 0 {
			best, bestN := (*draft)(nil), 1
			for _, d := range live {
				if d.words == nil {
					continue
				}
				if n := d.words.overlap(q.words); n > bestN {
					best, bestN = d, n
				}
			}
			if best != nil {
				related = append(related, ref(best))
			}
		}
		related = sortIDs(related)
		out = append(out, tickets.OpenQuestion{ID: "Q-" + itoa(i+1), Question: q.text, RelatedTicketIDs: related})
	}
	return append(out, b.capQuestions(len(out), ref)...)
}

// capQuestions names the work that lost a ticket of its own to the ticket
// count: what was left out, and what was folded into another ticket, with
// the option value that would give each its own ticket. n is the number of
// questions before them.
func (b *builder) capQuestions(n int, ref func(*draft) string) []tickets.OpenQuestion {
	option, limit := "max_ticket_count", b.opts.MaxTicketCount
	if b.opts.TicketCount > 0 {
		option, limit = "ticket_count", b.opts.TicketCount
	}
	lost := len(b.dropped) + len(b.folded)
	var out []tickets.OpenQuestion
	add := func(lead string, ds []*draft, into bool) {
		const perQuestion = 12
		for start := 0; start < len(ds); start += perQuestion {
			part := ds[start:min(len(ds), start+perQuestion)]
			var names []string
			related := []string{}
			for _, d := range part {
				b.m.tick(1)
				name := "\"" + b.finalTitle(d.title) + "\""
				if d.sec != nil && d.sec.parent != nil {
					name += " (" + b.sectionName(d.sec) + ", line " + itoa(d.sec.first) + ")"
				}
				if into {
					if id := ref(d); id != "" {
						name += " in " + id
						related = appendUnique(related, id)
					}
				}
				if q := leftOutQuote(d); q != "" {
					name += ", which says " + q
				}
				names = append(names, name)
			}
			text := lead + " " + option + " " + itoa(limit) + ": " + strings.Join(names, "; ") + ". Should they get tickets of their own? A " + option + " of " + itoa(limit+lost) + " would fit them."
			out = append(out, tickets.OpenQuestion{ID: "Q-" + itoa(n+len(out)+1), Question: text, RelatedTicketIDs: sortIDs(related)})
		}
	}
	for _, q := range b.notTicketed {
		out = append(out, tickets.OpenQuestion{ID: "Q-" + itoa(n+len(out)+1), Question: q, RelatedTicketIDs: []string{}})
	}
	if q := b.closedReports(); q != "" {
		out = append(out, tickets.OpenQuestion{ID: "Q-" + itoa(n+len(out)+1), Question: q, RelatedTicketIDs: []string{}})
	}
	add("Left out without a ticket to stay within", b.dropped, false)
	add("Merged into other tickets to stay within", b.folded, true)
	return out
}

// leftOutQuote quotes, shortened, the first six criteria of a draft that lost
// its ticket to the ticket count: its title alone is often the spec's
// heading ("Implement configuration"), which does not tell a lead what was
// left out ("Plan defaults live in the plans table …"). Criteria the title
// already says are not repeated; "" when nothing is left to quote.
func leftOutQuote(d *draft) string {
	const quotes = 6
	var out []string
	title := ""
	for _, list := range [][]string{d.crit, d.compact} {
		for _, c := range list {
			if len(out) == quotes {
				return strings.Join(out, ", ")
			}
			c = strings.TrimSpace(c)
			if len(c) <= len(d.title) {
				// Only a criterion no longer than the title can be one
				// the title already says.
				if title == "" {
					title = strings.ToLower(strings.ReplaceAll(d.title, "`", ""))
				}
				if strings.Contains(title, strings.ToLower(strings.ReplaceAll(strings.TrimRight(c, "."), "`", ""))) {
					continue
				}
			}
			if strings.Count(c, " ") < 2 {
				continue // fewer than three words
			}
			q := "\"" + shorten(c, 16, 140) + "\""
			if !slices.Contains(out, q) {
				out = append(out, q)
			}
		}
	}
	return strings.Join(out, ", ")
}

// closedReports names the reports the spec marks closed (fixed,
// duplicate, won't fix), which get no ticket, so that none is left out in
// silence; "" when there are none.
func (b *builder) closedReports() string {
	var names []string
	for _, s := range b.doc.sections {
		if s.closed {
			names = append(names, s.cleanedHeading()+" (line "+itoa(s.first)+")")
		}
	}
	if len(names) == 0 {
		return ""
	}
	if len(names) > 40 {
		names = append(names[:40], "and "+itoa(len(names)-40)+" more")
	}
	return "Left out as closed, since the spec marks them fixed, duplicate or won't fix: " + strings.Join(names, "; ") + ". Does any of them still need work?"
}

// sortIDs sorts SPEC-n ids numerically and drops empty ones.
func sortIDs(ids []string) []string {
	out := []string{}
	for _, id := range ids {
		if id != "" {
			out = appendUnique(out, id)
		}
	}
	sort.Slice(out, func(i, j int) bool { return idNumber(out[i]) < idNumber(out[j]) })
	return out
}

func idNumber(id string) int {
	n := 0
	for _, r := range id[strings.LastIndex(id, "-")+1:] {
		n = n*10 + int(r-'0')
	}
	return n
}

// sourceTitle is req.Title cut to 160 runes, or a title found in the spec.
func (b *builder) sourceTitle() string {
	t := strings.TrimSpace(spaceRun.ReplaceAllString(b.req.Title, " "))
	if t == "" {
		t = strings.TrimSpace(b.docTitle)
	}
	if t == "" {
		if ss := splitSentences(cleanInline(b.req.Spec)); len(ss) > 0 {
			t = shorten(stripCode(ss[0]), 12, 120)
		}
	}
	if t == "" {
		t = "Untitled spec"
	}
	rs := []rune(t)
	if len(rs) > 160 {
		t = strings.TrimSpace(string(rs[:160]))
	}
	return t
}

var otherDocument = regexp.MustCompile(`(?i)\b(document|doc|section|chapter) \d+ (covers|describes)\b|^see (below|above)\b`)

// summary writes one to three sentences that say what the spec is about.
func (b *builder) summary() string {
	if b.shape == shapeQuestions && len(b.questions) > 0 {
		return "The spec is a list of " + itoa(len(b.questions)) + " open question(s) to settle before building, starting with: \"" + b.questions[0].text + "\""
	}
	var p summaryPicker
	if b.shape == shapeBug {
		if r := b.readBug(); len(r.summary) > 0 {
			for _, s := range splitSentences(strings.Join(r.summary, " ")) {
				if len(p.picked) >= 2 {
					break
				}
				p.add(s)
			}
		}
	}
	// One sentence of the introduction, one of the overview section; the
	// introduction fills in when there is no overview.
	overview := b.overviewSection()
	introLimit := 2
	if overview != nil {
		introLimit = 1
	}
	if len(p.picked) == 0 {
		p.addFrom(b.doc.root, introLimit)
		for _, s := range b.doc.sections[1:] {
			if len(p.picked) >= 1 {
				break
			}
			if !b.top[s] && b.major(s) == nil {
				p.addFrom(s, introLimit)
			}
		}
	}
	if len(p.picked) < 2 && overview != nil {
		p.addFrom(overview, len(p.picked)+1)
	}
	if len(p.picked) == 0 {
		for _, s := range b.doc.sections {
			p.addFrom(s, 2)
			if len(p.picked) > 0 {
				break
			}
		}
	}
	if len(p.picked) == 0 {
		return b.summaryWithoutSentences()
	}
	out := strings.Join(p.picked, " ")
	out = strings.ReplaceAll(out, "..", ".")
	return out
}

// overviewSection returns the first top section about the overview, or
// nil.
func (b *builder) overviewSection() *section {
	for _, s := range b.doc.sections[1:] {
		if b.top[s] && b.info[s.index].topic == "overview" {
			return s
		}
	}
	return nil
}

// summaryWithoutSentences is the summary of a spec with no sentence to
// pick: its text when it has a content word, else what the tickets are
// scoped from.
func (b *builder) summaryWithoutSentences() string {
	text := strings.TrimSpace(cleanInline(b.req.Spec))
	switch {
	case hasContentWord(text):
		return "Request: " + shorten(stripCode(text), 40, 300) + "."
	case strings.TrimSpace(b.req.Title) != "":
		return "The spec text is empty or too short to analyse; the tickets are scoped from the title \"" + shorten(b.req.Title, 20, 140) + "\"."
	}
	return "The spec text is empty; one ticket asks for the scope to be written down."
}

// summaryPicker collects the sentences of a summary.
type summaryPicker struct {
	picked []string
}

// add picks sentence s when it says something: four words or more with
// a verb, neither a lead-in (ending in a colon) nor a question, nor about
// another document or an unresolved item. A sentence starting with a
// verb in the third person gets "It".
func (p *summaryPicker) add(s string) {
	s = strings.TrimSpace(s)
	if s == "" || strings.HasSuffix(s, ":") || strings.HasSuffix(s, "?") || otherDocument.MatchString(s) || hasMarker(s) || fieldCount(s) < 4 || !hasVerb(s) {
		return
	}
	if isTitleCase(strings.Fields(s)) || documentMetadata.MatchString(s) || summaryMetadata.MatchString(s) || len(fieldLabels.FindAllString(s, 3)) >= 2 {
		// A heading in a table of contents ("Production Readiness Review
		// Questionnaire"), a document's metadata ("Links: PR #754 …",
		// "Module: A-09 … Status: Draft …").
		return
	}
	if f := strings.Fields(s); baseVerb(f[0]) != "" && strings.HasSuffix(strings.ToLower(f[0]), "s") {
		s = "It " + lowerFirst(s)
	}
	p.picked = append(p.picked, shorten(s, 60, 400)+".")
}

var (
	// summaryMetadata opens a line of a document's metadata that
	// documentMetadata (a header's, dropped from the work) leaves to the
	// work: in a summary it is metadata all the same.
	summaryMetadata = regexp.MustCompile(`(?i)^(links?|modules?|feature branch|sources?|version|deciders|tags?|jira|ticket)\s*:`)
	// fieldLabels are "Label:" pairs run together in one sentence.
	fieldLabels = regexp.MustCompile(`(?:^|\s)[A-Z][A-Za-z]+(?: [A-Za-z]+)?: `)
)

// addFrom picks the sentences of s's own paragraphs and the first
// sentence of each item of its lists, in order, until limit sentences
// are picked.
func (p *summaryPicker) addFrom(s *section, limit int) {
	for _, bl := range s.blocks {
		if len(p.picked) >= limit {
			return
		}
		switch bl.kind {
		case paragraphBlock:
			for _, sent := range splitSentences(bl.text) {
				if len(p.picked) >= limit {
					return
				}
				p.add(sent)
			}
		case listBlock:
			for _, it := range bl.items {
				if len(p.picked) >= limit {
					return
				}
				if ss := splitSentences(it.text); len(ss) > 0 {
					p.add(ss[0])
				}
			}
		}
	}
}
