package backofficetest

import (
	"fmt"
	"testing"
)

// inMarket is a CSS selector of sel inside a market's card.
func inMarket(market, sel string) string {
	return fmt.Sprintf("[data-market=%q] %s", market, sel)
}

// TestMarkets drives the markets screens against a real server with the
// sandbox operator and a confirmed bet: the list's filters and search, the
// exposure of the bet against its limit, new prices (refused in the page
// unless they sum to 1), suspend and open, cancel (after going back once),
// a conflict's problem shown (and the market as it now is), and the
// resolution: the market shows its winner, the bet is settled and its
// payout is in the bettor's history.
func TestMarkets(t *testing.T) {
	w := newSandboxWorld(t)
	other := w.createEvent("elections", "Mayor of Springfield", "Who will win the election?")
	ev := w.createEvent("sports", "Cup final", "Who wins?", "Over 2.5 goals?", "More corners?")
	winner, goals, corners := ev.Markets[0], ev.Markets[1], ev.Markets[2]
	home, away := winner.Outcomes[0].ID, winner.Outcomes[1].ID
	betID := w.placeBet("alice", winner.ID, home, "10.00")

	tb := w.signIn()
	tb.Viewport(1200, 900)
	tb.WaitFor("both events listed", fmt.Sprintf("document.querySelector('tr[data-event=%q]') && document.querySelector('tr[data-event=%q]')", ev.ID, other.ID))
	tb.screenshot("markets")
	tb.TypeIn("[data-filter=search]", "final")
	tb.WaitText("#view [role=status]", "1 of 2 events loaded match")
	var rows int
	tb.Eval("document.querySelectorAll('tr[data-event]').length", &rows)
	if rows != 1 || tb.Text("tr[data-event] a") != "Cup final" {
		t.Fatalf("searching “final” shows %d rows, first %q", rows, tb.Text("tr[data-event] a"))
	}
	tb.TypeIn("[data-filter=search]", "")
	tb.choose("[data-filter=category]", "elections")
	tb.WaitFor("only the elections event", fmt.Sprintf("document.querySelectorAll('tr[data-event]').length === 1 && document.querySelector('tr[data-event=%q]')", other.ID))
	tb.choose("[data-filter=category]", "")
	tb.WaitFor("the sports event back", fmt.Sprintf("document.querySelector('tr[data-event=%q] a')", ev.ID))
	tb.Click(fmt.Sprintf("tr[data-event=%q] a", ev.ID))
	tb.WaitFor("the event page", "document.body.dataset.view === 'events'")

	// The bet's potential payout against the operator's limit of 150.
	tb.WaitFor("the exposure of the bet", fmt.Sprintf("document.querySelector('[data-exposure=%q] tr[data-outcome=%q]')", winner.ID, home))
	var exposure string
	tb.Eval(fmt.Sprintf("Array.from(document.querySelectorAll('[data-exposure=%q] tr[data-outcome=%q] > *'), c => c.textContent).join('|')", winner.ID, home), &exposure)
	if exposure != "Home|USD|10.00|44.21|150.00|105.79" {
		t.Errorf("exposure row of Home = %q, want stake 10.00, payout 44.21 (10 × 4.4214 = 44.214), limit 150.00, headroom 105.79 in USD's minor units", exposure)
	}
	var bars int
	tb.Eval(fmt.Sprintf("document.querySelectorAll('[data-market=%q] svg.chart rect.bar').length", winner.ID), &bars)
	if bars != 2 {
		t.Errorf("%d bars in the exposure chart, want one per outcome", bars)
	}
	tb.screenshot("event")
	tb.Viewport(360, 740)
	tb.screenshot("phone")
	tb.Viewport(1200, 900)

	// Prices: a sum other than 1 never leaves the page.
	tb.TypeIn(inMarket(winner.ID, fmt.Sprintf("[data-price=%q]", home)), "0.3")
	tb.TypeIn(inMarket(winner.ID, fmt.Sprintf("[data-price=%q]", away)), "0.6")
	tb.Click(inMarket(winner.ID, "form[data-prices] button[type=submit]"))
	tb.WaitText(inMarket(winner.ID, "form[data-prices] .error"), "sum to 0.9; they must sum to exactly 1")
	if v := w.event(ev.ID).Markets[0].Version; v != 1 {
		t.Fatalf("after refused prices the market is at version %d, want 1", v)
	}
	tb.TypeIn(inMarket(winner.ID, fmt.Sprintf("[data-price=%q]", away)), "0.7")
	tb.Click(inMarket(winner.ID, "form[data-prices] button[type=submit]"))
	tb.WaitFor("the confirmation", "document.querySelector('dialog[open]')")
	tb.Click("dialog[open] [data-confirm]")
	tb.WaitText(inMarket(winner.ID, ".market-status"), "New prices set.")
	if m := w.event(ev.ID).Markets[0]; m.Version != 2 || m.Outcomes[0].Probability != "0.3" || m.Outcomes[1].Probability != "0.7" {
		t.Fatalf("after setting prices: %+v", m)
	}

	// Suspend and open, each confirmed.
	for _, step := range []struct{ action, status string }{{"suspend", "suspended"}, {"open", "open"}} {
		tb.Click(inMarket(winner.ID, fmt.Sprintf("[data-action=%s]", step.action)))
		tb.Click("dialog[open] [data-confirm]")
		tb.WaitFor("the market "+step.status, fmt.Sprintf("document.querySelector('[data-market=%q]')?.dataset.status === %q", winner.ID, step.status))
		if got := w.event(ev.ID).Markets[0].Status; got != step.status {
			t.Fatalf("after %s the API says %s", step.action, got)
		}
	}

	// Cancel: going back changes nothing; confirming cancels.
	tb.Click(inMarket(goals.ID, "[data-action=cancel]"))
	tb.Click("dialog[open] button.secondary")
	tb.WaitFor("the dialog closed", "!document.querySelector('dialog')")
	if got := w.event(ev.ID).Markets[1].Status; got != "open" {
		t.Fatalf("after going back from cancel the market is %s", got)
	}
	tb.Click(inMarket(goals.ID, "[data-action=cancel]"))
	tb.Click("dialog[open] [data-confirm]")
	tb.WaitFor("the market cancelled", fmt.Sprintf("document.querySelector('[data-market=%q]')?.dataset.status === 'cancelled'", goals.ID))

	// A change made elsewhere meanwhile: the API's problem is shown.
	w.call("POST", "/admin/v1/markets/"+corners.ID+"/cancel", nil, nil)
	tb.Click(inMarket(corners.ID, "[data-action=suspend]"))
	tb.Click("dialog[open] [data-confirm]")
	tb.WaitText(inMarket(corners.ID, ".market-status.error"), "(conflict, HTTP 409)")
	tb.WaitFor("the page showing the market as it is", fmt.Sprintf("document.querySelector('[data-market=%q]')?.dataset.status === 'cancelled'", corners.ID))

	// Resolve: the dialog insists on a winner.
	tb.Click(inMarket(winner.ID, "[data-action=resolve]"))
	tb.Click("dialog[open] [data-confirm]")
	tb.WaitText("dialog[open] .error", "Pick the winning outcome.")
	tb.Click(fmt.Sprintf("dialog[open] [data-winner-choice=%q]", home))
	tb.screenshot("resolve")
	tb.Click("dialog[open] [data-confirm]")
	tb.WaitFor("the market resolved", fmt.Sprintf("document.querySelector('[data-market=%q]')?.dataset.status === 'resolved'", winner.ID))
	tb.WaitText(inMarket(winner.ID, "[data-winner]"), "Home")
	if m := w.event(ev.ID).Markets[0]; m.Status != "resolved" || m.WinningOutcomeID != home {
		t.Fatalf("after resolving: %+v", m)
	}
	settled := w.waitBet("alice", betID, "settled")
	if settled.PayoutAmount != "44.21" {
		t.Errorf("settled bet %+v, want a payout of 44.21 (44.214 to cents)", settled)
	}
	var actions int
	tb.Eval(fmt.Sprintf("document.querySelectorAll('[data-market=%q] [data-action]').length", winner.ID), &actions)
	if actions != 0 {
		t.Errorf("a resolved market still offers %d actions", actions)
	}

	// The payout in the bettor's history, the bet no longer an open
	// position.
	tb.Navigate(w.URL + "/backoffice/#/bettors/sandbox/alice")
	tb.WaitFor("alice's history", fmt.Sprintf("document.querySelector('[data-history] tbody[data-bet=%q]')", betID))
	if paid, st := tb.Text(fmt.Sprintf("[data-history] tbody[data-bet=%q] [data-paid]", betID)), tb.Text(fmt.Sprintf("[data-history] tbody[data-bet=%q] .badge", betID)); paid != "44.21 USD" || st != "settled" {
		t.Errorf("history shows the bet %s, paid %q; want settled, 44.21", st, paid)
	}
	if n := tb.Text("[data-positions]"); n != "None." {
		t.Errorf("open positions after the settlement: %q", n)
	}
	if sel := tb.Text(fmt.Sprintf("[data-history] tbody[data-bet=%q] td:nth-child(2)", betID)); sel != "Cup final — Who wins?: Home" {
		t.Errorf("the bet's selection reads %q", sel)
	}
	tb.screenshot("bettor")
}
