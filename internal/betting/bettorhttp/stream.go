package bettorhttp

import (
	"encoding/json"
	"fmt"
	"net/http"
	"time"

	"github.com/foresight-dev/foresight/internal/betting"
	"github.com/foresight-dev/foresight/internal/odds"
)

// oddsChange is one data line of the odds stream.
type oddsChange struct {
	Sequence           int64      `json:"sequence"`
	EventID            string     `json:"event_id"`
	MarketID           string     `json:"market_id"`
	MarketStatus       string     `json:"market_status"`
	MarketVersion      int64      `json:"market_version"`
	OutcomeID          string     `json:"outcome_id"`
	DisplayOdds        *odds.Odds `json:"display_odds"`
	DisplayProbability *string    `json:"display_probability"`
}

// keepAlive is how often an idle stream sends a comment line.
const keepAlive = 15 * time.Second

// stream serves GET /api/v1/odds/stream: server-sent events, one "odds"
// event per outcome of every market that changed, priced with the
// bettor's operator's margin, each with a sequence number (also the SSE
// id). The stream carries odds, not availability (read the event before
// betting). A client that falls behind is disconnected and reconnects.
func (h *handler) stream(w http.ResponseWriter, r *http.Request, b Bettor) {
	rc := http.NewResponseController(w)
	rc.SetWriteDeadline(time.Time{}) // the server's write timeout does not apply to a stream
	changes, stop := h.svc.Hub().Subscribe()
	defer stop()
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-store")
	w.Header().Set("X-Accel-Buffering", "no")
	w.WriteHeader(http.StatusOK)
	fmt.Fprint(w, ": connected\n\n")
	rc.Flush()
	ticker := time.NewTicker(keepAlive)
	defer ticker.Stop()
	var seq int64
	locale := r.URL.Query().Get("locale")
	for {
		select {
		case <-r.Context().Done():
			return
		case <-ticker.C:
			fmt.Fprint(w, ": keep-alive\n\n")
		case e, ok := <-changes:
			if !ok {
				return // fell behind: the client reconnects
			}
			v := betting.View(b.Operator, e, locale)
			for i, m := range v.Markets {
				for _, o := range m.Outcomes {
					seq++
					data, _ := json.Marshal(oddsChange{Sequence: seq, EventID: e.ID, MarketID: m.ID, MarketStatus: m.Status,
						MarketVersion: e.Markets[i].Version, OutcomeID: o.ID, DisplayOdds: o.DisplayOdds, DisplayProbability: o.DisplayProbability})
					fmt.Fprintf(w, "id: %d\nevent: odds\ndata: %s\n\n", seq, data)
				}
			}
		}
		if err := rc.Flush(); err != nil {
			return
		}
	}
}
