package heuristic

import (
	"regexp"
	"slices"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// This file holds the markdown reader: it turns spec text into a tree of
// sections, each holding paragraphs, lists, tables and code blocks. It is a
// forgiving subset of CommonMark and GitHub tables, enough to find the
// structure of a product or technical spec; anything it does not recognise
// is read as paragraph text.

type blockKind int

const (
	paragraphBlock blockKind = iota
	listBlock
	tableBlock
	codeBlock
)

// block is one piece of a section's body.
type block struct {
	kind  blockKind
	text  string      // paragraph or code text
	first string      // a paragraph's first line
	items []*listItem // list items (top level)
	table *table
}

// listItem is a bullet or numbered item with its nested items.
type listItem struct {
	text     string
	more     []string // continuation lines, joined to text when the parse ends
	ordered  bool
	indent   int
	done     bool // a ticked checklist item ("- [x]"): work already done
	check    bool // a checklist item ("- [ ]" or "- [x]")
	children []*listItem
	// dashStep is a step written "-- 1. …" under its item (see readText).
	dashStep bool
}

// table is a pipe table: a header row and body rows of the same width.
type table struct {
	header []string
	rows   [][]string
}

// section is a heading and the blocks up to the next heading of the same or
// a higher level; deeper headings are its children.
type section struct {
	level    int
	heading  string
	blocks   []*block
	children []*section
	parent   *section
	index    int // document order, root is 0
	first    int // 1-based line of the heading (1 for the root)
	last     int // last line before the next heading of any level
	end      int // last line before the next heading of the same or a higher level
	class    sectionClass
	closed   bool // a report the spec marks fixed, duplicate or won't fix
	// priority is the priority or severity a summary table gives the
	// section ("Critical", "P0"), "" when none does.
	priority string
	// guide is an RFC's guide-level explanation beside its reference-level
	// one: only what the reference-level sections leave out is work.
	guide bool
	// cleaned is cleanHeading(heading), once cleanedHeading computed it.
	cleaned     string
	cleanedDone bool
}

// cleanedHeading is cleanHeading(s.heading), computed once: headings do
// not change after parsing.
func (s *section) cleanedHeading() string {
	if !s.cleanedDone {
		s.cleaned, s.cleanedDone = cleanHeading(s.heading), true
	}
	return s.cleaned
}

// document is a parsed spec.
type document struct {
	root     *section
	sections []*section // every section in document order, root first
}

var (
	atxHeading     = regexp.MustCompile(`^ {0,3}(#{1,6})(?:[ \t]+(.*?))?[ \t]*$`)
	atxClosing     = regexp.MustCompile(`[ \t]+#+$`)
	setextH1       = regexp.MustCompile(`^ {0,3}=+[ \t]*$`)
	setextH2       = regexp.MustCompile(`^ {0,3}-+[ \t]*$`)
	thematicBreak  = regexp.MustCompile(`^ {0,3}(?:(?:-[ \t]*){3,}|(?:\*[ \t]*){3,}|(?:_[ \t]*){3,})$`)
	listMarker     = regexp.MustCompile(`^([ \t]*)([-*+]|\d{1,9}[.)])[ \t]+(.*)$`)
	tableDelimiter = regexp.MustCompile(`^[ \t]*\|?[ \t]*:?-+:?[ \t]*(\|[ \t]*:?-+:?[ \t]*)*\|?[ \t]*$`)
	fenceOpen      = regexp.MustCompile("^ {0,3}(```+|~~~+)")
	markdownLink   = regexp.MustCompile(`!?\[([^\]]*)\]\([^)]*\)`)
	htmlTag        = regexp.MustCompile(`(?i)</?(br|p|b|i|em|strong|code|span|div|sup|sub|u|small|kbd)\s*/?>`)
	htmlComment    = regexp.MustCompile(`(?s)<!--.*?-->`)
	spaceRun       = regexp.MustCompile(`\s+`)
	boldLine       = regexp.MustCompile(`^\*\*[^*]+\*\*:?$`)
	checkbox       = regexp.MustCompile(`^\[([ xX])\]\s*`)
)

// parser holds the state of one parse.
type parser struct {
	doc     *document
	current *section
	lines   []string
	para    []string
	list    *block
	stack   []*listItem // open list items, outermost first
	blank   bool        // a blank line was seen since the last list line
	line    int         // 1-based number of the line being read
	// lineBreak is true when the paragraph's last line ended in a hard
	// line break: two spaces or a backslash.
	lineBreak bool
	// prevText is the last line that was not blank (cleared after a
	// literal block).
	prevText string
	// rstStyles are the reStructuredText title styles seen ("o=" for an
	// overlined and underlined "=", "u~" for underlined "~"), in order,
	// each with its level: a new style ranks below those seen before it,
	// as reStructuredText decides it.
	rstStyles []rstStyle
	// setextStyles are the "=" and "-" underlines read as Markdown's
	// (levels 1 and 2) before any other title style was seen: the first
	// reStructuredText style ranks below them.
	setextStyles []rstStyle
}

// rstStyle is a title style ("u=", "o-", "u'") and the level it gives.
type rstStyle struct {
	style string
	level int
}

// parseDocument reads spec text into a document; a plain-text document
// outlined by numbered titles ("1. Overview") reads as if they were
// headings (see numberedTitles).
func parseDocument(m *meter, text string) *document {
	doc := parseText(m, text)
	if doc.headingCount() == 0 {
		if titled, ok := numberedTitles(text); ok {
			return parseText(m, titled)
		}
	}
	return doc
}

// numberedTitle is a line of a plain-text document that titles the part
// below it: its number and a short name ("2. Habit Management", "4.1
// Guest").
var numberedTitle = regexp.MustCompile(`^(\d{1,2}(?:\.\d{1,2})*)\.?\s+([A-Z][^.!?:;]{0,60})$`)

// numberedTitles returns text with the numbered titles of a plain-text
// document ("1. Overview" alone on its line, a blank line around it, text
// below it that is no numbered line) written as Markdown headings, one
// level per number ("## Overview", "### Guest"); ok is false when
// it has fewer than two such titles at the top level or their numbers do
// not count up from 1 (a list of steps is no outline).
func numberedTitles(text string) (titled string, ok bool) {
	lines := strings.Split(text, "\n")
	blank := func(i int) bool { return i < 0 || i >= len(lines) || strings.TrimSpace(lines[i]) == "" }
	top := 0
	out := make([]string, len(lines))
	copy(out, lines)
	for i, l := range lines {
		t := strings.TrimSpace(l)
		m := numberedTitle.FindStringSubmatch(t)
		if m == nil || !blank(i-1) || !blank(i+1) || fieldCount(m[2]) > 8 {
			continue
		}
		next := ""
		for j := i + 1; j < len(lines) && next == ""; j++ {
			next = strings.TrimSpace(lines[j])
		}
		if next == "" || numberedTitle.MatchString(next) && !strings.Contains(m[1], ".") && !strings.HasPrefix(next, m[1]+".") {
			continue // "1. Enable dark theme" over "2. Disable it": steps
		}
		depth := strings.Count(m[1], ".") + 1
		if depth == 1 {
			if m[1] != strconv.Itoa(top+1) {
				return "", false
			}
			top++
		}
		out[i] = strings.Repeat("#", depth+1) + " " + m[2] // the number only orders the outline
	}
	if top < 2 {
		return "", false
	}
	return strings.Join(out, "\n"), true
}

// parseText reads spec text into a document, its headings as written.
func parseText(m *meter, text string) *document {
	root := &section{first: 1}
	p := &parser{doc: &document{root: root, sections: []*section{root}}, current: root, lines: specLines(text)}
	for i := 0; i < len(p.lines); i++ {
		m.tick(1)
		p.line = i + 1
		if i == 0 {
			if end, ok := frontMatterEnd(p.lines); ok {
				// YAML front matter (an issue template's name, labels,
				// assignees) is metadata of the file, not spec text.
				i = end
				continue
			}
		}
		i = p.readLine(i)
	}
	p.flush()
	setSpans(p.doc, len(p.lines))
	for _, s := range p.doc.sections {
		// "- [Design Details](#design-details)" and its like: a table of
		// contents without a heading of its own (a KEP's, under its
		// title) says nothing; its headings were a ticket's criteria.
		s.blocks = slices.DeleteFunc(s.blocks, func(b *block) bool { return b.kind == listBlock && contentsList(b.items) })
		for _, b := range s.blocks {
			cleanBlock(b)
		}
		s.heading = cleanInline(s.heading)
	}
	return p.doc
}

// contentsList reports whether every item of a list, and of its sub-lists,
// is a link to a heading of the document: a table of contents.
func contentsList(items []*listItem) bool {
	for _, it := range items {
		if !anchorLink.MatchString(strings.TrimSpace(it.text)) || len(it.children) > 0 && !contentsList(it.children) {
			return false
		}
	}
	return len(items) > 0
}

// anchorLink is a link to a heading of the same document and nothing else:
// "[Design Details](#design-details)".
var anchorLink = regexp.MustCompile(`^\[[^\]]+\]\(#[^)\s]*\)$`)

// specLines splits text into lines, its line ends made "\n" and its tabs
// four spaces. An HTML comment may span lines (a KEP template's
// commented-out sections): it goes whole, and its line breaks stay, so
// that source lines keep their numbers.
func specLines(text string) []string {
	text = strings.ReplaceAll(text, "\r\n", "\n")
	text = strings.ReplaceAll(text, "\r", "\n")
	text = strings.ReplaceAll(text, "\t", "    ")
	text = htmlComment.ReplaceAllStringFunc(text, func(c string) string { return strings.Repeat("\n", strings.Count(c, "\n")) })
	return strings.Split(text, "\n")
}

// frontMatterEnd returns the index of the "---" line that closes the YAML
// front matter lines[0] opens, and whether lines[0] opens one that
// closes.
func frontMatterEnd(lines []string) (int, bool) {
	if strings.TrimSpace(lines[0]) != "---" {
		return 0, false
	}
	for j := 1; j < len(lines); j++ {
		if strings.TrimSpace(lines[j]) == "---" {
			return j, true
		}
	}
	return 0, false
}

// readLine reads line i, with the lines after it that its construct takes
// (a code block, a literal block, an overlined title, a table), and
// returns the index of the last line it read.
func (p *parser) readLine(i int) int {
	line := p.lines[i]
	trimmed := strings.TrimSpace(line)
	// The first byte of the trimmed line rules out most patterns before
	// their regular expressions run.
	var first byte
	if trimmed != "" {
		first = trimmed[0]
	}
	if m := matchIf(first == '`' || first == '~', fenceOpen, line); m != nil {
		return p.readFence(i, m[1][:3])
	}
	if trimmed == "" {
		return p.readBlank(i)
	}
	p.prevText = line
	if last, ok := p.readHeading(i, first, trimmed); ok {
		return last
	}
	if (first == '-' || first == '*' || first == '_') && thematicBreak.MatchString(line) {
		p.flush()
		return i
	}
	if last, ok := p.readTable(i); ok {
		return last
	}
	if m := matchIf(first == '-' || first == '*' || first == '+' || '0' <= first && first <= '9', listMarker, line); m != nil {
		p.flushParagraph()
		p.addListItem(len(m[1]), !strings.ContainsAny(m[2], "-*+"), m[3])
		return i
	}
	p.readText(line, trimmed)
	return i
}

// readFence reads the code block that line i opens with fence ("```" or
// "~~~") up to the line that closes it, or to the end of the text, and
// returns the index of that closing line (len(p.lines) when none does).
func (p *parser) readFence(i int, fence string) int {
	p.flush()
	var code []string
	for i++; i < len(p.lines); i++ {
		if strings.HasPrefix(strings.TrimSpace(p.lines[i]), fence) {
			break
		}
		code = append(code, p.lines[i])
	}
	p.current.blocks = append(p.current.blocks, &block{kind: codeBlock, text: strings.Join(code, "\n")})
	return i
}

// readBlank reads the blank line i: it ends the paragraph, or starts a
// reStructuredText literal block (see literalBlockEnd), which is code,
// not spec text. It returns the index of the last line read.
func (p *parser) readBlank(i int) int {
	if end := literalBlockEnd(p.lines, i, p.prevText); end > i {
		p.flush()
		p.current.blocks = append(p.current.blocks, &block{kind: codeBlock, text: strings.Join(p.lines[i+1:end], "\n")})
		p.prevText = ""
		return end - 1
	}
	p.flushParagraph()
	p.blank = true
	return i
}

// readHeading reads line i when it makes a heading: an ATX heading ("##
// Title"), a line all bold, a reStructuredText title, or a setext
// underline of the paragraph above. first is the first byte of trimmed,
// the line trimmed. It returns the index of the last line read, and
// whether line i made a heading.
func (p *parser) readHeading(i int, first byte, trimmed string) (int, bool) {
	line := p.lines[i]
	if m := matchIf(first == '#', atxHeading, line); m != nil {
		p.flush()
		p.startSection(len(m[1]), atxClosing.ReplaceAllString(m[2], ""))
		return i, true
	}
	if len(p.para) == 0 && first == '*' && boldLine.MatchString(trimmed) {
		p.readBoldLine(trimmed)
		return i, true
	}
	if last, ok := p.readRSTTitle(i); ok {
		return last, true
	}
	if level := setextLevel(first, line); level > 0 && len(p.para) > 0 {
		p.noteSetextStyle(level)
		heading := strings.Join(p.para, " ")
		p.para = nil
		p.flush()
		p.startSection(level, heading)
		return i, true
	}
	return i, false
}

// readBoldLine reads a line that is all bold, trimmed, and starts no
// paragraph: a label of its section's text when it names a part of it
// (see fieldLabel), else a heading of the text below it.
func (p *parser) readBoldLine(trimmed string) {
	label := strings.TrimSuffix(strings.Trim(trimmed, "* "), ":")
	p.flush()
	if p.current.parent != nil && fieldLabel.MatchString(label) {
		// "**Fields:**" under "### Todo", "**Errors:**" under "### GET
		// /api/todos": a label of its section's text, not a section of
		// its own (which merged the fields of every entity).
		p.para = append(p.para, label+":")
		return
	}
	// A line that is all bold ("**Describe the solution you'd like**")
	// is a heading of the text below it, as issue templates and many
	// PRDs write them.
	level := 3
	if p.current.level > 3 || p.current.level == 3 && solutionLabel.MatchString(label) {
		// "**Recommended solution:**" under "### #2 Experimental flags"
		// is that heading's solution, not a section beside it (the
		// solutions of every category were merged into one ticket).
		level = p.current.level + 1
	}
	p.startSection(level, label)
}

// solutionLabel is a bold label over the solution its section proposes,
// after the section's account of the problem.
var solutionLabel = regexp.MustCompile(`(?i)^(recommended|proposed|suggested) (solution|fix|change)s?$|^recommendations?$`)

// readRSTTitle reads line i when it is a reStructuredText title's
// adornment: the overline of a title (which takes the title and its
// underline, the two lines below), or the underline of the one paragraph
// line above. It returns the index of the last line read, and whether
// line i was one.
func (p *parser) readRSTTitle(i int) (int, bool) {
	line := p.lines[i]
	c, adorned := rstAdornment(line)
	if !adorned {
		return i, false
	}
	if len(p.para) == 0 && i+2 < len(p.lines) {
		// An overlined title: the adornment, the title, the same
		// adornment again, at least as long as the title.
		title := strings.TrimSpace(p.lines[i+1])
		if c2, ok2 := rstAdornment(p.lines[i+2]); ok2 && c2 == c && title != "" && len(strings.TrimRight(line, " ")) >= len(title) {
			p.flush()
			p.line = i + 2
			p.startSection(p.rstLevel("o"+string(c)), title)
			return i + 2, true
		}
	}
	if len(p.para) == 1 && (c != '=' && c != '-' || len(p.rstStyles) > 0) &&
		len(strings.TrimRight(line, " ")) >= len(strings.TrimSpace(p.para[0])) {
		// An underlined title of another character than Markdown's "="
		// and "-" ("~", "^", "'"), or of any in a document that already
		// has reStructuredText titles: its level is its style's rank.
		heading := p.para[0]
		p.para = nil
		p.flush()
		p.startSection(p.rstLevel("u"+string(c)), heading)
		return i, true
	}
	return i, false
}

// readTable reads the pipe table whose header is line i, when line i+1
// is its delimiter row, up to the first blank line or line without a
// pipe. It returns the index of the table's last line, and whether line
// i starts a table.
func (p *parser) readTable(i int) (int, bool) {
	line := p.lines[i]
	isTable := strings.Contains(line, "|") && i+1 < len(p.lines) && strings.Contains(p.lines[i+1], "-") && tableDelimiter.MatchString(p.lines[i+1])
	if !isTable {
		return i, false
	}
	p.flush()
	t := &table{header: splitRow(line)}
	last := i + 1
	for _, row := range p.lines[i+2:] {
		if strings.TrimSpace(row) == "" || !strings.Contains(row, "|") {
			break
		}
		t.rows = append(t.rows, fitRow(splitRow(row), len(t.header)))
		last++
	}
	p.current.blocks = append(p.current.blocks, &block{kind: tableBlock, table: t})
	return last, true
}

// readText reads a line that makes no other construct, trimmed: the
// continuation of the open list item (a line right below it, or indented
// under it after a blank line), else a line of the paragraph, without a
// quote's ">".
func (p *parser) readText(line, trimmed string) {
	if trimmed[0] == '[' && linkDefinition.MatchString(trimmed) {
		return // "[same site]: https://…" defines a link; it says nothing
	}
	indent := len(line) - len(strings.TrimLeft(line, " "))
	if p.list != nil && len(p.stack) > 0 && (!p.blank || indent >= 2) {
		last := p.stack[len(p.stack)-1]
		if m := dashStep.FindStringSubmatch(trimmed); m != nil {
			// "-- 1. check the flag" under "- Define a function … like
			// below": a step of the item, not more of its sentence (the
			// steps were glued into one criterion).
			if !last.dashStep {
				indent = last.indent + 2
			} else {
				indent = last.indent
			}
			p.addListItem(indent, true, "Step "+m[1]+": "+m[2])
			p.stack[len(p.stack)-1].dashStep = true
			return
		}
		last.more = append(last.more, trimmed)
		p.blank = false
		return
	}
	p.flushList()
	trimmed = strings.TrimSpace(strings.TrimLeft(trimmed, ">"))
	if trimmed == "" {
		return
	}
	if len(p.para) == 0 && trimmed[0] == '[' && wholeLink.MatchString(trimmed) && (p.line >= len(p.lines) || strings.TrimSpace(p.lines[p.line]) == "") {
		// "[K8s Proposal: TTL controller for finished Jobs and Pods][]"
		// alone points to another document; it states nothing (it was a
		// criterion of four tickets).
		return
	}
	if n := len(p.para); n > 0 && (p.lineBreak && opensSentence(trimmed) || strings.HasPrefix(trimmed, "**") && boldLabel.MatchString(trimmed)) {
		// "**Actors**: Admin, System␣␣" over "**Trigger**: Admin
		// finalizes the draft": lines the author broke before a capital,
		// or that each open with a label, are sentences of their own, not
		// one run-on sentence "Actors: Admin, System Trigger: Admin
		// finalizes …". Two spaces before a lower-case word ("whether the
		// Job should␣␣" over "be treated as …") are no break of the
		// author's.
		p.para[n-1] = endSentence(p.para[n-1])
	}
	p.para = append(p.para, strings.TrimSuffix(trimmed, "\\"))
	p.lineBreak = strings.HasSuffix(line, "  ") || strings.HasSuffix(line, "\\")
}

// opensSentence reports whether line opens with a capital letter or bold
// text.
func opensSentence(line string) bool {
	r, _ := utf8.DecodeRuneInString(line)
	return unicode.IsUpper(r) || strings.HasPrefix(line, "**")
}

// wholeLink is a line that is one link and nothing else: "[text][]",
// "[text][ref]", "[text](https://…)".
var wholeLink = regexp.MustCompile(`^\[[^\]]+\](?:\[[^\]]*\]|\([^)\s]*\))$`)

// boldLabel opens a line with a label in bold: "**Trigger**: …",
// "**Status:** Draft".
var boldLabel = regexp.MustCompile(`^\*\*[^*]{1,40}(?::\*\*|\*\*:)`)

// endSentence ends s with a full stop unless it ends a sentence or
// opens what follows (":").
func endSentence(s string) string {
	s = strings.TrimSpace(s)
	if strings.HasSuffix(s, ".") || strings.HasSuffix(s, "?") || strings.HasSuffix(s, "!") || strings.HasSuffix(s, ":") {
		return s
	}
	return s + "."
}

// linkDefinition is a Markdown link reference definition ("[Proposed
// Solution]: #proposed-solution").
var linkDefinition = regexp.MustCompile(`^\[[^\]]+\]:\s*\S+(\s+("[^"]*"|'[^']*'|\([^)]*\)))?$`)

// referenceLink is a link to a reference definition ("[same site][]",
// "[the spec][whatwg]"): its text is what it says.
var referenceLink = regexp.MustCompile(`\[([^\]]+)\]\[[^\]]*\]`)

// dashStep is a numbered step written after two dashes ("-- 4.1 if the
// command is log …").
var dashStep = regexp.MustCompile(`^--\s+(\d+(?:\.\d+)*)\.?\s+(.+)$`)

// literalBlockEnd returns the index of the first line after the literal
// block that starts below the blank line i, when the text line before it
// (prev) ends in "::" and lines indented deeper than prev follow; else i.
func literalBlockEnd(lines []string, i int, prev string) int {
	if !strings.HasSuffix(strings.TrimSpace(prev), "::") {
		return i
	}
	indent := len(prev) - len(strings.TrimLeft(prev, " "))
	end, code := i+1, false
	for j := i + 1; j < len(lines); j++ {
		l := lines[j]
		if strings.TrimSpace(l) == "" {
			continue
		}
		if len(l)-len(strings.TrimLeft(l, " ")) <= indent {
			break
		}
		end, code = j+1, true
	}
	if !code {
		return i
	}
	return end
}

// fieldLabel is a bold label that introduces a part of its section's
// text (an entity's fields, an endpoint's errors) rather than a section.
var fieldLabel = regexp.MustCompile(`(?i)^(fields|attributes|properties|indexes|indices|relationships|relations|constraints|description|errors|error responses|responses?|request( body)?|response body|query parameters|path parameters|parameters|headers|validation|authentication|authorization|permissions|example|examples)$`)

// setSpans sets the last and end lines of every section of doc, whose
// lines are numbered 1 to n.
func setSpans(doc *document, n int) {
	secs := doc.sections
	for i, s := range secs {
		s.last, s.end = n, n
		if i+1 < len(secs) {
			s.last = secs[i+1].first - 1
		}
	}
	// A section ends where the next section of its level or a higher one
	// starts; a stack of open sections finds that in one pass.
	var open []*section
	for _, s := range secs[1:] {
		for len(open) > 0 && open[len(open)-1].level >= s.level {
			open[len(open)-1].end = s.first - 1
			open = open[:len(open)-1]
		}
		open = append(open, s)
	}
}

// matchIf is re.FindStringSubmatch(s) when possible is true, else nil.
func matchIf(possible bool, re *regexp.Regexp, s string) []string {
	if !possible {
		return nil
	}
	return re.FindStringSubmatch(s)
}

// setextLevel returns the heading level a setext underline gives the
// paragraph above it: 1 for a line of "=", 2 for a line of "-", 0 for any
// other line. first is the first byte of the trimmed line.
func setextLevel(first byte, line string) int {
	switch {
	case first == '=' && setextH1.MatchString(line):
		return 1
	case first == '-' && setextH2.MatchString(line):
		return 2
	}
	return 0
}

// rstAdornment reports whether line is a reStructuredText title
// adornment, one punctuation character repeated from the first column at
// least three times, and returns the character. Backquotes and tildes
// open code fences, which are read before.
func rstAdornment(line string) (byte, bool) {
	t := strings.TrimRight(line, " ")
	if len(t) < 3 || !strings.ContainsRune("=-:.'\"^_*+#<>", rune(t[0])) {
		return 0, false
	}
	for i := 1; i < len(t); i++ {
		if t[i] != t[0] {
			return 0, false
		}
	}
	return t[0], true
}

// rstLevel is the level of a reStructuredText title style: the level it
// was first given, a new style ranking below every style seen so far,
// Markdown's underlines among them (at most 6). A PEP's "”'" titles
// under its "=" and "-" titles are level 3, not level 1 beside "=".
func (p *parser) rstLevel(style string) int {
	if len(p.rstStyles) == 0 {
		p.rstStyles = append(p.rstStyles, p.setextStyles...)
	}
	deepest := 0
	for _, s := range p.rstStyles {
		if s.style == style {
			return s.level
		}
		deepest = max(deepest, s.level)
	}
	level := min(deepest+1, 6)
	p.rstStyles = append(p.rstStyles, rstStyle{style, level})
	return level
}

// noteSetextStyle records a Markdown underline of the given level ("=" 1,
// "-" 2) read before any reStructuredText title style.
func (p *parser) noteSetextStyle(level int) {
	if len(p.rstStyles) > 0 {
		return
	}
	style := "u="
	if level == 2 {
		style = "u-"
	}
	for _, s := range p.setextStyles {
		if s.style == style {
			return
		}
	}
	p.setextStyles = append(p.setextStyles, rstStyle{style, level})
}

func (p *parser) startSection(level int, heading string) {
	parent := p.current
	for parent.parent != nil && parent.level >= level {
		parent = parent.parent
	}
	s := &section{level: level, heading: dropLeadingSymbols(strings.TrimSpace(heading)), parent: parent, index: len(p.doc.sections), first: p.line}
	parent.children = append(parent.children, s)
	p.doc.sections = append(p.doc.sections, s)
	p.current = s
}

func (p *parser) addListItem(indent int, ordered bool, text string) {
	item := &listItem{text: strings.TrimSpace(text), ordered: ordered, indent: indent}
	if m := checkbox.FindStringSubmatch(item.text); m != nil {
		item.done, item.check = m[1] != " ", true
		item.text = strings.TrimSpace(item.text[len(m[0]):])
	}
	if p.list == nil {
		p.list = &block{kind: listBlock}
		p.current.blocks = append(p.current.blocks, p.list)
		p.stack = nil
	}
	for len(p.stack) > 0 && p.stack[len(p.stack)-1].indent >= indent {
		p.stack = p.stack[:len(p.stack)-1]
	}
	if len(p.stack) == 0 {
		p.list.items = append(p.list.items, item)
	} else {
		parent := p.stack[len(p.stack)-1]
		parent.children = append(parent.children, item)
	}
	p.stack = append(p.stack, item)
	p.blank = false
}

func (p *parser) flushParagraph() {
	if len(p.para) == 0 {
		return
	}
	p.current.blocks = append(p.current.blocks, &block{kind: paragraphBlock, text: strings.Join(p.para, " "), first: p.para[0]})
	p.para = nil
	p.lineBreak = false
}

func (p *parser) flushList() {
	p.list = nil
	p.stack = nil
	p.blank = false
}

func (p *parser) flush() {
	p.flushParagraph()
	p.flushList()
}

// splitRow splits a pipe-table row into trimmed cells, honouring escaped
// pipes and pipes inside code spans.
func splitRow(line string) []string {
	line = strings.TrimSpace(line)
	line = strings.TrimPrefix(line, "|")
	if strings.HasSuffix(line, "|") && !strings.HasSuffix(line, `\|`) {
		line = line[:len(line)-1]
	}
	var cells []string
	if !strings.Contains(line, `\|`) { // no escaped bar: each cell is a piece of line
		start, inCode := 0, false
		for i := 0; i < len(line); i++ {
			switch {
			case line[i] == '`':
				inCode = !inCode
			case line[i] == '|' && !inCode:
				cells = append(cells, strings.TrimSpace(line[start:i]))
				start = i + 1
			}
		}
		return append(cells, strings.TrimSpace(line[start:]))
	}
	var cur strings.Builder
	inCode := false
	for i := 0; i < len(line); i++ {
		c := line[i]
		switch {
		case c == '\\' && i+1 < len(line) && line[i+1] == '|':
			cur.WriteByte('|')
			i++
		case c == '`':
			inCode = !inCode
			cur.WriteByte(c)
		case c == '|' && !inCode:
			cells = append(cells, strings.TrimSpace(cur.String()))
			cur.Reset()
		default:
			cur.WriteByte(c)
		}
	}
	cells = append(cells, strings.TrimSpace(cur.String()))
	return cells
}

func fitRow(cells []string, width int) []string {
	if len(cells) > width && width > 0 {
		merged := strings.Join(cells[width-1:], " | ")
		cells = append(cells[:width-1:width-1], merged)
	}
	for len(cells) < width {
		cells = append(cells, "")
	}
	return cells
}

func cleanBlock(b *block) {
	switch b.kind {
	case paragraphBlock:
		b.text = cleanInline(b.text)
	case listBlock:
		b.items = undone(b.items)
		var walk func(items []*listItem)
		walk = func(items []*listItem) {
			for _, it := range items {
				it.children = undone(it.children)
				if len(it.more) > 0 {
					it.text = strings.TrimSpace(it.text + " " + strings.Join(it.more, " "))
					it.more = nil
				}
				it.text = cleanInline(it.text)
				walk(it.children)
			}
		}
		walk(b.items)
	case tableBlock:
		for i := range b.table.header {
			b.table.header[i] = cleanInline(b.table.header[i])
		}
		for _, row := range b.table.rows {
			for i := range row {
				row[i] = cleanInline(row[i])
			}
		}
	}
}

// undone returns items without the ticked checklist items: what a spec
// marks done is not work to ticket.
func undone(items []*listItem) []*listItem {
	out := items[:0:0]
	for _, it := range items {
		if !it.done {
			out = append(out, it)
		}
	}
	return out
}

// cleanInline removes emphasis, links and simple HTML from inline text and
// collapses white space. Code spans keep their backticks.
func cleanInline(s string) string {
	if strings.Contains(s, "](") {
		s = markdownLink.ReplaceAllString(s, "$1")
	}
	if strings.Contains(s, "][") {
		s = referenceLink.ReplaceAllString(s, "$1")
	}
	if strings.Contains(s, "<") {
		s = htmlTag.ReplaceAllString(s, " ")
	}
	if strings.Contains(s, "**") || strings.Contains(s, "__") {
		s = dropStrongMarks(s)
	}
	return collapseSpaces(s)
}

// dropStrongMarks removes the "**" and "__" of strong emphasis outside code
// spans: "`strict=__debug__`" keeps its name.
func dropStrongMarks(s string) string {
	var b strings.Builder
	inCode := false
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c == '`' {
			inCode = !inCode
		}
		if !inCode && (c == '*' || c == '_') && i+1 < len(s) && s[i+1] == c {
			i++
			continue
		}
		b.WriteByte(c)
	}
	return b.String()
}

// itemText returns a list item's text followed by the text of its nested
// items, as one string of sentences.
func itemText(it *listItem) string {
	parts := []string{it.text}
	for _, c := range it.children {
		parts = append(parts, itemText(c))
	}
	return joinSentences(parts)
}

// joinSentences joins fragments so that each ends with sentence punctuation.
func joinSentences(parts []string) string {
	var out []string
	for _, p := range parts {
		if p = strings.TrimSpace(p); p != "" {
			out = append(out, endSentence(p))
		}
	}
	return strings.Join(out, " ")
}

// headingCount is the number of headed sections.
func (d *document) headingCount() int { return len(d.sections) - 1 }

// path returns the headings from the top section down to s.
func (s *section) path() []string {
	var out []string
	for c := s; c != nil && c.parent != nil; c = c.parent {
		out = append([]string{c.heading}, out...)
	}
	return out
}

// dropLeadingSymbols removes the emoji and keycap numbers a heading may
// open with ("📌 Endpoints", "2️⃣ Create Task"): they decorate, and a
// ticket title made of them reads "Implement 2️⃣ Create Task".
func dropLeadingSymbols(h string) string {
	for i, r := range h {
		switch {
		case r == '\uFE0F' || r == '\u20E3' || r == '\u200D' || unicode.IsSpace(r):
		case unicode.IsDigit(r):
			// A digit is a keycap only when a keycap mark follows it.
			rest := h[i+utf8.RuneLen(r):]
			if !strings.HasPrefix(rest, "\uFE0F\u20E3") && !strings.HasPrefix(rest, "\u20E3") {
				return h[i:]
			}
		case unicode.Is(unicode.So, r) || unicode.Is(unicode.Sk, r) || r >= 0x1F000:
		default:
			return h[i:]
		}
	}
	return h
}
