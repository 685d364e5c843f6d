package betting

import (
	"time"

	"github.com/shopspring/decimal"

	"github.com/foresight-dev/foresight/internal/odds"
)

// EventView is an event as an operator's bettors see it: texts in one
// locale and odds with the operator's margin.
type EventView struct {
	ID          string       `json:"id"`
	Category    string       `json:"category"`
	Title       string       `json:"title"`
	Description string       `json:"description"`
	ImageURL    string       `json:"image_url"`
	StartsAt    *time.Time   `json:"starts_at"`
	Status      MarketStatus `json:"status"`
	Markets     []MarketView `json:"markets"`
}

// MarketView is a market in an EventView.
type MarketView struct {
	ID       string        `json:"id"`
	Question string        `json:"question"`
	ImageURL string        `json:"image_url"`
	ClosesAt *time.Time    `json:"closes_at"`
	Status   MarketStatus  `json:"status"`
	Outcomes []OutcomeView `json:"outcomes"`
}

// OutcomeView is an outcome with its prices. The prices are nil, null on
// the wire, when the margin cannot price the market.
type OutcomeView struct {
	ID          string     `json:"id"`
	Index       int        `json:"index"`
	Name        string     `json:"name"`
	DisplayOdds *odds.Odds `json:"display_odds"`
	// DisplayProbability is 100 / DisplayOdds with exactly 2 decimals.
	DisplayProbability *string `json:"display_probability"`
	// EntryOdds is the price a bet placed now gets (4 decimals, at least
	// DisplayOdds): the bet pays stake × EntryOdds, so a payout preview
	// computed from it is the payout promised (docs/decisions.md).
	EntryOdds *odds.Odds `json:"entry_odds"`
}

// Quotes prices a market's outcomes with the operator's margin.
func Quotes(op Operator, m Market) ([]odds.Quote, error) {
	probs := make([]decimal.Decimal, len(m.Outcomes))
	for i, o := range m.Outcomes {
		probs[i] = o.Probability
	}
	return odds.Price(op.Margin.Method, probs, op.Margin.Value)
}

// View returns e as op's bettors see it in locale. A market the margin
// cannot price is shown suspended, without odds.
func View(op Operator, e Event, locale string) EventView {
	v := EventView{ID: e.ID, Category: e.Category, Title: e.Title.Resolve(locale), Description: e.Description.Resolve(locale),
		ImageURL: e.ImageURL, StartsAt: e.StartsAt, Status: e.Status, Markets: make([]MarketView, len(e.Markets))}
	for i, m := range e.Markets {
		mv := MarketView{ID: m.ID, Question: m.Question.Resolve(locale), ImageURL: m.ImageURL, ClosesAt: m.ClosesAt,
			Status: m.Status, Outcomes: make([]OutcomeView, len(m.Outcomes))}
		quotes, err := Quotes(op, m)
		if err != nil && mv.Status == StatusOpen {
			mv.Status = StatusSuspended
		}
		for j, o := range m.Outcomes {
			ov := OutcomeView{ID: o.ID, Index: j, Name: o.Name.Resolve(locale)}
			if err == nil {
				prob := odds.FormatDisplayProbability(quotes[j].DisplayProbability)
				ov.DisplayOdds, ov.DisplayProbability, ov.EntryOdds = &quotes[j].DisplayOdds, &prob, &quotes[j].Odds
			}
			mv.Outcomes[j] = ov
		}
		v.Markets[i] = mv
	}
	return v
}
