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
	inNotWork := map[int]bool{}
	sectionOf := make([]string, len(c.doc.lines)+1)
	bugSection := make([]bool, len(c.doc.lines)+1)
	for _, h := range c.doc.headings {
		first, last := h.line, c.doc.sectionEnd(h)
		isBug := bugMarker.MatchString(strings.Join(c.doc.lines[first-1:last], "\n"))
		for n := first; n <= last; n++ {
			sectionOf[n] = h.text // a later heading is a nested one: the innermost wins
			bugSection[n] = isBug
		}
		if notWorkHeading.MatchString(headingKey(h.text)) {
			c.Ref.NotWork = append(c.Ref.NotWork, NotWork{Heading: h.text, Why: "its heading"})
			for n := first; n <= last; n++ {
				inNotWork[n] = true
			}
		}
	}
	item := func(id, label string, bug bool, phrases ...string) {
		it := Item{ID: id, Type: tickets.TypeTask, Label: label, Phrases: phrases,
			Also: []string{tickets.TypeEpic, tickets.TypeStory, tickets.TypeBug, tickets.TypeSpike}}
		if bug {
			it.Type, it.Also = tickets.TypeBug, nil
		}
		c.Ref.Items = append(c.Ref.Items, it)
	}
	for _, h := range c.doc.headings {
		if !inNotWork[h.line] && len(Tokens(h.text)) >= 3 {
			item(fmt.Sprintf("heading %d", h.line), h.text, bugSection[h.line], h.text)
		}
	}
	wholeBug := bugMarker.MatchString(spec) // a spec that is one bug report is one section
	var lines []string
	inCode, inComment := false, false
	for i, l := range c.doc.lines {
		n := i + 1
		if codeFence.MatchString(l) {
			inCode = !inCode
			continue
		}
		if inCode || inNotWork[n] || strings.TrimSpace(l) == "" {
			continue
		}
		if inComment || strings.Contains(l, "<!--") && !strings.Contains(l, "-->") {
			inComment = !strings.Contains(l, "-->")
			lines = append(lines, l)
			continue
		}
		if tickedItem.MatchString(l) || htmlComment.MatchString(l) {
			lines = append(lines, l)
			continue
		}
		if atxHeading.MatchString(l) || boldHeading.MatchString(strings.TrimSpace(l)) || tableRule.MatchString(l) {
			continue
		}
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
			label := sectionOf[n]
			if len(c.doc.headings) < 2 && !wholeBug {
				label = s
			}
			item(fmt.Sprintf("line %d.%d", n, j+1), label, bugSection[n], phrases...)
		}
	}
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
	c.targets = c.buildTargets()
	return c
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
