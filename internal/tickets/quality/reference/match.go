package reference

import (
	"fmt"
	"math"
	"regexp"
	"slices"
	"strings"

	"github.com/foresight-dev/foresight/internal/tickets"
)

// Threshold is the share of a phrase's tokens a ticket must hold to match
// it.
const Threshold = 0.6

// A target is what a ticket can be matched to: a work item or a not-work
// part of the spec.
type target struct {
	item    *Item // nil for a not-work part
	notWork *NotWork
	name    string
	phrases []phrase
	// lines are the spec lines the target covers: for an item the lines
	// its phrases start on, for a not-work section all its lines.
	lines []int
}

type phrase struct {
	text string
	// tokens are the phrase's distinct tokens.
	tokens []string
	// weights of the tokens, and their sum.
	weights []float64
	total   float64
	// titleOnly phrases (headings, short lines) match a ticket's title,
	// never its description or criteria.
	titleOnly bool
}

func (c *Case) newPhrase(text string, titleOnly bool) phrase {
	p := phrase{text: text, titleOnly: titleOnly}
	seen := map[string]bool{}
	for _, t := range Tokens(text) {
		if !seen[t] {
			seen[t] = true
			p.tokens = append(p.tokens, t)
			p.weights = append(p.weights, c.w.of(t))
			p.total += c.w.of(t)
		}
	}
	return p
}

// cover is the weighted share of the phrase's tokens found in set, and the
// number found.
func (p phrase) cover(set tokenSet) (float64, int) {
	if p.total == 0 {
		return 0, 0
	}
	have, found := 0.0, 0
	for i, t := range p.tokens {
		if set[t] {
			have += p.weights[i]
			found++
		}
	}
	return have / p.total, found
}

// buildTargets makes the case's targets: one per item, one per not-work
// entry. A not-work section contributes its headings (title only) and each
// sentence of its lines, except lines that repeat a heading of a section
// that is work (a table of contents lists the work sections too) and
// sentences mostly made of such a heading's words.
func (c *Case) buildTargets() []*target {
	var out []*target
	for i := range c.Ref.Items {
		it := &c.Ref.Items[i]
		t := &target{item: it, name: it.ID}
		for _, p := range it.Phrases {
			t.phrases = append(t.phrases, c.newPhrase(p, false))
			t.lines = append(t.lines, c.doc.linesOf(p)...)
		}
		out = append(out, t)
	}
	inNotWork := map[int]bool{}
	for _, nw := range c.Ref.NotWork {
		if first, last, ok := c.doc.section(nw.Heading); nw.Heading != "" && ok {
			for n := first; n <= last; n++ {
				inNotWork[n] = true
			}
		}
	}
	workHeadings := map[string]bool{}
	var workHeadingTokens []tokenSet
	for _, h := range c.doc.headings {
		if !inNotWork[h.line] {
			workHeadings[headingKey(h.text)] = true
			workHeadingTokens = append(workHeadingTokens, setOf(h.text))
		}
	}
	// restatesWorkHeading: a not-work line that is mostly a work section's
	// heading ("(R) Test plan is in place" of a release checklist) says
	// nothing a ticket of that section should be blamed for.
	restatesWorkHeading := func(p phrase) bool {
		for _, set := range workHeadingTokens {
			if cov, found := p.cover(set); cov >= Threshold && found >= min(2, len(p.tokens)) {
				return true
			}
		}
		return false
	}
	for i := range c.Ref.NotWork {
		nw := &c.Ref.NotWork[i]
		t := &target{notWork: nw, name: "not work (" + nw.Why + ")"}
		if nw.Heading != "" {
			t.name = fmt.Sprintf("not work: %q (%s)", nw.Heading, nw.Why)
			first, last, _ := c.doc.section(nw.Heading)
			t.phrases = append(t.phrases, c.newPhrase(nw.Heading, true))
			inCode := false
			for n := first; n <= last; n++ {
				t.lines = append(t.lines, n)
				l := c.doc.lines[n-1]
				if codeFence.MatchString(l) {
					inCode = !inCode
					continue
				}
				p := plainLine(l)
				if n == first || p == "" || workHeadings[headingKey(p)] || (inCode && !strings.HasPrefix(strings.TrimSpace(l), "#")) {
					continue
				}
				if !inCode && (atxHeading.MatchString(l) || boldHeading.MatchString(strings.TrimSpace(l))) {
					t.phrases = append(t.phrases, c.newPhrase(p, true))
					continue
				}
				for _, sentence := range sentenceBreak.Split(p, -1) {
					if ph := c.newPhrase(sentence, len(Tokens(sentence)) < 3); len(ph.tokens) > 0 && !restatesWorkHeading(ph) {
						t.phrases = append(t.phrases, ph)
					}
				}
			}
		}
		for _, p := range nw.Phrases {
			t.phrases = append(t.phrases, c.newPhrase(p, len(Tokens(p)) < 3))
			t.lines = append(t.lines, c.doc.linesOf(p)...)
		}
		out = append(out, t)
	}
	return out
}

// sentenceBreak splits a ticket's text into the sentences a phrase must be
// found in.
var sentenceBreak = regexp.MustCompile(`[.!?;:]\s+|\n+`)

// Match is where one ticket was matched.
//
// The rule: a ticket's title, and each sentence of its title, description
// and acceptance criteria, are cut into Tokens. A phrase of an item or of
// a not-work part matches when the title or one sentence holds at least
// Threshold of the phrase's tokens, weighted by rarity in the spec (see
// weights), and at least two of them when the phrase has two or more.
// Headings inside not-work parts, and their lines of fewer than three
// tokens, match the title only, and only when the title is mostly that
// heading (Threshold of the title's words besides a generic verb and
// numbers). Each target scores its text share, plus its title share when
// that reaches the threshold. A ticket that declares its source lines
// (metadata.source) adds 1 for every target whose lines meet them, and
// such a target needs only half the threshold and one word; a ticket whose declared
// source lies wholly in not-work parts, with no item's phrase in it, is
// not work whatever its words. The ticket goes to the passing target with
// the highest score; on a tie, to a work item over a not-work part, then
// to the one whose phrase shares more with the title, then to the first
// in the reference. Besides its own item, a ticket also covers every item
// whose phrase its title matches (a title that names two items covers
// both).
type Match struct {
	Ticket string `json:"ticket"`
	Title  string `json:"title"`
	Type   string `json:"type"`
	// Item is the matched item's id, empty when the ticket matched none.
	Item string `json:"item,omitempty"`
	// NotWork is true when the ticket matched a part that is not work.
	NotWork bool `json:"not_work,omitempty"`
	// Also lists further items the title covers.
	Also []string `json:"also,omitempty"`
	// Why explains the match in words.
	Why string `json:"why"`
}

type score struct {
	t        *target
	rank     float64
	titleCov float64
	textCov  float64
	phrase   string
	found    int
	of       int
	inTitle  bool
	shown    float64 // the share of the phrase the explanation names
	tie      float64 // the best title share below the threshold, to break ties
	bySource bool
	passes   bool
}

// sourceSpan reads the first and last spec line a ticket declares in
// metadata.source: {"first_line", "last_line"}, {"start_line",
// "end_line"}, {"line_start", "line_end"} or {"lines": [first, last]}.
func sourceSpan(md map[string]any) (int, int, bool) {
	src, ok := md["source"].(map[string]any)
	if !ok {
		return 0, 0, false
	}
	num := func(v any) (int, bool) {
		f, ok := v.(float64)
		if !ok {
			if i, isInt := v.(int); isInt {
				return i, true
			}
			return 0, false
		}
		return int(math.Round(f)), true
	}
	for _, pair := range [][2]string{{"first_line", "last_line"}, {"start_line", "end_line"}, {"line_start", "line_end"}} {
		a, okA := num(src[pair[0]])
		b, okB := num(src[pair[1]])
		if okA && okB && a > 0 && b >= a {
			return a, b, true
		}
	}
	if l, ok := src["lines"].([]any); ok && len(l) == 2 {
		a, okA := num(l[0])
		b, okB := num(l[1])
		if okA && okB && a > 0 && b >= a {
			return a, b, true
		}
	}
	return 0, 0, false
}

// ticketText is what a match reads of a ticket: its title's tokens, with
// and without the generic verbs and numbers, the tokens of each sentence
// of its title, description and criteria, and all of those tokens.
type ticketText struct {
	title      tokenSet
	titleWords []string
	sentences  []tokenSet
	// all holds every token of the ticket, to skip the phrases no
	// sentence can match.
	all tokenSet
}

// readTicket returns the text of t a match reads.
func readTicket(t tickets.Ticket) ticketText {
	tt := ticketText{title: setOf(t.Title), titleWords: titleTokens(t.Title), all: tokenSet{}}
	for _, part := range append([]string{t.Title, t.Description}, t.AcceptanceCriteria...) {
		for _, s := range sentenceBreak.Split(part, -1) {
			if set := setOf(s); len(set) > 0 {
				tt.sentences = append(tt.sentences, set)
				for tok := range set {
					tt.all[tok] = true
				}
			}
		}
	}
	return tt
}

// sourceLines is the span of spec lines a ticket declares (see
// sourceSpan); ok is false when it declares none.
type sourceLines struct {
	first, last int
	ok          bool
}

// match matches a ticket with the item or not-work part whose phrases
// its title or text covers best (a declared source inside a target's
// lines counts for it), and explains why in Match.Why. A ticket whose
// declared source lies in parts that are not work is not work whatever
// its text.
func (c *Case) match(t tickets.Ticket) Match {
	m := Match{Ticket: t.ExternalID, Title: t.Title, Type: t.TicketType}
	text := readTicket(t)
	var span sourceLines
	span.first, span.last, span.ok = sourceSpan(t.Metadata)
	var scores []score
	for _, tg := range c.targets {
		scores = append(scores, c.scoreTarget(tg, text, span))
	}
	if span.ok && c.spanIsNotWork(span.first, span.last) {
		m.NotWork = true
		m.Why = fmt.Sprintf("its source, lines %d to %d, lies in parts that are not work", span.first, span.last)
		return m
	}
	best := bestScore(scores)
	if best == nil {
		m.Why = "no phrase of any item or not-work part matches its title or text"
		return m
	}
	where := "text"
	if best.inTitle {
		where = "title"
	}
	m.Why = fmt.Sprintf("phrase %q, %d of %d words in its %s", best.phrase, best.found, best.of, where)
	if best.bySource {
		m.Why += fmt.Sprintf(", source lines %d to %d", span.first, span.last)
	}
	if best.t.item == nil {
		m.NotWork = true
		m.Why = best.t.name + ": " + m.Why
		return m
	}
	m.Item = best.t.item.ID
	for _, s := range scores {
		if s.t.item != nil && s.t != best.t && s.titleCov >= Threshold {
			m.Also = append(m.Also, s.t.item.ID)
		}
	}
	return m
}

// scoreTarget scores how well a ticket's text covers the phrases of tg:
// the best share of a phrase in its title (a title-only phrase only when
// the title's own words are enough of it) and in one of its sentences,
// counting a phrase when it finds two of its words (one of a one-word
// phrase). A ticket passes with either share at the Threshold, or, when
// its declared source lies in tg's lines, with half of it in any number
// of words.
func (c *Case) scoreTarget(tg *target, text ticketText, span sourceLines) score {
	s := score{t: tg}
	loose := 0.0 // the best share with any number of words, for a declared source
	consider := func(p phrase, set tokenSet, inTitle bool) {
		cov, found := p.cover(set)
		if found == 0 {
			return
		}
		loose = max(loose, cov)
		if found < min(2, len(p.tokens)) {
			return
		}
		if inTitle && cov > s.titleCov {
			s.titleCov = cov
		}
		if !inTitle && cov > s.textCov {
			s.textCov = cov
		}
		if cov > s.shown {
			s.shown, s.phrase, s.found, s.of, s.inTitle = cov, p.text, found, len(p.tokens), inTitle
		}
	}
	for _, p := range tg.phrases {
		if !p.titleOnly || c.w.shareOf(text.titleWords, p.tokens) >= Threshold {
			consider(p, text.title, true)
		}
		if cov, _ := p.cover(text.title); cov > s.tie {
			s.tie = cov
		}
		if p.titleOnly {
			continue
		}
		if _, found := p.cover(text.all); found == 0 {
			continue
		}
		for _, set := range text.sentences {
			consider(p, set, false)
		}
	}
	s.rank = s.textCov
	if s.titleCov >= Threshold {
		s.rank += s.titleCov
	}
	s.passes = s.titleCov >= Threshold || s.textCov >= Threshold
	if span.ok && slices.ContainsFunc(tg.lines, func(n int) bool { return n >= span.first && n <= span.last }) {
		s.bySource = true
		s.rank++
		s.passes = s.passes || loose >= Threshold/2
	}
	return s
}

// bestScore returns the passing score of highest rank, nil when none
// passes. On a tie, an item wins over a not-work part, and among items
// or among not-work parts the higher share of a phrase in the title
// wins; else the first.
func bestScore(scores []score) *score {
	var best *score
	for i := range scores {
		s := &scores[i]
		if !s.passes {
			continue
		}
		if best == nil || s.rank > best.rank+1e-9 {
			best = s
			continue
		}
		if math.Abs(s.rank-best.rank) < 1e-9 && (s.t.item != nil) == (best.t.item != nil) && s.tie > best.tie+1e-9 ||
			math.Abs(s.rank-best.rank) < 1e-9 && s.t.item != nil && best.t.item == nil {
			best = s
		}
	}
	return best
}

// titleTokens are a title's tokens without the generic verbs in front of
// it and without numbers.
func titleTokens(title string) []string {
	var out []string
	for _, t := range Tokens(title) {
		if !genericVerbs[t] && !genericVerbStems[t] && strings.IndexFunc(t, func(r rune) bool { return r < '0' || r > '9' }) >= 0 {
			out = append(out, t)
		}
	}
	return out
}

var genericVerbStems = func() map[string]bool {
	out := map[string]bool{}
	for v := range genericVerbs {
		out[stem(v)] = true
	}
	return out
}()

// shareOf is the weighted share of the tokens of title found in phrase.
func (w weights) shareOf(title, phrase []string) float64 {
	set := tokenSet{}
	for _, t := range phrase {
		set[t] = true
	}
	cov, _ := w.coverage(title, set)
	return cov
}

// spanIsNotWork reports whether every line of first..last that is in the
// spec lies in not-work parts and no item's phrase starts in it.
func (c *Case) spanIsNotWork(first, last int) bool {
	notWork := map[int]bool{}
	for _, tg := range c.targets {
		for _, n := range tg.lines {
			if tg.item != nil && n >= first && n <= last {
				return false
			}
			if tg.notWork != nil {
				notWork[n] = true
			}
		}
	}
	seen := false
	for n := first; n <= min(last, len(c.doc.lines)); n++ {
		if strings.TrimSpace(c.doc.lines[n-1]) == "" {
			continue
		}
		if !notWork[n] {
			return false
		}
		seen = true
	}
	return seen
}
