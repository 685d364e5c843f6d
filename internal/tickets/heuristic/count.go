package heuristic

import (
	"sort"
	"strings"

	"github.com/foresight-dev/foresight/internal/tickets"
)

// This file fits the drafts to the requested number of tickets: it merges
// related drafts or drops low-value ones when there are too many, and adds
// well-founded tickets (spikes for open questions, splits of large tickets,
// test, documentation and operational follow-ups) when there are too few.

// absorb merges from into into, combining titles of the same form
// ("Implement A endpoint" and "Implement B endpoint").
func (b *builder) absorb(into, from *draft) {
	b.mergeWith(nil, into, from, true)
}

// merge merges from into into; retitle says whether titles of the same form
// are combined.
func (b *builder) merge(into, from *draft, retitle bool) {
	b.mergeWith(nil, into, from, retitle)
}

// mergeWith is merge keeping into's lists unique through sets, which makes
// many merges into one draft linear (nil sets: appendUnique).
func (b *builder) mergeWith(sets listSets, into, from *draft, retitle bool) {
	if from == into || !from.alive {
		return
	}
	b.m.tick(1 + len(from.crit) + len(from.also) + len(from.general) + len(from.compact) + len(from.words))
	if retitle && into.verb != "" && into.verb == from.verb && into.noun == from.noun && len(from.subjects) > 0 && len(into.subjects) > 0 {
		subjects := append(append([]string{}, into.subjects...), from.subjects...)
		if title := renderTitle(into.verb, subjects, into.noun); runeLen(title) <= 110 {
			into.subjects = subjects
			into.title = title
		} else {
			sets.add(&into.also, from.title)
		}
	} else if t := combinedTitle(into, from); retitle && t != "" {
		into.title = t
		into.verb, into.subjects = "", nil
	} else {
		sets.add(&into.also, from.title)
	}
	sets.add(&into.also, from.also...)
	if from.origin == originResource && into.origin != originResource && len(from.compact) > 0 {
		sets.add(&into.crit, from.compact...)
	} else {
		sets.add(&into.crit, from.crit...)
		sets.add(&into.compact, from.compact...)
	}
	sets.add(&into.general, from.general...)
	sets.add(&into.context, from.context...)
	sets.add(&into.notes, from.notes...)
	into.deps = append(into.deps, from.deps...)
	into.qs = append(into.qs, from.qs...)
	into.covers = append(into.covers, from.covers...)
	into.parts = append(into.parts, from)
	sets.add(&into.labels, from.labels...)
	into.weight += max(1, len(from.crit)/2) + from.weight
	into.value = min(1, max(into.value, from.value)+0.05)
	into.importance = max(into.importance, from.importance)
	into.phase = min(into.phase, from.phase)
	if into.words == nil {
		into.words = wordSet{}
	}
	for k := range from.words {
		into.words[k] = true
	}
	into.words.add(from.title)
	if into.kind == tickets.TypeTask && from.kind == tickets.TypeBug {
		into.kind = tickets.TypeBug
	}
	into.epoch++
	from.alive = false
	from.into = into
}

// combinedTitle joins the titles of two parts of one section ("Handle A"
// and "Handle B" give "Handle A and B"), or returns "" when the result
// would be too long or the drafts are not parts of one section.
func combinedTitle(into, from *draft) string {
	sameSection := into.sec == from.sec && (into.origin == originItem || into.origin == originSection) && (from.origin == originItem || from.origin == originSection)
	if !sameSection && !(crossCutting[into.topic] && crossCutting[from.topic]) {
		return ""
	}
	if strings.Contains(into.title, " and ") && strings.Count(into.title, " and ") >= 2 {
		return ""
	}
	a, bt := strings.Fields(into.title), strings.Fields(from.title)
	if len(a) == 0 || len(bt) == 0 {
		return ""
	}
	second := lowerFirst(from.title)
	if strings.EqualFold(a[0], bt[0]) {
		second = strings.Join(bt[1:], " ")
	}
	if strings.EqualFold(into.title, from.title) || containsFold(into.title, second) {
		return into.title // "error responses and error responses" says it once
	}
	t := into.title + " and " + second
	if runeLen(t) > 100 {
		return ""
	}
	return t
}

// containsFold reports whether s holds part as whole words, ignoring case.
func containsFold(s, part string) bool {
	if strings.TrimSpace(part) == "" {
		return false
	}
	return containsWord(strings.ToLower(s), strings.ToLower(part))
}

// resolve follows merges to the live draft that holds d, or nil.
func resolve(d *draft) *draft {
	for i := 0; d != nil && !d.alive && i < 100; i++ {
		d = d.into
	}
	if d != nil && !d.alive {
		return nil
	}
	return d
}

// mergeSubResources folds resources that only appear inside another
// resource (an "options" object of a request, the "ticket" items of a
// result) into that resource.
func (b *builder) mergeSubResources() {
	var resources []*draft
	for _, d := range b.live() {
		if d.origin == originResource {
			resources = append(resources, d)
		}
	}
	for _, d := range resources {
		if !d.alive {
			continue
		}
		name := strings.ToLower(stripCode(d.sec.cleanedHeading()))
		if b.rowsMention(name) {
			continue
		}
		for _, p := range resources {
			if !p.alive {
				continue
			}
			if p == d || p.origin != originResource || b.major(p.sec) != b.major(d.sec) {
				continue
			}
			if b.references(p.sec, name) {
				for _, t := range b.info[d.sec.index].fields {
					p.crit = appendUnique(p.crit, upperFirst(name)+" object ("+fieldSummary(t)+") follows the \""+d.sec.cleanedHeading()+"\" table.")
				}
				crit := d.crit
				if len(b.info[d.sec.index].fields) > 0 {
					d.crit = nil
					for _, c := range crit {
						if !strings.HasPrefix(c, "`") {
							d.crit = append(d.crit, c)
						}
					}
				}
				b.merge(p, d, false)
				break
			}
		}
	}
}

// rowsMention reports whether an endpoint's request or response names
// phrase.
func (b *builder) rowsMention(phrase string) bool {
	for _, ep := range b.endpoints {
		if ep.lowPayload == "" {
			ep.lowPayload = strings.ToLower(ep.payloadText()) + " "
		}
		text := ep.lowPayload
		if strings.Contains(text, phrase) && (containsWord(text, phrase) || containsWord(text, phrase+"s")) {
			return true
		}
	}
	return false
}

// naturalMerge folds drafts too small to stand alone (one criterion) into
// the sibling that shares most words with them. The siblings looked at are
// the naturalWindow nearest ones on each side, in spec order, among the
// drafts under the same parent section: all of them in a spec of ordinary
// size, and a bounded number in a list of thousands of items.
func (b *builder) naturalMerge() {
	live := b.live()
	byParent := map[*section][]*draft{}
	at := make(map[*draft]int, len(live))
	for _, d := range live {
		b.m.tick(1)
		if d.sec == nil {
			continue
		}
		at[d] = len(byParent[d.sec.parent])
		byParent[d.sec.parent] = append(byParent[d.sec.parent], d)
	}
	for _, d := range live {
		if !d.alive {
			continue
		}
		if len(d.crit) > 1 || d.origin == originEndpoint || d.origin == originSpike || d.origin == originRequest || d.origin == originBug || d.origin == originCommand || d.origin == originItem || len(d.users) > 0 || d.sec == nil {
			continue
		}
		if d.sec.parent != nil && len(b.info[d.sec.index].drafts) == 1 && d.origin == originSection {
			continue // a section of its own, under its own heading, is a piece of work of its own
		}
		words := keywords(d.title + " " + strings.Join(d.crit, " "))
		siblings := byParent[d.sec.parent]
		i := at[d]
		var best *draft
		bestN := 0
		for _, p := range siblings[max(0, i-naturalWindow):min(len(siblings), i+naturalWindow+1)] {
			b.m.tick(1)
			if !p.alive || p == d || p.origin == originSpike || b.major(p.sec) != b.major(d.sec) {
				continue
			}
			n := p.words.overlap(words)
			if n > bestN {
				best, bestN = p, n
			}
		}
		if best != nil {
			b.absorb(best, d)
		}
	}
}

// naturalWindow bounds the siblings naturalMerge compares a draft with.
const naturalWindow = 64

// references reports whether a field table of s uses the object name: as a
// field's type ("array of ticket", "object (options)") or as a whole cell.
func (b *builder) references(s *section, name string) bool {
	in := b.info[s.index]
	if in.cells == nil {
		in.cells = map[string]bool{}
		var types []string
		for _, t := range in.fields {
			ti := headerIndex(t.header, "type")
			for _, row := range t.rows {
				for i, c := range row {
					c = strings.ToLower(strings.TrimSpace(stripCode(c)))
					in.cells[c] = true
					if i == ti {
						types = append(types, c)
					}
				}
			}
		}
		in.types = strings.Join(types, " | ")
	}
	if in.cells[name] || in.cells[name+"s"] {
		return true
	}
	if !strings.Contains(in.types, name) {
		return false
	}
	for _, form := range []string{"array of " + name, "list of " + name, "map of " + name, "object (" + name, name + " object"} {
		if strings.Contains(in.types, form) {
			return true
		}
	}
	return false
}

// groupCount counts the live drafts of g.
func (b *builder) groupCount(g *group) int {
	n := 0
	for _, d := range b.drafts {
		if d.alive && d.grp == g {
			n++
		}
	}
	return n
}

// groupCounts counts the live drafts of every group in one pass, into a
// map it reuses: the counts hold until its next call.
func (b *builder) groupCounts() map[*group]int {
	if b.groupSizes == nil {
		b.groupSizes = make(map[*group]int, len(b.groups))
	}
	counts := b.groupSizes
	clear(counts)
	for _, d := range b.drafts {
		if d.alive {
			counts[d.grp]++
		}
	}
	return counts
}

// Epics group work only where there is enough of it to need grouping: a
// spec of fewer than epicMinDrafts tickets is read as a flat list (an epic
// over two or three tickets repeats their titles and adds nothing a lead
// would track), and a group of fewer than epicMinChildren tickets gets none.
const (
	epicMinDrafts   = 12
	epicMinChildren = 3
)

// epicGroups returns the groups that become epics.
func (b *builder) epicGroups() []*group {
	var out []*group
	b.eachEpicGroup(func(g *group, _ int) { out = append(out, g) })
	return out
}

// eachEpicGroup calls f with each group that becomes an epic, in order,
// and the number of its live drafts.
func (b *builder) eachEpicGroup(f func(g *group, drafts int)) {
	if !b.opts.IncludeEpics {
		return
	}
	counts := b.groupCounts()
	if len(counts) > 0 && b.liveCount() < epicMinDrafts {
		return
	}
	for _, g := range b.groups {
		if n := counts[g]; !g.suppressed && n >= epicMinChildren {
			f(g, n)
		}
	}
}

// total is the number of tickets: live drafts and epics.
func (b *builder) total() int {
	n := b.liveCount()
	b.eachEpicGroup(func(*group, int) { n++ })
	return n
}

// suppressOne drops the epic of the smallest group; it reports whether an
// epic was dropped.
func (b *builder) suppressOne() bool {
	var pick *group
	pickN := 0
	for _, g := range b.epicGroups() {
		n := b.groupCount(g)
		if pick == nil || n < pickN || n == pickN && g.order > pick.order {
			pick, pickN = g, n
		}
	}
	if pick == nil {
		return false
	}
	pick.suppressed = true
	return true
}

// reduction is one way to lose a ticket.
type reduction struct {
	loss     float64
	drop     *draft
	from     *draft
	into     *draft
	suppress *group
}

func (r *reduction) group() *group {
	switch {
	case r.drop != nil:
		return r.drop.grp
	case r.from != nil:
		return r.from.grp
	}
	return nil
}

// apply carries out r; sets keeps the lists of the drafts merged into
// unique (see listSets).
func (b *builder) apply(r *reduction, sets listSets) {
	switch {
	case r.suppress != nil:
		r.suppress.suppressed = true
	case r.drop != nil:
		r.drop.alive = false
	default:
		b.mergeWith(sets, r.into, r.from, true)
	}
}

// appendAlive appends the drafts of ds that are alive to out.
func appendAlive(out, ds []*draft) []*draft {
	for _, d := range ds {
		if d.alive {
			out = append(out, d)
		}
	}
	return out
}

// greedyScratch is what the steps of fitCount's greedy keep from one step
// to the next: the merge losses they remember, and the lists each step
// makes again, to reuse their memory.
type greedyScratch struct {
	losses   lossCache
	live     []*draft
	byGroup  map[*group][]*draft // live drafts by group
	cross    []*draft            // live drafts of a crossCutting topic
	partners []*draft
}

// lossCache holds the mergeLoss of pairs of drafts, valid while neither
// draft absorbed another (its epoch) and the draft using the first one is
// the same.
type lossCache map[[2]*draft]cachedLoss

type cachedLoss struct {
	loss                 float64
	fromEpoch, intoEpoch int
	user                 *draft
}

// mergeLoss is the package's mergeLoss, remembered.
func (c lossCache) mergeLoss(d, p *draft) float64 {
	var user *draft
	if len(d.users) == 1 {
		user = resolve(d.users[0])
	}
	key := [2]*draft{d, p}
	if e, ok := c[key]; ok && e.fromEpoch == d.epoch && e.intoEpoch == p.epoch && e.user == user {
		return e.loss
	}
	loss := mergeLoss(d, p)
	c[key] = cachedLoss{loss: loss, fromEpoch: d.epoch, intoEpoch: p.epoch, user: user}
	return loss
}

// bestReduction finds the cheapest way to lose one ticket; live are the
// live drafts in order.
func (b *builder) bestReduction(live []*draft, sc *greedyScratch) *reduction {
	var best reduction
	found := false
	consider := func(r reduction) {
		if !found || r.loss < best.loss-1e-9 {
			best, found = r, true
		}
	}
	b.eachEpicGroup(func(g *group, drafts int) {
		consider(reduction{loss: 0.5 + 0.05*float64(drafts), suppress: g})
	})
	byGroup := sc.byGroup
	for g, ds := range byGroup {
		byGroup[g] = ds[:0]
	}
	sc.cross = sc.cross[:0]
	for _, d := range live {
		byGroup[d.grp] = append(byGroup[d.grp], d)
		if crossCutting[d.topic] {
			sc.cross = append(sc.cross, d)
		}
	}
	for _, d := range live {
		switch d.origin {
		case originSpike:
			consider(reduction{loss: d.value, drop: d})
			continue
		case originOverview:
			consider(reduction{loss: d.value, drop: d})
		case originTest, originDocs, originFollowUp:
			consider(reduction{loss: d.value, drop: d})
			continue
		default:
			consider(reduction{loss: dropLoss(d), drop: d})
		}
		partners := byGroup[d.grp]
		if len(d.users) == 1 && resolve(d.users[0]) != nil && resolve(d.users[0]).grp != d.grp {
			partners = append(append(sc.partners[:0], partners...), resolve(d.users[0]))
			sc.partners = partners
		}
		if crossCutting[d.topic] {
			for _, p := range sc.cross {
				if p.grp != d.grp {
					partners = append(partners, p)
				}
			}
		}
		b.m.tick(len(partners))
		for _, p := range partners {
			if p == d || p.origin == originSpike || p.origin == originTest || p.origin == originDocs || p.origin == originFollowUp {
				continue
			}
			affinity := len(d.users) == 1 && resolve(d.users[0]) == p
			if !affinity && (p.value < d.value || p.value == d.value && p.order > d.order) {
				continue // merge the lower-value draft into the higher one
			}
			consider(reduction{loss: sc.losses.mergeLoss(d, p), from: d, into: p})
		}
	}
	if !found {
		return nil
	}
	return &best
}

// crossCutting topics may be folded together across sections when the
// count is tight: errors, limits, versioning and events are one hardening
// job.
var crossCutting = map[string]bool{"errors": true, "limits": true, "versioning": true, "events": true}

// mergeLoss rates how much is lost by folding d into p. Folding a resource
// into the one endpoint that uses it loses least; folding two endpoints
// together loses most, as each is a deliverable of its own.
func mergeLoss(d, p *draft) float64 {
	loss := 0.55
	switch {
	case len(d.users) == 1 && resolve(d.users[0]) == p:
		loss = 0.1
	case d.reqID != "" && p.reqID != "":
		// Two requirements the spec numbers apart are two deliverables;
		// what it may ship without loses its ticket first.
		loss = 0.6 + 0.4*d.value
	case d.origin == originEndpoint && p.origin == originEndpoint:
		loss = 0.85
		if d.ep != nil && p.ep != nil {
			switch {
			case d.ep.path == p.ep.path:
				loss = 0.6
			case d.ep.method == p.ep.method && lastSegment(d.ep.path) == lastSegment(p.ep.path):
				loss = 0.65
			case parentPath(d.ep.path) == parentPath(p.ep.path) || parentPath(d.ep.path) == p.ep.path || parentPath(p.ep.path) == d.ep.path:
				loss = 0.7
			}
		}
		loss += 0.1 * float64(len(p.subjects)+len(d.subjects)-2)
	case d.origin == originEndpoint || p.origin == originEndpoint:
		loss = 0.6
	case d.verb != "" && d.verb == p.verb && d.noun == p.noun && d.sec != nil && p.sec != nil && d.sec.parent == p.sec.parent:
		loss = 0.45 + 0.08*float64(len(p.subjects)+len(d.subjects)-2)
	case d.sec == p.sec:
		loss = 0.4
	case d.grp != p.grp:
		loss = 0.6
	case d.sec != nil && p.sec != nil && d.sec.parent == p.sec.parent:
		loss = 0.5
	}
	overlap := 0
	if p.words != nil {
		overlap = p.words.overlap(d.titleKeys())
	}
	loss -= 0.02 * float64(min(overlap, 4))
	loss += 0.1 * d.value
	// A must-have loses its own ticket after what the spec may ship
	// without: its priority weighs more than its other value.
	loss += 2 * d.importance
	if len(d.crit)+len(p.crit) > 12 {
		loss += 0.1
	}
	return loss
}

// lastSegment is the last segment of a path.
func lastSegment(p string) string {
	p = strings.TrimRight(p, "/")
	return p[strings.LastIndex(p, "/")+1:]
}

// parentPath drops the last segment of a path.
func parentPath(p string) string {
	if i := strings.LastIndex(strings.TrimRight(p, "/"), "/"); i > 0 {
		return p[:i]
	}
	return p
}

// fit brings the drafts to the requested count.
// fit brings the drafts to the requested number of tickets and records
// what lost a ticket of its own on the way.
func (b *builder) fit() {
	before := b.live()
	b.fitCount()
	b.noteLeftOut(before)
}

func (b *builder) fitCount() {
	target := b.opts.TicketCount
	exact := target > 0
	if !exact {
		target = b.opts.MaxTicketCount
	}
	if target == 1 && b.liveCount() > 2 {
		b.rollUp()
		return
	}
	b.coarsen(greedyLimit)
	// The loop changes drafts only through apply, and creates none.
	sets := listSets{}
	all := b.live()
	sc := &greedyScratch{losses: lossCache{}, byGroup: map[*group][]*draft{}}
	for guard := 0; b.total() > target && guard < 2000; guard++ {
		sc.live = appendAlive(sc.live[:0], all)
		r := b.bestReduction(sc.live, sc)
		if r == nil {
			if !b.suppressOne() {
				break
			}
			continue
		}
		if exact && b.opts.IncludeEpics && b.total() == target+1 && r.suppress == nil {
			if g := r.group(); g != nil && !g.suppressed && b.groupCount(g) == 2 && b.suppressOne() {
				continue
			}
		}
		b.apply(r, sets)
	}
	for guard := 0; exact && b.total() < target && guard < 2000; guard++ {
		if !b.expand() {
			break
		}
		if b.total() > target {
			b.suppressOne()
		}
	}
}

// noteLeftOut records which of the drafts live before fit lost a ticket of
// their own: dropped, or merged into another ticket. assemble names them
// in open questions, so that nothing leaves the result in silence.
func (b *builder) noteLeftOut(before []*draft) {
	for _, d := range before {
		b.m.tick(1)
		switch {
		case d.alive, d.origin == originSpike && len(d.qs) > 0:
			// A spike's questions stay in the open questions.
		case d.into == nil:
			b.dropped = append(b.dropped, d)
		default:
			b.folded = append(b.folded, d)
		}
	}
}

// greedyLimit bounds the drafts the greedy of fit works on: each of its
// steps compares every pair of drafts of a group, so its work grows with
// the cube of their number. The specs of a project give a few dozen drafts;
// a spec with more (hundreds of distinct bullets, a table of thousands of
// endpoints) is first coarsened to this many.
const greedyLimit = 128

// coarsen brings the live drafts down to at most limit in linear passes,
// for the greedy of fit to finish: it merges runs of neighbouring drafts of
// one section (and, when that is not enough, of one group) into the most
// valuable draft of each run, the way the greedy folds lower-value drafts
// into higher ones, then drops the least valuable drafts that are left
// over. Specs with at most limit drafts are left alone.
func (b *builder) coarsen(limit int) {
	live := b.live()
	if len(live) <= limit {
		return
	}
	bySection := func(d *draft) any { return [2]any{d.grp, d.sec} }
	byGroup := func(d *draft) any { return d.grp }
	for _, key := range []func(*draft) any{bySection, byGroup} {
		live = b.mergeRuns(live, limit, key)
		if len(live) <= limit {
			return
		}
	}
	droppable := make([]*draft, len(live))
	copy(droppable, live)
	sort.SliceStable(droppable, func(i, j int) bool { return dropLoss(droppable[i]) < dropLoss(droppable[j]) })
	for _, d := range droppable[:len(live)-limit] {
		d.alive = false
	}
}

// mergeRuns splits the mergeable live drafts into buckets by key and merges
// runs of n neighbours of each bucket, with the smallest n (a power of two)
// that brings the live drafts down to limit, or with runs of whole buckets
// when none does. It returns the live drafts after the merges.
func (b *builder) mergeRuns(live []*draft, limit int, key func(*draft) any) []*draft {
	var order []any
	buckets := map[any][]*draft{}
	fixed := 0
	for _, d := range live {
		b.m.tick(1)
		if !mergeable(d) {
			fixed++
			continue
		}
		k := key(d)
		if _, ok := buckets[k]; !ok {
			order = append(order, k)
		}
		buckets[k] = append(buckets[k], d)
	}
	after := func(n int) int {
		total := fixed
		for _, k := range order {
			total += (len(buckets[k]) + n - 1) / n
		}
		return total
	}
	n := 2
	for after(n) > limit && n < len(live) {
		n *= 2
	}
	for _, k := range order {
		bucket := buckets[k]
		for start := 0; start < len(bucket); start += n {
			run := bucket[start:min(start+n, len(bucket))]
			into := run[0]
			for _, d := range run[1:] {
				if d.value > into.value {
					into = d
				}
			}
			sets := listSets{}
			for _, d := range run {
				b.mergeWith(sets, into, d, true)
			}
		}
	}
	return b.live()
}

// mergeable reports whether the greedy of fit may fold d into another draft.
func mergeable(d *draft) bool {
	switch d.origin {
	case originSpike, originTest, originDocs, originFollowUp:
		return false
	}
	return true
}

// dropLoss is what the greedy of fit loses by dropping d.
func dropLoss(d *draft) float64 {
	switch d.origin {
	case originSpike, originOverview, originTest, originDocs, originFollowUp:
		return d.value
	}
	return d.value + 0.3 + 2*d.importance
}

// rollUp replaces every draft with one ticket for the whole spec, used
// when a single ticket is wanted: it names each area of the spec in its
// criteria instead of keeping one area and dropping the rest.
func (b *builder) rollUp() {
	live := b.live()
	allSpikes := true
	for _, d := range live {
		if d.origin != originSpike {
			allSpikes = false
		}
	}
	kind, title := tickets.TypeStory, "Deliver "+lowerFirst(b.mainTitle())
	if allSpikes {
		kind, title = tickets.TypeSpike, "Decide "+lowerFirst(b.mainTitle())
	}
	r := b.newDraft(kind, originRequest, shorten(title, 14, 110), b.doc.root)
	r.topic = "request"
	r.role = b.docRole
	r.value, r.conf, r.phase = 1, 0.5, 2
	r.order = -1
	r.lead = "One ticket for the whole spec, as a single ticket was requested; split it before planning a sprint."
	groups := 0
	for _, g := range b.groups {
		for _, d := range live {
			if d.grp == g {
				groups++
				break
			}
		}
	}
	for _, g := range b.groups {
		var titles []string
		for _, d := range live {
			if d.grp != g {
				continue
			}
			switch {
			case allSpikes:
				for _, q := range d.qs {
					r.crit = append(r.crit, "A written decision answers: "+q.text)
				}
			case d.origin == originSpike:
			case groups == 1:
				r.crit = append(r.crit, "Done: "+d.title+".")
			default:
				titles = append(titles, d.title)
			}
		}
		if len(titles) == 0 {
			continue
		}
		if len(titles) > 4 {
			titles = append(titles[:4], "and "+itoa(len(titles)-4)+" more")
		}
		r.crit = append(r.crit, g.title+" is delivered: "+strings.Join(titles, "; ")+".")
	}
	if len(r.crit) == 0 {
		r.crit = append(r.crit, "Every requirement of the spec is delivered and checked by an automated test.")
	}
	for _, d := range live {
		r.qs = append(r.qs, d.qs...)
		r.weight += len(d.crit)
		d.alive = false
		d.into = r
	}
	g := &group{title: b.mainTitle(), topic: "overview", order: -2}
	b.groups = append(b.groups, g)
	r.grp = g
	r.words = newWordSet(title)
}

// titleTaken reports whether a title is used by a live draft or an epic.
func (b *builder) titleTaken(title string) bool {
	for _, d := range b.drafts {
		if d.alive && strings.EqualFold(d.title, title) {
			return true
		}
	}
	for _, g := range b.groups {
		if strings.EqualFold(g.title, title) {
			return true
		}
	}
	return false
}

// expand adds the most valuable new ticket; it reports false when nothing
// can be added.
func (b *builder) expand() bool {
	if b.expandQuestion() || b.expandGroupTasks() || b.expandSplit() || b.expandFollowUp() {
		return true
	}
	return b.expandScenario()
}

// expandQuestion adds a spike for a question that has none of its own.
func (b *builder) expandQuestion() bool {
	for _, minBlock := range []int{1, 0} {
		for _, q := range b.questions {
			if q.block < minBlock {
				continue
			}
			if s := resolve(q.spike); s != nil && len(s.qs) == 1 {
				continue
			}
			title := spikeTitle(q)
			if b.titleTaken(title) {
				continue
			}
			old := resolve(q.spike)
			sec := q.sec
			if sec == nil {
				sec = b.doc.root
			}
			d := b.spikeFor(sec, []*question{q})
			if old != nil {
				var keep []*question
				for _, o := range old.qs {
					if o != q {
						keep = append(keep, o)
					}
				}
				old.qs = keep
				var crit []string
				for _, c := range old.crit {
					if !strings.Contains(c, q.text) {
						crit = append(crit, c)
					}
				}
				old.crit = crit
			}
			d.grp = b.groupFor(sec)
			return true
		}
	}
	return false
}

// groupFor finds the group of a section through its live drafts or the
// first group.
func (b *builder) groupFor(s *section) *group {
	for _, d := range b.drafts {
		if d.sec == s && d.grp != nil {
			return d.grp
		}
	}
	if m := b.major(s); m != nil {
		for _, g := range b.groups {
			if g.sec == m {
				return g
			}
		}
	}
	if len(b.groups) > 0 {
		return b.groups[0]
	}
	g := &group{title: b.mainTitle(), topic: "overview", order: -1}
	b.groups = append(b.groups, g)
	return g
}

// expandSplit moves requirements of a prose ticket into a ticket of their
// own: the criteria from the first one (past the first half) that opens
// with a sentence naming an action. The biggest ticket is split first.
func (b *builder) expandSplit() bool {
	var pick *draft
	title := ""
	at := 0
	for _, d := range b.live() {
		switch d.origin {
		case originSection, originItem, originRequest, originOverview:
		default:
			continue
		}
		if len(d.crit) < 2 || d.topic == "errors" || d.topic == "limits" || d.topic == "versioning" {
			continue
		}
		if pick != nil && len(d.crit) <= len(pick.crit) {
			continue
		}
		for k := max(1, len(d.crit)/2); k < len(d.crit); k++ {
			if strings.HasPrefix(d.crit[k], "An automated test") || strings.HasPrefix(d.crit[k], "Automated tests") {
				continue
			}
			t, ok := actionTitle(d.crit[k])
			t = shorten(t, 12, 90)
			if ok && !b.titleTaken(t) && runeLen(t) >= 12 && fieldCount(t) >= 3 {
				pick, title, at = d, t, k
				break
			}
		}
	}
	if pick == nil {
		return false
	}
	end := len(pick.crit)
	if end-at > 3 {
		end = at + (end-at+1)/2
	}
	moved := append([]string{}, pick.crit[at:end]...)
	d := b.newDraft(tickets.TypeTask, originItem, title, pick.sec)
	d.grp, d.topic, d.labels = pick.grp, pick.topic, append([]string{}, pick.labels...)
	d.crit = moved
	pick.crit = append(append([]string{}, pick.crit[:at]...), pick.crit[end:]...)
	d.lead = "Split from \"" + pick.title + "\": deliver this part of its requirements on its own."
	d.order = pick.order + 1
	d.value, d.conf, d.phase = pick.value*0.8, pick.conf-0.05, pick.phase
	d.deps = []*draft{}
	d.words = newWordSet(title)
	return true
}

// expandGroupTasks adds an integration-test or documentation task for a
// group of tickets.
func (b *builder) expandGroupTasks() bool {
	for _, kind := range []string{originTest, originDocs} {
		for _, g := range b.groups {
			var members []*draft
			for _, d := range b.live() {
				if d.grp == g && d.origin != originSpike && d.origin != originTest && d.origin != originDocs && d.origin != originFollowUp {
					members = append(members, d)
				}
			}
			if len(members) < 2 {
				continue
			}
			phrase := lowerFirst(g.title)
			title := "Add integration tests for " + phrase
			if kind == originDocs {
				title = "Document " + phrase + " for integrators"
			}
			title = shorten(title, 14, 110)
			if b.titleTaken(title) {
				continue
			}
			last := members[len(members)-1]
			sec := last.sec
			if g.sec != nil {
				sec = g.sec
			}
			d := b.newDraft(tickets.TypeTask, kind, title, sec)
			d.grp, d.covers = g, members
			d.order = last.order + 1
			d.value, d.conf, d.phase = 0.35, 0.65, 3
			if kind == originTest {
				d.lead = "Cover the tickets of \"" + g.title + "\" with integration tests that drive the real interfaces."
				for _, m := range members {
					d.crit = append(d.crit, "An integration test covers \""+m.title+"\" and checks its acceptance criteria.")
				}
				d.crit = append(d.crit, "The integration tests run in CI on every change and fail the build on a regression.")
				d.labels = []string{"testing"}
			} else {
				d.lead = "Write the integrator-facing documentation of \"" + g.title + "\" with request and response examples."
				for _, m := range members {
					d.crit = append(d.crit, "The docs describe \""+m.title+"\" with a worked example.")
				}
				d.crit = append(d.crit, "Every example in the docs is checked by an automated test.")
				d.labels = []string{"docs"}
			}
			d.words = newWordSet(title)
			return true
		}
	}
	return false
}

// activity is a follow-up that any delivered ticket can have.
type activity struct {
	title string // %s is the subject
	crit  []string
	label string
	value float64
	bug   bool // only for bugs
}

// bugSafe are the labels of generic follow-ups that also make sense for a
// bug fix.
var bugSafe = map[string]bool{"testing": true, "observability": true, "operations": true, "docs": true}

var bugActivities = []activity{
	{"Add a regression test for %s", []string{"A test reproduces %s on the code before the fix and passes after it.", "The test runs in CI on every change."}, "testing", 0.4, true},
	{"Add production alerting for %s", []string{"An alert fires when %s happens again in production.", "The alert links to the runbook entry for this defect."}, "observability", 0.32, true},
	{"Check related code paths for %s", []string{"Every code path that shares the cause of %s is listed.", "Each path is fixed or has a ticket."}, "bug", 0.3, true},
	{"Verify the fix for %s on every supported platform", []string{"The fix for %s is checked on each supported platform and version.", "The results are recorded on the bug ticket."}, "testing", 0.29, true},
	{"Ship the fix for %s in a patch release", []string{"A patch release contains the fix for %s.", "The release notes mention the fix."}, "release", 0.28, true},
	{"Write a postmortem for %s", []string{"A blameless postmortem of %s names the cause and the follow-ups.", "Every follow-up is filed as a ticket."}, "review", 0.27, true},
}

var activities = []activity{
	{"Add automated tests for %s", []string{"Unit tests cover every acceptance criterion of %q.", "The tests run in CI on every change."}, "testing", 0.3, false},
	{"Document %s", []string{"The documentation describes %s with one worked example.", "The docs are linked from the project README."}, "docs", 0.28, false},
	{"Add monitoring and alerts for %s", []string{"A metric counts successes and failures of %s.", "An alert fires when the failure rate passes the agreed threshold."}, "observability", 0.26, false},
	{"Add structured logging for %s", []string{"Each operation of %s logs one structured event with a correlation id.", "The logs hold no secrets or personal data."}, "observability", 0.25, false},
	{"Review security of %s", []string{"A written threat model of %s is reviewed by a second engineer.", "Every finding is fixed or filed as a ticket."}, "security", 0.24, false},
	{"Roll out %s behind a feature flag", []string{"A feature flag turns %s on and off without a deploy.", "The rollout plan names the stages and the rollback step."}, "release", 0.23, false},
	{"Add an end-to-end test for %s", []string{"An end-to-end test exercises %s through the public interface.", "The test runs in CI against a freshly started system."}, "testing", 0.22, false},
	{"Benchmark %s", []string{"A Go benchmark measures %s.", "The result and the machine are recorded in the performance notes."}, "performance", 0.21, false},
	{"Write a runbook for %s", []string{"The runbook lists the alerts, dashboards and recovery steps of %s.", "An engineer who did not build it follows the runbook once in staging."}, "operations", 0.2, false},
	{"Add error handling for %s", []string{"Every failure path of %s returns a clear error naming the cause.", "Tests cover each failure path."}, "errors", 0.19, false},
	{"Add input validation for %s", []string{"Invalid input to %s is rejected with a message naming the field.", "Tests cover the boundary values of each input."}, "validation", 0.18, false},
	{"Write release notes for %s", []string{"The release notes describe %s and any migration step.", "The notes are reviewed before the release."}, "release", 0.17, false},
	{"Add usage analytics for %s", []string{"An analytics event records each use of %s.", "The event carries no personal data."}, "analytics", 0.16, false},
	{"Load test %s", []string{"A load test drives %s at twice the expected peak.", "Latency percentiles and error rate are recorded."}, "performance", 0.15, false},
	{"Add audit logging for %s", []string{"Each change made through %s records who, what and when.", "The audit log is append-only."}, "security", 0.14, false},
	{"Review accessibility of %s", []string{"User-facing parts of %s pass an automated accessibility check with no serious issues.", "Keyboard-only use of %s is verified by hand."}, "accessibility", 0.13, false},
	{"Demo %s to stakeholders", []string{"A demo of %s is held with the requester.", "Feedback from the demo is filed as tickets."}, "review", 0.12, false},
	{"Prepare localisation of %s", []string{"All user-visible text of %s comes from translation files.", "A second locale renders without layout breaks."}, "i18n", 0.11, false},
}

// expandFollowUp adds an operational or quality follow-up for the most
// valuable ticket that lacks it.
func (b *builder) expandFollowUp() bool {
	var bases []*draft
	for _, d := range b.live() {
		switch d.origin {
		case originSpike, originTest, originDocs, originFollowUp:
			continue
		}
		bases = append(bases, d)
	}
	// Most valuable first, document order on ties.
	for i := 1; i < len(bases); i++ {
		for j := i; j > 0 && bases[j].value > bases[j-1].value; j-- {
			bases[j], bases[j-1] = bases[j-1], bases[j]
		}
	}
	for _, a := range append(append([]activity{}, bugActivities...), activities...) {
		for _, base := range bases {
			if a.bug && base.kind != tickets.TypeBug || base.kind == tickets.TypeBug && !a.bug && !bugSafe[a.label] {
				continue
			}
			subject := nounSubject(base.title)
			if subject == "" {
				subject = "\"" + shorten(base.title, 12, 90-runeLen(a.title)) + "\""
			}
			subject = shorten(subject, 14, 120-runeLen(a.title))
			title := strings.Replace(a.title, "%s", subject, 1)
			if b.titleTaken(title) || runeLen(title) > 120 {
				continue
			}
			d := b.newDraft(tickets.TypeTask, originFollowUp, title, base.sec)
			d.grp = base.grp
			d.order = base.order + 2
			d.covers = []*draft{base}
			d.value, d.conf, d.phase = a.value, 0.55, 3
			d.lead = "Follow-up of \"" + base.title + "\"."
			for _, c := range a.crit {
				c = strings.Replace(c, "%q", "\""+base.title+"\"", 1)
				d.crit = append(d.crit, strings.ReplaceAll(c, "%s", subject))
			}
			d.labels = []string{a.label}
			d.words = newWordSet(title)
			return true
		}
	}
	return false
}

// nounVerbs are title verbs followed by a noun phrase that can stand as the
// subject of a follow-up ("Implement X" → "Add monitoring for X").
var nounVerbs = map[string]bool{"implement": true, "add": true, "build": true, "create": true, "define": true, "validate": true, "deliver": true, "support": true, "provide": true, "handle": true, "enforce": true, "call": true, "fix": true, "integrate": true, "sign": true, "emit": true}

// nounSubject returns the noun phrase of a title like "Implement X", or ""
// when the title does not have that form.
func nounSubject(title string) string {
	fields := strings.Fields(title)
	if len(fields) < 2 || !nounVerbs[strings.ToLower(fields[0])] {
		return ""
	}
	for _, w := range fields[1:min(4, len(fields))] {
		lw := strings.ToLower(w)
		if lw == "to" || lw == "can" || lw == "must" || lw == "is" || lw == "are" {
			return ""
		}
	}
	return strings.Join(fields[1:], " ")
}

// expandScenario is the last resort: an acceptance scenario for the main
// piece of work.
func (b *builder) expandScenario() bool {
	subject := lowerFirst(subjectPhrase(b.mainTitle()))
	kind := "acceptance"
	if b.shape == shapeBug {
		kind = "regression"
	}
	for n := 1; n < 200; n++ {
		title := shorten("Write "+kind+" scenario "+itoa(n)+" for "+subject, 16, 120)
		if b.titleTaken(title) {
			continue
		}
		d := b.newDraft(tickets.TypeTask, originFollowUp, title, b.doc.root)
		d.grp = b.groupFor(b.doc.root)
		d.order = 1 << 30
		d.order += n
		d.value, d.conf, d.phase = 0.1, 0.4, 3
		d.lead = "Write acceptance scenario " + itoa(n) + " of " + subject + " in Given/When/Then form."
		d.crit = []string{
			"Scenario " + itoa(n) + " is written in Given/When/Then form and reviewed with the requester.",
			"Scenario " + itoa(n) + " is automated as an acceptance test.",
		}
		d.labels = []string{"testing"}
		d.words = newWordSet(title)
		return true
	}
	return false
}
