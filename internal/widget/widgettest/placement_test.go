package widgettest

import (
	"fmt"
	"regexp"
	"strings"
	"testing"
)

// outcomeButton is the selector of an outcome's button.
func outcomeButton(id string) string { return `button.outcome[data-outcome-id="` + id + `"]` }

// bet picks an outcome, types the stake and places the bet.
func (tb *tab) bet(outcome, stake string) {
	tb.T.Helper()
	tb.Click(outcomeButton(outcome))
	tb.WaitFor("the slip", "!document.getElementById('slip-form').hidden")
	tb.TypeIn("#stake", stake)
	tb.WaitFor("the place button", "!document.getElementById('place').disabled")
	tb.Click("#place")
}

// preview selects outcome, types stake and waits until the slip
// previews payout.
func (tb *tab) preview(outcome, stake, payout string) {
	tb.T.Helper()
	tb.Click(outcomeButton(outcome))
	tb.TypeIn("#stake", stake)
	tb.WaitText("#slip-payout", payout)
}

// waits returns the test clock's recorded waits of a label.
func (tb *tab) waits(label string) []int {
	tb.T.Helper()
	var ws []int
	tb.Eval(fmt.Sprintf("window.__foresightTestClock.waits.filter((w) => w.label === %q).map((w) => w.ms)", label), &ws)
	return ws
}

var uuidV4 = regexp.MustCompile(`^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$`)

// TestPlacementProtocol follows one bet through the API as the widget
// drives it: the history is read on load (obligation 11); the event is
// read again right before the POST (3); the POST carries a fresh UUID v4
// Idempotency-Key (4); a 202 shows "received", not "placed", while the
// wallet has not answered (5); the bet is read on the 1, 2, 3… s schedule
// until confirmed (6); opening the history reads it again (11).
func TestPlacementProtocol(t *testing.T) {
	t.Parallel()
	w := newWorld(t, worldOptions{})
	tb := newTabAt(t, heldClockScale)
	ic := tb.intercept(nil)
	tb.Navigate(w.bettor("alice", "100.00"))
	tb.ready()
	if got := ic.requests("GET", "/api/v1/bettor/bets?"); len(got) != 1 {
		t.Errorf("history reads on load = %v, want 1", got)
	}

	wallet := w.gate.holdNext("/v1/withdrawals")
	tb.bet(w.outcome[0], "10")
	w.waitArrived(wallet)
	tb.WaitText("#slip-status", "Bet received. Waiting for confirmation")
	if s := tb.Text("#slip-status"); strings.Contains(s, "placed") {
		t.Errorf("while the wallet has not answered the slip says %q", s)
	}
	w.gate.release("/v1/withdrawals")
	tb.WaitText("#slip-status", "Bet placed: 10.00 USD on Home at odds 4.42. Potential payout 44.21 USD.")

	all := ic.all()
	post := -1
	for i, s := range all {
		if s.Method == "POST" && s.Stage == "request" {
			post = i
			break
		}
	}
	if post < 1 || all[post-1].Method != "GET" || all[post-1].path() != "/api/v1/events/"+w.event+"?locale=en" {
		t.Errorf("the request before the POST is %v, want the event read GET /api/v1/events/%s", all[max(post-1, 0)], w.event)
	}
	if key := all[post].Key; !uuidV4.MatchString(key) {
		t.Errorf("Idempotency-Key %q is not a lowercase UUID v4", key)
	}
	polls := ic.requests("GET", "/api/v1/bettor/bets/")
	if len(polls) == 0 {
		t.Fatal("the bet was never read")
	}
	waits := tb.waits("poll")
	schedule := []int{1000, 2000, 3000, 3000, 3000, 5000}
	for i, ms := range waits {
		if i < len(schedule) && ms != schedule[i] {
			t.Errorf("poll waits %v do not follow %v", waits, schedule)
			break
		}
	}
	if len(waits) != len(polls) {
		t.Errorf("%d waits for %d reads of the bet", len(waits), len(polls))
	}

	before := len(ic.requests("GET", "/api/v1/bettor/bets?"))
	tb.Click("#tab-history")
	tb.WaitFor("the bet in the history", "document.querySelectorAll('#history li.bet').length === 1")
	if after := len(ic.requests("GET", "/api/v1/bettor/bets?")); after != before+1 {
		t.Errorf("opening the history read the bets %d times, want once", after-before)
	}
	tb.WaitText("#history li.bet .bet-status", "Confirmed")
}

// TestEventReadBeforeSubmit: obligation 3 and validation_failed's "drop
// the selection if closed; if price moved show the new price and ask to
// confirm again". The odds stream is cut, so only the read before the POST
// can see the change.
func TestEventReadBeforeSubmit(t *testing.T) {
	t.Parallel()
	w := newWorld(t, worldOptions{})

	t.Run("closed market", func(t *testing.T) {
		tb, ic := w.interceptedWidgetTab(t, "bob", "100.00", cutStream)
		tb.Click(outcomeButton(w.outcome[0]))
		tb.TypeIn("#stake", "10")
		w.suspend()
		tb.Click("#place")
		tb.WaitText("#slip-status", "This market no longer takes bets. The selection was removed.")
		tb.WaitFor("the slip to empty", "document.getElementById('slip-form').hidden")
		tb.WaitFor("the outcome no longer offered", fmt.Sprintf("!document.querySelector(%q) && document.querySelector(%q)",
			outcomeButton(w.outcome[0]), `.outcome.readonly[data-outcome-id="`+w.outcome[0]+`"]`))
		if posts := ic.requests("POST", ""); len(posts) != 0 {
			t.Errorf("a closed market was bet on: %v", posts)
		}
		w.reopen()
	})

	t.Run("moved price", func(t *testing.T) {
		tb, ic := w.interceptedWidgetTab(t, "carol", "100.00", cutStream)
		tb.preview(w.outcome[0], "10", "44.20 USD")
		w.price("0.25", "0.75")
		tb.Click("#place")
		tb.WaitText("#slip-status", "The odds changed from 4.42 to 3.62.")
		tb.WaitText("#slip-odds", "3.62")
		tb.WaitText("#slip-payout", "36.20 USD")
		if posts := ic.requests("POST", ""); len(posts) != 0 {
			t.Errorf("a bet was sent at a price the bettor did not see: %v", posts)
		}
		tb.Click("#place")
		tb.WaitText("#slip-status", "Bet placed: 10.00 USD on Home at odds 3.6")
		w.price("0.2", "0.8")
	})
}

// cutStream fails the odds stream's requests.
func cutStream(s seen) verdict {
	return verdict{fail: strings.HasPrefix(s.path(), "/api/v1/odds/stream")}
}

// TestLiveOdds: the real-time channel moves the odds on the page and the
// slip's preview with them.
func TestLiveOdds(t *testing.T) {
	t.Parallel()
	w := newWorld(t, worldOptions{})
	tb := w.widgetTab(t, "dave", "100.00")
	tb.preview(w.outcome[0], "10", "44.20 USD")
	w.moveHomeLive(tb)
	tb.WaitText("#slip-odds", "3.62")
	tb.WaitText("#slip-payout", "36.20 USD")
	var moved string
	tb.Eval(fmt.Sprintf("document.querySelector(%q).dataset.moved", outcomeButton(w.outcome[0])), &moved)
	if moved != "down" {
		t.Errorf("data-moved = %q, want down", moved)
	}
}

// TestCurrencyDecimals: obligations 1 and 2 on the page. The preview is
// stake × display_odds rounded to the bettor's currency (JPY 0 decimals,
// KWD 3), the stake takes no more decimals than the currency has, and the
// confirmed payout is potential_payout rounded the same way.
func TestCurrencyDecimals(t *testing.T) {
	t.Parallel()
	w := newWorld(t, worldOptions{
		currencies: `[{"code":"USD","decimals":2},{"code":"JPY","decimals":0},{"code":"KWD","decimals":3}]`,
		limits: `{"USD":{"min_stake":"1","max_stake":"100","max_payout":"1000","outcome_exposure":"150"},
			"JPY":{"min_stake":"100","max_stake":"100000","max_payout":"1000000","outcome_exposure":"5000000"},
			"KWD":{"min_stake":"0.5","max_stake":"100","max_payout":"1000","outcome_exposure":"5000"}}`,
	})
	tests := []struct {
		currency, balance, stake, tooPrecise, preview, placed string
	}{
		// preview 333 × display odds 4.42 = 1471.86; placed, 333 × entry odds 4.4214 = 1472.3262
		{"JPY", "100000", "333", "333.5", "1,472 JPY", "Bet placed: 333 JPY on Home at odds 4.42. Potential payout 1,472 JPY."},
		// preview 1.234 × display odds 4.42 = 5.45428; placed, 1.234 × entry odds 4.4214 = 5.4560076
		{"KWD", "100.000", "1.234", "1.2345", "5.454 KWD", "Bet placed: 1.234 KWD on Home at odds 4.42. Potential payout 5.456 KWD."},
	}
	for _, tc := range tests {
		t.Run(tc.currency, func(t *testing.T) {
			tb := newTab(t)
			tb.Navigate(w.bettorIn("cur-"+tc.currency, tc.currency, tc.balance))
			tb.ready()
			tb.Click(outcomeButton(w.outcome[0]))
			tb.WaitText("#stake-label", "Stake ("+tc.currency+")")
			tb.TypeIn("#stake", tc.tooPrecise)
			tb.WaitText("#stake-error", "amounts have at most")
			if !tb.placeDisabled() {
				t.Errorf("a %s stake of %s can be placed", tc.currency, tc.tooPrecise)
			}
			tb.TypeIn("#stake", tc.stake)
			tb.WaitText("#slip-payout", tc.preview)
			tb.Click("#place")
			tb.WaitText("#slip-status", tc.placed)
		})
	}
}
