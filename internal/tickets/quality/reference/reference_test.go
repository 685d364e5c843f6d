package reference_test

import (
	"context"
	"strings"
	"testing"

	"github.com/foresight-dev/foresight/internal/tickets"
	"github.com/foresight-dev/foresight/internal/tickets/heuristic"
	"github.com/foresight-dev/foresight/internal/tickets/quality/reference"
)

// The engine runs over the whole set, at both caps, and every result is
// measured (the scores are the table of docs/tickets-quality.md, not
// thresholds).
func TestRunEngine(t *testing.T) {
	cases := loadSet(t)
	rows, err := reference.RunEngine(context.Background(), heuristic.New(), cases)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range rows {
		if r.Cap == nil || r.M.Tickets == 0 || r.Cap.Tickets > r.Case.Ref.Cap.MaxTicketCount || len(r.M.Matches) != r.M.Tickets {
			t.Errorf("%s: %+v", r.Case.Name, r)
		}
	}
}

const setDir = "../../../../testdata/reference"

func loadSet(t *testing.T) []*reference.Case {
	t.Helper()
	cases, err := reference.Load(setDir)
	if err != nil {
		t.Fatal(err)
	}
	return cases
}

// The reference set has the size and the shapes issue 15 asks for, and
// every reference fits its spec (Load checks phrases, headings and ids).
func TestReferenceSet(t *testing.T) {
	t.Parallel()
	cases := loadSet(t)
	if len(cases) < 15 {
		t.Errorf("%d specs, want at least 15", len(cases))
	}
	var big, bugs bool
	for _, c := range cases {
		if len(c.Spec) >= 100_000 {
			big = true
		}
		n := 0
		for _, it := range c.Ref.Items {
			if it.Type == tickets.TypeBug {
				n++
			}
		}
		if n >= 20 {
			bugs = true
		}
	}
	if !big || !bugs {
		t.Errorf("want a spec of 100 KB (%v) and one with 20 or more bug reports (%v)", big, bugs)
	}
}

// A reference that does not fit its spec is refused, with the reason.
func TestCheckRefusesReferenceNotInSpec(t *testing.T) {
	t.Parallel()
	spec := "# Shop\n\n## Checkout\n\nUsers pay by card; cash is refused.\n\n## Non-goals\n\n- Gift cards.\n"
	for _, tt := range []struct{ ref, want string }{
		{`{"items":[{"id":"a","type":"story","must":true,"phrases":["pay by cash"]}],"cap":{"max_ticket_count":1}}`, "not in the spec"},
		{`{"items":[{"id":"a","type":"story","must":true,"phrases":["pay"]}],"cap":{"max_ticket_count":1}}`, "fewer than two words"},
		{`{"items":[{"id":"a","type":"story","must":true,"phrases":["pay by card; cash is refused"]}],"cap":{"max_ticket_count":1}}`, "sentence break"},
		{`{"items":[{"id":"a","type":"chore","must":true,"phrases":["pay by card"]}],"cap":{"max_ticket_count":1}}`, "unknown type"},
		{`{"items":[{"id":"a","type":"story","must":true,"phrases":["pay by card"]}],"not_work":[{"heading":"Out of scope","why":"x"}],"cap":{"max_ticket_count":1}}`, "not a heading"},
		{`{"items":[{"id":"a","type":"story","must":true,"phrases":["pay by card"]}],"dependencies":[{"item":"a","on":"b"}],"cap":{"max_ticket_count":1}}`, "unknown item"},
	} {
		if _, err := reference.NewCase("shop", "shop.md", spec, []byte(tt.ref)); err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: err %v, want %q", tt.ref, err, tt.want)
		}
	}
}

const shopSpec = `# Shop checkout

## Goals

Fewer abandoned carts.

## Requirements

1. Users pay by card with 3-D Secure.
2. Users apply a coupon code before paying; expired codes are refused.
3. The order confirmation email lists every item and the total.

## Non-goals

- Paying by bank transfer.
- Gift cards.

## Alternatives considered

- A hosted payment page. Rejected: no control over the layout.
`

const shopRef = `{
  "items": [
    {"id": "card", "type": "story", "also": ["task"], "must": true, "label": "R1", "phrases": ["pay by card with 3-D Secure"]},
    {"id": "coupon", "type": "story", "must": true, "label": "R2", "phrases": ["apply a coupon code", "expired codes are refused"]},
    {"id": "email", "type": "story", "must": true, "label": "R3", "phrases": ["order confirmation email"]}
  ],
  "not_work": [
    {"heading": "Non-goals", "why": "excluded"},
    {"heading": "Alternatives considered", "why": "rejected"}
  ],
  "dependencies": [{"item": "email", "on": "card", "why": "an order exists once paid"}],
  "cap": {"max_ticket_count": 1, "must_include": ["card"]}
}`

func shop(t *testing.T) *reference.Case {
	t.Helper()
	c, err := reference.NewCase("shop", "shop.md", shopSpec, []byte(shopRef))
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func tk(id, typ, title, desc string, ac ...string) tickets.Ticket {
	return tickets.Ticket{ExternalID: id, TicketType: typ, Title: title, Description: desc, AcceptanceCriteria: ac,
		Labels: []string{}, Dependencies: []string{}, Metadata: map[string]any{}}
}

func result(ts []tickets.Ticket, questions ...string) *tickets.Result {
	r := &tickets.Result{Tickets: ts}
	for i, q := range questions {
		r.OpenQuestions = append(r.OpenQuestions, tickets.OpenQuestion{ID: "Q-" + string(rune('1'+i)), Question: q})
	}
	return r
}

// The matching rule, case by case.
func TestMatchRule(t *testing.T) {
	t.Parallel()
	c := shop(t)
	span := func(tk tickets.Ticket, first, last int) tickets.Ticket {
		tk.Metadata = map[string]any{"source": map[string]any{"heading": "x", "first_line": float64(first), "last_line": float64(last)}}
		return tk
	}
	for _, tt := range []struct {
		name    string
		ticket  tickets.Ticket
		item    string
		notWork bool
	}{
		{"words of a phrase in the title", tk("SPEC-1", "story", "Pay by card with 3-D Secure", "x"), "card", false},
		{"words of a phrase in one sentence of the text", tk("SPEC-1", "story", "Card payments", "Users pay by card through 3-D Secure. Nothing else."), "card", false},
		{"most words of a phrase", tk("SPEC-1", "story", "Refuse expired coupon codes", "x"), "coupon", false},
		{"words spread over sentences do not match", tk("SPEC-1", "task", "Misc", "An order. A confirmation. An email."), "", false},
		{"a heading behind a generic verb is not work", tk("SPEC-1", "task", "Implement Non-goals", "x"), "", true},
		{"a line of a not-work section is not work", tk("SPEC-1", "task", "Support paying by bank transfer", "x"), "", true},
		{"a rejected alternative is not work", tk("SPEC-1", "task", "Build a hosted payment page", "Build a hosted payment page."), "", true},
		{"a short not-work line matches the title only", tk("SPEC-1", "story", "Pay by card with 3-D Secure", "Gift cards are out of scope."), "card", false},
		{"work and not-work words in one ticket: work wins", tk("SPEC-1", "story", "Coupons", "Apply a coupon code. Not for gift cards."), "coupon", false},
		{"a declared source in a not-work section is not work", span(tk("SPEC-1", "story", "Pay by card with 3-D Secure", "x"), 15, 16), "", true},
		{"too few words of a phrase", tk("SPEC-1", "story", "Pay with a card", "x"), "", false},
		{"a declared source on the item's line needs half the words", span(tk("SPEC-1", "story", "Pay with a card", "x"), 9, 9), "card", false},
		{"a context section matches nothing", tk("SPEC-1", "task", "Reduce abandoned carts", "Fewer abandoned carts."), "", false},
	} {
		m := c.Measure(result([]tickets.Ticket{tt.ticket}))
		got := m.Matches[0]
		if got.Item != tt.item || got.NotWork != tt.notWork {
			t.Errorf("%s: matched %q not-work %v (%s), want %q not-work %v", tt.name, got.Item, got.NotWork, got.Why, tt.item, tt.notWork)
		}
	}
}

func TestMeasure(t *testing.T) {
	t.Parallel()
	c := shop(t)
	card := tk("SPEC-1", "story", "Pay by card with 3-D Secure", "x", "A 3-D Secure challenge is shown for test card 4000 0027 6000 3184")
	email := tk("SPEC-2", "task", "Send the order confirmation email", "x", "The email lists every item, its price and the total")
	email.Dependencies = []string{"SPEC-1"}
	gift := tk("SPEC-3", "task", "Implement gift cards", "x", "Gift cards work as specified")
	m := c.Measure(result([]tickets.Ticket{card, email, gift}, "Coupons (R2) did not fit in 3 tickets."))
	if m.MustCovered != 2 || m.MustItems != 3 || m.WorkTickets != 2 || m.RightType != 1 || m.NotWork != 1 ||
		len(m.SilentDrops) != 0 || len(m.Left) != 1 || m.DependenciesMet != 1 || m.SpecificCriteria != 2 {
		t.Errorf("measurement %+v", m)
	}
	m = c.Measure(result([]tickets.Ticket{card, email}))
	if len(m.SilentDrops) != 1 || m.SilentDrops[0] != "coupon" {
		t.Errorf("coupon dropped without a question: silent drops %v", m.SilentDrops)
	}
	// A range of labels in a question names every item in it.
	m = c.Measure(result([]tickets.Ticket{card}, "Left out at this cap: R2 to R3."))
	if len(m.SilentDrops) != 0 {
		t.Errorf("R2 to R3 named in a question: silent drops %v", m.SilentDrops)
	}
	// A dependency on the epic of the item's ticket counts too.
	epic := tk("SPEC-1", "epic", "Card payments", "x")
	child := tk("SPEC-2", "story", "Pay by card with 3-D Secure", "x", "a")
	parent := "SPEC-1"
	child.ParentExternalID = &parent
	mail := tk("SPEC-3", "task", "Send the order confirmation email", "x", "a")
	mail.Dependencies = []string{"SPEC-1"}
	if m = c.Measure(result([]tickets.Ticket{epic, child, mail})); m.DependenciesMet != 0 {
		t.Errorf("a dependency on an epic no item matched counted: %+v", m.Matches)
	}
	mail.Dependencies = []string{"SPEC-2"}
	if m = c.Measure(result([]tickets.Ticket{epic, child, mail})); m.DependenciesMet != 1 {
		t.Errorf("dependency not found: %+v", m)
	}
}

func TestDependencyPrecision(t *testing.T) {
	t.Parallel()
	c := shop(t)
	card := tk("SPEC-1", "story", "Pay by card with 3-D Secure", "x", "a")
	coupon := tk("SPEC-2", "story", "Apply a coupon code", "x", "a")
	email := tk("SPEC-3", "task", "Send the order confirmation email", "x", "a")
	split := tk("SPEC-4", "task", "Send the order confirmation email to the buyer", "x", "a")
	for _, tt := range []struct {
		name                 string
		coupon, email, split []string
		counted, supported   int
	}{
		{"no dependencies: nothing to count", nil, nil, nil, 0, 0},
		{"a dependency the reference holds", nil, []string{"SPEC-1"}, nil, 1, 1},
		{"list order the reference does not hold", []string{"SPEC-1"}, []string{"SPEC-2"}, nil, 2, 0},
		{"two tickets of one item count for nothing", nil, []string{"SPEC-1"}, []string{"SPEC-3"}, 1, 1},
	} {
		coupon.Dependencies, email.Dependencies, split.Dependencies = tt.coupon, tt.email, tt.split
		m := c.Measure(result([]tickets.Ticket{card, coupon, email, split}))
		if m.ResultDependencies != tt.counted || m.DependenciesSupported != tt.supported || len(m.Unsupported) != tt.counted-tt.supported {
			t.Errorf("%s: %d counted, %d supported, unsupported %v; want %d, %d", tt.name, m.ResultDependencies,
				m.DependenciesSupported, m.Unsupported, tt.counted, tt.supported)
		}
	}
}

func TestTitlesAndCriteria(t *testing.T) {
	t.Parallel()
	c := shop(t)
	var ts []tickets.Ticket
	for i, title := range []string{"Implement item 1", "Implement item 2", "Implement item 3", "Implement Requirements", "Checkout", "Refuse expired coupon codes", "Refuse expired coupon codes"} {
		ts = append(ts, tk("SPEC-"+string(rune('1'+i)), "task", title, "x", "An automated test checks this behaviour end to end."))
	}
	ts[5].AcceptanceCriteria = []string{"Applying SUMMER24 after its end date shows \"This code has expired.\""}
	m := c.Measure(result(ts))
	if m.InformativeTitles != 1 || m.SpecificCriteria != 1 {
		t.Errorf("titles %d criteria %d, want 1 and 1: %v", m.InformativeTitles, m.SpecificCriteria, m.Findings)
	}
}

// The measure ranks results as the reference judgment does: the results a
// lead wrote by hand above the heuristic engine's before its rebuild
// (stored in testdata/reference/before, so that a better engine does not
// break this test), and the deliberately poor results lowest.
func TestRanking(t *testing.T) {
	cases := loadSet(t)
	engineRows, err := reference.LoadResults(setDir+"/before", cases)
	if err != nil {
		t.Fatal(err)
	}
	good, err := reference.LoadResults(setDir+"/results", cases)
	if err != nil {
		t.Fatal(err)
	}
	if len(good) < 3 {
		t.Fatalf("%d hand-written results, want at least 3", len(good))
	}
	score := map[string]map[string]float64{}
	for _, rows := range [][]reference.Row{engineRows, good, reference.BaselineRows(cases)} {
		for _, r := range rows {
			if score[r.Case.Name] == nil {
				score[r.Case.Name] = map[string]float64{}
			}
			score[r.Case.Name][r.Label] = r.M.Score()
		}
	}
	for _, r := range good {
		s := score[r.Case.Name]
		for label, v := range s {
			if label != "good" && v >= s["good"] {
				t.Errorf("%s: %s scores %.2f, the hand-written result %.2f", r.Case.Name, label, v, s["good"])
			}
		}
		if r.M.Recall() < 0.9 || r.M.Precision() < 0.9 || r.M.NotWork > 0 || len(r.M.SilentDrops) > 0 {
			t.Errorf("%s: the hand-written result misses the reference: %v", r.Case.Name, r.M.Explain())
		}
	}
	totals := map[string]*reference.Totals{}
	for _, rows := range [][]reference.Row{engineRows, reference.BaselineRows(cases)} {
		for _, r := range rows {
			if totals[r.Label] == nil {
				totals[r.Label] = &reference.Totals{}
			}
			totals[r.Label].Add(r.M)
		}
	}
	if len(engineRows) != len(cases) {
		t.Fatalf("%d stored engine results for %d specs", len(engineRows), len(cases))
	}
	for _, b := range []string{"headings", "numbered", "not-work", "sentences"} {
		if totals[b] == nil || totals[b].Score() > totals["heuristic"].Score() {
			t.Errorf("baseline %s scores %.2f over the specs, the heuristic engine %.2f", b, totals[b].Score(), totals["heuristic"].Score())
		}
	}
}

// An underlined heading (reStructuredText, as PEPs are written, or
// Markdown's setext form) is a heading a reference can name as not work.
func TestUnderlinedHeadings(t *testing.T) {
	t.Parallel()
	spec := "PEP: 1\n\nAbstract\n========\n\nA proposal to add a method.\n\nSpecification\n=============\n\nThe str class gains a removeprefix method.\n\nRejected Ideas\n--------------\n\nA tuple of prefixes.\n"
	ref := `{"items":[{"id":"m","type":"task","must":true,"phrases":["gains a removeprefix method"]}],"not_work":[{"heading":"Abstract","why":"context"},{"heading":"Rejected Ideas","why":"rejected"}],"cap":{"max_ticket_count":1}}`
	if _, err := reference.NewCase("pep", "pep.txt", spec, []byte(ref)); err != nil {
		t.Errorf("underlined headings are not headings: %v", err)
	}
}
