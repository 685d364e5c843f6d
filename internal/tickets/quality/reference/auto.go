package reference

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/foresight-dev/foresight/internal/tickets"
)

// notWorkHeading matches the heading keys (see headingKey) of sections that
// hold no work of their own: excluded, rejected or later scope, navigation,
// history, context, metrics to watch, template sections.
var notWorkHeading = regexp.MustCompile(`^(non goals?|out of scope|not in scope|explicitly out of scope|won t have|will not have|` +
	`alternatives?|alternatives considered|describe alternatives|rationale and alternatives|rejected|` +
	`future|roadmap|deferred|follow ups?|` +
	`table of contents|contents|toc|` +
	`revision history|change ?log|implementation history|history|` +
	`glossary|appendix|references|prior art|drawbacks|faq|` +
	`success metrics|metrics to watch|marketing|personas|background|motivation|context|additional context|` +
	`screenshots|environment|desktop|smartphone|prerequisites|attendees|spike results)\b`)

// bugMarker marks a section that reports a bug.
var bugMarker = regexp.MustCompile(`(?im)^\W*(expected( behaviou?r| result)?|actual( behaviou?r| result)?|repro(duction)?( steps)?|steps to reproduce|to reproduce)\b`)

var (
	clauseBreak = regexp.MustCompile(`\s*[,;–—()]\s*|\s+-\s+`)
	tickedItem  = regexp.MustCompile(`^\s*[-*+]\s*\[[xX]\]`)
	htmlComment = regexp.MustCompile(`<!--.*?-->`)
)

// Auto derives a reference from a spec alone, for checks that have no
// reference written by judgment (the lint score):
//   - not work: sections whose heading names excluded, rejected, later or
//     context material (non-goals, out of scope, won't have, alternatives,
//     future, roadmap, deferred, follow-ups, table of contents, history,
//     changelog, glossary, appendix, prior art, drawbacks, FAQ, success
//     metrics, metrics to watch, marketing, personas, background,
//     motivation, context, screenshots, environment, prerequisites,
//     attendees, spike results), ticked checklist items and HTML comments;
//   - items: every heading of three or more words that count outside those
//     sections, and every sentence of every other line outside code blocks (its
//     clauses between commas, semicolons, dashes and brackets are phrases
//     of it too), none must-have, labelled with its section's heading (the
//     sentence itself when the spec has fewer than two headings and is not
//     a bug report); a
//     sentence of a
//     section that reports a bug (expected, actual, repro lines) accepts
//     only the type bug, any other accepts every type.
func Auto(spec string) *Case {
	c := &Case{Name: "spec", File: "spec", Spec: spec, doc: parseDocument(spec)}
	c.w = newWeights(c.doc.lines)
	secs := c.readAutoSections()
	for _, h := range c.doc.headings {
		if !secs.notWork[h.line] && len(Tokens(h.text)) >= 3 {
			c.addAutoItem(fmt.Sprintf("heading %d", h.line), h.text, secs.bug[h.line], h.text)
		}
	}
	wholeBug := bugMarker.MatchString(spec) // a spec that is one bug report is one section
	labelBySentence := len(c.doc.headings) < 2 && !wholeBug
	var notWorkLines []string
	inCode, inComment := false, false
	for i, l := range c.doc.lines {
		n := i + 1
		if codeFence.MatchString(l) {
			inCode = !inCode
			continue
		}
		if inCode || secs.notWork[n] || strings.TrimSpace(l) == "" {
			continue
		}
		if inComment || strings.Contains(l, "<!--") && !strings.Contains(l, "-->") {
			inComment = !strings.Contains(l, "-->")
			notWorkLines = append(notWorkLines, l)
			continue
		}
		if tickedItem.MatchString(l) || htmlComment.MatchString(l) {
			notWorkLines = append(notWorkLines, l)
			continue
		}
		if atxHeading.MatchString(l) || boldHeading.MatchString(strings.TrimSpace(l)) || tableRule.MatchString(l) {
			continue
		}
		c.addSentenceItems(n, l, secs.heading[n], labelBySentence, secs.bug[n])
	}
	c.addNotWorkLines(notWorkLines)
	c.targets = c.buildTargets()
	return c
}

// autoSections are the sections of a spec as Auto reads them, each
// indexed by line number (from 1).
type autoSections struct {
	// heading is the heading of the innermost section of each line.
	heading []string
	// bug reports whether the innermost section of each line reports a
	// bug (it has expected, actual or repro lines).
	bug []bool
	// notWork holds the lines of the sections that hold no work.
	notWork map[int]bool
}

// readAutoSections reads the sections of c's spec, and adds those whose
// heading names no work to c's reference.
func (c *Case) readAutoSections() autoSections {
	secs := autoSections{heading: make([]string, len(c.doc.lines)+1), bug: make([]bool, len(c.doc.lines)+1), notWork: map[int]bool{}}
	for _, h := range c.doc.headings {
		first, last := h.line, c.doc.sectionEnd(h)
		isBug := bugMarker.MatchString(strings.Join(c.doc.lines[first-1:last], "\n"))
		for n := first; n <= last; n++ {
			secs.heading[n] = h.text // a later heading is a nested one: the innermost wins
			secs.bug[n] = isBug
		}
		if notWorkHeading.MatchString(headingKey(h.text)) {
			c.Ref.NotWork = append(c.Ref.NotWork, NotWork{Heading: h.text, Why: "its heading"})
			for n := first; n <= last; n++ {
				secs.notWork[n] = true
			}
		}
	}
	return secs
}

// addAutoItem adds an item to c's reference, none must-have: a bug's
// (bug) accepts only the type bug, any other every type.
func (c *Case) addAutoItem(id, label string, bug bool, phrases ...string) {
	it := Item{ID: id, Type: tickets.TypeTask, Label: label, Phrases: phrases,
		Also: []string{tickets.TypeEpic, tickets.TypeStory, tickets.TypeBug, tickets.TypeSpike}}
	if bug {
		it.Type, it.Also = tickets.TypeBug, nil
	}
	c.Ref.Items = append(c.Ref.Items, it)
}

// addSentenceItems adds an item for every sentence of two words or more
// of line l (number n), its clauses phrases of it too, labelled label or,
// when labelBySentence, with the sentence itself; bug is addAutoItem's.
func (c *Case) addSentenceItems(n int, l, label string, labelBySentence, bug bool) {
	for j, s := range sentenceBreak.Split(plainLine(l), -1) {
		if len(Tokens(s)) < 2 {
			continue
		}
		phrases := []string{s}
		if clauses := clauseBreak.Split(s, -1); len(clauses) > 1 {
			for _, cl := range clauses {
				if len(Tokens(cl)) >= 2 {
					phrases = append(phrases, cl)
				}
			}
		}
		itemLabel := label
		if labelBySentence {
			itemLabel = s
		}
		c.addAutoItem(fmt.Sprintf("line %d.%d", n, j+1), itemLabel, bug, phrases...)
	}
}

// addNotWorkLines adds the text of lines, ticked items and comments, to
// c's reference as one not-work entry, when any has a word.
func (c *Case) addNotWorkLines(lines []string) {
	var phrases []string
	for _, l := range lines {
		l = strings.NewReplacer("<!--", " ", "-->", " ").Replace(l)
		if p := plainLine(l); len(Tokens(p)) > 0 {
			phrases = append(phrases, p)
		}
	}
	if len(phrases) > 0 {
		c.Ref.NotWork = append(c.Ref.NotWork, NotWork{Phrases: phrases, Why: "ticked items and comments"})
	}
}

// sectionEnd is the last line of the section under h.
func (d *document) sectionEnd(h heading) int {
	for _, next := range d.headings {
		if next.line > h.line && next.level <= h.level {
			return next.line - 1
		}
	}
	return len(d.lines)
}
