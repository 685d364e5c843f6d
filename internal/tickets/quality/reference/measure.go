package reference

import (
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/foresight-dev/foresight/internal/tickets"
)

// Measurement is how a result compares with a case's reference. Rates are
// between 0 and 1; a rate with nothing to count (no dependencies in the
// reference, say) is 1 and its denominator is 0.
type Measurement struct {
	Tickets int `json:"tickets"`
	// MustItems and MustCovered: must-have items, and those with a ticket.
	MustItems   int `json:"must_items"`
	MustCovered int `json:"must_covered"`
	// WorkTickets are tickets matched to an item of the reference.
	WorkTickets int `json:"work_tickets"`
	// RightType are work tickets of a type the item accepts.
	RightType int `json:"right_type"`
	// NotWork are tickets matched to a part of the spec that is not work.
	NotWork int `json:"not_work"`
	// SilentDrops are must-have items with no ticket that no open question
	// names.
	SilentDrops []string `json:"silent_drops"`
	// Left are must-have items with no ticket that an open question names.
	Left []string `json:"left"`
	// Dependencies of the reference, and those the result carries.
	Dependencies    int `json:"dependencies"`
	DependenciesMet int `json:"dependencies_met"`
	// ResultDependencies are the result's dependencies between tickets
	// matched to two different items; DependenciesSupported those the
	// reference supports (see Case.measurePrecision), and Unsupported the others,
	// as "SPEC-3 (item) → SPEC-2 (item)".
	ResultDependencies    int      `json:"result_dependencies"`
	DependenciesSupported int      `json:"dependencies_supported"`
	Unsupported           []string `json:"unsupported_dependencies"`
	// InformativeTitles and SpecificCriteria count tickets that pass the
	// title and criteria rules (see TitleProblem, CriteriaProblem).
	InformativeTitles int `json:"informative_titles"`
	CriteriaTickets   int `json:"criteria_tickets"`
	SpecificCriteria  int `json:"specific_criteria"`
	// Matches says, per ticket, what it was matched to and why.
	Matches []Match `json:"matches"`
	// Missing lists the must-have items with no ticket.
	Missing []string `json:"missing"`
	// Findings lists title and criteria problems, per ticket.
	Findings []string `json:"findings"`
}

// Recall is the share of must-have items that have a ticket.
func (m Measurement) Recall() float64 { return rate(m.MustCovered, m.MustItems) }

// Precision is the share of tickets that are real work of the spec.
func (m Measurement) Precision() float64 { return rate(m.WorkTickets, m.Tickets) }

// TypeAccuracy is the share of work tickets whose type the item accepts.
func (m Measurement) TypeAccuracy() float64 { return rate(m.RightType, m.WorkTickets) }

// DependencyRecall is the share of the reference's dependencies the result
// carries.
func (m Measurement) DependencyRecall() float64 { return rate(m.DependenciesMet, m.Dependencies) }

// DependencyPrecision is the share of the result's dependencies between
// matched tickets that the reference supports.
func (m Measurement) DependencyPrecision() float64 {
	return rate(m.DependenciesSupported, m.ResultDependencies)
}

// Titles is the share of tickets with an informative title.
func (m Measurement) Titles() float64 { return rate(m.InformativeTitles, m.Tickets) }

// Criteria is the share of non-epic tickets with at least one specific
// acceptance criterion.
func (m Measurement) Criteria() float64 { return rate(m.SpecificCriteria, m.CriteriaTickets) }

// Score is the mean of recall, precision, type accuracy, dependency recall
// (when the reference has dependencies), dependency precision (when the
// result has dependencies between matched tickets), titles, criteria, the
// share of tickets that are not "not work" and the share of must-have
// items not dropped in silence. It ranks results; the columns say why.
func (m Measurement) Score() float64 {
	parts := []float64{m.Recall(), m.Precision(), m.TypeAccuracy(), m.Titles(), m.Criteria(),
		1 - rate0(m.NotWork, m.Tickets), 1 - rate0(len(m.SilentDrops), m.MustItems)}
	if m.Dependencies > 0 {
		parts = append(parts, m.DependencyRecall())
	}
	if m.ResultDependencies > 0 {
		parts = append(parts, m.DependencyPrecision())
	}
	sum := 0.0
	for _, p := range parts {
		sum += p
	}
	return sum / float64(len(parts))
}

func rate(n, d int) float64 {
	if d == 0 {
		return 1
	}
	return float64(n) / float64(d)
}

func rate0(n, d int) float64 {
	if d == 0 {
		return 0
	}
	return float64(n) / float64(d)
}

// Measure compares res with the case's reference.
func (c *Case) Measure(res *tickets.Result) Measurement {
	m := Measurement{Tickets: len(res.Tickets), SilentDrops: []string{}, Left: []string{}, Missing: []string{},
		Unsupported: []string{}}
	covered := map[string][]string{} // item → tickets
	primary := map[string][]string{}
	itemOf := map[string]string{} // ticket → item
	for _, t := range res.Tickets {
		mt := c.match(t)
		m.Matches = append(m.Matches, mt)
		switch {
		case mt.NotWork:
			m.NotWork++
		case mt.Item != "":
			m.WorkTickets++
			if it, _ := c.item(mt.Item); it.Accepts(t.TicketType) {
				m.RightType++
			}
			primary[mt.Item] = append(primary[mt.Item], t.ExternalID)
			itemOf[t.ExternalID] = mt.Item
			covered[mt.Item] = append(covered[mt.Item], t.ExternalID)
			for _, id := range mt.Also {
				covered[id] = append(covered[id], t.ExternalID)
			}
		}
	}
	for _, it := range c.Ref.Items {
		if !it.Must {
			continue
		}
		m.MustItems++
		if len(covered[it.ID]) > 0 {
			m.MustCovered++
			continue
		}
		m.Missing = append(m.Missing, it.ID)
		if c.named(it, res.OpenQuestions) {
			m.Left = append(m.Left, it.ID)
		} else {
			m.SilentDrops = append(m.SilentDrops, it.ID)
		}
	}
	m.Dependencies = len(c.Ref.Dependencies)
	reach := dependencyClosure(res.Tickets)
	for _, d := range c.Ref.Dependencies {
		if slices.ContainsFunc(primary[d.Item], func(a string) bool {
			return slices.ContainsFunc(primary[d.On], func(b string) bool { return reach[a][b] })
		}) {
			m.DependenciesMet++
		}
	}
	c.measurePrecision(&m, res.Tickets, itemOf)
	headings := map[string]bool{}
	for _, h := range c.doc.headings {
		headings[headingKey(h.text)] = true
	}
	titles := titleShapes(res.Tickets)
	boiler := repeatedCriteria(res.Tickets)
	for i, t := range res.Tickets {
		if p := TitleProblem(t.Title, res.Tickets[:i], titles, headings); p == "" {
			m.InformativeTitles++
		} else {
			m.Findings = append(m.Findings, t.ExternalID+": "+p)
		}
		if t.TicketType == tickets.TypeEpic {
			continue
		}
		m.CriteriaTickets++
		if p := CriteriaProblem(t.AcceptanceCriteria, boiler); p == "" {
			m.SpecificCriteria++
		} else {
			m.Findings = append(m.Findings, t.ExternalID+": "+p)
		}
	}
	return m
}

// dependencyClosure maps each ticket to every ticket it depends on,
// directly or through others; a ticket inherits the dependencies of its
// parent epics.
func dependencyClosure(ts []tickets.Ticket) map[string]map[string]bool {
	direct := map[string][]string{}
	parent := map[string]string{}
	for _, t := range ts {
		direct[t.ExternalID] = append(direct[t.ExternalID], t.Dependencies...)
		if t.ParentExternalID != nil {
			parent[t.ExternalID] = *t.ParentExternalID
		}
	}
	out := map[string]map[string]bool{}
	for _, t := range ts {
		seen := map[string]bool{}
		var stack []string
		for id := t.ExternalID; id != ""; id = parent[id] {
			stack = append(stack, direct[id]...)
			if len(stack) > len(ts)*len(ts)+1 {
				break
			}
		}
		for len(stack) > 0 {
			id := stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			if seen[id] {
				continue
			}
			seen[id] = true
			stack = append(stack, direct[id]...)
			if p, ok := parent[id]; ok {
				stack = append(stack, direct[p]...)
			}
		}
		out[t.ExternalID] = seen
	}
	return out
}

// measurePrecision counts the result's dependencies between tickets
// matched to two different items (see Measurement.ResultDependencies) and
// those the reference supports. A dependency between two tickets of one
// item splits that item's work, on which the reference says nothing.
func (c *Case) measurePrecision(m *Measurement, ts []tickets.Ticket, itemOf map[string]string) {
	reach := c.itemClosure()
	for _, t := range ts {
		from := itemOf[t.ExternalID]
		if from == "" {
			continue
		}
		for _, dep := range t.Dependencies {
			on := itemOf[dep]
			if on == "" || on == from {
				continue
			}
			m.ResultDependencies++
			if reach[from][on] {
				m.DependenciesSupported++
			} else {
				m.Unsupported = append(m.Unsupported, fmt.Sprintf("%s (%s) → %s (%s)", t.ExternalID, from, dep, on))
			}
		}
	}
}

// itemClosure maps each item of the reference to every item it depends on
// by the reference's dependencies, directly or through others; an item
// inherits the dependencies of its parent epics, as a ticket does in
// dependencyClosure.
func (c *Case) itemClosure() map[string]map[string]bool {
	ts := make([]tickets.Ticket, 0, len(c.Ref.Items))
	index := map[string]int{}
	for _, it := range c.Ref.Items {
		index[it.ID] = len(ts)
		t := tickets.Ticket{ExternalID: it.ID}
		if it.Parent != "" {
			t.ParentExternalID = &it.Parent
		}
		ts = append(ts, t)
	}
	for _, d := range c.Ref.Dependencies {
		if i, ok := index[d.Item]; ok {
			ts[i].Dependencies = append(ts[i].Dependencies, d.On)
		}
	}
	return dependencyClosure(ts)
}

var labelNumber = regexp.MustCompile(`^(.*?)(\d+)$`)

// named reports whether an open question names the item: by one of its
// phrases (matched as for tickets), by its label ("BB-07", "R3") as whole
// words, or by a range of labels that holds it ("BB-01 to BB-13",
// "steps 4-7").
func (c *Case) named(it Item, qs []tickets.OpenQuestion) bool {
	for _, q := range qs {
		set := setOf(q.Question)
		for _, p := range it.Phrases {
			tok := Tokens(p)
			if cov, found := c.w.coverage(tok, set); cov >= Threshold && found >= min(2, len(tok)) {
				return true
			}
		}
		if it.Label == "" {
			continue
		}
		qw := " " + strings.Join(words(q.Question), " ") + " "
		lw := strings.Join(words(it.Label), " ")
		if strings.Contains(qw, " "+lw+" ") {
			return true
		}
		m := labelNumber.FindStringSubmatch(strings.Join(words(it.Label), ""))
		if m == nil {
			continue
		}
		n, _ := strconv.Atoi(m[2])
		prefix := regexp.QuoteMeta(m[1])
		rng := regexp.MustCompile(`(?i)` + prefix + `s?\W{0,2}0*(\d+)\s*(?:to|through|until|-|–|—|\.\.)\s*(?:` + prefix + `\W{0,2})?0*(\d+)`)
		for _, r := range rng.FindAllStringSubmatch(q.Question, -1) {
			a, _ := strconv.Atoi(r[1])
			b, _ := strconv.Atoi(r[2])
			if a <= n && n <= b {
				return true
			}
		}
	}
	return false
}

// CapMeasurement is how a result made at the reference's small
// max_ticket_count keeps what matters.
type CapMeasurement struct {
	MaxTicketCount int `json:"max_ticket_count"`
	Tickets        int `json:"tickets"`
	// MustInclude and Included: the items the reference wants kept at the
	// cap, and those with a ticket.
	MustInclude int `json:"must_include"`
	Included    int `json:"included"`
	// SilentDrops are must-have items with no ticket that no open question
	// names.
	SilentDrops []string `json:"silent_drops"`
}

// Recall is the share of the cap's must-include items that have a ticket.
func (m CapMeasurement) Recall() float64 { return rate(m.Included, m.MustInclude) }

// MeasureCap compares a result made with max_ticket_count set to the
// reference's cap with what the reference expects there.
func (c *Case) MeasureCap(res *tickets.Result) CapMeasurement {
	full := c.Measure(res)
	m := CapMeasurement{MaxTicketCount: c.Ref.Cap.MaxTicketCount, Tickets: len(res.Tickets),
		MustInclude: len(c.Ref.Cap.MustInclude), SilentDrops: full.SilentDrops}
	for _, id := range c.Ref.Cap.MustInclude {
		if !slices.Contains(full.Missing, id) {
			m.Included++
		}
	}
	return m
}

// Explain renders a measurement's matches, missing items and findings as
// lines a lead can check against the spec.
func (m Measurement) Explain() []string {
	var out []string
	for _, mt := range m.Matches {
		to := "nothing"
		switch {
		case mt.NotWork:
			to = "NOT WORK"
		case mt.Item != "":
			to = mt.Item
			if len(mt.Also) > 0 {
				to += " (+" + strings.Join(mt.Also, ", ") + ")"
			}
		}
		out = append(out, fmt.Sprintf("%s [%s] %q → %s: %s", mt.Ticket, mt.Type, mt.Title, to, mt.Why))
	}
	for _, id := range m.SilentDrops {
		out = append(out, "dropped in silence: "+id)
	}
	for _, id := range m.Left {
		out = append(out, "left out, named in an open question: "+id)
	}
	for _, d := range m.Unsupported {
		out = append(out, "dependency the reference does not support: "+d)
	}
	return append(out, m.Findings...)
}

// Totals pools the measurements of several specs: its rates divide the
// summed counts (a spec with many tickets weighs more), its Score is the
// mean of the specs' scores.
type Totals struct {
	Specs                             int
	Sum                               Measurement
	ScoreSum                          float64
	CapSpecs, CapMustInclude, CapIncl int
	CapSilentDrops                    int
}

// Add pools one spec's measurement.
func (t *Totals) Add(m Measurement) {
	t.Specs++
	t.ScoreSum += m.Score()
	s := &t.Sum
	s.Tickets += m.Tickets
	s.MustItems += m.MustItems
	s.MustCovered += m.MustCovered
	s.WorkTickets += m.WorkTickets
	s.RightType += m.RightType
	s.NotWork += m.NotWork
	s.SilentDrops = append(s.SilentDrops, m.SilentDrops...)
	s.Left = append(s.Left, m.Left...)
	s.Dependencies += m.Dependencies
	s.DependenciesMet += m.DependenciesMet
	s.ResultDependencies += m.ResultDependencies
	s.DependenciesSupported += m.DependenciesSupported
	s.InformativeTitles += m.InformativeTitles
	s.CriteriaTickets += m.CriteriaTickets
	s.SpecificCriteria += m.SpecificCriteria
}

// AddCap pools one spec's measurement at its cap.
func (t *Totals) AddCap(m CapMeasurement) {
	t.CapSpecs++
	t.CapMustInclude += m.MustInclude
	t.CapIncl += m.Included
	t.CapSilentDrops += len(m.SilentDrops)
}

// Score is the mean of the pooled specs' scores.
func (t *Totals) Score() float64 {
	if t.Specs == 0 {
		return 0
	}
	return t.ScoreSum / float64(t.Specs)
}

// CapRecall is the pooled share of the caps' must-include items that have
// a ticket.
func (t *Totals) CapRecall() float64 { return rate(t.CapIncl, t.CapMustInclude) }
