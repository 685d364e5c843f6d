// Package quality scores a tickets.result.v1 document on concrete,
// deterministic checks drawn from the QUS framework (well-formed, atomic,
// minimal, unique), INVEST (estimable, testable) and requirement smells
// (vague words), plus how well the result covers the spec it came from.
// Scores are between 0 and 1; every finding names the ticket and the rule.
package quality

import (
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"strings"

	"github.com/foresight-dev/foresight/internal/tickets"
)

// Check is the outcome of one rule over a result.
type Check struct {
	Name string `json:"name"`
	// Score is the share of items that pass, 0 to 1.
	Score    float64  `json:"score"`
	Findings []string `json:"findings"`
}

// Report is the score of a result.
type Report struct {
	// Score is the mean of the checks' scores.
	Score  float64 `json:"score"`
	Checks []Check `json:"checks"`
	// Tickets scores each ticket on the checks that apply to one ticket;
	// it is what metadata.confidence reports.
	Tickets map[string]float64 `json:"tickets"`
}

// Score scores raw (a tickets.result.v1 document); spec, when not empty, is
// the spec it was generated from, for the coverage and open-question
// checks.
func Score(raw []byte, spec string) (Report, error) {
	var r tickets.Result
	if err := json.Unmarshal(raw, &r); err != nil {
		return Report{}, fmt.Errorf("not a tickets.result.v1 document: %w", err)
	}
	opts := tickets.Options{MaxTicketCount: tickets.MaxTickets, IncludeEpics: true}
	problems := tickets.ValidateResult(raw, r.JobID, opts)
	valid := Check{Name: "valid", Score: 1, Findings: problems}
	if len(problems) > 0 {
		valid.Score = 0
	}
	checks := []Check{valid}
	per := map[string][]float64{}
	for _, rule := range ticketRules {
		c := Check{Name: rule.name}
		n, pass := 0, 0
		for _, t := range r.Tickets {
			applies, ok, finding := rule.check(t)
			if !applies {
				continue
			}
			n++
			if ok {
				pass++
				per[t.ExternalID] = append(per[t.ExternalID], 1)
			} else {
				per[t.ExternalID] = append(per[t.ExternalID], 0)
				c.Findings = append(c.Findings, t.ExternalID+": "+finding)
			}
		}
		c.Score = ratio(pass, n)
		checks = append(checks, c)
	}
	checks = append(checks, uniqueness(r.Tickets))
	if strings.TrimSpace(spec) != "" {
		checks = append(checks, coverage(r.Tickets, spec), unresolved(r, spec))
	}
	rep := Report{Checks: checks, Tickets: map[string]float64{}}
	for _, c := range checks {
		rep.Score += c.Score
	}
	rep.Score /= float64(len(checks))
	for id, scores := range per {
		sum := 0.0
		for _, s := range scores {
			sum += s
		}
		rep.Tickets[id] = sum / float64(len(scores))
	}
	return rep, nil
}

func ratio(pass, n int) float64 {
	if n == 0 {
		return 1
	}
	return float64(pass) / float64(n)
}

type ticketRule struct {
	name  string
	check func(t tickets.Ticket) (applies, ok bool, finding string)
}

var ticketRules = []ticketRule{
	{"well_formed", func(t tickets.Ticket) (bool, bool, string) {
		switch t.TicketType {
		case tickets.TypeEpic:
			return false, true, ""
		case tickets.TypeStory:
			ok := storyForm.MatchString(t.Description) || storyForm.MatchString(t.Title)
			return true, ok, "a story should say who wants what (\"As a …, I want …\")"
		}
		first := strings.ToLower(strings.Fields(t.Title + " x")[0])
		return true, slices.Contains(imperativeVerbs, first), fmt.Sprintf("title should start with a verb, not %q", first)
	}},
	{"atomic", func(t tickets.Ticket) (bool, bool, string) {
		if t.TicketType == tickets.TypeEpic {
			return false, true, ""
		}
		words := prose(t.Title)
		for _, c := range []string{" and ", " & ", " + ", " or "} {
			if strings.Contains(" "+words+" ", c) {
				return true, false, fmt.Sprintf("title joins two things with %q", strings.TrimSpace(c))
			}
		}
		return true, true, ""
	}},
	{"minimal", func(t tickets.Ticket) (bool, bool, string) {
		words := prose(t.Title)
		if strings.ContainsAny(words, "()[];") || strings.Contains(words, ": ") || strings.Contains(words, " - ") {
			return true, false, "title carries a second clause or brackets"
		}
		return true, true, ""
	}},
	{"testable_criteria", func(t tickets.Ticket) (bool, bool, string) {
		for _, ac := range t.AcceptanceCriteria {
			if w := vagueWord(ac); w != "" {
				return true, false, fmt.Sprintf("criterion %q uses the vague %q", shorten(ac, 60), w)
			}
		}
		return true, len(t.AcceptanceCriteria) > 0, "no acceptance criteria"
	}},
	{"estimable", func(t tickets.Ticket) (bool, bool, string) {
		if t.TicketType == tickets.TypeEpic {
			return true, t.StoryPoints == nil, "an epic carries no points of its own"
		}
		if t.StoryPoints == nil {
			return true, false, "no story points"
		}
		return true, slices.Contains([]int{1, 2, 3, 5, 8, 13}, *t.StoryPoints),
			fmt.Sprintf("%d points: split it or use 1, 2, 3, 5, 8 or 13", *t.StoryPoints)
	}},
}

var storyForm = regexp.MustCompile(`(?i)\bas an? [^,.]{1,60}?,? i (want|need|can|would like)\b`)

var imperativeVerbs = strings.Fields(`add allow build call capture change check clean compute configure
	connect create decide define delete deliver deploy design detect document emit enable enforce ensure
	evaluate expose extend fix generate handle implement import improve instrument integrate introduce
	investigate keep limit load log make map migrate model monitor move notify parse persist prepare
	prevent provide publish read record reduce refactor reject remove rename replace report resolve
	retry return roll run schedule send serve set show sign split store support sync test track
	translate update upgrade validate verify write`)

var vagueWords = []string{"fast", "quick", "quickly", "user-friendly", "user friendly", "easy", "easily",
	"appropriate", "appropriately", "etc", "and so on", "tbd", "as needed", "simple", "efficient", "robust",
	"flexible", "intuitive", "seamless", "reasonable", "properly", "correctly", "good", "nice"}

// vagueWord returns the first vague word of s, matched as a whole word.
func vagueWord(s string) string {
	words := " " + strings.ToLower(prose(s)) + " "
	for _, w := range vagueWords {
		if strings.Contains(words, " "+w+" ") || strings.Contains(words, " "+w+".") || strings.Contains(words, " "+w+",") {
			return w
		}
	}
	return ""
}

// prose removes code, paths and identifiers from s, so that a slash in
// "/v1/jobs" or braces in "{job_id}" are not read as punctuation.
func prose(s string) string {
	s = codeSpan.ReplaceAllString(s, "x")
	fields := strings.Fields(s)
	for i, f := range fields {
		if strings.ContainsAny(f, "/{}_") || strings.Contains(f, "()") {
			fields[i] = "x"
		}
	}
	return strings.Join(fields, " ")
}

var codeSpan = regexp.MustCompile("`[^`]*`")

func shorten(s string, n int) string {
	if r := []rune(s); len(r) > n {
		return string(r[:n]) + "…"
	}
	return s
}
