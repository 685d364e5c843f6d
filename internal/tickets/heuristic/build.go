package heuristic

import (
	"regexp"
	"slices"
	"sort"
	"strings"
	"unicode"

	"github.com/foresight-dev/foresight/internal/tickets"
)

// This file walks the parsed spec and builds ticket drafts: one per
// endpoint, resource, state machine, captioned table, labelled item or
// section of requirements, plus spikes for unresolved questions. Drafts are
// kept at the finest sensible grain; count.go merges or extends them to the
// requested number.

// Draft origins.
const (
	originEndpoint = "endpoint"
	originResource = "resource"
	originState    = "state"
	originSection  = "section"
	originItem     = "item"
	originOverview = "overview"
	originCommand  = "command"
	originSpike    = "spike"
	originBug      = "bug"
	originRequest  = "request"
	originTest     = "test"
	originDocs     = "docs"
	originFollowUp = "follow-up"
)

// draft is a ticket under construction.
type draft struct {
	seq      int
	kind     string
	origin   string
	title    string
	verb     string   // leading verb phrase of merge-able endpoint titles
	subjects []string // endpoint subjects ("POST /x") for merged titles
	noun     string   // trailing noun of merge-able titles ("endpoint")
	reqID    string   // the spec's identifier of the requirement ("FND-1")
	lead     string   // first description sentence
	role     string
	means    string
	ends     string
	crit     []string // criteria specific to this draft
	general  []string // section-wide criteria shown after crit
	notes    []string // extra description lines
	also     []string // titles of drafts merged into this one
	compact  []string // short criteria used when merged into another kind of draft
	context  []string // spec sentences quoted in detailed descriptions
	sec      *section
	grp      *group
	topic    string
	// byTopic is a title that names the draft's topic, not its section
	// ("Implement event notifications"; see genericTopicTitle).
	byTopic bool
	labels  []string
	value   float64
	// importance is what the spec's priority of the work adds to its
	// value (see priorityValue): a must-have keeps its ticket at the cap.
	importance float64
	conf       float64
	phase      int
	weight     int // extra size for estimation
	deps       []*draft
	// sequenced is list work the spec writes in order (see
	// listedInOrder): it waits for the work listed before it in its
	// section. Other work's place in a list is no dependency.
	sequenced bool
	qs        []*question
	parts     []*draft // drafts merged into this one, for splitting back
	covers    []*draft // drafts a test or docs task covers
	users     []*draft // endpoint drafts that use a resource
	into      *draft   // the draft this one was merged into
	ep        *endpoint
	words     wordSet
	order     int
	alive     bool
	epoch     int           // how many drafts this one absorbed
	tkTitle   string        // title titleKeys was computed for
	tkWords   []string      // keywords of the title
	lowText   string        // see lower
	lowIndex  *phraseIndex  // see lowerIndex
	signals   *draftSignals // see moneySignal
	prio      string        // priority, computed once when rendering
}

// lower returns the title and criteria in lower case without code spans,
// for word signals; it is computed once, after fitting.
func (d *draft) lower() string {
	if d.lowText == "" {
		d.lowText = strings.ToLower(prose(d.title + " " + strings.Join(d.crit, " ")))
	}
	return d.lowText
}

// lowerIndex is the phraseIndex of lower(), computed once.
func (d *draft) lowerIndex() *phraseIndex {
	if d.lowIndex == nil {
		d.lowIndex = newPhraseIndex(d.lower())
	}
	return d.lowIndex
}

// titleKeys returns the keywords of the draft's title, cached; of its
// heading alone for a title that states its section's first sentence
// (statedHeading), so that the fit to a ticket count, which weighs them,
// weighs a section the same whichever way it is titled.
func (d *draft) titleKeys() []string {
	if d.tkTitle != d.title || d.tkWords == nil {
		d.tkTitle, d.tkWords = d.title, keywords(d.workName())
	}
	return d.tkWords
}

// workName is what names the draft's work: its title, or the heading of a
// title that states its section's first sentence ("WAL archiving" of "WAL
// archiving: archive_command pushes …", see statedHeading).
func (d *draft) workName() string {
	if h, ok := d.statedHeading(); ok {
		return h
	}
	return d.title
}

// group is a major section of the spec; it becomes an epic when it holds at
// least two tickets and epics are wanted.
type group struct {
	title      string
	sec        *section
	topic      string
	order      int
	suppressed bool
	words      wordSet
}

// question is an unresolved item of the spec.
type question struct {
	text    string
	subject string // what must be decided, for spike titles
	sec     *section
	order   int
	block   int // how much the question blocks work
	words   []string
	spike   *draft
}

// unit is one requirement-bearing piece of a section: a sentence of a
// paragraph or list item, or a table row rendered as a sentence.
type unit struct {
	text    string
	sec     *section
	order   int
	caption string
	item    *itemGroup
	table   *table
	words   []string
	claimed bool
	// para is 1 + the index of the paragraph block of its section the
	// unit was read from, 0 for a unit of a list or table.
	para int
}

// itemGroup is a top-level list item with what it holds.
type itemGroup struct {
	label    string
	reqID    string // the identifier a requirement table gives the item ("R1")
	keyword  string // the priority a requirement table gives the item (see priorityKeyword)
	title    string // the title a requirement table gives the item ("Save cart")
	text     string
	units    []*unit
	children bool
	steps    bool
	ordered  bool // an item of a numbered list
	// sequenced is an item the spec writes in order (see listedInOrder).
	sequenced bool
	sec       *section
	order     int
}

// ruleTable is a table that is neither an endpoint, field nor state table;
// its rows become criteria.
type ruleTable struct {
	caption string
	t       *table
	units   []*unit
	order   int
}

// sectionInfo holds what the walk found in one section.
type sectionInfo struct {
	topic      string
	units      []*unit
	items      []*itemGroup
	fields     []*table
	states     []*table
	rules      []*ruleTable
	endpoints  []*endpoint
	drafts     []*draft
	hasContent bool
	topicDone  bool
	checklist  bool // the section lists its work as a checklist
	labelled   int  // see labelledRequirements: 0 not yet known, 1 yes, -1 no
	direction  *directionInfo
	cells      map[string]bool // lower-cased cells of the field tables
	types      string          // lower-cased type cells of the field tables
}

// builder holds one generation.
type builder struct {
	m *meter
	// contextOf keeps whether a sentence is context (see splitChecks),
	// read once for every draft that holds it.
	contextOf map[string]bool
	// declaredNames maps a criterion read from a code block to the names
	// it declares (see declarations, declaredDependencies).
	declaredNames map[string][]string
	// sectionAfter is the major section whose work a major section's
	// work follows: the phase or the foundations before it (see
	// phaseDependencies).
	sectionAfter map[*section]*section
	// lateCriteria are "Acceptance criteria" sections whose units are
	// criteria of the work before them, attached once that work is
	// drafted (see criteriaOfEarlierWork).
	lateCriteria   []lateCriteria
	req            tickets.GenerationRequest
	opts           tickets.Options
	doc            *document
	docTitle       string
	shape          string
	info           []*sectionInfo // by section index
	top            map[*section]bool
	drafts         []*draft
	groups         []*group
	questions      []*question
	questionByText map[string]*question // b.questions by foldKey of their text
	units          []*unit
	endpoints      []*endpoint
	details        []detailRow
	seq            int
	order          int
	docRole        string
	lastText       string // the previous sentence, for pronouns in questions
	covered        wordSet
	coveredN       int
	headingWords   wordSet
	lowerSpec      string   // the spec in lower case
	lines          []string // the spec's lines, see specLines
	dropped        []*draft // drafts fit left out to honour the ticket count
	folded         []*draft // drafts fit merged into other tickets
	notTicketed    []string // open questions about work the spec ranks too low to ticket
	specRisks      []specRisk
	caption        string         // the label over the sentence addUnit reads
	headingNames   []string       // by section index: the heading in lower case without its number, see sectionNamed
	groupSizes     map[*group]int // see groupCounts
}

// specRisk is a risk the spec names itself, in a risk section or under a
// "Risks" label, with its mitigation when the spec gives one.
type specRisk struct {
	text string
	sec  *section
}

// Spec shapes.
const (
	shapeStructured = "structured"
	shapePlain      = "plain"
	shapeBug        = "bug"
	shapeQuestions  = "questions"
	shapeEmpty      = "empty"
)

func newBuilder(m *meter, req tickets.GenerationRequest, opts tickets.Options, doc *document) *builder {
	b := &builder{m: m, req: req, opts: opts, doc: doc, top: map[*section]bool{}, questionByText: map[string]*question{}, lowerSpec: strings.ToLower(req.Spec)}
	classifySections(doc)
	b.info = make([]*sectionInfo, len(doc.sections))
	for i := range b.info {
		b.info[i] = &sectionInfo{}
	}
	return b
}

func (b *builder) newDraft(kind, origin, title string, sec *section) *draft {
	b.seq++
	d := &draft{seq: b.seq, kind: kind, origin: origin, title: title, sec: sec, alive: true, conf: 0.75, phase: 2}
	if sec != nil {
		d.order = sec.index*10000 + b.seq
	} else {
		d.order = b.seq
	}
	b.drafts = append(b.drafts, d)
	return d
}

// build runs the extraction phases.
func (b *builder) build() {
	b.findTop()
	b.docRole = b.dominantRole(b.lowerSpec)
	if strings.TrimSpace(b.req.Spec) == "" || !hasContentWord(b.req.Spec) {
		b.shape = shapeEmpty
		b.buildFromTitle()
		b.assignGroups()
		return
	}
	b.walk()
	switch {
	case b.isBugReport():
		b.shape = shapeBug
		b.buildBug()
	case b.isQuestionsOnly():
		b.shape = shapeQuestions
		b.buildQuestionSpikes(true)
	default:
		if b.doc.headingCount() == 0 {
			b.shape = shapePlain
		} else {
			b.shape = shapeStructured
		}
		b.attachDetails()
		b.claimNamedUnits()
		for i := len(b.doc.sections) - 1; i >= 0; i-- {
			b.m.tick(1)
			b.buildSection(b.doc.sections[i])
		}
		b.attachLateCriteria()
		b.attachNoteConstraints()
		b.dropContextOnly()
		b.mergeSubResources()
		b.linkResources()
		b.buildQuestionSpikes(false)
	}
	if b.liveCount() == 0 && !b.closedOnly() {
		b.buildFromTitle()
	}
	b.dedupeTitles()
	b.assignGroups()
	b.naturalMerge()
	b.mergeRestatements()
	b.layerDependencies()
	b.orderDependencies()
	b.declaredDependencies()
	b.labelDependencies()
	b.foldRestatedRequirements()
}

// dropContextOnly drops the draft of a section or list item whose every
// sentence is context (see splitChecks): "While all of these new features
// are pretty small in their own right, they all add up to …" is no work,
// and was a ticket "Implement while all of these new features are pretty
// small in their own right". Its sentences stay in the spec; a draft with
// a story's want, an endpoint, a requirement identifier or no sentences
// of its own is kept, and so is a KEP's graduation to a stage, whose
// gates are met by others ("Implemented feedback from alpha testers") but
// whose promotion is work.
func (b *builder) dropContextOnly() {
	for _, d := range b.drafts {
		if !d.alive || d.origin != originSection && d.origin != originItem || d.means != "" || d.ep != nil || d.reqID != "" || len(d.crit) == 0 || graduationOf(d.sec) != "" {
			continue
		}
		if checks, _ := b.splitChecks(cleanCriteria(d.crit)); len(checks) == 0 {
			d.alive = false
		}
	}
}

// foldRestatedRequirements folds a short section that restates a numbered
// requirement by its identifier ("### 12.1 Fleet register: Read-only,
// nightly and on demand (FND-4)") into that requirement's ticket, as
// criteria, instead of a second ticket about the same work.
func (b *builder) foldRestatedRequirements() {
	byLabel := map[string]*draft{}
	for _, d := range b.drafts {
		if d.alive && d.reqID != "" && byLabel[d.reqID] == nil {
			byLabel[d.reqID] = d
		}
	}
	if len(byLabel) == 0 {
		return
	}
	for _, d := range b.drafts {
		if !d.alive || d.reqID != "" || d.origin != originSection || d.sec == nil || len(b.info[d.sec.index].units) > 3 {
			continue
		}
		var into *draft
		for _, text := range append([]string{d.lead}, d.crit...) {
			b.m.tick(1)
			for _, l := range specLabel.FindAllString(text, -1) {
				if t := byLabel[l]; t != nil && (into == nil || into == t) {
					into = t
				} else if t != nil {
					into = nil // two requirements: not a restatement of one
					break
				}
			}
		}
		if into != nil && into.alive {
			b.merge(into, d, false)
		}
	}
}

var (
	// specLabel is an identifier the spec gives a requirement, finding or
	// report ("F-01", "WO-3", "BB-12").
	specLabel = regexp.MustCompile(`\b[A-Z]{1,8}-\d{1,4}[a-z]?\b`)
	// waitCue says that what a sentence asks waits for something else.
	waitCue = regexp.MustCompile(`(?i)\b(after|once|requires?|required|depends on|blocked by|blocked on|waits for|not before|prerequisites?)\b`)
)

// labelDependencies reads the order the spec states with its own
// identifiers: a draft whose text says it waits for others by name ("Book
// the retest once F-01, F-02 and F-03 are fixed", "Requires FND-4")
// depends on the drafts those identifiers name, a requirement's identifier
// or the label opening its section's heading.
func (b *builder) labelDependencies() {
	byLabel := map[string]*draft{}
	for _, d := range b.drafts {
		if !d.alive || d.kind == tickets.TypeEpic {
			continue
		}
		b.m.tick(1)
		label := d.reqID
		if label == "" && d.sec != nil {
			if m := specLabel.FindStringIndex(d.sec.heading); m != nil && m[0] == 0 {
				label = d.sec.heading[m[0]:m[1]]
			}
		}
		if label != "" && byLabel[label] == nil {
			byLabel[label] = d
		}
	}
	if len(byLabel) < 2 {
		return
	}
	for _, d := range b.drafts {
		if !d.alive {
			continue
		}
		for _, text := range append(append([]string{d.lead}, d.crit...), d.general...) {
			b.m.tick(1)
			if !strings.Contains(text, "-") {
				continue
			}
			loc := waitCue.FindStringIndex(text)
			if loc == nil {
				continue
			}
			for _, l := range specLabel.FindAllString(text[loc[1]:], -1) {
				if on := byLabel[l]; on != nil && on != d && !slices.Contains(d.deps, on) {
					d.deps = append(d.deps, on)
				}
			}
		}
	}
}

// findTop decides which sections are the major sections of the spec: the
// children of a lone top heading, or the top-level headings.
func (b *builder) findTop() {
	root := b.doc.root
	tops := root.children
	if len(tops) == 1 && len(tops[0].children) > 0 {
		b.docTitle = tops[0].heading
		tops = tops[0].children
	}
	for _, s := range tops {
		b.top[s] = true
	}
	if first := root.children; b.docTitle == "" && len(first) > 0 && first[0].level == 1 && len(first[0].children) == 0 && classifyHeading(first[0].heading) == workSection && !genericWorkHeading.MatchString(cleanHeading(first[0].heading)) {
		// An RFC's "# Summary" opens the document but names no work.
		b.docTitle = first[0].heading
	}
}

// major returns the major section holding s, or nil for intro text.
func (b *builder) major(s *section) *section {
	for c := s; c != nil; c = c.parent {
		if b.top[c] {
			return c
		}
	}
	return nil
}

// isIntro reports whether s holds the spec's introduction (text before the
// first major section).
func (b *builder) isIntro(s *section) bool {
	return b.major(s) == nil && b.doc.headingCount() > 0
}

// walk reads every section into units, tables, items and questions.
func (b *builder) walk() {
	for _, s := range b.doc.sections {
		in := b.info[s.index]
		in.topic = b.topicOf(s)
		in.topicDone = true
		if s.class == riskSection {
			b.collectRisks(s)
			continue
		}
		if !s.isWork() || hasSolution(s) {
			continue
		}
		b.walkBlocks(s)
	}
	if b.walkedNothing() {
		for _, s := range b.doc.sections {
			if s.class == contextSection && summaryHeading.MatchString(strings.ToLower(s.cleanedHeading())) && (s.parent == nil || s.parent.isWork()) {
				// "## Summary" holding the RFC's only requirement ("This
				// RFC proposes to make the field optional.") under a
				// header of metadata: the summary is the work.
				s.class = workSection
				b.info[s.index].topic = "" // the work, no longer an overview of it
				b.walkBlocks(s)
			}
		}
	}
}

// hasSolution reports whether s states a problem over a solution of its
// own ("**Recommended solution:**"): its own text is the problem, the
// solution the work.
func hasSolution(s *section) bool {
	for _, c := range s.children {
		if c.level > 3 && solutionLabel.MatchString(c.heading) {
			return true
		}
	}
	return false
}

// summaryHeading is the heading of a summary of the work, read as the work
// when the spec says nothing else (see walk).
var summaryHeading = regexp.MustCompile(`^(summary|executive summary|abstract|tl;?dr|overview)$`)

// walkedNothing reports whether walking the work sections found nothing
// to draft from: no requirement, table or endpoint.
func (b *builder) walkedNothing() bool {
	if len(b.units) > 0 || len(b.details) > 0 {
		return false
	}
	for _, in := range b.info {
		if len(in.fields) > 0 || len(in.states) > 0 || len(in.rules) > 0 || len(in.endpoints) > 0 {
			return false
		}
	}
	return true // list items hold units when they say anything
}

// walkBlocks reads the blocks of the work section s into units, tables,
// items and questions. A caption is the lead-in a paragraph or list ends
// with ("… including:"), which names what the next list or table holds.
func (b *builder) walkBlocks(s *section) {
	in := b.info[s.index]
	caption := ""
	for bi, bl := range s.blocks {
		b.m.tick(1)
		switch bl.kind {
		case paragraphBlock:
			in.hasContent = true
			caption = b.walkParagraph(s, bi)
		case listBlock:
			in.hasContent = true
			caption = b.walkList(s, bl.items, caption)
		case tableBlock:
			in.hasContent = true
			b.walkTable(s, bl.table, caption)
			caption = ""
		case codeBlock:
			b.walkCode(s, bi)
			caption = ""
		}
	}
}

// walkParagraph reads the paragraph s.blocks[bi] into units, one a
// sentence, and returns its caption: its last sentence when that ends
// with a colon, else "".
func (b *builder) walkParagraph(s *section, bi int) (caption string) {
	in, bl := b.info[s.index], s.blocks[bi]
	text := bl.text
	if s.guide && bi+1 < len(s.blocks) && s.blocks[bi+1].kind == codeBlock && strings.HasSuffix(text, ":") {
		// "… every response tells it where it stands:" over an
		// example: the example's lines are what it states.
		text = strings.TrimSuffix(text, ":") + ": " + exampleLines(s.blocks[bi+1].text) + "."
	}
	if ep := b.lineEndpoint(s, bl); ep != nil {
		// "### Create Task" over "POST /api/tasks": the
		// section is that endpoint, its heading what it does.
		in.endpoints = append(in.endpoints, ep)
		text = strings.TrimSpace(strings.TrimPrefix(text, bl.first))
	}
	sentences := splitSentences(text)
	for i, sent := range sentences {
		if i+1 < len(sentences) && strings.HasSuffix(sent, "?") && !hasMarker(sentences[i+1]) && !strings.HasSuffix(sentences[i+1], "?") {
			// "So, how should … handle new beneficiaries?" and the
			// answer in the next sentence: the spec asks to explain,
			// it leaves nothing open.
			continue
		}
		if u := b.addUnit(s, sent, "", nil, nil); u != nil {
			u.para = bi + 1
		}
	}
	if n := len(sentences); n > 0 && strings.HasSuffix(sentences[n-1], ":") {
		return strings.TrimSuffix(sentences[n-1], ":")
	}
	return ""
}

// walkList reads a list under caption into units and returns the caption
// of what follows: its last item's lead-in ("… the following:", a
// "Label:" with no children), else "".
func (b *builder) walkList(s *section, items []*listItem, caption string) string {
	if shortItems(items) && (caption != "" || len(s.blocks) == 1 && s.level >= 3) {
		// "Unit and integration tests …, including:" over
		// "- defaulting", "- validation": one requirement. So is
		// a bold "**Immediate**" over "- Direct messages", "-
		// @mentions" (they were lost).
		if caption == "" {
			caption = s.cleanedHeading()
		}
		var names []string
		for _, it := range items {
			names = append(names, strings.TrimRight(itemText(it), ".;,"))
		}
		b.addUnit(s, caption+": "+strings.Join(names, ", ")+".", "", nil, nil)
		return ""
	}
	if b.info[s.index].topic == "testing" && caption != "" && testsCover.MatchString(caption) && coveredItems(items) {
		// "Unit, integration and E2E tests cover the following
		// Indexed Job mechanics:" over "- Scale up and down", "-
		// Pod failures": what the tests cover, each a criterion
		// of the test plan's ticket ("Pod failures." was a ticket
		// of its own, and its criterion).
		for _, it := range items {
			b.addUnit(s, strings.Replace(caption, " the following ", " ", 1)+": "+lowerFirst(strings.TrimRight(itemText(it), ".;,"))+".", "", nil, nil)
		}
		return ""
	}
	for _, it := range items {
		b.walkItem(s, it, caption)
	}
	if n := len(items); n > 0 {
		last := items[n-1]
		if strings.HasSuffix(last.text, ":") && len(last.children) == 0 {
			return strings.TrimSuffix(last.text, ":")
		} else if label, _, ok := splitLabel(last.text); ok && len(last.children) == 0 {
			return label
		}
	}
	return ""
}

// walkCode reads the code block s.blocks[bi] into units, one a
// declaration, unless it is a guide's example or introduced as one.
func (b *builder) walkCode(s *section, bi int) {
	if s.guide || bi > 0 && s.blocks[bi-1].kind == paragraphBlock && exampleLeadIn.MatchString(s.blocks[bi-1].text) {
		return
	}
	// "CREATE TABLE system.web_sessions (…)", "rpc
	// UserLogout(…)": what the design declares is work
	// (see declarations); an example is not.
	for _, d := range declarations(s.blocks[bi].text) {
		if b.addUnit(s, d.criterion, "", nil, nil) != nil {
			if b.declaredNames == nil {
				b.declaredNames = map[string][]string{}
			}
			b.declaredNames[d.criterion] = d.names
		}
	}
}

// exampleLeadIn is a paragraph that introduces a code block as an example
// or an output, not as what to build.
var exampleLeadIn = regexp.MustCompile(`(?i)\b(?:for example|for instance|e\.g\.|example|such as|looks like|would look|like this|output|sample)\b`)

// endpointLine is a line that is only an HTTP method and a path.
var endpointLine = regexp.MustCompile("^`?(GET|POST|PUT|PATCH|DELETE) +(/[^\\s`]*)`?$")

// lineEndpoint is the endpoint a section names on a line of its own at the
// start of a paragraph, under a heading that is no endpoint itself; nil
// otherwise, or when the section already has one.
func (b *builder) lineEndpoint(s *section, bl *block) *endpoint {
	first := strings.TrimSpace(bl.first)
	if first == "" || !strings.ContainsRune("GPD`", rune(first[0])) || !strings.Contains(first, " /") {
		return nil
	}
	m := endpointLine.FindStringSubmatch(first)
	if m == nil || len(b.info[s.index].endpoints) > 0 || methodPath.MatchString(stripCode(s.heading)) {
		return nil
	}
	words := strings.Fields(s.cleanedHeading())
	for i, w := range words {
		if len(w) > 1 && w[1:] == strings.ToLower(w[1:]) {
			words[i] = strings.ToLower(w) // "Get All Tasks": Title Case, no names
		}
	}
	t := &table{header: []string{"Endpoint", "Description"}, rows: [][]string{{m[1] + " " + m[2], strings.Join(words, " ")}}}
	return b.endpointFromRow(s, t, t.rows[0])
}

// walkItem reads list item it of s, under caption: a command of a CLI, a
// line that is no work, a labelled group, or else an item group whose
// sentences and whose sub-items' sentences are its units.
func (b *builder) walkItem(s *section, it *listItem, caption string) {
	if cmd := commandName(it.text); cmd != "" && b.cliContext(s) {
		b.addCommand(s, it, cmd)
		return
	}
	if mayBeNotWorkLine(it.text) && notWorkLine.MatchString(it.text) {
		return // "Email templates are out of scope here": a line that is no work
	}
	if len(it.children) > 0 && b.walkLabelledGroup(s, it) {
		return
	}
	ig := b.newItemGroup(s, it, caption)
	children, childCaption := b.addItemOwnUnits(s, it, caption, ig)
	for _, c := range children {
		for _, sent := range splitSentences(itemText(c)) {
			b.addItemUnit(s, sent, childCaption, ig)
		}
	}
}

// walkLabelledGroup walks item it of s, which has sub-items, when its
// short label makes it a group of the class the label names, as a
// heading would ("**Assumptions:**", "**Risks & Mitigations:**"): a list
// of work whose sub-items are each a piece of work, risks, or context or
// no work, which adds nothing. It reports whether it was such a group.
func (b *builder) walkLabelledGroup(s *section, it *listItem) bool {
	label := strings.TrimSuffix(strings.TrimSpace(it.text), ":")
	if l, _, ok := splitLabel(it.text); ok {
		label = l
	}
	if fieldCount(label) > 6 {
		return false
	}
	if len(it.children) >= 2 && itemListLabel.MatchString(label) {
		// "**User Stories:**" or "**Functional Requirements:**"
		// over a list: each item is a piece of work of its own.
		for _, c := range it.children {
			b.walkItem(s, c, label)
		}
		return true
	}
	switch classifyHeading(label) {
	case riskSection:
		for _, c := range it.children {
			b.addSpecRisk(s, itemText(c))
		}
		return true
	case contextSection, notWorkSection:
		return true
	}
	return false
}

// dashLabel is a list item's label set off by a dash ("Ollama-native
// client — Ollama's own API …"); m[1] is the label.
var dashLabel = regexp.MustCompile(`^([^—–:]{2,60}?) [—–] \S`)

// newItemGroup records the group of list item it of s, under caption,
// labelled with the label it opens with or the text before its closing
// colon, and marks s a checklist when it is a checkbox.
func (b *builder) newItemGroup(s *section, it *listItem, caption string) *itemGroup {
	in := b.info[s.index]
	if it.check {
		in.checklist = true
	}
	b.order++
	ig := &itemGroup{text: itemText(it), children: len(it.children) > 0, ordered: it.ordered, sec: s, order: b.order,
		sequenced: listedInOrder(s, it, caption)}
	ig.steps = strings.Contains(it.text, "(1)") || strings.Contains(it.text, " 1) ")
	if label, _, ok := splitLabel(it.text); ok && fieldCount(label) <= 7 {
		ig.label = strings.TrimSpace(label)
	} else if strings.HasSuffix(it.text, ":") {
		ig.label = strings.TrimSuffix(it.text, ":")
	} else if m := dashLabel.FindStringSubmatch(it.text); m != nil && fieldCount(m[1]) <= 5 {
		ig.label = m[1] // "**Ollama-native client** — Ollama's own API …"
	}
	in.items = append(in.items, ig)
	return ig
}

// addItemOwnUnits records the units of item it's own text, under
// caption, in group ig. It returns the sub-items whose sentences are
// units of ig too, and the caption they go under: the item's text before
// its colon when it introduces them, else its label or caption. An order
// over short sub-items ("1. Enable feature flags in Gateway:" over the
// flags) is one unit that names them, and they are no units of their
// own.
func (b *builder) addItemOwnUnits(s *section, it *listItem, caption string, ig *itemGroup) (children []*listItem, childCaption string) {
	children, childCaption = it.children, caption
	if strings.HasSuffix(it.text, ":") && len(it.children) > 0 {
		childCaption = strings.TrimSuffix(it.text, ":")
		if fields := strings.Fields(childCaption); len(fields) >= 3 && baseVerbs[strings.ToLower(fields[0])] {
			// "1. Enable feature flags in Gateway:" over the flags: the
			// order is the work, its short sub-items what it sets (the
			// item was lost with them).
			text := childCaption + "."
			if shortItems(it.children) || len(it.children) == 1 && fieldCount(it.children[0].text) <= 2 {
				var names []string
				for _, c := range it.children {
					names = append(names, strings.TrimRight(itemText(c), ".;,"))
				}
				text = childCaption + ": " + strings.Join(names, ", ") + "."
				children = nil
				ig.children = false
			}
			b.addItemUnit(s, text, caption, ig)
		}
		return children, childCaption
	}
	for _, sent := range splitSentences(it.text) {
		b.addItemUnit(s, sent, caption, ig)
	}
	if ig.label != "" {
		childCaption = ig.label
	}
	return children, childCaption
}

// addItemUnit records text as a unit of item group ig under caption (see
// addUnit).
func (b *builder) addItemUnit(s *section, text, caption string, ig *itemGroup) {
	if u := b.addUnit(s, text, caption, ig, nil); u != nil {
		ig.units = append(ig.units, u)
	}
}

// itemListLabel labels a list whose items are each a piece of work.
var itemListLabel = regexp.MustCompile(`(?i)^(user stories|stories|(functional |product |key )?requirements|(key |core )?features)$`)

var (
	// layerOf names the words that place a title in a layer (see layer).
	layerOf = map[string]int{
		"ui": 3, "screen": 3, "page": 3, "frontend": 3, "widget": 3, "dashboard": 3, "console": 3,
		"controller": 2, "service": 2, "worker": 2, "scheduler": 2,
		"endpoint": 1, "endpoints": 1,
		"entity": 0, "entities": 0, "model": 0, "schema": 0, "migration": 0, "table": 0,
	}
	layerWords = map[string]bool{"implement": true, "define": true, "entity": true, "api": true, "controller": true, "service": true, "endpoint": true, "the": true, "get": true, "post": true, "put": true, "patch": true, "delete": true, "to": true, "a": true, "an": true, "of": true, "for": true, "and": true, "add": true, "schema": true, "response": true, "request": true, "result": true, "body": true, "object": true, "error": true, "code": true, "mapping": true, "data": true, "model": true}
	httpPath   = regexp.MustCompile(`\b(?:GET|POST|PUT|PATCH|DELETE) (/\S*)`)
)

// mergeRestatements folds a requirement that restates a user story of the
// same section into that story, as PRDs list both ("As a user, I want to
// add a new application by scanning a QR code" and "Add new TOTP
// credential via QR code scan"): the story keeps the requirement's words
// as criteria and names it under "Also covers".
func (b *builder) mergeRestatements() {
	var stories []*draft
	for _, d := range b.drafts {
		if d.alive && d.kind == tickets.TypeStory && d.origin == originItem && d.sec != nil {
			stories = append(stories, d)
		}
	}
	if len(stories) == 0 || len(stories) > 200 {
		return
	}
	words := map[*draft]wordSet{}
	for _, d := range b.drafts {
		if !d.alive || d.kind != tickets.TypeTask || d.origin != originItem || d.sec == nil {
			continue
		}
		b.m.tick(len(stories))
		var best *draft
		bestN := 0
		own := keywords(d.title)
		for _, st := range stories {
			if st.sec != d.sec || !st.alive || st.order > d.order {
				continue
			}
			if words[st] == nil {
				words[st] = newWordSet(st.title)
			}
			if n := words[st].overlap(own); n > bestN {
				best, bestN = st, n
			}
		}
		if best != nil && (bestN >= 4 && 2*bestN >= len(words[best]) || bestN >= 2 && bestN == len(own)) {
			// Most of the story's words, or all of the requirement's
			// ("Delete credentials" under "I want to delete credentials I
			// no longer need"): the requirement says it again.
			b.absorb(best, d)
		}
	}
}

// closedOnly makes the one ticket of a report list whose reports are all
// closed (every "Issue N" of a project's Bugs.md marked "Fixed: x.y.z"): a
// task to confirm they stay fixed, naming them, instead of a ticket guessed
// from the title. It reports whether it did.
func (b *builder) closedOnly() bool {
	var closed []*section
	for _, s := range b.doc.sections {
		if s.closed {
			closed = append(closed, s)
		}
	}
	if len(closed) < 2 {
		return false
	}
	sec := closed[0].parent
	if sec == nil {
		sec = b.doc.root
	}
	d := b.newDraft(tickets.TypeTask, originSection, "Confirm the "+itoa(len(closed))+" reports marked closed need no more work", sec)
	d.topic = "bug"
	d.lead = "Every report of the spec is marked fixed, duplicate or won't fix, so none becomes a bug ticket; the open questions name them with their lines."
	var names []string
	for _, s := range closed {
		names = append(names, s.cleanedHeading())
	}
	d.crit = []string{
		"Each closed report (" + shorten(strings.Join(names, ", "), 40, 300) + ") is checked against the release or reason its entry gives.",
		"A report found open again is filed as a bug of its own.",
	}
	d.conf, d.value = 0.5, 0.3
	d.words = newWordSet(d.title)
	b.info[sec.index].drafts = append(b.info[sec.index].drafts, d)
	return true
}

// layer is where a draft sits in the order data model, API, logic, user
// interface, by its title; -1 when the title says nothing of it.
// The words are ASCII letters, digits and '_' (a regular expression's
// \b), matched case-insensitively; an HTTP method before a path ("GET /")
// is the API, and a title ending in the word "API" (any case) the data model. It
// reads the title once: it runs for every draft, and four regular
// expressions per title were a sixth of the engine's time on a 1 MiB list.
func layer(title string) int {
	best := -1
	for i := 0; i < len(title); {
		if !isASCIIWordByte(title[i]) {
			i++
			continue
		}
		j := i
		for j < len(title) && isASCIIWordByte(title[j]) {
			j++
		}
		w := title[i:j]
		if l, ok := layerOf[strings.ToLower(w)]; ok && l > best {
			best = l
		}
		if best < 1 && strings.HasPrefix(title[j:], " /") && isHTTPMethod(w) {
			best = 1
		}
		if best < 0 && j == len(title) && strings.EqualFold(w, "API") {
			best = 0
		}
		i = j
	}
	return best
}

// statedHeading is the heading of a ticket titled by its section's heading
// and what the section's first sentence states ("Pagination: List
// endpoints page with an opaque cursor", see statedTitle), also once it
// holds the section's other drafts; ok is false for any other title.
func (d *draft) statedHeading() (heading string, ok bool) {
	if d.sec == nil {
		return "", false
	}
	h := d.sec.cleanedHeading()
	return h, strings.HasPrefix(d.title, h+": ")
}

// draftLayer is the layer of a draft's title or, for the ticket of a
// whole section titled by its first requirement ("Expand the .spec for a
// CronJob with a new timeZone field" of "### CronJob API"), of its
// section's heading.
func draftLayer(d *draft) int {
	if h, ok := d.statedHeading(); ok {
		// "Pagination: List endpoints page with …": the heading says where
		// the work sits; the statement's words ("page") are its content.
		return layer(h)
	}
	l := layer(d.title)
	if l < 0 && d.origin == originSection && d.sec != nil {
		l = layer(d.sec.cleanedHeading())
	}
	return l
}

// isASCIIWordByte is a word byte of a regular expression's \b.
func isASCIIWordByte(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_'
}

func isHTTPMethod(w string) bool {
	switch w {
	case "GET", "POST", "PUT", "PATCH", "DELETE":
		return true
	}
	return false
}

// nameWords are the words of a title that name things ("todo" of "GET
// /api/todos", "cronjob" of "CronJob controller"), singular.
func nameWords(title string) map[string]bool {
	out := map[string]bool{}
	text := title
	if m := httpPath.FindStringSubmatch(title); m != nil {
		// An endpoint is named by its resource, the path's last segment
		// and the one before a parameter ("todos" of "/api/todos/:id"),
		// not by its prefix ("/api", "/tickets/v1").
		var names []string
		segs := strings.Split(strings.Trim(m[1], "/"), "/")
		for i, seg := range segs {
			param := strings.HasPrefix(seg, ":") || strings.HasPrefix(seg, "{")
			if !param && (i == len(segs)-1 || i+1 < len(segs) && (strings.HasPrefix(segs[i+1], ":") || strings.HasPrefix(segs[i+1], "{"))) {
				names = append(names, seg)
			}
		}
		text = strings.Join(names, " ")
	}
	for _, w := range strings.FieldsFunc(strings.ToLower(stripCode(text)), func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) }) {
		w = strings.TrimSuffix(w, "s")
		if len(w) > 2 && !layerWords[w] && !stopWords[w] {
			out[w] = true
		}
	}
	return out
}

// layerDependencies makes work wait for the layer below it that it names:
// an endpoint for the entity it serves ("GET /api/todos" after "Define the
// Todo entity"), a controller for its API type ("CronJob controller" after
// "CronJob API"), a screen for its endpoint.
func (b *builder) layerDependencies() {
	type layered struct {
		d     *draft
		layer int
		names map[string]bool
	}
	var all []layered
	for _, d := range b.drafts {
		if !d.alive || d.kind == tickets.TypeEpic || d.kind == tickets.TypeSpike || d.kind == tickets.TypeBug {
			continue
		}
		b.m.tick(1)
		if l := draftLayer(d); l >= 0 {
			all = append(all, layered{d, l, nameWords(d.title)})
		}
	}
	if len(all) > 200 {
		return // a spec this size is read for its own words, not by layers
	}
	for _, x := range all {
		for _, y := range all {
			b.m.tick(1)
			if y.layer >= x.layer || y.layer != x.layer-1 && !(x.layer == 2 && y.layer == 0) {
				continue
			}
			for w := range x.names {
				if y.names[w] {
					x.d.deps = append(x.d.deps, y.d)
					break
				}
			}
		}
	}
}

// collectRisks records the risks a risk section names: each list item or
// table row is one, and a paragraph after an item is its mitigation.
func (b *builder) collectRisks(s *section) {
	open := false
	for _, bl := range s.blocks {
		b.m.tick(1)
		switch bl.kind {
		case listBlock:
			for _, it := range bl.items {
				b.addSpecRisk(s, itemText(it))
			}
			open = len(bl.items) > 0
		case paragraphBlock:
			text := collapseSpaces(bl.text)
			if open && len(b.specRisks) > 0 {
				r := &b.specRisks[len(b.specRisks)-1]
				r.text = strings.TrimRight(r.text, ". ") + ". " + text
				open = false
				continue
			}
			b.addSpecRisk(s, text)
		case tableBlock:
			for _, row := range bl.table.rows {
				b.addSpecRisk(s, strings.Join(row, "; "))
			}
			open = false
		}
	}
}

// mitigationLabel is the "Mitigation:" of a risk line; what follows it is
// work the spec commits to ("Mitigation: Provide manual entry fallback").
var mitigationLabel = regexp.MustCompile(`(?i)\bmitigations?\s*:\s*(.+)$`)

// addSpecRisk records a risk of the spec; a mitigation the spec labels as
// such is also work, and gets a task of its own.
func (b *builder) addSpecRisk(s *section, text string) {
	text = strings.TrimSpace(text)
	if fieldCount(text) < 2 {
		return
	}
	if rest, ok := strings.CutPrefix(text, "Note:"); ok && noWorkStatement.MatchString(strings.TrimSpace(rest)) {
		return // "**Note:** No server-side changes are required for this" is no risk
	}
	b.specRisks = append(b.specRisks, specRisk{text: text, sec: s})
	m := mitigationLabel.FindStringSubmatch(text)
	if m == nil || fieldCount(m[1]) < 3 {
		return
	}
	title, _ := imperative(dropParentheticals(m[1]))
	d := b.newDraft(tickets.TypeTask, originItem, shorten(title, 12, 90), s)
	d.topic = "risk"
	for _, sent := range splitSentences(m[1]) {
		d.crit = append(d.crit, sentenceCase(sent))
	}
	d.lead = "Mitigation of a risk the spec names: " + strings.TrimRight(shorten(text, 40, 300), ".") + "."
	d.conf, d.value = 0.7, 0.55
	d.words = newWordSet(d.title + " " + m[1])
	b.info[s.index].drafts = append(b.info[s.index].drafts, d)
}

// shortItems reports whether a list is two or more items of one or two
// words and no sub-items, too short to be requirements of their own.
func shortItems(items []*listItem) bool {
	if len(items) < 2 {
		return false
	}
	for _, it := range items {
		if len(it.children) > 0 || it.check || fieldCount(it.text) > 2 {
			return false
		}
	}
	return true
}

// testsCover is a test plan's lead-in to what its tests cover: "Unit,
// integration and E2E tests cover the following …", "Tests for".
var testsCover = regexp.MustCompile(`(?i)\btests?\b.*\b(?:cover|covers|for|of|include|includes|including|exercise|verify)\b`)

// coveredItems reports whether every item of a list names what is covered
// in a few words, one phrase with no sub-items: "Scale up and down",
// "Creation with index annotations and indexed pod hostnames".
func coveredItems(items []*listItem) bool {
	for _, it := range items {
		if len(it.children) > 0 || it.check || fieldCount(it.text) > 10 || strings.Contains(strings.TrimRight(it.text, "."), ". ") {
			return false
		}
	}
	return len(items) >= 2
}

// shortWorkItem reports whether a list item's text of two words names
// work of its own: an order ("Disable dual-writes") or a thing to build
// ("Per-category toggles", "Delivery rate"); not a value or a name ("N/A",
// "Alice Smith", "v2: yes").
func shortWorkItem(text string) bool {
	fields := strings.Fields(strings.TrimRight(text, "."))
	if len(fields) != 2 || strings.ContainsAny(text, ":/=`0123456789") {
		return false
	}
	first, second := fields[0], fields[1]
	if baseVerb(first) != "" {
		return true
	}
	return unicode.IsLower(rune(second[0])) && !unicode.IsUpper(rune(first[1%len(first)]))
}

// notWorkLine is a list item that says it is no work of this spec.
// mayBeNotWorkLine is a necessary condition for notWorkLine, checked
// first: each of its phrases holds one of these words, in any case.
func mayBeNotWorkLine(text string) bool {
	low := strings.ToLower(text)
	return strings.Contains(low, "scope") || strings.Contains(low, "won") || strings.Contains(low, "deferred") ||
		strings.Contains(low, "separate issue") || strings.Contains(low, "owned by")
}

var notWorkLine = regexp.MustCompile(`(?i)\b(out of scope|not in scope|won'?t (do|have|fix)|deferred to|separate issue|owned by another team)\b`)

// addUnit records a sentence as a requirement unit or as a question.
func (b *builder) addUnit(s *section, text, caption string, ig *itemGroup, t *table) *unit {
	b.m.tick(1)
	text = strings.TrimSpace(text)
	if text == "" {
		return nil
	}
	b.order++
	b.caption = caption
	if strings.HasSuffix(text, "?") && reporterQuestion.MatchString(text) {
		return nil // an issue form asks the reporter: "Would you like to implement this feature?"
	}
	if q := b.questionFrom(s, text); q != nil {
		return nil
	}
	b.lastText = text
	if (strings.Contains(text, " no ") || strings.HasPrefix(text, "No ")) && noWorkStatement.MatchString(text) {
		return nil // "This feature has no node runtime implications."
	}
	if b.inDocumentHeader(s) && documentMetadata.MatchString(text) {
		return nil // "Authors: Jay Conrod, Daniel Martí", "- RFC PR: #3052"
	}
	if (strings.Contains(text, " have been ") || strings.Contains(text, "likely to ")) && speculation.MatchString(text) {
		return nil // "In some cases these variables might have been miscategorized", "it is unlikely to cause …"
	}
	if (strings.Contains(text, "merged") || strings.HasPrefix(text, "Please ")) && doneOrInvitation.MatchString(text) {
		return nil // "An initial implementation was merged in PR 254. Please try it out!"
	}
	if strings.HasSuffix(text, ":") && additionTitle(text) != "" {
		text = strings.TrimRight(text, ":") + "." // "The str class will gain two new methods …::"
	}
	if strings.HasSuffix(text, ":") || fieldCount(text) < 3 && !(ig != nil && shortWorkItem(text)) || containsAny(text, "document", "doc ", "section", "see ") && crossReference.MatchString(text) {
		return nil
	}
	u := &unit{text: text, sec: s, order: b.order, caption: caption, item: ig, table: t, words: keywords(text + " " + caption)}
	b.info[s.index].units = append(b.info[s.index].units, u)
	b.units = append(b.units, u)
	return u
}

// inDocumentHeader reports whether s is where a document keeps its
// header: the text before the first heading, or the first section when it
// titles the document (it comes first and no later heading is of a higher
// level).
func (b *builder) inDocumentHeader(s *section) bool {
	secs := b.doc.sections
	if s.index == 0 {
		return len(secs) > 1
	}
	if s.index == 2 && len(secs[1].blocks) == 0 && s.level == secs[1].level+1 {
		// "# Product Requirements Document (PRD)" over "## Sabine
		// Personal Assistant" over "**Status:** …", "**Owner:** …": the
		// first sub-section of a title with no text of its own opens the
		// document.
		return true
	}
	if s.index != 1 {
		return false
	}
	for _, o := range secs[2:] {
		if o.level < s.level {
			return false
		}
	}
	return true
}

// noWorkStatement is a sentence saying that something needs no work.
var noWorkStatement = regexp.MustCompile(`(?i)^(this (feature|change|proposal|enhancement) )?(has|needs|requires|introduces) no\b[^.]*\b(implications?|changes?|impact)\b|^no (new )?[\w /-]{1,40} (is|are) (expected|needed|required)\b`)

// reporterQuestion is a question an issue template asks the person who
// files the issue, not one the spec leaves open for the team.
var reporterQuestion = regexp.MustCompile(`(?i)^(would|will|do|are|can|could|have) you\b`)

// documentMetadata is a line of a document's header that describes the
// document, not the work: its authors, dates, status and discussion.
var documentMetadata = regexp.MustCompile(`(?i)^(authors?|author\(s\)|editors?|owners?|champions?|shepherds?|reviewers?|approvers?|last updated|updated|last modified|start date|date|created|status|discussion|discussions|discussion at|issue|issues|tracking issue|rfc pr|rfc issue|rust issue|\w+ issues?|pr|pull request|feature name|version|attendees|participants|agenda|facilitator|note taker)\b[^:]{0,3}(:|\s+at\s+https?://)`)

// speculation is a sentence that guesses at what was or will be, which
// asks for nothing.
var speculation = regexp.MustCompile(`(?i)\b(might|may|could) have been\b|\bis (un)?likely to\b`)

// doneOrInvitation is a sentence that reports work already done or
// invites the reader to try it: "An initial implementation of this
// feature was merged in CL 254365.", "Please try it out!".
var doneOrInvitation = regexp.MustCompile(`(?i)^(an? |the )?(initial |first |prototype |reference )*implementation\b[^.]{0,80}\b(was|has been|is) (merged|landed)\b|^please (try|test) it( out)?\b`)

var crossReference = regexp.MustCompile(`(?i)^(this document|document \d+|doc \d+|section \d+|see (below|above))\b|\bdocument \d+ covers\b`)

func (b *builder) walkTable(s *section, t *table, caption string) {
	in := b.info[s.index]
	if len(t.rows) == 0 {
		return
	}
	switch {
	case isEndpointTable(t):
		var prev *endpoint
		for _, row := range t.rows {
			if ep := b.endpointFromRow(s, t, row); ep != nil {
				ep.prev = prev
				prev = ep
				in.endpoints = append(in.endpoints, ep)
			}
		}
	case isDetailTable(t):
		for _, row := range t.rows {
			b.order++
			b.details = append(b.details, detailRow{sec: s, header: t.header, row: row, caption: caption, order: b.order})
		}
	case isQuestionTable(t):
		b.walkQuestionRows(s, t)
	case isStateTable(t):
		in.states = append(in.states, t)
	case isFieldTable(t):
		in.fields = append(in.fields, t)
	case isRequirementTable(t):
		b.walkRequirementRows(s, t, caption)
	case b.isPlanSummary(s, t):
		// "| Phase 1 | Work orders … | P0 |" over sections "Phase 1: Work
		// orders": the table summarises work its sections specify, and a
		// row they do not detail is deferred.
	default:
		b.order++
		rt := &ruleTable{caption: caption, t: t, order: b.order}
		for _, row := range t.rows {
			if u := b.addUnit(s, ruleRowText(t.header, row), caption, nil, t); u != nil {
				rt.units = append(rt.units, u)
			}
		}
		in.rules = append(in.rules, rt)
	}
}

// deferredRow says a plan row is not planned for now.
var deferredRow = regexp.MustCompile(`(?i)\b(deferred|not planned|out of scope|later|won'?t)\b`)

// isPlanSummary reports whether t summarises a plan whose parts have
// sections of their own: two to twenty rows, each naming in its first cell
// the start of another section's heading ("Phase 0" for "6. Phase 0:
// Foundations (P0)") or saying it is deferred.
func (b *builder) isPlanSummary(s *section, t *table) bool {
	if len(t.rows) < 2 || len(t.rows) > 20 || len(t.header) < 2 {
		return false // a plan has a few parts; a long table is no summary
	}
	named := 0
	for _, row := range t.rows {
		first := strings.ToLower(strings.TrimSpace(stripCode(row[0])))
		if first == "" {
			return false
		}
		switch {
		case b.sectionNamed(s, first) != nil:
			named++
		case !deferredRow.MatchString(strings.Join(row, " ")):
			return false
		}
	}
	if named < 2 {
		return false
	}
	if prio := headerIndex(t.header, "priority", "severity", "moscow"); prio > 0 {
		// "| F-03 | IDOR … | Critical | Open |": the row's priority is
		// its section's.
		for _, row := range t.rows {
			if o := b.sectionNamed(s, strings.ToLower(strings.TrimSpace(stripCode(row[0])))); o != nil && prio < len(row) {
				o.priority = strings.TrimSpace(stripCode(row[prio]))
			}
		}
	}
	return true
}

// sectionNamed returns the section other than s whose heading, without
// its number and in lower case, starts with first as a whole word ("phase
// 0" for "6. Phase 0: Foundations (P0)"), or nil.
func (b *builder) sectionNamed(s *section, first string) *section {
	b.m.tick(len(b.doc.sections))
	if b.headingNames == nil {
		b.headingNames = make([]string, len(b.doc.sections))
		for i, o := range b.doc.sections {
			b.headingNames[i] = strings.TrimSpace(headingNumber.ReplaceAllString(strings.ToLower(o.heading), ""))
		}
	}
	for i, o := range b.doc.sections[1:] {
		if o == s {
			continue
		}
		h := b.headingNames[i+1]
		if strings.HasPrefix(h, first) && (len(h) == len(first) || !unicode.IsLetter(rune(h[len(first)])) && !unicode.IsDigit(rune(h[len(first)]))) {
			return o
		}
	}
	return nil
}

// isRequirementTable reports whether t lists requirements, one a row: a
// requirement (story, feature) column beside an id or priority column.
func isRequirementTable(t *table) bool {
	text := headerIndex(t.header, "requirement", "user story", "story", "feature", "capability")
	return text >= 0 && (headerIndex(t.header, "id", "#", "priority", "importance", "moscow") >= 0)
}

// isQuestionTable reports whether t lists questions with their answers,
// one a row, as PRD templates do ("| Question | Outcome |").
func isQuestionTable(t *table) bool {
	return len(t.header) >= 2 && containsLower(t.header[0], "question") &&
		headerIndex(t.header[1:], "answer", "outcome", "decision", "resolution", "response") >= 0
}

// walkQuestionRows reads a question table: a row whose answer is given is
// decided and is no work of its own (what it decides is work where the
// spec asks for it); a row without an answer is an open question.
func (b *builder) walkQuestionRows(s *section, t *table) {
	answer := 1 + headerIndex(t.header[1:], "answer", "outcome", "decision", "resolution", "response")
	for _, row := range t.rows {
		b.m.tick(1)
		q := strings.TrimSpace(row[0])
		if q == "" || answer < len(row) && answered(row[answer]) {
			continue
		}
		b.order++
		if !strings.HasSuffix(q, "?") {
			q = strings.TrimRight(q, ".:; ") + "?"
		}
		b.questionFrom(s, q)
	}
}

// answered reports whether an answer cell gives an answer: not empty, a
// dash or a marker such as "TBD" or "open".
func answered(cell string) bool {
	c := strings.Trim(strings.TrimSpace(stripCode(cell)), "-–—?. ")
	switch strings.ToLower(c) {
	case "", "open", "pending", "unknown", "unanswered", "n/a", "none yet", "not yet":
		return false
	}
	return !hasMarker(c) || fieldCount(strings.Trim(markers.ReplaceAllString(c, ""), " :,;.-")) >= 3
}

// lowPriority matches the priorities a PRD ships last or not in this
// release: P2 and below, "could", "won't", "later".
var lowPriority = regexp.MustCompile(`(?i)^\s*(p[2-9]|could( have)?|won'?t( have)?|later|nice to have|low)\s*$`)

// walkRequirementRows reads each row of a requirement table as a list item
// of its own, so each requirement gets its own ticket; rows of a low
// priority (P2, could, won't) are named in an open question instead.
func (b *builder) walkRequirementRows(s *section, t *table, caption string) {
	text := headerIndex(t.header, "requirement", "user story", "story", "feature", "capability")
	id := headerIndex(t.header, "id", "#")
	prio := headerIndex(t.header, "priority", "importance", "moscow")
	name := headerIndex(t.header, "title", "name", "summary")
	notes := headerIndex(t.header, "notes", "note", "details", "comments")
	var later []string
	for _, row := range t.rows {
		b.m.tick(1)
		req := strings.TrimSpace(row[text])
		if req == "" {
			continue
		}
		named := req
		if id >= 0 && id != text && row[id] != "" {
			named = row[id] + " " + req
		}
		if prio >= 0 && prio != text && lowPriority.MatchString(row[prio]) {
			later = append(later, strings.TrimRight(named, ".")+" ("+row[prio]+")")
			continue
		}
		if notes >= 0 && notes != text && notes < len(row) && strings.TrimSpace(row[notes]) != "" {
			// "| Save on every change; guests' carts stay in the
			// browser |": the notes say what the requirement must do.
			req = strings.TrimRight(req, ". ") + ". " + strings.TrimSpace(row[notes])
		}
		in := b.info[s.index]
		n := len(in.items)
		b.walkItem(s, &listItem{text: req}, caption)
		if len(in.items) > n {
			// The row's identifier, priority and title are the item's, as
			// a list item's "FND-1 (MUST)" are.
			ig := in.items[len(in.items)-1]
			if id >= 0 && id != text {
				ig.reqID = strings.TrimSpace(stripCode(row[id]))
			}
			if prio >= 0 && prio != text {
				ig.keyword = priorityKeyword(row[prio])
			}
			if name >= 0 && name != text && name != id && name < len(row) {
				ig.title = strings.TrimSpace(stripCode(row[name]))
			}
		}
	}
	if len(later) > 0 {
		b.notTicketed = append(b.notTicketed, "Not ticketed, as their priority ships last or not in this release: "+strings.Join(later, "; ")+" (\""+s.cleanedHeading()+"\", line "+itoa(s.first)+"). Should any of them get a ticket now?")
	}
}

// priorityKeyword names a requirement table's priority cell as
// priorityValue reads it: "P0", "Must" and "High" are "MUST", "P2" to
// "P4", "Could", "Nice to have" and "Low" are "COULD", anything else "".
func priorityKeyword(cell string) string {
	c := strings.ToLower(strings.TrimSpace(stripCode(cell)))
	switch {
	case c == "p0" || strings.HasPrefix(c, "must") || c == "high" || c == "critical" || c == "highest":
		return "MUST"
	case lowPriority.MatchString(c) || strings.HasPrefix(c, "could") || strings.HasPrefix(c, "nice"):
		return "COULD"
	}
	return ""
}

func headerIndex(header []string, names ...string) int {
	for i, h := range header {
		for _, n := range names {
			if containsLower(h, n) {
				return i
			}
		}
	}
	return -1
}

func isStateTable(t *table) bool {
	return headerIndex(t.header, "state", "status", "from") >= 0 && headerIndex(t.header, "trigger", "next", "event", "to state") >= 0
}

func isFieldTable(t *table) bool {
	first := strings.ToLower(t.header[0])
	named := false
	for _, n := range []string{"field", "claim", "property", "parameter", "attribute", "column", "name", "key", "flag", "option", "argument", "header"} {
		if strings.Contains(first, n) {
			named = true
		}
	}
	return named && (headerIndex(t.header, "type") >= 0 || headerIndex(t.header, "description", "rule", "meaning", "default", "notes", "required") >= 0)
}

// ruleRowText renders a table row as a sentence: the first cell, then
// "header: value" for the others.
func ruleRowText(header, row []string) string {
	first := strings.TrimSpace(row[0])
	var parts []string
	for i := 1; i < len(row) && i < len(header); i++ {
		v := strings.TrimSpace(row[i])
		if v == "" {
			continue
		}
		if len(row) == 2 {
			parts = append(parts, v)
			continue
		}
		parts = append(parts, lowerFirst(header[i])+" "+v)
	}
	if first == "" {
		return sentenceCase(strings.Join(parts, "; "))
	}
	if len(parts) == 0 {
		return sentenceCase(first)
	}
	return sentenceCase(first + ": " + strings.Join(parts, "; "))
}

// commandName returns the command of a list item that starts with a code
// span naming a command ("`tool init` — creates ..."), or "".
// notCommand matches code spans that name no command: a status code
// ("403 Forbidden"), an HTTP method and path, a file name or path
// ("src/App.tsx"), a component ("<InvoiceList>", "InvoiceList"), a field
// ("invoice.total"). They describe the ticket they belong to.
var notCommand = regexp.MustCompile(`^(\d{3}(\s|$)|(GET|POST|PUT|PATCH|DELETE|HEAD|OPTIONS)\s|<|[A-Z][a-z]+[A-Z]\w*$|\S*[./]\S*\.[a-z]{1,5}$|\S+/\S+$|[a-z_]+\.[a-z_.]+$)`)

// cliHeading is a heading that introduces command-line commands.
var cliHeading = regexp.MustCompile(`(?i)\b(cli|commands?|sub-?commands?|usage|command[- ]line|synopsis)\b`)

// cliContext reports whether list items of s can be commands: s, one of
// its parents or the spec's title speaks of a command line ("Subcommands",
// "logship — CLI spec"). Elsewhere a code span opening an item is a field,
// an error code or a value ("`email`: string", "`NOT_FOUND`: …"), part of
// the ticket of its section.
func (b *builder) cliContext(s *section) bool {
	for c := s; c != nil; c = c.parent {
		if cliHeading.MatchString(c.heading) {
			return true
		}
	}
	return cliHeading.MatchString(b.docTitle) || cliHeading.MatchString(b.req.Title)
}

// commandName returns the command a list item opens with ("`tool run` —
// …"), or "" when its code span cannot be a command: a status code, a path,
// a component, a field, an upper-case code ("`NOT_FOUND`") or a type
// ("`id`: string").
func commandName(text string) string {
	if !strings.HasPrefix(text, "`") {
		return ""
	}
	end := strings.Index(text[1:], "`")
	if end <= 0 {
		return ""
	}
	cmd := text[1 : end+1]
	rest := strings.TrimSpace(text[end+2:])
	if strings.HasPrefix(cmd, "-") || strings.HasPrefix(cmd, "/") || strings.Contains(cmd, "=") || notCommand.MatchString(cmd) || upperCode.MatchString(cmd) || fieldType.MatchString(rest) {
		return ""
	}
	if fieldCount(cmd) < 2 && !strings.HasPrefix(rest, "—") && !strings.HasPrefix(rest, "-") && !strings.HasPrefix(rest, ":") && !strings.HasPrefix(rest, "–") {
		return ""
	}
	return cmd
}

var (
	upperCode = regexp.MustCompile(`^([A-Z][A-Z0-9_.-]*|[A-Z][A-Za-z0-9]*(-[A-Za-z0-9]+)+)$`) // an error code or a header name
	fieldType = regexp.MustCompile(`(?i)^[:—–-]?\s*(string|str|integer|int|int64|number|float|decimal|boolean|bool|datetime|date|timestamp|uuid|object|array|list|map|enum)\b`)
)

func (b *builder) addCommand(s *section, it *listItem, cmd string) {
	rest := strings.TrimSpace(strings.TrimPrefix(it.text, "`"+cmd+"`"))
	rest = strings.TrimLeft(rest, "—–-: ")
	title := "Implement " + cmd + " command"
	d := b.newDraft(tickets.TypeTask, originCommand, title, s)
	d.topic = "commands"
	d.lead = "Implement the `" + cmd + "` command"
	if rest != "" {
		d.lead += ": " + lowerFirst(strings.TrimRight(rest, ".")) + "."
		for _, sent := range splitSentences(rest) {
			d.crit = append(d.crit, "`"+cmd+"` "+lowerFirst(strings.TrimRight(sent, "."))+".")
		}
	} else {
		d.lead += "."
	}
	for _, c := range it.children {
		for _, sent := range splitSentences(itemText(c)) {
			if q := b.questionFrom(s, sent); q == nil {
				d.crit = append(d.crit, sentenceCase(sent))
			}
		}
	}
	d.crit = append(d.crit, "`"+cmd+" --help` documents the command and its flags.")
	d.labels = []string{"cli"}
	d.conf = 0.8
	d.value = 0.8
	b.info[s.index].drafts = append(b.info[s.index].drafts, d)
}

// topicOf classifies a section by its heading, falling back to its parents.
// Sub-sections of a resources section are resources whatever their names.
func (b *builder) topicOf(s *section) string {
	if s.parent == nil {
		return ""
	}
	if in := b.info[s.index]; in.topicDone {
		return in.topic
	}
	parent := b.topicOf(s.parent)
	if parent == "resources" && b.isTitleSection(s.parent) {
		// The spec's title names the product: a word of it makes no
		// section a resource ("Offline mode for the field inspection app").
		parent = ""
	}
	if parent == "resources" {
		return parent
	}
	if t := headingTopic(s.heading); t != "" {
		return t
	}
	return parent
}

// isTitleSection reports whether s is the lone top heading that titles
// the spec.
func (b *builder) isTitleSection(s *section) bool {
	return s != nil && s.parent == b.doc.root && b.docTitle != "" && s.heading == b.docTitle && len(b.doc.root.children) == 1
}

// topicRules map heading words to topics. A word ending in "*" matches as a
// prefix; other words match whole, with an optional plural ending.
var topicRules = []struct {
	topic string
	words []string
}{
	{"bug", []string{"steps to reproduce", "reproduction", "expected result", "expected behavio*", "actual result", "actual behavio*"}},
	{"overview", []string{"what the", "overview", "introduction", "purpose", "background", "summary", "about", "context", "motivation", "problem", "goal", "vision"}},
	{"states", []string{"state", "transition*", "lifecycle", "life cycle", "workflow", "status", "statuses"}},
	{"auth", []string{"authentic*", "authori*", "security", "auth", "access control", "permission", "login", "sign-in"}},
	{"events", []string{"event", "webhook", "callback", "notification", "messaging"}},
	{"errors", []string{"error", "failure", "exception"}},
	{"limits", []string{"limit", "quota", "rate limit*", "constraint", "bound"}},
	{"versioning", []string{"version*", "deprecat*", "compatib*"}},
	{"testing", []string{"test", "testing", "qa", "quality"}},
	{"endpoints", []string{"endpoint", "api", "route", "operation", "http", "interface"}},
	{"resources", []string{"resource", "field", "model", "schema", "data", "entit*", "object", "payload", "request", "response", "claim"}},
	{"commands", []string{"command", "cli", "usage", "flag", "subcommand"}},
	{"requirements", []string{"requirement", "feature", "user stor*", "scope", "functional", "deliverable", "task", "todo", "backlog", "acceptance", "must have", "should have", "milestone", "plan"}},
	{"questions", []string{"open question", "question", "unknown", "to be decided", "tbd"}},
}

// headingTopic classifies one heading.
func headingTopic(heading string) string {
	if storyNumber.MatchString(strings.TrimSpace(heading)) {
		return "requirements" // "User Story 1 - … Dev Version Preserved" is a story, not versioning
	}
	h := " " + strings.Join(strings.FieldsFunc(strings.ToLower(dropParentheticals(heading)), func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r) && r != '-'
	}), " ") + " "
	h = strings.ReplaceAll(h, " status quo ", " ") // "Deficiencies of the status quo" names no states
	// A KEP's "Implementation Details/Notes/Constraints" holds the design,
	// not limits: its "TTL Controller" was titled "Enforce TTL Controller".
	h = strings.ReplaceAll(h, " notes constraints ", " ")
	if strings.Contains(h, " solution ") {
		// "Describe your ideal solution to this problem": the answer is
		// the work, whatever else the question names.
		return ""
	}
	for _, r := range topicSearches {
		for _, forms := range r.forms {
			for _, f := range forms {
				if f != "" && strings.Contains(h, f) {
					return r.topic
				}
			}
		}
	}
	return ""
}

// topicSearches are the topicRules as the strings headingTopic looks for
// in a heading padded with spaces: " word" for a prefix, else " word ",
// " words " and " wordes ".
var topicSearches = func() []topicSearch {
	out := make([]topicSearch, len(topicRules))
	for i, r := range topicRules {
		out[i].topic = r.topic
		for _, w := range r.words {
			if prefix, ok := strings.CutSuffix(w, "*"); ok {
				out[i].forms = append(out[i].forms, [3]string{" " + prefix})
				continue
			}
			out[i].forms = append(out[i].forms, [3]string{" " + w + " ", " " + w + "s ", " " + w + "es "})
		}
	}
	return out
}()

type topicSearch struct {
	topic string
	forms [][3]string
}

// dominantRole returns the role word used most in the lower-case text,
// or "user".
func (b *builder) dominantRole(low string) string {
	index := make(map[string]int, len(roleWords))
	for i, r := range roleWords {
		index[r] = i
	}
	counts := make([]int, len(roleWords))
	start := -1
	for i := 0; i <= len(low); i++ {
		if i < len(low) && low[i] >= 'a' && low[i] <= 'z' {
			if start < 0 {
				start = i
			}
			continue
		}
		if start >= 0 {
			if k, ok := index[stem(low[start:i])]; ok && (roleWords[k] != "support" || supportPeopleAt(low[start:])) {
				counts[k]++
			}
			start = -1
		}
	}
	best, bestN := "user", 0
	for i, n := range counts {
		if n > bestN {
			best, bestN = roleWords[i], n
		}
	}
	return best
}

// roleFor picks the role of a story from its source text.
func (b *builder) roleFor(texts ...string) string {
	best, bestN := "", 0
	joined := strings.ToLower(strings.Join(texts, " "))
	for _, r := range roleWords {
		n := strings.Count(joined, r)
		if r == "support" {
			n = len(supportRole.FindAllStringIndex(joined, -1)) // "does not support" names nobody
		}
		if n > bestN {
			best, bestN = r, n
		}
	}
	if best == "" {
		best = b.docRole
	}
	if best == "support" {
		best = "support agent"
	}
	return best
}

func (b *builder) liveCount() int {
	n := 0
	for _, d := range b.drafts {
		if d.alive {
			n++
		}
	}
	return n
}

func (b *builder) live() []*draft {
	var out []*draft
	for _, d := range b.drafts {
		if d.alive {
			out = append(out, d)
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].order < out[j].order })
	return out
}

// dedupeTitles merges drafts with the same title, which happens when a spec
// repeats itself. Two sections titled by their topic alone are not the
// same work: each is titled by its heading instead ("Notification
// Preferences" and "Notification Delivery" were both "Implement event
// notifications", and one ticket).
func (b *builder) dedupeTitles() {
	seen := map[string]*draft{}
	sets := listSets{} // the loop changes the drafts' lists only through mergeWith
	for _, d := range b.live() {
		key := strings.ToLower(d.title)
		if first, ok := seen[key]; ok {
			if b.retitleByHeading(first, d) {
				seen[strings.ToLower(first.title)], seen[strings.ToLower(d.title)] = first, d
				continue
			}
			b.mergeWith(sets, first, d, true)
			continue
		}
		seen[key] = d
	}
}

// retitleByHeading titles two drafts of different sections, titled by
// their topic alone, by their sections' headings, and reports whether
// that tells them apart.
func (b *builder) retitleByHeading(first, d *draft) bool {
	if !first.byTopic || !d.byTopic || first.sec == nil || d.sec == nil || first.sec == d.sec {
		return false
	}
	t1 := b.headingTitle(first.sec, b.info[first.sec.index].units)
	t2 := b.headingTitle(d.sec, b.info[d.sec.index].units)
	if strings.EqualFold(t1, t2) {
		return false
	}
	first.title, first.words, first.byTopic = t1, newWordSet(t1), false
	d.title, d.words, d.byTopic = t2, newWordSet(t2), false
	return true
}

// assignGroups sets each draft's group: its major section, or a
// sub-section of it when that sub-section alone holds enough drafts.
func (b *builder) assignGroups() {
	bySection := map[*section]*group{}
	count := map[*section]int{}
	for _, d := range b.live() {
		if d.sec == nil {
			continue
		}
		for c := d.sec; c != nil; c = c.parent {
			count[c]++
		}
	}
	groupOf := func(d *draft) *section {
		if d.sec == nil {
			return nil
		}
		m := b.major(d.sec)
		if m == nil {
			return nil
		}
		if count[m] > 6 {
			for c := d.sec; c != nil && c != m; c = c.parent {
				if c.parent == m && count[c] >= 3 {
					return c
				}
			}
		}
		return m
	}
	var nilGroup *group
	for _, d := range b.live() {
		s := groupOf(d)
		if s == nil {
			if nilGroup == nil {
				nilGroup = &group{title: b.mainTitle(), topic: "overview", order: -1}
				b.groups = append(b.groups, nilGroup)
			}
			d.grp = nilGroup
			continue
		}
		g, ok := bySection[s]
		if !ok {
			g = &group{title: b.epicTitle(s), sec: s, topic: b.info[s.index].topic, order: s.index}
			bySection[s] = g
			b.groups = append(b.groups, g)
		}
		d.grp = g
	}
	sort.SliceStable(b.groups, func(i, j int) bool { return b.groups[i].order < b.groups[j].order })
	for _, g := range b.groups {
		g.words = newWordSet(g.title)
	}
}

// mainTitle is the name of the requested work.
func (b *builder) mainTitle() string {
	t := strings.TrimSpace(b.req.Title)
	if t == "" {
		t = b.docTitle
	}
	if t == "" {
		t = "Spec delivery"
	}
	return shorten(stripCode(withoutDocumentID(t)), 14, 110)
}

var epicNames = []struct{ word, title string }{
	{"endpoints", "API endpoints"},
	{"resources and their fields", "Resource schemas and validation"},
	{"resources", "Resource schemas and validation"},
	{"states and transitions", "State machine and transitions"},
	{"authentication", "Authentication and request signing"},
	{"events", "Events and notifications"},
	{"errors", "Error handling"},
	{"limits", "Limits and quotas"},
	{"versioning", "API versioning"},
	{"what the service does", "Core service behaviour"},
}

// epicTitle names the epic of a section.
func (b *builder) epicTitle(s *section) string {
	h := s.cleanedHeading()
	low := strings.ToLower(h)
	switch low {
	case "requirements", "functional requirements", "features", "scope", "user stories", "stories", "tasks", "deliverables", "backlog":
		if t := b.mainTitle(); t != "" && !strings.EqualFold(t, h) {
			return t
		}
	}
	for _, e := range epicNames {
		if low == e.word {
			if low == "authentication" && !b.sectionMentions(s, "signature", "hmac", "sign") {
				return "Authentication and authorization"
			}
			return e.title
		}
	}
	if b.info[s.index].topic == "endpoints" {
		for _, p := range []string{"called by", "exposed by", "hosted by", "implemented by", "served by"} {
			if strings.HasPrefix(low, p) {
				return "Endpoints " + lowerFirst(h)
			}
		}
		if !strings.Contains(low, "endpoint") && !strings.Contains(low, "operation") && !strings.Contains(low, "route") && b.holdsEndpoints(s) {
			return h + " endpoints"
		}
	}
	return upperFirst(h)
}

// holdsEndpoints reports whether s or a section below it lists endpoints
// ("Business Rules" that say "all endpoints require a token" holds none).
func (b *builder) holdsEndpoints(s *section) bool {
	if len(b.info[s.index].endpoints) > 0 {
		return true
	}
	for _, c := range s.children {
		if b.holdsEndpoints(c) {
			return true
		}
	}
	return false
}

func (b *builder) sectionMentions(s *section, words ...string) bool {
	for _, u := range b.info[s.index].units {
		if containsAny(u.text, words...) {
			return true
		}
	}
	for _, c := range s.children {
		if b.sectionMentions(c, words...) {
			return true
		}
	}
	return false
}

var (
	storyNumber = regexp.MustCompile(`^(?i:user )?(?i:story) \d+\s*[-:\x{2013}\x{2014}]\s+`)
	placeholder = regexp.MustCompile(`(^|[^/])\s*\{[^}]*\}`) // a path parameter ("/todos/{id}") stays
	labelColon  = regexp.MustCompile(`:(\s|$)`)              // a path parameter ("/todos/:id") stays
)

// cleanHeading removes bracketed asides, placeholders and dangling words.
func cleanHeading(h string) string {
	h = stripCode(dropParentheticals(h))
	h = strings.TrimRight(h, "*_ ") // "Requirements *(mandatory)*" leaves "**"
	if m := storyNumber.FindStringIndex(h); m != nil && m[1] < len(h) {
		h = h[m[1]:] // "User Story 1 - Toggle to Production" names "Toggle to Production"
	}
	if strings.Contains(h, "{") {
		h = placeholder.ReplaceAllString(h, "$1")
	}
	if strings.Contains(h, ":") {
		h = labelColon.ReplaceAllString(h, "$1")
	}
	h = trimTrailing(h)
	for _, w := range []string{" on", " under", " at"} {
		h = strings.TrimSuffix(h, w)
	}
	if h == "" {
		h = "General"
	}
	return h
}
