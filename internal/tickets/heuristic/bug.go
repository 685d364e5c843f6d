package heuristic

import (
	"regexp"
	"strings"

	"github.com/foresight-dev/foresight/internal/tickets"
)

// This file handles the specs that are not specs: bug reports, and inputs
// too small to analyse, which are scoped from their text or title.

var bugLabel = regexp.MustCompile(`(?i)^[#>*\-\s]*(steps to reproduce|reproduction steps|repro steps|to reproduce|steps|expected(?: result| behaviou?r| outcome)?|actual(?: result| behaviou?r| outcome)?|observed(?: behaviou?r)?|environment|version|platform|device|desktop|smartphone|browser|frequency|workaround|impact)\s*[:\-–—]?\s*(.*)$`)

// bugPrompt is a bug template's heading over the report's summary.
var bugPrompt = regexp.MustCompile(`(?i)^(describe the (bug|issue|problem)|bug description|description|summary|what happened\??)$`)

// templateAsk is a template's request to the reporter inside a heading
// ("Desktop (please complete the following information):").
var templateAsk = regexp.MustCompile(`(?i)\s*\(please complete[^)]*\)`)

// bugAside is a bug template's heading over context that is neither the
// report nor its environment: screenshots, additional context, logs.
var bugAside = regexp.MustCompile(`(?i)^(screenshots?|additional (context|information)|logs?|related issues?)\b`)

// bugReport holds the parts of a bug report.
type bugReport struct {
	summary  []string
	steps    []string
	expected []string
	actual   []string
	env      []string
}

func (b *builder) bugScore() float64 {
	low := b.lowerSpec
	score := 0.0
	if containsAny(low, "steps to reproduce", "to reproduce", "repro steps", "reproduction steps") {
		score += 3
	}
	if regexp.MustCompile(`(?im)^\W*expected(\s+(result|behaviou?r|outcome))?\s*:`).MatchString(low) || strings.Contains(low, "expected result") || strings.Contains(low, "expected behavio") {
		score += 2
	}
	if regexp.MustCompile(`(?im)^\W*(actual|observed)(\s+(result|behaviou?r|outcome))?\s*:`).MatchString(low) || strings.Contains(low, "actual result") || strings.Contains(low, "actual behavio") {
		score += 2
	}
	for _, w := range []string{"crash", "regression", "stack trace", "stacktrace", "exception", "traceback", "bug", "broken", "panic", "segfault", "freezes", "hangs"} {
		if strings.Contains(low, w) {
			score++
		}
	}
	if strings.Contains(low, "error") {
		score += 0.5
	}
	return score
}

// isBugReport reports whether the spec reads as a bug report.
func (b *builder) isBugReport() bool {
	if len(b.endpoints) > 0 || b.doc.headingCount() > 8 || b.bugSections() > 1 {
		return false
	}
	for _, in := range b.info {
		if len(in.fields) > 0 || len(in.states) > 0 {
			return false
		}
	}
	return b.bugScore() >= 3
}

func (b *builder) readBug() *bugReport {
	r := &bugReport{}
	var current *[]string = &r.summary
	var aside []string // screenshots and other context a template asks for
	inComment := false
	for _, line := range strings.Split(strings.ReplaceAll(b.req.Spec, "\r", ""), "\n") {
		t := strings.TrimSpace(line)
		if inComment || strings.HasPrefix(t, "<!--") {
			// "<!-- A clear and concise description of what the bug is.
			// -->": the template's instructions, not the report.
			inComment = !strings.Contains(t, "-->")
			continue
		}
		if t == "" {
			continue
		}
		t = strings.TrimSpace(templateAsk.ReplaceAllString(t, ""))
		if boldLine.MatchString(t) {
			// "**Steps to reproduce**" on a line of its own heads its
			// part as "## Steps to reproduce" would.
			t = "### " + strings.TrimSuffix(strings.Trim(strings.TrimSuffix(t, ":"), "* "), ":")
		}
		if h := strings.TrimSpace(strings.TrimLeft(t, "#")); strings.HasPrefix(t, "#") && bugPrompt.MatchString(h) {
			current = &r.summary // "Describe the bug": the template's prompt, not the report
			continue
		} else if strings.HasPrefix(t, "#") && bugAside.MatchString(h) {
			current = &aside
			continue
		}
		if m := bugLabel.FindStringSubmatch(t); m != nil && (strings.Contains(t, ":") || strings.HasPrefix(t, "#") || strings.TrimSpace(m[2]) == "") {
			switch l := strings.ToLower(m[1]); {
			case strings.Contains(l, "reproduce") || strings.Contains(l, "steps"):
				current = &r.steps
			case strings.HasPrefix(l, "expected"):
				current = &r.expected
			case strings.HasPrefix(l, "actual") || strings.HasPrefix(l, "observed"):
				current = &r.actual
			default:
				current = &r.env
				if rest := strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(m[2]), ":")); rest != "" {
					*current = append(*current, upperFirst(l)+": "+rest)
				}
				continue
			}
			if rest := strings.TrimSpace(m[2]); rest != "" && !(strings.HasSuffix(rest, ":") && fieldCount(rest) <= 3) {
				*current = append(*current, cleanInline(rest)) // not "Steps to reproduce the behavior:"
			}
			continue
		}
		t = strings.TrimSpace(listMarker.ReplaceAllString(t, "$3"))
		t = strings.TrimLeft(t, "#> ")
		if t != "" {
			*current = append(*current, cleanInline(t))
		}
	}
	return r
}

// buildBug makes a bug ticket (and a root-cause spike when the report is
// uncertain) from a bug report.
func (b *builder) buildBug() {
	r := b.readBug()
	root := b.doc.root
	problem := strings.TrimSpace(b.req.Title)
	if problem == "" || fieldCount(problem) > 12 {
		if len(r.summary) > 0 {
			problem = splitFirst(r.summary[0])
		} else if len(r.actual) > 0 {
			problem = splitFirst(r.actual[0])
		} else {
			problem = "reported defect"
		}
	}
	problem = strings.TrimRight(stripCode(problem), ".!?")
	title := problem
	if fields := strings.Fields(problem); len(fields) == 0 || !strings.EqualFold(fields[0], "fix") {
		title = "Fix " + lowerFirst(strings.TrimPrefix(strings.TrimPrefix(problem, "The "), "the "))
	}
	title = shorten(title, 14, 110)
	d := b.newDraft(tickets.TypeBug, originBug, title, root)
	d.topic = "bug"
	d.value, d.conf, d.phase = 0.95, 0.75, 1
	d.labels = []string{"bug"}
	desc := "Bug report"
	if len(r.summary) > 0 {
		desc += ": " + strings.Join(r.summary, " ")
	}
	d.lead = strings.TrimRight(desc, ".") + "."
	if len(r.steps) > 0 {
		var steps []string
		for i, s := range r.steps {
			steps = append(steps, itoa(i+1)+") "+strings.TrimRight(s, "."))
		}
		d.notes = append(d.notes, "Steps to reproduce: "+strings.Join(steps, "; ")+".")
	}
	if len(r.expected) > 0 {
		d.notes = append(d.notes, "Expected: "+strings.Join(r.expected, " "))
	}
	if len(r.actual) > 0 {
		d.notes = append(d.notes, "Actual: "+strings.Join(r.actual, " "))
	}
	if len(r.env) > 0 {
		d.notes = append(d.notes, strings.Join(r.env, "; "))
	}
	switch {
	case len(r.expected) > 0:
		d.crit = append(d.crit, "Following the steps to reproduce gives the expected result: "+lowerFirst(strings.TrimRight(strings.Join(r.expected, " "), "."))+".")
	case len(r.steps) > 0:
		d.crit = append(d.crit, "Following the steps to reproduce completes without the reported failure.")
	}
	if len(r.actual) > 0 {
		d.crit = append(d.crit, "The reported behaviour no longer occurs: "+lowerFirst(strings.TrimRight(strings.Join(r.actual, " "), "."))+".")
	}
	if len(d.crit) == 0 {
		d.crit = append(d.crit, "The reported failure (\""+shorten(problem, 20, 140)+"\") no longer occurs in the scenario described in the report.")
	}
	d.crit = append(d.crit, "An automated regression test reproduces the original failure and passes with the fix.")
	if len(r.env) > 0 {
		env := strings.TrimRight(strings.Join(r.env, "; "), ".")
		env = strings.TrimPrefix(env, "Environment: ")
		d.crit = append(d.crit, "The fix is verified in the reported environment ("+env+").")
	}
	d.weight = 1
	d.words = newWordSet(title, b.req.Spec)
	b.info[root.index].drafts = append(b.info[root.index].drafts, d)
	if containsAny(b.lowerSpec, "intermittent", "sometimes", "randomly", "occasionally", "not sure", "can't reproduce", "cannot reproduce", "flaky", "unknown cause") || len(r.steps) == 0 {
		q := b.addQuestion(root, "What is the root cause of "+lowerFirst(problem)+"?", "root cause of "+lowerFirst(problem), 2)
		s := b.spikeFor(root, []*question{q})
		s.title = shorten("Investigate root cause of "+lowerFirst(problem), 14, 110)
		s.lead = "Time-boxed investigation: the report does not pin down when the failure happens; find the root cause before fixing it."
	}
	b.buildQuestionSpikesFor(root)
}

// buildQuestionSpikesFor adds spikes for questions of s that have none yet.
func (b *builder) buildQuestionSpikesFor(s *section) {
	var open []*question
	for _, q := range b.questions {
		if q.spike == nil && q.sec == s && q.block > 0 {
			open = append(open, q)
		}
	}
	if len(open) > 0 {
		b.spikeFor(s, open)
	}
}

func splitFirst(s string) string {
	if ss := splitSentences(s); len(ss) > 0 {
		return ss[0]
	}
	return s
}

func itoa(n int) string {
	if n == 0 {
		return "0"
	}
	neg := n < 0
	if neg {
		n = -n
	}
	var buf [20]byte
	i := len(buf)
	for n > 0 {
		i--
		buf[i] = byte('0' + n%10)
		n /= 10
	}
	if neg {
		i--
		buf[i] = '-'
	}
	return string(buf[i:])
}

// buildFromTitle makes one ticket when the spec is empty or too small to
// read: it is scoped from the spec's words or the request title.
func (b *builder) buildFromTitle() {
	feature := sanitize(strings.TrimLeft(cleanInline(b.req.Spec), "#>*-+=| "))
	if !hasContentWord(feature) || fieldCount(feature) > 16 || hasMarker(feature) {
		feature = sanitize(b.req.Title)
	}
	if feature == "" {
		feature = "the requested work"
	}
	feature = strings.TrimRight(stripCode(feature), ".!?")
	title := shorten(verbFirst(feature), 14, 110)
	kind := tickets.TypeStory
	if isBugText(feature) {
		kind = tickets.TypeBug
		if !strings.HasPrefix(strings.ToLower(title), "fix") {
			title = shorten("Fix "+lowerFirst(feature), 14, 110)
		}
	}
	d := b.newDraft(kind, originRequest, title, b.doc.root)
	d.topic = "request"
	d.role = b.docRole
	d.value, d.conf = 0.9, 0.4
	phrase := subjectPhrase(title)
	d.means = lowerFirst(title)
	d.lead = "The spec gives little detail (\"" + shorten(feature, 20, 140) + "\"), so this ticket is scoped from it; confirm the scope with the requester before starting."
	d.crit = []string{
		"The scope of " + phrase + " is written down and agreed with the requester before work starts.",
		upperFirst(phrase) + " works end to end in a test environment as agreed.",
		"Automated tests cover " + phrase + ".",
	}
	d.words = newWordSet(title)
	b.info[0].drafts = append(b.info[0].drafts, d)
	q := b.addQuestion(b.doc.root, "What exactly is in scope for "+phrase+", and how will it be accepted?", "scope of "+phrase, 1)
	_ = q
}

// subjectPhrase is a title without its leading verb: "Add dark mode" gives
// "dark mode".
func subjectPhrase(title string) string {
	fields := strings.Fields(title)
	if len(fields) > 1 && baseVerb(fields[0]) != "" {
		return strings.Join(fields[1:], " ")
	}
	return lowerFirst(title)
}
