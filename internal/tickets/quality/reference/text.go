package reference

import (
	"math"
	"regexp"
	"strings"
	"unicode"
)

// words returns the lower-case runs of letters and digits of s.
func words(s string) []string {
	return strings.FieldsFunc(strings.ToLower(s), func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) })
}

// Tokens returns the words of s that count for matching: lower case, stop
// words and one- or two-letter words removed (numbers are kept, without
// leading zeros), an ending "s", "es", "ed", "ing" and then "e" removed when
// three letters remain, and cut to their first five letters. "Invoices",
// "invoiced" and "invoice" all become "invoi"; "notify" and
// "notification" become "notif".
func Tokens(s string) []string {
	var out []string
	for _, w := range words(s) {
		if t := stem(w); t != "" {
			out = append(out, t)
		}
	}
	return out
}

func stem(w string) string {
	digits := strings.IndexFunc(w, unicode.IsDigit) >= 0
	if stopWords[w] || (len(w) < 3 && !digits) {
		return ""
	}
	if digits {
		if t := strings.TrimLeft(w, "0"); t != "" {
			return t
		}
		return "0"
	}
	for _, suffix := range []string{"ing", "es", "ed", "s"} {
		if strings.HasSuffix(w, suffix) && len(w)-len(suffix) >= 3 && !strings.HasSuffix(w, "ss") {
			w = w[:len(w)-len(suffix)]
			break
		}
	}
	if strings.HasSuffix(w, "e") && len(w) > 3 {
		w = w[:len(w)-1]
	}
	if r := []rune(w); len(r) > 5 {
		w = string(r[:5])
	}
	return w
}

var stopWords = map[string]bool{}

func init() {
	for w := range strings.FieldsSeq(`a an the and or of to in on for with by at from as is are be been being it its this that
		these those must should shall may can could will would not no nor all any each every our your their we you they
		i me my he she them his her was were has have had do does did so than then there here when which who whom what
		where why how if else also only just into about over under after before up out off via per e.g eg i.e ie etc
		one two some such very own same both either neither us let lets get gets got able`) {
		stopWords[w] = true
	}
}

// tokenSet is a set of tokens.
type tokenSet map[string]bool

func setOf(s string) tokenSet {
	set := tokenSet{}
	for _, t := range Tokens(s) {
		set[t] = true
	}
	return set
}

// weights gives each token of a spec its weight: log(1 + lines/lines
// holding it), so that a word on every line of the spec ("work order" in a
// work-order PRD) weighs little and a rare one much. A token the spec does
// not hold weighs as if on one line.
type weights struct {
	lines int
	df    map[string]int
}

func newWeights(lines []string) weights {
	w := weights{df: map[string]int{}}
	for _, l := range lines {
		seen := setOf(l)
		if len(seen) == 0 {
			continue
		}
		w.lines++
		for t := range seen {
			w.df[t]++
		}
	}
	return w
}

func (w weights) of(t string) float64 {
	df := max(w.df[t], 1)
	return math.Log(1 + float64(max(w.lines, 1))/float64(df))
}

// coverage is the weighted share of the distinct tokens of phrase found in
// set, and the number found.
func (w weights) coverage(phrase []string, set tokenSet) (float64, int) {
	seen := map[string]bool{}
	found := 0
	var have, all float64
	for _, t := range phrase {
		if seen[t] {
			continue
		}
		seen[t] = true
		all += w.of(t)
		if set[t] {
			found++
			have += w.of(t)
		}
	}
	if all == 0 {
		return 0, 0
	}
	return have / all, found
}

// document is a spec split into lines (numbered from 1) and headings.
type document struct {
	lines    []string
	headings []heading
	// wordLine holds, for each word of the document in order, its line.
	docWords []string
	wordLine []int
}

type heading struct {
	line  int
	level int // 1 to 6 for "#" headings; a line that is all bold is a level-3 heading
	text  string
}

var (
	atxHeading  = regexp.MustCompile(`^(#{1,6})\s+(.+?)\s*#*\s*$`)
	boldHeading = regexp.MustCompile(`^\*\*([^*]+)\*\*:?\s*$`)
	codeFence   = regexp.MustCompile("^\\s*(```|~~~)")
	// setextUnderline underlines a heading: "=====" or "-----".
	setextUnderline = regexp.MustCompile(`^(={3,}|-{3,})\s*$`)
)

// setextText reports whether line can be the text of an underlined
// heading: one line of text after a blank line, not a list item.
func setextText(line string, afterBlank bool) bool {
	t := strings.TrimSpace(line)
	return afterBlank && t != "" && !strings.HasPrefix(line, " ") && markdownNoise.FindString(line) == ""
}

func parseDocument(spec string) *document {
	d := &document{lines: strings.Split(spec, "\n")}
	inCode := false
	for i, l := range d.lines {
		n := i + 1
		for _, w := range words(l) {
			d.docWords = append(d.docWords, w)
			d.wordLine = append(d.wordLine, n)
		}
		if codeFence.MatchString(l) {
			inCode = !inCode
			continue
		}
		if inCode {
			continue
		}
		if m := atxHeading.FindStringSubmatch(l); m != nil {
			d.headings = append(d.headings, heading{line: n, level: len(m[1]), text: m[2]})
		} else if m := setextUnderline.FindStringSubmatch(l); m != nil && i > 0 && setextText(d.lines[i-1], i < 2 || strings.TrimSpace(d.lines[i-2]) == "") {
			// "Abstract" over "========" (reStructuredText, Markdown):
			// the heading is the line above, level 1 for "=", 2 for "-".
			level := 1
			if m[1][0] == '-' {
				level = 2
			}
			d.headings = append(d.headings, heading{line: n - 1, level: level, text: strings.TrimSpace(d.lines[i-1])})
		} else if m := boldHeading.FindStringSubmatch(strings.TrimSpace(l)); m != nil {
			d.headings = append(d.headings, heading{line: n, level: 3, text: m[1]})
		}
	}
	return d
}

// headingKey is a heading's words without a leading section number.
func headingKey(s string) string {
	w := words(s)
	for len(w) > 1 && strings.IndexFunc(w[0], func(r rune) bool { return !unicode.IsDigit(r) }) < 0 {
		w = w[1:]
	}
	return strings.Join(w, " ")
}

// section returns the first and last line of the section under the heading
// whose text is name (compared without case, punctuation and section
// numbers).
func (d *document) section(name string) (first, last int, ok bool) {
	key := headingKey(name)
	for i, h := range d.headings {
		if headingKey(h.text) != key {
			continue
		}
		last = len(d.lines)
		for _, next := range d.headings[i+1:] {
			if next.level <= h.level {
				last = next.line - 1
				break
			}
		}
		return h.line, last, true
	}
	return 0, 0, false
}

// linesOf returns the lines on which phrase starts, its words matched in
// order as in the spec (case, punctuation and line breaks ignored).
func (d *document) linesOf(phrase string) []int {
	p := words(phrase)
	if len(p) == 0 {
		return nil
	}
	var out []int
	for i := 0; i+len(p) <= len(d.docWords); i++ {
		match := true
		for j := range p {
			if d.docWords[i+j] != p[j] {
				match = false
				break
			}
		}
		if match {
			out = append(out, d.wordLine[i])
		}
	}
	return out
}

// markdownNoise removes list markers, checkboxes and table bars so that a
// line of the spec reads as text.
var (
	markdownNoise = regexp.MustCompile(`^\s*([-*+]|\d+[.)])?\s*(\[[ xX]\])?\s*`)
	markdownLink  = regexp.MustCompile(`\[([^\]]*)\]\([^)]*\)`)
)

func plainLine(l string) string {
	l = strings.TrimLeft(strings.TrimSpace(l), "#>")
	l = markdownNoise.ReplaceAllString(l, "")
	l = markdownLink.ReplaceAllString(l, "$1")
	return strings.TrimSpace(strings.ReplaceAll(l, "|", " "))
}
