package admin

import (
	"net/http"
	"time"

	"github.com/foresight-dev/foresight/internal/betting"
	"github.com/foresight-dev/foresight/internal/cursor"
	"github.com/foresight-dev/foresight/internal/httpjson"
	"github.com/foresight-dev/foresight/internal/odds"
)

// PricePoint is a point of a market's odds history as the admin API shows
// it: the source probabilities set at At, in force until the next point.
type PricePoint struct {
	At       time.Time       `json:"at"`
	Outcomes []PricedOutcome `json:"outcomes"`
}

// PricedOutcome is one outcome of a PricePoint. DisplayOdds and
// DisplayProbability are set only when an operator was asked for and its
// margin prices the point.
type PricedOutcome struct {
	ID                 string `json:"id"`
	Probability        string `json:"probability"`
	DisplayOdds        string `json:"display_odds,omitempty"`
	DisplayProbability string `json:"display_probability,omitempty"`
}

// PriceHistoryQuery selects a page of GET /admin/v1/markets/{id}/price-history;
// zero fields are left out.
type PriceHistoryQuery struct {
	OperatorID string
	From, To   time.Time
	Limit      int
	Cursor     string
}

// priceHistory answers GET /admin/v1/markets/{id}/price-history: the
// market's points in force during [from, to), oldest first, cursor paged.
// With operator_id every outcome also carries the display odds and
// probability that operator's current margin gives for the point.
func (h *handler) priceHistory(w http.ResponseWriter, r *http.Request) {
	limit, err := pageLimit(r)
	if err != nil {
		h.writeError(w, r, err)
		return
	}
	q := r.URL.Query()
	f := betting.PriceHistoryFilter{MarketID: r.PathValue("id"), Limit: limit + 1}
	for _, bound := range []struct {
		name string
		dst  *time.Time
	}{{"from", &f.From}, {"to", &f.To}} {
		t, err := queryTime(q, bound.name)
		if err != nil {
			h.writeError(w, r, err)
			return
		}
		if !t.IsZero() {
			*bound.dst = t.UTC().Truncate(time.Microsecond)
		}
	}
	if c := q.Get("cursor"); c != "" {
		at, market, ok := cursor.Decode(c)
		if !ok || market != f.MarketID {
			h.writeError(w, r, problem(http.StatusBadRequest, CodeInvalidRequest, "cursor is not valid."))
			return
		}
		f.After = at
	}
	var op *betting.Operator
	if id := q.Get("operator_id"); id != "" {
		o, err := h.betting.GetOperator(r.Context(), id)
		if err != nil {
			h.writeError(w, r, err)
			return
		}
		op = &o
	}
	points, err := h.betting.PriceHistory(r.Context(), f)
	if err != nil {
		h.writeError(w, r, err)
		return
	}
	httpjson.Write(w, http.StatusOK, pageOf(points, limit, func(p betting.PricePoint) string { return cursor.Encode(p.At, f.MarketID) },
		func(p betting.PricePoint) PricePoint { return pricedPoint(p, op) }))
}

// pricedPoint is p as the admin API shows it, priced with op's margin when
// op is not nil.
func pricedPoint(p betting.PricePoint, op *betting.Operator) PricePoint {
	out := PricePoint{At: p.At, Outcomes: make([]PricedOutcome, len(p.Outcomes))}
	for i, o := range p.Outcomes {
		out.Outcomes[i] = PricedOutcome{ID: o.OutcomeID, Probability: o.Probability.String()}
	}
	if op == nil {
		return out
	}
	quotes, err := p.Quotes(*op)
	if err != nil {
		return out // the margin cannot price these probabilities: no display prices
	}
	for i, q := range quotes {
		out.Outcomes[i].DisplayOdds, out.Outcomes[i].DisplayProbability = q.DisplayOdds.String(), odds.FormatDisplayProbability(q.DisplayProbability)
	}
	return out
}
