package admin

import (
	"context"
	"net/http"

	"github.com/foresight-dev/foresight/internal/aggregator"
	"github.com/foresight-dev/foresight/internal/betting"
)

// BundledSessions opens sessions of bundled operators' bettors
// (aggregator.Service.OpenBundled).
type BundledSessions interface {
	OpenBundled(ctx context.Context, op betting.Operator, r aggregator.BundledRequest) (aggregator.BundledSession, error)
}

// bundledSession answers a bundled operator's server, which opens a
// session for one of its bettors (POST /admin/v1/operators/{op}/sessions,
// with its operator credential): 201 with the widget URL, a session token
// and the bettor's balance.
func (h *handler) bundledSession(w http.ResponseWriter, r *http.Request) {
	if h.sessions == nil {
		h.writeError(w, r, problem(http.StatusNotFound, CodeNotFound, "This server opens no bundled sessions."))
		return
	}
	var req struct {
		BettorID string `json:"bettor_id"`
		Currency string `json:"currency"`
		Locale   string `json:"locale"`
	}
	if err := decode(w, r, &req); err != nil {
		h.writeError(w, r, err)
		return
	}
	op, err := h.betting.GetOperator(r.Context(), r.PathValue("op"))
	if err != nil {
		h.writeError(w, r, err)
		return
	}
	s, err := h.sessions.OpenBundled(r.Context(), op, aggregator.BundledRequest{BettorID: req.BettorID, Currency: req.Currency, Locale: req.Locale})
	h.reply(w, r, http.StatusCreated, s, err)
}
