package simulator

import "slices"

// An eventTemplate describes a kind of event. Its texts hold placeholders
// ("{country}", "{bank.the}") bound by its slots, plus "{close}": the time
// the event's last markets close (its StartsAt), written in each locale.
type eventTemplate struct {
	id          string
	category    string
	image       string // an image name without ".svg"
	slots       []slot
	title       tr
	description tr
	markets     []marketTemplate
}

type slotKind int

const (
	slotWord   slotKind = iota // a word of a pool
	slotNumber                 // a number of a numSpec
	slotScaled                 // a number on the scale of the word of another slot
	slotYear                   // the year the event appears plus an offset
)

// A slot binds a placeholder of an event template.
type slot struct {
	name   string
	kind   slotKind
	pool   *pool
	num    numSpec
	of     string // slotScaled: the word slot whose scale is used
	lo, hi int    // slotYear: offset range in years
}

func pick(name string, p *pool) slot { return slot{name: name, kind: slotWord, pool: p} }
func number(name string, n numSpec) slot {
	return slot{name: name, kind: slotNumber, num: n}
}
func scaled(name, of string) slot { return slot{name: name, kind: slotScaled, of: of} }
func year(name string, lo, hi int) slot {
	return slot{name: name, kind: slotYear, lo: lo, hi: hi}
}

// A word is a value of a word slot or an outcome of a pool market.
type word struct {
	key  string
	text tr
	// forms are other forms of the word for placeholders "{slot.form}".
	forms map[string]tr
	// scale is the range of numbers of a slotScaled bound to this word
	// (prices of an asset).
	scale numSpec
}

// A pool is a list of words to pick from.
type pool struct {
	name  string
	words []word
}

type outcomeKind int

const (
	yesNo     outcomeKind = iota // Yes and No
	fixedList                    // the template's outcomes
	fromPool                     // words of a pool: the lead slots' words first
	ranges                       // ranges of numbers around a number slot
)

// A marketTemplate describes one market of an event template.
type marketTemplate struct {
	id       string
	question tr
	// early markets close before the event's last markets (see doc.go).
	early    bool
	kind     outcomeKind
	yes      [2]int // yesNo: the base probability of Yes, in percent
	outcomes []fixedOutcome
	pool     *pool
	lead     []string // fromPool: slots whose words come first
	count    [2]int   // fromPool: how many outcomes
	of       string   // ranges: the number slot at the centre
	sizes    []int    // ranges: how many outcomes (odd), one picked
}

// A fixedOutcome is an outcome of a fixedList market; its base weight is
// drawn from weight.
type fixedOutcome struct {
	key    string
	name   tr
	weight [2]int
}

func yesno(id string, lo, hi int, q tr) marketTemplate {
	return marketTemplate{id: id, question: q, kind: yesNo, yes: [2]int{lo, hi}}
}

func fixed(id string, q tr, outcomes ...fixedOutcome) marketTemplate {
	return marketTemplate{id: id, question: q, kind: fixedList, outcomes: outcomes}
}

func outcome(key string, lo, hi int, name tr) fixedOutcome {
	return fixedOutcome{key: key, name: name, weight: [2]int{lo, hi}}
}

func field(id string, q tr, p *pool, lo, hi int, lead ...string) marketTemplate {
	return marketTemplate{id: id, question: q, kind: fromPool, pool: p, count: [2]int{lo, hi}, lead: lead}
}

func rangesOf(id string, q tr, of string, sizes ...int) marketTemplate {
	return marketTemplate{id: id, question: q, kind: ranges, of: of, sizes: sizes}
}

// closesEarly returns m marked early.
func (m marketTemplate) closesEarly() marketTemplate {
	m.early = true
	return m
}

// Shared texts.
var (
	yesText  = tx("Yes", "Sí", "Sim", "Oui", "Ja", "Ja", "Да")
	noText   = tx("No", "No", "Não", "Non", "Nein", "Nee", "Нет")
	drawText = tx("Draw", "Empate", "Empate", "Match nul", "Unentschieden", "Gelijkspel", "Ничья")
	// Range outcomes: below the lowest bound, between two, the highest or
	// more.
	belowText   = tx("Below {lo}", "Menos de {lo}", "Abaixo de {lo}", "Moins de {lo}", "Unter {lo}", "Onder {lo}", "Ниже {lo}")
	betweenText = same("{lo} – {hi}")
	orMoreText  = tx("{lo} or more", "{lo} o más", "{lo} ou mais", "{lo} ou plus", "{lo} oder mehr", "{lo} of meer", "{lo} и выше")
	// rangeWeights are the base weights of range outcomes by their distance
	// from the central one.
	rangeWeights = [][2]int{{28, 36}, {16, 24}, {6, 12}, {2, 5}}
)

// templates are all event templates; byCategory indexes them by category.
var (
	templates  = slices.Concat(electionTemplates, sportsTemplates, cryptoTemplates, economyTemplates, climateTemplates, technologyTemplates)
	byCategory = func() map[string][]*eventTemplate {
		m := map[string][]*eventTemplate{}
		for i := range templates {
			t := &templates[i]
			m[t.category] = append(m[t.category], t)
		}
		return m
	}()
)
