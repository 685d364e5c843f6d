package reference

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/foresight-dev/foresight/internal/tickets"
)

// Baseline is a deliberately poor result for a case, built by a rule any
// engine must beat.
type Baseline struct {
	Name   string
	Result *tickets.Result
}

// Baselines returns the poor results of a case, each capped at the case's
// max_ticket_count:
//   - "headings": one task "Implement <heading>" per heading of the spec,
//     its description the section's first line, its one criterion "An
//     automated test checks this behaviour end to end.";
//   - "numbered": one story "Implement item N" per list item, numbered line
//     or table row, "As a user, I want item N to work as specified." and
//     the line, its criterion "Item N works as specified.";
//   - "not-work": one task per line of the parts the reference says are
//     not work (absent when it names none);
//   - "sentences": one task per sentence of the spec, titled with its
//     first words, with no acceptance criteria.
func (c *Case) Baselines() []Baseline {
	limit := c.MaxTicketCount()
	var out []Baseline
	add := func(name string, ts []tickets.Ticket) {
		if len(ts) == 0 {
			return
		}
		if len(ts) > limit {
			ts = ts[:limit]
		}
		for i := range ts {
			ts[i].ExternalID = fmt.Sprintf("SPEC-%d", i+1)
		}
		out = append(out, Baseline{Name: name, Result: poorResult(c, ts)})
	}
	const endToEnd = "An automated test checks this behaviour end to end."
	var ts []tickets.Ticket
	for _, h := range c.doc.headings {
		desc := h.text
		first, last, _ := c.doc.section(h.text)
		for n := first + 1; n <= last; n++ {
			if l := plainLine(c.doc.lines[n-1]); l != "" && !strings.HasPrefix(l, "#") {
				desc = l
				break
			}
		}
		ts = append(ts, poorTicket(tickets.TypeTask, "Implement "+h.text, desc, endToEnd))
	}
	if len(ts) == 0 {
		ts = append(ts, poorTicket(tickets.TypeTask, "Implement "+firstWords(c.Spec, 8), c.Spec, endToEnd))
	}
	add("headings", ts)

	ts = nil
	for _, l := range c.doc.lines {
		if !listLine.MatchString(l) || tableRule.MatchString(l) {
			continue
		}
		n := len(ts) + 1
		ts = append(ts, poorTicket(tickets.TypeStory, fmt.Sprintf("Implement item %d", n),
			fmt.Sprintf("As a user, I want item %d to work as specified. %s", n, plainLine(l)),
			fmt.Sprintf("Item %d works as specified.", n)))
	}
	add("numbered", ts)

	ts = nil
	for _, tg := range c.targets {
		if tg.notWork == nil {
			continue
		}
		for _, p := range tg.phrases {
			ts = append(ts, poorTicket(tickets.TypeTask, "Implement "+firstWords(p.text, 8), p.text, "Implement "+p.text))
		}
	}
	add("not-work", ts)

	ts = nil
	for _, s := range sentenceEnd.Split(strings.Join(c.proseLines(), " "), -1) {
		if s = strings.TrimSpace(s); len(Tokens(s)) >= 3 {
			t := poorTicket(tickets.TypeTask, "Implement "+firstWords(s, 6), s, "")
			t.AcceptanceCriteria = []string{}
			ts = append(ts, t)
		}
	}
	add("sentences", ts)
	return out
}

var (
	listLine    = regexp.MustCompile(`^\s*([-*+]|\d+[.)]|\|)\s+\S`)
	tableRule   = regexp.MustCompile(`^\s*\|[\s:|-]+\|\s*$`)
	sentenceEnd = regexp.MustCompile(`[.!?]\s+`)
)

// proseLines are the spec's lines outside code blocks that are not
// headings.
func (c *Case) proseLines() []string {
	var out []string
	inCode := false
	for _, l := range c.doc.lines {
		if codeFence.MatchString(l) {
			inCode = !inCode
			continue
		}
		if inCode || atxHeading.MatchString(l) {
			continue
		}
		if p := plainLine(l); p != "" {
			out = append(out, p)
		}
	}
	return out
}

func firstWords(s string, n int) string {
	f := strings.Fields(s)
	if len(f) > n {
		f = f[:n]
	}
	out := strings.Join(f, " ")
	if r := []rune(out); len(r) > 100 {
		out = string(r[:100])
	}
	return out
}

func poorTicket(typ, title, desc, criterion string) tickets.Ticket {
	three := 3
	if r := []rune(title); len(r) > 120 {
		title = string(r[:120])
	}
	return tickets.Ticket{TicketType: typ, Title: title, Description: desc, AcceptanceCriteria: []string{criterion},
		Labels: []string{}, Dependencies: []string{}, StoryPoints: &three, Metadata: map[string]any{}}
}

func poorResult(c *Case, ts []tickets.Ticket) *tickets.Result {
	return &tickets.Result{SchemaVersion: tickets.ResultSchemaVersion, JobID: "00000000-0000-4000-8000-000000000000",
		Source: tickets.Source{Title: c.Name, Summary: c.Name}, Tickets: ts, Risks: []tickets.Risk{},
		OpenQuestions: []tickets.OpenQuestion{}, Generation: tickets.Generation{Model: "baseline"}}
}
