package heuristic

import (
	"regexp"
	"strings"

	"github.com/foresight-dev/foresight/internal/tickets"
)

// This file reads the bug reports of a list of reports: a section whose
// own text has repro steps, an expected and an actual result (or says what
// is wrong) is one bug, titled after its symptom, not a story about its
// heading.

var (
	bugField     = regexp.MustCompile(`(?i)^(severity|priority|repro|reproduce|steps to reproduce|steps|expected(?: result| behaviou?r)?|actual(?: result| behaviou?r)?|observed|what is wrong|what's wrong|environment|behaviou?r|current behaviou?r|symptoms?|root cause|cause|(?:product |user )?impact|(?:suggested |proposed )?fix|workaround|recommendations?|remediation)\s*:\s*(.*)$`)
	reportLabel  = regexp.MustCompile(`^([A-Z][A-Z0-9]*-\d+|#\d+|[A-Z]\d+|\d+)[.:)]?\s+(.+)$`)
	listPrefix   = regexp.MustCompile(`^\s*(?:[-*+]|\d{1,9}[.)])\s+`)
	severityRank = []struct {
		re   *regexp.Regexp
		prio string
		val  float64
	}{
		{regexp.MustCompile(`(?i)\b(s1|p0|blocker|critical|sev ?1)\b`), tickets.PriorityCritical, 0.99},
		{regexp.MustCompile(`(?i)\b(s2|p1|high|major|sev ?2)\b`), tickets.PriorityHigh, 0.93},
		{regexp.MustCompile(`(?i)\b(s3|p2|medium|moderate|sev ?3)\b`), tickets.PriorityMedium, 0.86},
		{regexp.MustCompile(`(?i)\b(s4|p3|low|minor|trivial|cosmetic|sev ?4)\b`), tickets.PriorityLow, 0.8},
	}
)

// sectionBugReport is what the own lines of one section report.
type sectionBugReport struct {
	severity string
	repro    []string
	expected []string
	actual   []string
	wrong    []string
	// behaviour is what a "Behavior:" or "Symptom:" field says the code
	// does; notes are its cause, impact and proposed fix.
	behaviour []string
	fix       []string
	notes     []string
	// before are the lines before the first field and the fix, what a
	// finding says was seen.
	before []string
}

// findingsHeading is a heading of a report of findings: a penetration
// test, a security or code audit.
var findingsHeading = regexp.MustCompile(`(?i)\b(findings?|penetration|pen[- ]?test|audit|vulnerabilit(y|ies))\b`)

// findingLabel is the heading of one finding, its identifier holding a
// letter ("F-01 …", "V3 …"; a bare "3." numbers a section of any document).
var findingLabel = regexp.MustCompile(`^([A-Z][A-Z0-9]*-\d+|[A-Z]{1,3}\d+)[.:)]?\s+(.+)$`)

// findingsDocument reports whether s lies in a report of findings: the
// heading of one of the sections it is in says so.
func (b *builder) findingsDocument(s *section) bool {
	for p := s.parent; p != nil; p = p.parent {
		if findingsHeading.MatchString(p.heading) {
			return true
		}
	}
	return false
}

// specLines returns the spec's lines, numbered from 1 at index 0.
func (b *builder) specLines() []string {
	if b.lines == nil {
		text := strings.ReplaceAll(b.req.Spec, "\r\n", "\n")
		b.lines = strings.Split(strings.ReplaceAll(text, "\r", "\n"), "\n")
	}
	return b.lines
}

// readSectionBug reads the labelled fields of s's own lines; it returns nil
// unless they make a bug report (an expected result with an actual result
// or repro steps, or a "what is wrong" line).
func (b *builder) readSectionBug(s *section) *sectionBugReport {
	if s.parent == nil || !s.isWork() {
		return nil
	}
	finding := s.heading != "" && s.heading[0] >= 'A' && s.heading[0] <= 'Z' && findingLabel.MatchString(stripCode(s.heading))
	r := b.readBugFields(s, finding)
	if len(r.expected) > 0 && (len(r.actual) > 0 || len(r.repro) > 0) || len(r.wrong) > 0 {
		return r
	}
	if len(r.behaviour) > 0 && (numberedReport.MatchString(s.heading) || len(r.fix) > 0 && bugWord.MatchString(s.heading)) {
		// "### Bug 1 — Year-boundary date comparison" with "Behavior:"
		// and "Fix:" lines: a code review's finding, what the code does
		// being what is wrong.
		r.wrong = r.behaviour
		return r
	}
	if finding && len(r.fix) > 0 && b.findingsDocument(s) {
		// "### F-01 Password reset tokens do not expire" with what was
		// seen and a "Recommendation:": a finding of an audit or
		// penetration test, its heading saying what is wrong.
		r.wrong = r.before
		if len(r.wrong) == 0 {
			r.wrong = []string{findingLabel.FindStringSubmatch(stripCode(s.heading))[2]}
		}
		return r
	}
	if numberedReport.MatchString(s.heading) && r.readNumberedReport(s) {
		return r
	}
	return nil
}

// readBugFields reads s's own lines into a report: each labelled field
// (two on one line count as two lines), and the lines after one as its
// continuation. When s is a finding (finding), the lines before its
// first field and its fix are what it saw. Code fences and blank lines
// are skipped.
func (b *builder) readBugFields(s *section, finding bool) *sectionBugReport {
	lines := b.specLines()
	r := &sectionBugReport{}
	var cur *[]string
	var queue []string
	for n := s.first + 1; n <= s.last && n <= len(lines) || len(queue) > 0; {
		var line string
		if len(queue) > 0 {
			line, queue = queue[0], queue[1:]
		} else {
			b.m.tick(1)
			line = strings.TrimSpace(strings.ReplaceAll(lines[n-1], "**", ""))
			n++
			if first, rest, ok := inlineFields(line); ok {
				// "Expected: 12.50. Actual: 12.500.": two fields on a line.
				line, queue = first, append(queue, rest)
			}
		}
		if line == "" || strings.HasPrefix(line, "```") {
			continue
		}
		if m := matchIf(strings.IndexByte(line, ':') > 0, bugField, line); m != nil {
			cur = r.addField(strings.ToLower(m[1]), strings.TrimSpace(m[2]))
			continue
		}
		if cur != nil {
			*cur = append(*cur, listPrefix.ReplaceAllString(line, ""))
		} else if finding && len(r.fix) == 0 {
			r.before = append(r.before, line)
		}
	}
	return r
}

// addField files the text rest of the labelled field named field (lower
// case) and returns the list its continuation lines go to: nil after a
// severity or an environment, whose text is one line or none of the
// report's.
func (r *sectionBugReport) addField(field, rest string) *[]string {
	var cur *[]string
	switch {
	case field == "severity" || field == "priority":
		r.severity = rest
		return nil
	case strings.HasPrefix(field, "expected"):
		cur = &r.expected
	case strings.HasPrefix(field, "actual") || field == "observed":
		cur = &r.actual
	case strings.HasPrefix(field, "what"):
		cur = &r.wrong
	case field == "environment":
		return nil
	case strings.HasPrefix(field, "behavio") || strings.HasPrefix(field, "current") || strings.HasPrefix(field, "symptom"):
		cur = &r.behaviour
	case strings.HasSuffix(field, "fix") || field == "workaround" || strings.HasPrefix(field, "recommendation") || field == "remediation":
		cur = &r.fix
	case strings.HasSuffix(field, "impact") || strings.HasSuffix(field, "cause"):
		cur = &r.notes
		if rest != "" {
			rest = upperFirst(field) + ": " + rest
		}
	default:
		cur = &r.repro
	}
	if rest != "" {
		*cur = append(*cur, rest)
	}
	return cur
}

// readNumberedReport completes the report of s, headed "### Issue 3" or
// "## Bug 12" (a report by its heading), from its blocks: its first
// paragraph says what is wrong, and a code block under it (the request or
// log as filed) is part of its repro, or what is wrong when it has no
// paragraph. It reports whether the report now says what is wrong.
func (r *sectionBugReport) readNumberedReport(s *section) bool {
	for _, bl := range s.blocks {
		switch {
		case bl.kind == paragraphBlock && len(r.wrong) == 0:
			r.wrong = append(r.wrong, collapseSpaces(bl.text))
		case bl.kind == codeBlock && len(r.repro) == 0:
			r.repro = append(r.repro, shorten(collapseSpaces(bl.text), 60, 400))
		}
	}
	if len(r.wrong) == 0 && len(r.repro) > 0 {
		r.wrong = append(r.wrong, r.repro[0])
	}
	return len(r.wrong) > 0
}

// inlineFields splits a line that holds a report field after a sentence
// ("Expected: 12.50. Actual: 12.500.", "A reset link … still works.
// Recommendation: …") before that field.
func inlineFields(line string) (first, rest string, ok bool) {
	if !strings.Contains(line, ":") {
		return "", "", false
	}
	if strings.Contains(line, "ecommendation") {
		low := strings.ToLower(line)
		if i := strings.Index(low, ". recommendation"); i > 0 {
			if j := strings.IndexByte(low[i+2:], ':'); j >= 0 && j < 24 {
				return strings.TrimSpace(line[:i+1]), strings.TrimSpace(line[i+2:]), true
			}
		}
	}
	if strings.Count(line, ":") < 2 {
		return "", "", false
	}
	low := strings.ToLower(line)
	for _, f := range []string{". actual", ". observed", ". expected"} {
		if i := strings.Index(low, f); i > 0 {
			if j := strings.IndexByte(low[i+2:], ':'); j >= 0 && j < 24 {
				return strings.TrimSpace(line[:i+1]), strings.TrimSpace(line[i+2:]), true
			}
		}
	}
	return "", "", false
}

// numberedReport is the heading of one report of a list of them, alone
// ("Issue 3") or with its subject ("Bug 1 — CRITICAL: Year-boundary date
// comparison"; the subject is the last group).
var numberedReport = regexp.MustCompile(`(?i)^\s*(?:issue|bug|defect|problem|finding)\s+#?\d+\b\s*[-:.\x{2013}\x{2014}]*\s*(.*)$`)

// bugWord is a heading that names a defect.
var bugWord = regexp.MustCompile(`(?i)\b(bugs?|defects?|issues?|problems?|findings?|regressions?)\b`)

// severityWord is a severity written before or after a report's subject
// ("CRITICAL: …", "… (HIGH)").
var severityWord = regexp.MustCompile(`(?i)^(critical|blocker|high|major|medium|moderate|low|minor)\s*[:\-\x{2013}\x{2014}]\s*|\s*\((critical|blocker|high|major|medium|moderate|low|minor)\)$`)

// sectionBugDraft makes the bug ticket of a section that reports one, and
// reports whether it did.
func (b *builder) sectionBugDraft(s *section) bool {
	r := b.readSectionBug(s)
	if r == nil {
		return false
	}
	heading := strings.TrimRight(stripCode(s.heading), ".!?: ")
	title, label := bugTitle(heading, r)
	d := b.newDraft(tickets.TypeBug, originBug, shorten(title, 16, 110), s)
	d.topic = "bug"
	d.value, d.conf, d.phase, d.weight = 0.9, 0.8, 1, 0
	d.labels = []string{"bug"}
	severity := r.severity
	if severity == "" {
		severity = s.priority // "| F-03 | IDOR … | Critical |" of a findings table
	}
	if severity == "" && numberedReport.MatchString(heading) {
		severity = heading // "Bug 2 — MEDIUM: God method"
	}
	d.rankSeverity(severity)
	d.lead = "Bug report: " + heading + "."
	d.addBugNotes(r)
	ref := heading
	if label != "" {
		ref = label
	}
	d.addBugCriteria(r, ref)
	d.words = newWordSet(title, strings.Join(r.expected, " "), strings.Join(r.actual, " "), strings.Join(r.wrong, " "))
	b.info[s.index].drafts = append(b.info[s.index].drafts, d)
	for _, u := range b.info[s.index].units {
		u.claimed = true
	}
	return true
}

// bugTitle is the title of the bug report r under heading, and the label
// that names the report in the spec ("BUG-12", "Bug 1"; "" for none): the
// heading's subject after its label and without its severity, or the
// symptom when the heading is only a number ("Issue 24").
func bugTitle(heading string, r *sectionBugReport) (title, label string) {
	title = "Fix " + lowerFirst(heading)
	if m := reportLabel.FindStringSubmatch(heading); m != nil {
		label = m[1]
		title = "Fix " + label + ": " + strings.TrimLeft(m[2], "-\u2013\u2014 ")
	} else if m := numberedReport.FindStringSubmatch(heading); m != nil && m[1] != "" {
		// "Bug 1 — CRITICAL: Year-boundary date comparison": the subject
		// without its severity.
		subject := strings.TrimSpace(severityWord.ReplaceAllString(m[1], ""))
		label = collapseSpaces(heading[:len(heading)-len(m[1])])
		label = strings.TrimRight(label, " -:.\u2013\u2014")
		title = "Fix " + lowerFirst(label) + ": " + subject
	} else if m != nil && len(r.wrong) > 0 {
		// "Issue 24" says nothing: the title carries the symptom, and two
		// reports under one number stay two bugs.
		label = collapseSpaces(heading)
		title = "Fix " + lowerFirst(label) + ": " + strings.TrimRight(shorten(splitSentences(r.wrong[0])[0], 12, 90), ".")
	}
	return title, label
}

// rankSeverity gives d the priority and value of the first rank that
// severity, a report's text of it, names (none when it names none or is
// empty); critical and high bugs are fixed before the rest at the cap,
// low ones after.
func (d *draft) rankSeverity(severity string) {
	for _, sv := range severityRank {
		if severity != "" && sv.re.MatchString(severity) {
			d.prio, d.value = sv.prio, sv.val
			switch sv.prio {
			case tickets.PriorityCritical, tickets.PriorityHigh:
				d.importance = priorityValue("MUST") // fixed before the rest at the cap
			case tickets.PriorityLow:
				d.importance = priorityValue("COULD")
			}
			return
		}
	}
}

// addBugNotes adds what bug report r says beyond its criteria to d's
// notes: its severity, repro steps, actual result, cause, impact and
// proposed fix.
func (d *draft) addBugNotes(r *sectionBugReport) {
	if r.severity != "" {
		d.notes = append(d.notes, "Severity: "+r.severity)
	}
	if len(r.repro) > 0 {
		d.notes = append(d.notes, "Steps to reproduce: "+strings.Join(r.repro, " "))
	}
	if len(r.actual) > 0 {
		d.notes = append(d.notes, "Actual: "+strings.Join(r.actual, " "))
	}
	d.notes = append(d.notes, r.notes...)
	if len(r.fix) > 0 {
		d.notes = append(d.notes, "Proposed fix: "+strings.Join(r.fix, " "))
	}
}

// addBugCriteria adds the acceptance criteria of bug report r, named ref
// in the spec, to d: what is wrong no longer happens, the steps give the
// expected result, and a regression test covers it.
func (d *draft) addBugCriteria(r *sectionBugReport, ref string) {
	for _, w := range r.wrong {
		d.crit = append(d.crit, "No longer happens: "+w)
	}
	if len(r.expected) > 0 {
		d.crit = append(d.crit, "Following the steps to reproduce gives the expected result: "+strings.Join(r.expected, " "))
	}
	if len(r.actual) > 0 {
		d.crit = append(d.crit, "The reported behaviour no longer occurs: "+strings.Join(r.actual, " "))
	}
	d.crit = append(d.crit, "A regression test reproduces "+ref+" and passes with the fix.")
}

// bugSections counts the sections that report a bug of their own.
func (b *builder) bugSections() int {
	n := 0
	for _, s := range b.doc.sections {
		if b.readSectionBug(s) != nil {
			n++
		}
	}
	return n
}
