package reference

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/foresight-dev/foresight/internal/tickets"
)

// genericVerbs are the verbs that say nothing when put in front of a
// heading ("Implement Non-goals").
var genericVerbs = map[string]bool{"implement": true, "support": true, "handle": true, "deliver": true, "build": true,
	"add": true, "create": true, "complete": true, "address": true, "do": true, "provide": true, "enable": true, "develop": true}

// shape is a title or criterion in lower-case words with every number
// replaced by "#".
func shape(s string) string {
	w := words(s)
	for i, x := range w {
		if strings.ContainsAny(x, "0123456789") {
			w[i] = "#"
		}
	}
	return strings.Join(w, " ")
}

func titleShapes(ts []tickets.Ticket) map[string]int {
	out := map[string]int{}
	for _, t := range ts {
		if s := shape(t.Title); strings.Contains(s, "#") {
			out[s]++
		}
	}
	return out
}

// HeadingKeys returns the spec's headings (markdown "#" headings and lines
// that are all bold, outside code blocks), lower case, without section
// numbers.
func HeadingKeys(spec string) map[string]bool {
	out := map[string]bool{}
	for _, h := range parseDocument(spec).headings {
		out[headingKey(h.text)] = true
	}
	return out
}

// TitleProblem says what is wrong with a title, or "" when it is
// informative: it has at least two words that count (see Tokens); it does
// not repeat an earlier ticket's title; it is not one of three or more
// titles that differ only in their numbers ("Implement bug 7", "Implement
// bug 8", …); and it is not a heading of the spec, alone or behind a
// generic verb ("Implement Non-goals"). shapes counts the numbered title
// shapes of the result, headings are the spec's HeadingKeys.
func TitleProblem(title string, earlier []tickets.Ticket, shapes map[string]int, headings map[string]bool) string {
	if len(Tokens(title)) < 2 {
		return fmt.Sprintf("title %q says too little", title)
	}
	norm := strings.Join(words(title), " ")
	for _, e := range earlier {
		if strings.Join(words(e.Title), " ") == norm {
			return fmt.Sprintf("title %q repeats %s", title, e.ExternalID)
		}
	}
	if n := shapes[shape(title)]; n >= 3 {
		return fmt.Sprintf("title %q is one of %d that differ only in their numbers", title, n)
	}
	w := words(title)
	if len(w) > 1 && genericVerbs[w[0]] {
		w = w[1:]
		if len(w) > 1 && w[0] == "the" {
			w = w[1:]
		}
	}
	if headings[headingKey(strings.Join(w, " "))] {
		return fmt.Sprintf("title %q is a heading of the spec", title)
	}
	return ""
}

var boilerplate = regexp.MustCompile(`(?i)(works? as (specified|described|expected|intended)|behaves as (specified|described)|` +
	`automated test checks this|is implemented|meets (the|all) requirements|as (specified|described) in the spec|` +
	`--help documents|^done\.?$|is (done|complete|completed)\.?$|all tests pass|code (is )?reviewed|to work as specified)`)

// repeatedCriteria returns the shapes of criteria found in three or more
// tickets of the result.
func repeatedCriteria(ts []tickets.Ticket) map[string]bool {
	count := map[string]int{}
	for _, t := range ts {
		seen := map[string]bool{}
		for _, ac := range t.AcceptanceCriteria {
			s := shape(ac)
			if !seen[s] {
				seen[s] = true
				count[s]++
			}
		}
	}
	out := map[string]bool{}
	for s, n := range count {
		if n >= 3 {
			out[s] = true
		}
	}
	return out
}

// CriteriaProblem says what is wrong with a ticket's acceptance criteria,
// or "" when at least one is specific: it has four or more words, is not
// generic ("works as specified", "An automated test checks this behaviour
// end to end.") and is not one of the criteria that three or more tickets
// of the result share (repeated, from repeatedCriteria).
func CriteriaProblem(criteria []string, repeated map[string]bool) string {
	if len(criteria) == 0 {
		return "no acceptance criteria"
	}
	for _, ac := range criteria {
		if len(words(ac)) >= 4 && !boilerplate.MatchString(strings.TrimSpace(ac)) && !repeated[shape(ac)] {
			return ""
		}
	}
	return fmt.Sprintf("every acceptance criterion is boilerplate (%q)", criteria[0])
}
