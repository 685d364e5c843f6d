package betting_test

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"github.com/foresight-dev/foresight/internal/betting"
	"github.com/foresight-dev/foresight/internal/betting/bettingtest"
)

// A market the operator's margin cannot price is shown suspended with null
// prices, and the rest of the event still renders.
func TestViewUnpriceableMarket(t *testing.T) {
	t.Parallel()
	op := bettingtest.NewOperator("acme")
	e := bettingtest.NewEvent(time.Now())
	e.Status, e.Markets[0].Status = betting.StatusOpen, betting.StatusOpen
	// Odds of at least 1.01 on a 99.5 % outcome would give the bettor an edge.
	e.Markets[0].Outcomes[0].Probability = decimal.RequireFromString("0.995")
	e.Markets[0].Outcomes[1].Probability = decimal.RequireFromString("0.005")

	v := betting.View(op, e, "en")
	if got := v.Markets[0].Status; got != betting.StatusSuspended {
		t.Errorf("status = %q, want suspended", got)
	}
	data, err := json.Marshal(v)
	if err != nil {
		t.Fatalf("marshal: %v", err)
	}
	if !strings.Contains(string(data), `"display_odds":null,"display_probability":null`) {
		t.Errorf("want null prices in %s", data)
	}

	e.Markets[0].Outcomes[0].Probability = decimal.RequireFromString("0.5")
	e.Markets[0].Outcomes[1].Probability = decimal.RequireFromString("0.5")
	data, err = json.Marshal(betting.View(op, e, "en"))
	if err != nil || !strings.Contains(string(data), `"display_probability":"`) || strings.Contains(string(data), `"display_odds":null`) {
		t.Errorf("priced view = %s, %v", data, err)
	}
}
