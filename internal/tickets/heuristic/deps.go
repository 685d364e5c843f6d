package heuristic

import (
	"regexp"
	"sort"
	"strings"

	"github.com/foresight-dev/foresight/internal/tickets"
)

// This file reads the order of work from the document's own order and
// words, beside its identifiers (labelDependencies) and the layers its
// titles name (layerDependencies):
//   - sibling sections in layer order: under one heading, the data model
//     or API type written first comes before the controller or screen
//     written after it ("### API" then "### Controller behaviour");
//   - a test plan's integration and end-to-end tests, and a test plan
//     ticketed as a whole, wait for the work of the sections beside and
//     above them;
//   - a sentence that waits ("After two successful weekly restore tests,
//     switch off the pg_dump job") waits for the earlier ticket whose title
//     it names;
//   - a rollout step ("Enable pgBackRest and WAL archiving on the staging
//     cluster") waits for the earlier tickets whose titles it names;
//   - the work of a major section waits for the major section before it
//     when that one is the foundations ("### Foundations" before "###
//     Screens") or both are numbered phases ("Phase 1" before "Phase 2").

// orderDependencies adds the dependencies above. It compares each draft
// with a layer, a wait or a rollout step with every earlier draft, bounded
// like layerDependencies.
func (b *builder) orderDependencies() {
	live := b.live()
	if len(live) > 200 {
		return // a spec this size is read for its identifiers only
	}
	var work []*draft
	for _, d := range live {
		if d.kind != tickets.TypeEpic && d.kind != tickets.TypeSpike && d.kind != tickets.TypeBug && d.sec != nil {
			work = append(work, d)
		}
	}
	type facts struct {
		layer   int
		rollout bool
		names   []string
	}
	of := make(map[*draft]facts, len(work))
	rollouts := map[*section]bool{}
	for _, d := range work {
		r, seen := rollouts[d.sec]
		if !seen {
			r = rolloutSection(d.sec)
			rollouts[d.sec] = r
		}
		of[d] = facts{draftLayer(d), r, titleNames(d.workName())}
	}
	b.phaseDependencies(work)
	for _, x := range work {
		fx := of[x]
		testsAll := x.topic == "testing" && integrationTest.MatchString(x.title)
		var text []string
		if fx.rollout || waits(x) {
			text = keywords(x.title + " " + strings.Join(x.crit, " "))
		}
		if fx.layer < 0 && !testsAll && text == nil {
			continue
		}
		for _, y := range work {
			b.m.tick(1)
			if y == x || y.order >= x.order {
				continue
			}
			fy := of[y]
			sibling := y.sec.parent == x.sec.parent && y.sec != x.sec && x.sec.parent != nil
			switch {
			case sibling && fx.layer >= 0 && fy.layer >= 0 && fy.layer < fx.layer:
				x.deps = appendDraft(x.deps, y)
			case testsAll && y.topic != "testing" && (sibling || y.sec == x.sec.parent):
				x.deps = appendDraft(x.deps, y)
			case text != nil && !fy.rollout && namesAll(text, fy.names):
				x.deps = appendDraft(x.deps, y)
			}
		}
	}
}

// integrationTest is a test of the whole work, not of one unit.
var integrationTest = regexp.MustCompile(`(?i)\b(integration|e2e|end-to-end|end to end|acceptance|test plan)\b`)

// rolloutSection is a section of rollout steps.
func rolloutSection(s *section) bool {
	h := strings.TrimSpace(headingNumber.ReplaceAllString(strings.ToLower(s.cleanedHeading()), ""))
	return rolloutHeading.MatchString(h) || h == "migration" || h == "migration plan" || h == "cut-over" || h == "cutover"
}

// waitClause is a sentence that says it waits for something.
var waitClause = regexp.MustCompile(`(?i)(^|[,;:]\s*)(after|once)\s`)

// waits reports whether a draft's title or criteria say they wait for
// something ("After two successful weekly restore tests, …").
func waits(d *draft) bool {
	for _, t := range append([]string{d.title}, d.crit...) {
		if (strings.Contains(t, "fter ") || strings.Contains(t, "nce ")) && waitClause.MatchString(t) {
			return true
		}
	}
	return false
}

// genericTitleWords name no thing: the verbs and words titles are built
// with.
var genericTitleWords = map[string]bool{"implement": true, "set": true, "up": true, "add": true, "create": true, "enable": true,
	"build": true, "make": true, "support": true, "provide": true, "define": true, "handle": true, "ensure": true, "allow": true,
	"deliver": true, "write": true, "update": true, "plan": true, "section": true, "requirement": true, "test": false}

// titleNames are the words of a title that name what it builds ("restore",
// "test" of "Set up restore test"); none when fewer than two.
func titleNames(title string) []string {
	var out []string
	for _, w := range keywords(title) {
		if !genericTitleWords[w] {
			out = append(out, w)
		}
	}
	if len(out) < 2 {
		return nil
	}
	return out
}

// namesAll reports whether text holds every word of names (at least two).
func namesAll(text, names []string) bool {
	if len(names) < 2 {
		return false
	}
	for _, n := range names {
		found := false
		for _, w := range text {
			if w == n {
				found = true
				break
			}
		}
		if !found {
			return false
		}
	}
	return true
}

// appendDraft appends d to list unless it is there.
func appendDraft(list []*draft, d *draft) []*draft {
	for _, x := range list {
		if x == d {
			return list
		}
	}
	return append(list, d)
}

var (
	// phaseHeading names a numbered phase of the work.
	phaseHeading = regexp.MustCompile(`(?i)^(phase|stage|milestone|wave)\s*\d+\b`)
	// foundationsHeading names the foundations the rest builds on.
	foundationsHeading = regexp.MustCompile(`(?i)\b(foundations?|groundwork)\b`)
)

// phaseDependencies records that the work of a major section follows the
// work of the major section before it, when that one is the foundations,
// or when both are numbered phases (b.sectionAfter); assemble makes the
// one's epic wait for the other's when both are epics. The order is the
// phases', not their tickets': each ticket of "Phase 2" waiting for the
// last ticket of "Phase 1" made "Define maintenance schedules (PM-1)"
// wait for "Show a vehicle as off road (WO-9)", which a lead reads as a
// claim about those two tickets, and each waiting for every ticket of the
// phase before was 54 dependencies in a PRD of 30 tickets. Without epics
// the phases' order stays the tickets' order.
func (b *builder) phaseDependencies(work []*draft) {
	seen := map[*section]bool{}
	var majors []*section // the major sections that hold work, in order
	for _, d := range work {
		if m := b.major(d.sec); m != nil && !seen[m] {
			seen[m] = true
			majors = append(majors, m)
		}
	}
	sort.SliceStable(majors, func(i, j int) bool { return majors[i].index < majors[j].index })
	name := func(s *section) string {
		return strings.TrimSpace(headingNumber.ReplaceAllString(strings.ToLower(s.cleanedHeading()), ""))
	}
	before := map[*section]*section{}
	for i := 1; i < len(majors); i++ {
		p, m := name(majors[i-1]), name(majors[i])
		// Phase 2 follows phase 1, everything follows the foundations;
		// non-functional requirements after the last phase follow no phase.
		if foundationsHeading.MatchString(p) || phaseHeading.MatchString(p) && phaseHeading.MatchString(m) {
			before[majors[i]] = majors[i-1]
		}
	}
	b.sectionAfter = before
}

var (
	// sequenceCue is a heading, or the sentence that introduces a list,
	// that says the list's items are done in turn: steps, phases, stages,
	// milestones, a rollout, a migration, a plan, "in this order",
	// "then", "after", "once", "first … next".
	sequenceCue = regexp.MustCompile(`(?i)\b(steps?|phases?|phased|stages?|staged|milestones?|roll-?outs?|roll out|migrations?|migrate|cut-?over|plan|upgrade path|in (?:this|that|the following|the same) order|in order|in turn|then|after|once|first\b.*\bnext)\b`)
	// testCue is a heading of tests, which are run in any order ("Test
	// plan").
	testCue = regexp.MustCompile(`(?i)\btest`)
	// refersBack is an item whose own text waits for the work before it:
	// it names an earlier step ("Requires step 1.", "after step 3", "once
	// the above is done", "once this is merged").
	refersBack = regexp.MustCompile(`(?i)\b(requires?|required|after|once|following|depends on|not before|blocked by)\s+(steps?\s+\d+|phase\s+\d+|stage\s+\d+|the (?:above|previous|preceding|prior|last) (?:steps?|items?|ones?|phase|stage)|the above|this step|that step)\b|\bonce\b[^.;]{1,60}\b(?:is|are|has been|have been) (?:done|complete|completed|finished|in place|live|merged|deployed|shipped)\b`)
)

// listedInOrder reports whether list item it of s, under caption (the
// sentence ending in ":" that introduces its list, if any), waits for the
// item listed before it: an item of a numbered list whose section heading
// or caption reads as a sequence ("## Steps", "## Rollout plan", "Roll
// out in this order:"; not a test plan), or an item whose own text refers
// back ("Requires step 1.", "once the above is done"). The items of a
// bulleted list of requirements can be built in any order.
func listedInOrder(s *section, it *listItem, caption string) bool {
	if mayReferBack(it.text) && refersBack.MatchString(it.text) {
		return true
	}
	if !it.ordered {
		return false
	}
	return sequenceCue.MatchString(s.heading) && !testCue.MatchString(s.heading) || sequenceCue.MatchString(caption)
}

// backWords are the words refersBack needs, as written: a step, phase or
// stage, the work above or before, a "once".
var backWords = []string{"step", "phase", "stage", "above", "previous", "preceding", "prior", "last", "once", "Once"}

// mayReferBack is a cheap test that text holds one of backWords, so that
// most list items are not matched against refersBack.
func mayReferBack(text string) bool {
	for _, w := range backWords {
		if strings.Contains(text, w) {
			return true
		}
	}
	return false
}

// declaredDependencies makes work wait for the ticket that declares what it
// names: a ticket whose text names a type, a field, a table or an RPC that
// an earlier ticket's criteria declare (see declarations) depends on that
// ticket (KEP-1847's controller tickets name the StatefulSet field its API
// ticket declares; readers found them independent of it). Names are
// matched whole: a type, table or RPC as declared, a field in any case
// ("completionMode" for "CompletionMode") when it joins two words.
func (b *builder) declaredDependencies() {
	live := b.live()
	if len(live) > 200 {
		return // bounded like orderDependencies
	}
	declared := map[string]*draft{}
	for _, d := range live {
		for _, c := range d.crit {
			for _, name := range b.declaredNames[c] {
				if _, ok := declared[name]; !ok {
					declared[name] = d
				}
			}
		}
	}
	if len(declared) == 0 {
		return
	}
	for _, x := range live {
		if x.kind == tickets.TypeEpic || x.kind == tickets.TypeSpike {
			continue
		}
		b.m.tick(1)
		text := strings.ToLower(x.title + " " + strings.Join(x.crit, " "))
		for name, y := range declared {
			if y == x || y.order >= x.order || !containsWordCase(text, name) {
				continue
			}
			x.deps = appendDraft(x.deps, y)
		}
	}
}
