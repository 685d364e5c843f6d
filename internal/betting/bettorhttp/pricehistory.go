package bettorhttp

import (
	"net/http"
	"strconv"
	"time"

	"github.com/google/uuid"

	"github.com/foresight-dev/foresight/internal/betting"
	"github.com/foresight-dev/foresight/internal/httpjson"
	"github.com/foresight-dev/foresight/internal/odds"
)

// priceHistoryView is an outcome's price history as the bettor reads it.
type priceHistoryView struct {
	MarketID  string           `json:"market_id"`
	OutcomeID string           `json:"outcome_id"`
	Points    []pricePointView `json:"points"`
}

type pricePointView struct {
	At                 time.Time `json:"at"`
	DisplayOdds        odds.Odds `json:"display_odds"`
	DisplayProbability string    `json:"display_probability"`
}

// priceHistory answers GET /api/v1/markets/{id}/price-history: the
// display odds the bettor's operator shows for outcome_id over the
// market's history, oldest first, thinned to at most points (2 to
// betting.MaxOutcomePricePoints, which is also the default). A non-UUID
// {id} is 400 text/plain as for every path id; a missing or non-UUID
// outcome_id and a bad points are 400 problem+json; an unknown market, or
// an outcome not of it, is 404.
func (h *handler) priceHistory(w http.ResponseWriter, r *http.Request, b Bettor) {
	marketID, ok := pathUUID(w, r)
	if !ok {
		return
	}
	q := r.URL.Query()
	outcome, err := uuid.Parse(q.Get("outcome_id"))
	if err != nil || len(q.Get("outcome_id")) != 36 {
		httpjson.WriteProblem(w, http.StatusBadRequest, "outcome_id must be the UUID of one of the market's outcomes.")
		return
	}
	points := betting.MaxOutcomePricePoints
	if v := q.Get("points"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 2 || n > betting.MaxOutcomePricePoints {
			httpjson.WriteProblem(w, http.StatusBadRequest, "points must be an integer between 2 and "+strconv.Itoa(betting.MaxOutcomePricePoints)+".")
			return
		}
		points = n
	}
	history, err := h.svc.OutcomePriceHistory(r.Context(), b.Operator, marketID, outcome.String(), points)
	if err != nil {
		h.errors.write(w, r, err)
		return
	}
	out := priceHistoryView{MarketID: marketID, OutcomeID: outcome.String(), Points: make([]pricePointView, len(history))}
	for i, p := range history {
		out.Points[i] = pricePointView{At: p.At, DisplayOdds: p.DisplayOdds, DisplayProbability: odds.FormatDisplayProbability(p.DisplayProbability)}
	}
	httpjson.Write(w, http.StatusOK, out)
}
