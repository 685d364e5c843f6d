package widgettest

import (
	"io"
	"net/http"
	"strings"
	"testing"
)

// TestBundledWidget: a bundled operator's page embeds the widget_url its
// server got from POST /admin/v1/operators/{op}/sessions. The widget
// exchanges the session at the platform, shows the ledger's balance, and
// after each bet the balance the ledger holds: a cashier deposit made
// meanwhile included, never a figure of its own.
func TestBundledWidget(t *testing.T) {
	t.Parallel()
	w := newWorld(t, worldOptions{})
	w.admin("POST", "/admin/v1/operators", 201, `{"id":"playhouse","name":"Playhouse","integration":"bundled",
		"currencies":[{"code":"EUR","decimals":2}],"margin":{"method":"odds_ratio","value":"0.05"},"odds_tolerance":"0.05",
		"limits":{"EUR":{"min_stake":"1","max_stake":"100","max_payout":"1000","outcome_exposure":"5000"}}}`)
	deposit := func(key, amount string) {
		t.Helper()
		req, _ := http.NewRequest("POST", w.URL+"/admin/v1/operators/playhouse/bettors/ann/deposits",
			strings.NewReader(`{"currency":"EUR","amount":"`+amount+`"}`))
		req.Header.Set("Authorization", "Bearer "+adminToken)
		req.Header.Set("Idempotency-Key", key)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != 201 {
			t.Fatalf("deposit = %d %s", resp.StatusCode, body)
		}
	}
	deposit("psp-1", "100")
	page := hostPage(t, "Playhouse", w.URL, func() string {
		return w.admin("POST", "/admin/v1/operators/playhouse/sessions", 201, `{"bettor_id":"ann","currency":"EUR","locale":"en"}`)["widget_url"].(string)
	})
	tb := hostTab(t, page, 1000, 800)
	tb.WaitText("#brand", "Playhouse")
	tb.WaitText("#balance", "100.00 EUR")
	tb.bet(w.outcome[0], "10")
	tb.WaitText("#slip-status", "10.00 EUR")
	tb.WaitText("#balance", "90.00 EUR")

	deposit("psp-2", "50")
	tb.bet(w.outcome[1], "5")
	tb.WaitText("#balance", "135.00 EUR")
	checkMessages(t, tb.hostMessages())
}
