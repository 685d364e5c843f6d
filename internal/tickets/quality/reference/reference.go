// Package reference measures a tickets.result.v1 result against a
// reference written by judgment: the work items a lead expects from a spec
// (with their type and whether they are must-have), the sections that are
// not work, the dependencies that matter and what must survive a small
// max_ticket_count. It answers what the lint score cannot: are the tickets
// the spec's real work, of the right type, with nothing important dropped
// in silence.
//
// A reference set is a directory of specs (NAME.md or NAME.txt) and their
// references (NAME.ref.json). How a ticket is matched to an item is
// documented on Match and in docs/tickets-quality.md.
package reference

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	"github.com/foresight-dev/foresight/internal/tickets"
)

// Reference is what a lead expects from one spec.
type Reference struct {
	// Shape says which kind of real-world document the spec imitates.
	Shape string `json:"shape"`
	// Source is where a spec written elsewhere comes from (its address and
	// licence); empty for the specs written for the set.
	Source string `json:"source,omitempty"`
	// MaxTicketCount is the max_ticket_count of the main run; 0 means the
	// service default (20).
	MaxTicketCount int          `json:"max_ticket_count,omitempty"`
	Items          []Item       `json:"items"`
	NotWork        []NotWork    `json:"not_work"`
	Dependencies   []Dependency `json:"dependencies"`
	Cap            Cap          `json:"cap"`
}

// Item is one piece of work the spec asks for.
type Item struct {
	ID string `json:"id"`
	// Type is the ticket type a lead would choose; Also lists other types a
	// lead would accept (a story written as a task, say).
	Type string   `json:"type"`
	Also []string `json:"also,omitempty"`
	// Must marks the items a result may not drop without saying so.
	Must bool `json:"must"`
	// Label is how the spec names the item ("BB-07", "R3", "step 2"); an
	// open question naming it (or a range of labels holding it) counts as
	// saying the item was left out.
	Label string `json:"label,omitempty"`
	// Parent is the id of the epic item the item belongs to, if any.
	Parent string `json:"parent,omitempty"`
	// Phrases are short passages of the spec, quoted verbatim, that
	// identify the item.
	Phrases []string `json:"phrases"`
}

// Accepts reports whether a ticket of type t is a right type for the item.
func (it Item) Accepts(t string) bool {
	return t == it.Type || slices.Contains(it.Also, t)
}

// NotWork is a part of the spec that must produce no ticket: a section
// (Heading, up to the next heading of the same or a higher level) or
// single lines (Phrases, each quoted verbatim from the spec).
type NotWork struct {
	Heading string   `json:"heading,omitempty"`
	Phrases []string `json:"phrases,omitempty"`
	Why     string   `json:"why"`
}

// Dependency says that the work of Item cannot start before On is done.
type Dependency struct {
	Item string `json:"item"`
	On   string `json:"on"`
	Why  string `json:"why,omitempty"`
}

// Cap is the expected behaviour at a small max_ticket_count: the items of
// MustInclude get a ticket, and every must-have item left out is named in
// an open question.
type Cap struct {
	MaxTicketCount int      `json:"max_ticket_count"`
	MustInclude    []string `json:"must_include"`
	Why            string   `json:"why,omitempty"`
}

// phraseBreak is a sentence break inside an item's phrase: matching cuts
// a ticket's text into sentences there (sentenceBreak), and engines end
// titles there. A colon is no break here: "Phase 1: Work orders" is one
// heading.
var phraseBreak = regexp.MustCompile(`[.!?;]\s`)

// Case is one spec of a reference set with its reference.
type Case struct {
	// Name is the spec's file name without its extension.
	Name string
	// File is the spec's file name.
	File string
	Spec string
	Ref  Reference

	doc     *document
	w       weights
	targets []*target
}

// MaxTicketCount is the max_ticket_count of the case's main run.
func (c *Case) MaxTicketCount() int {
	if c.Ref.MaxTicketCount > 0 {
		return c.Ref.MaxTicketCount
	}
	return tickets.DefaultMaxTicketCount
}

// Load reads every spec of dir that has a reference next to it, sorted by
// name, and checks each reference against its spec (see Case.Check). It
// fails on a reference without a spec, on invalid JSON and on a reference
// that does not fit its spec.
func Load(dir string) ([]*Case, error) {
	refs, err := filepath.Glob(filepath.Join(dir, "*.ref.json"))
	if err != nil {
		return nil, err
	}
	if len(refs) == 0 {
		return nil, fmt.Errorf("no *.ref.json in %s", dir)
	}
	slices.Sort(refs)
	var cases []*Case
	for _, rf := range refs {
		name := strings.TrimSuffix(filepath.Base(rf), ".ref.json")
		var file string
		for _, ext := range []string{".md", ".txt"} {
			if _, err := os.Stat(filepath.Join(dir, name+ext)); err == nil {
				file = name + ext
				break
			}
		}
		if file == "" {
			return nil, fmt.Errorf("%s: no spec %s.md or %s.txt next to it", rf, name, name)
		}
		spec, err := os.ReadFile(filepath.Join(dir, file))
		if err != nil {
			return nil, err
		}
		raw, err := os.ReadFile(rf)
		if err != nil {
			return nil, err
		}
		c, err := NewCase(name, file, string(spec), raw)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", rf, err)
		}
		cases = append(cases, c)
	}
	return cases, nil
}

// NewCase builds a case from a spec and its reference document and checks
// that they fit (see Check).
func NewCase(name, file, spec string, ref []byte) (*Case, error) {
	c := &Case{Name: name, File: file, Spec: spec}
	dec := json.NewDecoder(strings.NewReader(string(ref)))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&c.Ref); err != nil {
		return nil, fmt.Errorf("reference: %w", err)
	}
	c.doc = parseDocument(spec)
	c.w = newWeights(c.doc.lines)
	if err := c.Check(); err != nil {
		return nil, err
	}
	c.targets = c.buildTargets()
	return c, nil
}

// Check reports every way the reference does not fit its spec: an item
// phrase or not-work phrase that is not in the spec, a phrase with no word
// that counts (see Tokens), a not-work heading the spec does not have,
// duplicate or unknown item ids, an unknown ticket type.
func (c *Case) Check() error {
	var problems []string
	ids := map[string]Item{}
	for _, it := range c.Ref.Items {
		if _, dup := ids[it.ID]; dup || it.ID == "" {
			problems = append(problems, fmt.Sprintf("item id %q is empty or repeated", it.ID))
		}
		ids[it.ID] = it
		for _, t := range append([]string{it.Type}, it.Also...) {
			if !slices.Contains([]string{tickets.TypeEpic, tickets.TypeStory, tickets.TypeTask, tickets.TypeBug, tickets.TypeSpike}, t) {
				problems = append(problems, fmt.Sprintf("item %s: unknown type %q", it.ID, t))
			}
		}
		if len(it.Phrases) == 0 {
			problems = append(problems, fmt.Sprintf("item %s has no phrases", it.ID))
		}
		for _, p := range it.Phrases {
			if len(Tokens(p)) < 2 {
				problems = append(problems, fmt.Sprintf("item %s: phrase %q has fewer than two words that count", it.ID, p))
			}
			if len(c.doc.linesOf(p)) == 0 {
				problems = append(problems, fmt.Sprintf("item %s: phrase %q is not in the spec", it.ID, p))
			}
			if phraseBreak.MatchString(p) {
				problems = append(problems, fmt.Sprintf("item %s: phrase %q runs across a sentence break, so no sentence or title can hold all of it", it.ID, p))
			}
		}
	}
	for _, it := range c.Ref.Items {
		if it.Parent != "" {
			if p, ok := ids[it.Parent]; !ok || p.Type != tickets.TypeEpic {
				problems = append(problems, fmt.Sprintf("item %s: parent %q is not an epic item", it.ID, it.Parent))
			}
		}
	}
	for _, nw := range c.Ref.NotWork {
		if nw.Heading != "" {
			if _, _, ok := c.doc.section(nw.Heading); !ok {
				problems = append(problems, fmt.Sprintf("not-work heading %q is not a heading of the spec", nw.Heading))
			}
		}
		for _, p := range nw.Phrases {
			if len(c.doc.linesOf(p)) == 0 {
				problems = append(problems, fmt.Sprintf("not-work phrase %q is not in the spec", p))
			}
		}
		if nw.Heading == "" && len(nw.Phrases) == 0 {
			problems = append(problems, "a not-work entry without heading or phrases")
		}
	}
	for _, d := range c.Ref.Dependencies {
		if _, ok := ids[d.Item]; !ok {
			problems = append(problems, fmt.Sprintf("dependency of unknown item %q", d.Item))
		}
		if _, ok := ids[d.On]; !ok {
			problems = append(problems, fmt.Sprintf("dependency on unknown item %q", d.On))
		}
	}
	if c.Ref.Cap.MaxTicketCount < 1 || c.Ref.Cap.MaxTicketCount > tickets.MaxTickets {
		problems = append(problems, fmt.Sprintf("cap.max_ticket_count %d is not 1 to %d", c.Ref.Cap.MaxTicketCount, tickets.MaxTickets))
	}
	for _, id := range c.Ref.Cap.MustInclude {
		if it, ok := ids[id]; !ok || !it.Must {
			problems = append(problems, fmt.Sprintf("cap.must_include %q is not a must-have item", id))
		}
	}
	if len(problems) > 0 {
		return errors.New(strings.Join(problems, "; "))
	}
	return nil
}

// Item returns the item of the reference with that id, or the zero Item.
func (c *Case) Item(id string) Item {
	it, _ := c.item(id)
	return it
}

func (c *Case) item(id string) (Item, bool) {
	for _, it := range c.Ref.Items {
		if it.ID == id {
			return it, true
		}
	}
	return Item{}, false
}
