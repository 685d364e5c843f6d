package betting

import (
	"slices"
	"time"

	"github.com/shopspring/decimal"
	"golang.org/x/text/language"
)

// Categories of events.
var Categories = []string{"elections", "sports", "crypto", "economy", "climate", "technology"}

// MarketStatus is the state of an event or a market: open (takes bets),
// suspended (takes none for now), and finally resolved or cancelled.
type MarketStatus string

// Statuses of events and markets.
const (
	StatusOpen      MarketStatus = "open"
	StatusSuspended MarketStatus = "suspended"
	StatusResolved  MarketStatus = "resolved"
	StatusCancelled MarketStatus = "cancelled"
)

// Texts are a text in several locales (BCP 47 tags: "en", "pt-BR").
type Texts map[string]string

// Event is a real-world event with its markets.
type Event struct {
	ID          string       `json:"id"`
	Category    string       `json:"category"`
	Title       Texts        `json:"title"`
	Description Texts        `json:"description,omitempty"`
	ImageURL    string       `json:"image_url,omitempty"`
	StartsAt    *time.Time   `json:"starts_at,omitempty"`
	Status      MarketStatus `json:"status"`
	Markets     []Market     `json:"markets"`
	// Source names the market feed that created the event ("simulator",
	// "polymarket"); empty for events created through the admin API.
	Source string `json:"source,omitempty"`
	// SourceKey is the feed's own id of the event.
	SourceKey string    `json:"source_key,omitempty"`
	CreatedAt time.Time `json:"created_at"`
	UpdatedAt time.Time `json:"updated_at"`
}

// Market is a question about an event with mutually exclusive outcomes.
type Market struct {
	ID               string       `json:"id"`
	Question         Texts        `json:"question"`
	ImageURL         string       `json:"image_url,omitempty"`
	ClosesAt         *time.Time   `json:"closes_at,omitempty"`
	Status           MarketStatus `json:"status"`
	WinningOutcomeID string       `json:"winning_outcome_id,omitempty"`
	Outcomes         []Outcome    `json:"outcomes"`
	// Version counts price changes, for the real-time channel.
	Version int64 `json:"version"`
}

// Outcome is one possible answer of a market, with its source probability.
type Outcome struct {
	ID          string          `json:"id"`
	Name        Texts           `json:"name"`
	Probability decimal.Decimal `json:"probability"`
}

// Market returns the event's market with id.
func (e *Event) Market(id string) (*Market, bool) {
	i := slices.IndexFunc(e.Markets, func(m Market) bool { return m.ID == id })
	if i < 0 {
		return nil, false
	}
	return &e.Markets[i], true
}

// Outcome returns the market's outcome with id and its index.
func (m *Market) Outcome(id string) (Outcome, int, bool) {
	i := slices.IndexFunc(m.Outcomes, func(o Outcome) bool { return o.ID == id })
	if i < 0 {
		return Outcome{}, -1, false
	}
	return m.Outcomes[i], i, true
}

// Open reports whether m takes bets at now: the market and its event are
// open and closes_at, if any, has not passed.
func (e *Event) Open(m *Market, now time.Time) bool {
	return e.Status == StatusOpen && m.Status == StatusOpen && (m.ClosesAt == nil || now.Before(*m.ClosesAt))
}

// Resolve picks the text of t for the locale asked, falling back to the
// closest one there is, then English, then any text.
func (t Texts) Resolve(locale string) string {
	if len(t) == 0 {
		return ""
	}
	if s, ok := t[locale]; ok {
		return s // an exact match is what the matcher would choose
	}
	tags := make([]language.Tag, 0, len(t))
	keys := make([]string, 0, len(t))
	for k := range t {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		tags = append(tags, language.Make(k))
	}
	want, _, _ := language.ParseAcceptLanguage(locale)
	if len(want) == 0 {
		want = []language.Tag{language.English}
	}
	if _, i, c := language.NewMatcher(tags).Match(want...); c != language.No {
		return t[keys[i]]
	}
	if s, ok := t["en"]; ok {
		return s
	}
	return t[keys[0]]
}

func parseLocale(s string) (language.Tag, error) { return language.Parse(s) }
