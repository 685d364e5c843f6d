// Package quality scores a tickets.result.v1 document without a reference
// written by judgment, on the signals the reference measure
// (quality/reference) showed to agree with a lead's reading: tickets that
// come from parts of the spec that are not work, tickets the spec's text
// does not support, coverage of the spec's work sections, bug-report
// sections ticketed as bugs, informative titles, specific acceptance
// criteria, duplicates, dependencies, estimates, and the schema's rules.
// Scores are between 0 and 1; every finding names the ticket and the rule.
package quality

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/foresight-dev/foresight/internal/tickets"
	"github.com/foresight-dev/foresight/internal/tickets/quality/reference"
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
	// Tickets scores each ticket on the checks that apply to one ticket
	// (title, criteria, estimate and, with a spec, support and not-work);
	// it is what the LLM engines report as metadata.confidence.
	Tickets map[string]float64 `json:"tickets"`
}

// CheckNames are the names of the checks Score runs, in order; the last
// four need the spec.
var CheckNames = []string{"valid", "titles", "criteria", "unique", "estimable", "dependencies", "not_work", "supported", "coverage", "types"}

// Score scores raw (a tickets.result.v1 document); spec, when not empty, is
// the spec it was generated from, for the checks that read it:
//   - valid: the schema and the service's rules;
//   - titles: informative titles (reference.TitleProblem);
//   - criteria: at least one specific criterion per non-epic ticket
//     (reference.CriteriaProblem);
//   - unique: no title repeats another, exactly or nearly;
//   - estimable: stories, tasks, bugs and spikes have 1, 2, 3, 5, 8 or 13
//     points, epics none;
//   - dependencies: a result of three or more non-epic tickets, not all
//     bugs, has at least one dependency;
//   - not_work: tickets that do not come from parts of the spec that are
//     not work (reference.Auto);
//   - supported: tickets whose words a sentence of the spec's work parts
//     supports;
//   - coverage: work sections of the spec (its sentences when it has fewer
//     than two headings) with at least one ticket;
//   - types: tickets from a bug report's section that are bugs.
func Score(raw []byte, spec string) (Report, error) {
	var r tickets.Result
	if err := json.Unmarshal(raw, &r); err != nil {
		return Report{}, fmt.Errorf("not a tickets.result.v1 document: %w", err)
	}
	valid := validity(raw, r.JobID)
	marks := ticketMarks{}
	auto := reference.Auto(spec)
	m := auto.Measure(&r)
	titles, criteria := titleChecks(m, r.Tickets, marks)
	checks := []Check{valid, titles, criteria, uniqueness(r.Tickets), estimability(r.Tickets, marks), dependencies(r.Tickets)}
	if strings.TrimSpace(spec) != "" {
		checks = append(checks, specChecks(auto, m, marks)...)
	}
	rep := Report{Checks: checks, Tickets: marks.means()}
	for _, c := range checks {
		rep.Score += c.Score
	}
	rep.Score /= float64(len(checks))
	return rep, nil
}

// ticketMarks holds each ticket's outcomes on the checks that apply to
// one ticket, 1 for a pass and 0 for a failure, by ticket id.
type ticketMarks map[string][]float64

// mark records whether ticket id passed a check.
func (marks ticketMarks) mark(id string, ok bool) {
	v := 0.0
	if ok {
		v = 1
	}
	marks[id] = append(marks[id], v)
}

// means returns each ticket's share of the checks it passed.
func (marks ticketMarks) means() map[string]float64 {
	out := map[string]float64{}
	for id, scores := range marks {
		sum := 0.0
		for _, s := range scores {
			sum += s
		}
		out[id] = sum / float64(len(scores))
	}
	return out
}

// validity checks raw, the result of job jobID, against the schema and
// the service's rules.
func validity(raw []byte, jobID string) Check {
	opts := tickets.Options{MaxTicketCount: tickets.MaxTickets, IncludeEpics: true}
	problems := tickets.ValidateResult(raw, jobID, opts)
	valid := Check{Name: "valid", Score: 1, Findings: problems}
	if len(problems) > 0 {
		valid.Score = 0
	}
	return valid
}

// titleChecks returns the titles and criteria checks of m's findings, and
// marks each ticket on its title and, but for an epic, its criteria.
func titleChecks(m reference.Measurement, ts []tickets.Ticket, marks ticketMarks) (titles, criteria Check) {
	titles = Check{Name: "titles", Score: m.Titles()}
	criteria = Check{Name: "criteria", Score: m.Criteria()}
	for _, f := range m.Findings {
		if strings.Contains(f, "acceptance criteri") {
			criteria.Findings = append(criteria.Findings, f)
		} else {
			titles.Findings = append(titles.Findings, f)
		}
	}
	for _, t := range ts {
		marks.mark(t.ExternalID, !slices.ContainsFunc(titles.Findings, func(f string) bool { return strings.HasPrefix(f, t.ExternalID+": ") }))
		if t.TicketType != tickets.TypeEpic {
			marks.mark(t.ExternalID, !slices.ContainsFunc(criteria.Findings, func(f string) bool { return strings.HasPrefix(f, t.ExternalID+": ") }))
		}
	}
	return titles, criteria
}

// estimability checks each ticket's story points (see estimate), and
// marks each ticket on them.
func estimability(ts []tickets.Ticket, marks ticketMarks) Check {
	estimable := Check{Name: "estimable"}
	pass := 0
	for _, t := range ts {
		ok, finding := estimate(t)
		if ok {
			pass++
		} else {
			estimable.Findings = append(estimable.Findings, t.ExternalID+": "+finding)
		}
		marks.mark(t.ExternalID, ok)
	}
	estimable.Score = ratio(pass, len(ts))
	return estimable
}

// specChecks returns the checks that read the spec, from m, the measure
// of the result against auto: not_work, supported, coverage and types;
// it marks each ticket on the first two.
func specChecks(auto *reference.Case, m reference.Measurement, marks ticketMarks) []Check {
	notWork := Check{Name: "not_work", Score: 1 - float64(m.NotWork)/float64(max(1, m.Tickets))}
	supported := Check{Name: "supported", Score: ratio(m.WorkTickets, m.Tickets)}
	types := Check{Name: "types", Score: ratio(m.RightType, m.WorkTickets)}
	covered := map[string]bool{}
	for _, mt := range m.Matches {
		switch {
		case mt.NotWork:
			notWork.Findings = append(notWork.Findings, fmt.Sprintf("%s %q comes from a part that is not work (%s)", mt.Ticket, mt.Title, mt.Why))
		case mt.Item == "":
			supported.Findings = append(supported.Findings, fmt.Sprintf("%s %q: no sentence of the spec's work parts supports it", mt.Ticket, mt.Title))
		default:
			it := auto.Item(mt.Item)
			covered[it.Label] = true
			for _, id := range mt.Also {
				covered[auto.Item(id).Label] = true
			}
			if !it.Accepts(mt.Type) {
				types.Findings = append(types.Findings, fmt.Sprintf("%s %q is a %s from the bug report %q", mt.Ticket, mt.Title, mt.Type, it.Label))
			}
		}
		marks.mark(mt.Ticket, !mt.NotWork)
		marks.mark(mt.Ticket, mt.Item != "")
	}
	return []Check{notWork, supported, coverage(auto, covered), types}
}

// coverage checks that each section of auto's items (the text before the
// first heading being one) is covered.
func coverage(auto *reference.Case, covered map[string]bool) Check {
	c := Check{Name: "coverage"}
	var sections []string
	for _, it := range auto.Ref.Items {
		if !slices.Contains(sections, it.Label) {
			sections = append(sections, it.Label)
		}
	}
	for _, s := range sections {
		if !covered[s] {
			name := s
			if name == "" {
				name = "the text before the first heading"
			}
			c.Findings = append(c.Findings, fmt.Sprintf("no ticket comes from %q", shorten(name, 80)))
		}
	}
	c.Score = ratio(len(sections)-len(c.Findings), len(sections))
	return c
}

// dependencies fails a result of three or more non-epic tickets, not all
// of them bugs, in which no ticket depends on another: work has an order
// (a list of bugs need not).
func dependencies(ts []tickets.Ticket) Check {
	c := Check{Name: "dependencies", Score: 1}
	n, bugs := 0, 0
	for _, t := range ts {
		if len(t.Dependencies) > 0 {
			return c
		}
		if t.TicketType != tickets.TypeEpic {
			n++
		}
		if t.TicketType == tickets.TypeBug {
			bugs++
		}
	}
	if n >= 3 && bugs < n {
		c.Score = 0
		c.Findings = append(c.Findings, fmt.Sprintf("no ticket of %d depends on another", n))
	}
	return c
}

func estimate(t tickets.Ticket) (bool, string) {
	if t.TicketType == tickets.TypeEpic {
		return t.StoryPoints == nil, "an epic carries no points of its own"
	}
	if t.StoryPoints == nil {
		return false, "no story points"
	}
	return slices.Contains([]int{1, 2, 3, 5, 8, 13}, *t.StoryPoints),
		fmt.Sprintf("%d points: split it or use 1, 2, 3, 5, 8 or 13", *t.StoryPoints)
}

func ratio(pass, n int) float64 {
	if n == 0 {
		return 1
	}
	return float64(pass) / float64(n)
}

func shorten(s string, n int) string {
	if r := []rune(s); len(r) > n {
		return string(r[:n]) + "…"
	}
	return s
}
