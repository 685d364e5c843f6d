package quality

import (
	"fmt"
	"regexp"
	"strings"
	"unicode"

	"github.com/foresight-dev/foresight/internal/tickets"
)

// uniqueness fails tickets whose titles repeat another's, exactly or
// nearly (trigram similarity above 0.8).
func uniqueness(ts []tickets.Ticket) Check {
	c := Check{Name: "unique"}
	dups := 0
	for i := range ts {
		for j := 0; j < i; j++ {
			a, b := normalise(ts[i].Title), normalise(ts[j].Title)
			if a == b || similarity(a, b) > 0.8 {
				dups++
				c.Findings = append(c.Findings, fmt.Sprintf("%s repeats %s (%q)", ts[i].ExternalID, ts[j].ExternalID, ts[i].Title))
				break
			}
		}
	}
	c.Score = ratio(len(ts)-dups, len(ts))
	return c
}

func normalise(s string) string {
	return strings.Join(strings.FieldsFunc(strings.ToLower(s), func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r)
	}), " ")
}

// similarity is the Jaccard index of the character trigrams of a and b.
func similarity(a, b string) float64 {
	ta, tb := trigrams(a), trigrams(b)
	if len(ta) == 0 || len(tb) == 0 {
		return 0
	}
	both := 0
	for g := range ta {
		if tb[g] {
			both++
		}
	}
	return float64(both) / float64(len(ta)+len(tb)-both)
}

func trigrams(s string) map[string]bool {
	r := []rune(s)
	out := map[string]bool{}
	for i := 0; i+3 <= len(r); i++ {
		out[string(r[i:i+3])] = true
	}
	return out
}

var heading = regexp.MustCompile(`(?m)^#{1,4}\s+(.+?)\s*#*\s*$`)

// coverage is the share of the spec's sections (headings; requirement
// sentences when it has none) that some ticket speaks of: at least half of
// the section's key words appear in the tickets' text.
func coverage(ts []tickets.Ticket, spec string) Check {
	c := Check{Name: "coverage"}
	var text strings.Builder
	for _, t := range ts {
		text.WriteString(" " + t.Title + " " + t.Description + " " + strings.Join(t.AcceptanceCriteria, " ") + " " + strings.Join(t.Labels, " "))
	}
	have := map[string]bool{}
	for _, w := range keywords(text.String()) {
		have[w] = true
	}
	var items []string
	for _, m := range heading.FindAllStringSubmatch(spec, -1) {
		items = append(items, m[1])
	}
	if len(items) == 0 {
		items = requirementSentences(spec)
	}
	covered := 0
	for _, item := range items {
		kw := keywords(item)
		found := 0
		for _, w := range kw {
			if have[w] {
				found++
			}
		}
		if len(kw) == 0 || 2*found >= len(kw) {
			covered++
		} else {
			c.Findings = append(c.Findings, fmt.Sprintf("no ticket covers %q", shorten(item, 80)))
		}
	}
	c.Score = ratio(covered, len(items))
	return c
}

func requirementSentences(spec string) []string {
	var out []string
	for s := range strings.SplitSeq(strings.ReplaceAll(spec, "\n", " "), ".") {
		if s = strings.TrimSpace(s); len(s) > 10 {
			out = append(out, s)
		}
	}
	return out
}

var stopWords = map[string]bool{}

func init() {
	for w := range strings.FieldsSeq(`a an the and or of to in on for with by at from as is are be it its this that
		these those must should shall may can will not no yes all any each every our your their we you they
		api v1 v2 x`) {
		stopWords[w] = true
	}
}

// keywords returns the lower-case words of s longer than two letters that
// are not stop words, with a plural s removed.
func keywords(s string) []string {
	var out []string
	for f := range strings.FieldsFuncSeq(strings.ToLower(s), func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) }) {
		if len(f) <= 2 || stopWords[f] {
			continue
		}
		out = append(out, strings.TrimSuffix(f, "s"))
	}
	return out
}

var unresolvedMarker = regexp.MustCompile(`(?i)\b(tbd|todo|not shown|to be decided|not decided|unclear|open question)\b|\?(\s|$)`)

// unresolved compares the spec's unresolved items ("TBD", "not shown",
// questions) with the result's open questions.
func unresolved(r tickets.Result, spec string) Check {
	c := Check{Name: "open_questions"}
	markers := len(unresolvedMarker.FindAllStringIndex(spec, -1))
	if markers == 0 {
		c.Score = 1
		return c
	}
	c.Score = min(1, float64(len(r.OpenQuestions))/float64(markers))
	if len(r.OpenQuestions) < markers {
		c.Findings = append(c.Findings, fmt.Sprintf("the spec leaves %d items unresolved; the result asks %d questions", markers, len(r.OpenQuestions)))
	}
	return c
}
