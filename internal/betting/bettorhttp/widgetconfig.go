package bettorhttp

import (
	"log/slog"
	"net/http"
	"strings"

	"github.com/foresight-dev/foresight/internal/betting"
	"github.com/foresight-dev/foresight/internal/httpjson"
	"github.com/foresight-dev/foresight/internal/money"
)

// widgetConfig is the public part of an operator that the widget needs
// before it has a token.
type widgetConfig struct {
	ID          string                  `json:"id"`
	Name        string                  `json:"name"`
	Integration string                  `json:"integration"`
	SessionURL  string                  `json:"session_url"`
	Currencies  []betting.Currency      `json:"currencies"`
	Limits      map[string]widgetLimits `json:"limits"`
}

type widgetLimits struct {
	MinStake  money.Amount `json:"min_stake"`
	MaxStake  money.Amount `json:"max_stake"`
	MaxPayout money.Amount `json:"max_payout"`
}

// WidgetConfig serves GET /api/v1/widget/operators/{id} without
// authentication: the operator's name, integration, currencies, stake
// limits and session_url, where the widget exchanges its
// session_request_id (the operator's POST /v1/session for standalone
// operators, publicURL + "/api/v1/sessions" for aggregators and bundled
// operators). Secrets, the
// wallet URL, the margin and exposure limits are never shown. An unknown
// operator is 404 problem+json; log receives failures answered 500 (nil
// discards them).
func WidgetConfig(svc *betting.Service, publicURL string, log *slog.Logger) http.Handler {
	errs := newErrorWriter(log)
	sessions := strings.TrimRight(publicURL, "/") + "/api/v1/sessions"
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		o, err := svc.CachedOperator(r.Context(), r.PathValue("id"))
		if err != nil {
			errs.write(w, r, err)
			return
		}
		c := widgetConfig{ID: o.ID, Name: o.Name, Integration: o.Integration, SessionURL: o.SessionEndpoint(),
			Currencies: o.Currencies, Limits: map[string]widgetLimits{}}
		if o.Integration == betting.IntegrationAggregator || o.Integration == betting.IntegrationBundled {
			c.SessionURL = sessions
		}
		for code, l := range o.Limits {
			c.Limits[code] = widgetLimits{MinStake: l.MinStake, MaxStake: l.MaxStake, MaxPayout: l.MaxPayout}
		}
		httpjson.Write(w, http.StatusOK, c)
	})
}
