package widgettest

import (
	"fmt"
	"strings"
	"sync/atomic"
	"testing"
)

// TestDisplayRule: the one display rule for odds and amounts
// (internal/display's format.js, served by the widget and the backoffice):
// amounts in the currency's minor units with grouping, half to even; odds
// at 2 decimals rounded down, as display odds are; chances in whole
// percents.
func TestDisplayRule(t *testing.T) {
	t.Parallel()
	tb := moduleTab(t)
	wantExprs(t, tb, "format.js", []exprCase[string]{
		{`m.money("1000", "USD", 2)`, "1,000.00 USD"},
		{`m.money("12.5", "USD", 2)`, "12.50 USD"},
		{`m.money("0", "USD", 2)`, "0.00 USD"},
		{`m.money("129.988", "USD", 2)`, "129.99 USD"},
		{`m.money("2.625", "USD", 2)`, "2.62 USD"}, // half to even
		{`m.money("1234567.5", "JPY", 0)`, "1,234,568 JPY"},
		{`m.money("5.4560076", "KWD", 3)`, "5.456 KWD"},
		{`m.money("1234.5", "EUR", 2, "de")`, "1.234,50 EUR"},
		{`m.money("-3.5", "USD", 2)`, "-3.50 USD"},
		{`m.money(null, "USD", 2)`, "—"},
		{`m.amount("1000", 2)`, "1,000.00"},
		{`m.odds("4.5694")`, "4.56"}, // rounded down: the display odds of that price
		{`m.odds("4.4214")`, "4.42"},
		{`m.odds("1.9")`, "1.90"},
		{`m.odds("11.5999")`, "11.59"},
		{`m.odds(null)`, "—"},
		{`m.odds("4.4214", "de")`, "4,42"},
		{`m.exactOdds("4.4214")`, "4.4214"},
		{`m.exactOdds("4.4")`, "4.40"},
		{`m.exactMoney("57.1175", "USD")`, "57.1175 USD"},
		{`m.payout("12.5", "4.5694", 2)`, "57.12"},
		{`m.percent("22.62")`, "23%"},
		{`m.percent("0.40")`, "<1%"},
		{`m.percent("99.60")`, ">99%"},
		{`m.percent("100")`, "100%"},
		{`String(m.minorUnits("JPY"))`, "0"},
		{`String(m.minorUnits("KWD"))`, "3"},
		{`String(m.minorUnits("USD", 3))`, "3"},
		{`String(m.minorUnits("XQQQ"))`, "2"},
	})
}

// TestOneNumberEverywhere: the slip, the confirmation and the history
// show the odds alike, 4.42 (the exact 4.4214 on hover). Before the bet
// exists the preview is stake × display odds, as obligation 1 says
// (12.50 × 4.42 = 55.25, the least the bet will pay); once placed, the
// confirmation and the history show potential_payout, stake × entry odds
// rounded (12.50 × 4.4214 = 55.2675: 55.27).
func TestOneNumberEverywhere(t *testing.T) {
	t.Parallel()
	w := newWorld(t, worldOptions{})
	tb := w.widgetTab(t, "nina", "100.00")
	tb.preview(w.outcome[0], "12.50", "55.25 USD")
	var slip struct{ Odds, OddsTitle, Payout, PayoutTitle string }
	tb.Eval(`({Odds: document.getElementById('slip-odds').textContent, OddsTitle: document.getElementById('slip-odds').title,
		Payout: document.getElementById('slip-payout').textContent, PayoutTitle: document.getElementById('slip-payout').title})`, &slip)
	if slip != (struct{ Odds, OddsTitle, Payout, PayoutTitle string }{"4.42", "Exact: 4.4214", "55.25 USD", "Exact: 55.25 USD"}) {
		t.Errorf("slip %+v", slip)
	}
	tb.Click("#place")
	tb.WaitText("#slip-status", "Bet placed: 12.50 USD on Home at odds 4.42. Potential payout 55.27 USD.")
	tb.Click("#tab-history")
	tb.WaitFor("the bet", "document.querySelector('#history li.bet')")
	var row struct{ Odds, OddsTitle, Payout, PayoutTitle string }
	tb.Eval(`(() => { const li = document.querySelector('#history li.bet'); const o = li.querySelector('.entry-odds dd'); const p = li.querySelector('.payout dd');
		return {Odds: o.textContent, OddsTitle: o.title, Payout: p.textContent, PayoutTitle: p.title}; })()`, &row)
	if row != (struct{ Odds, OddsTitle, Payout, PayoutTitle string }{"4.42", "Exact: 4.4214", "55.27 USD", "Exact: 55.2675 USD"}) {
		t.Errorf("history %+v", row)
	}
	// A phone has no hover: the exact figures are in the bet's details.
	tb.Click("#history li.bet .bet-exact summary")
	tb.WaitFor("the exact figures", "document.querySelector('#history li.bet .bet-exact').open")
	if exact := tb.Text("#history li.bet .bet-exact dl"); exact != "Stake12.5 USDOdds4.4214Potential payout55.2675 USD" {
		t.Errorf("exact figures %q", exact)
	}
}

// TestBalanceAtFirstLoad: before the operator's wallet has answered for a
// bettor the platform has no balance to give, and the widget showed "—"
// while the host page showed 1,000.00 USD. The session endpoint's answer
// carries the bettor's balance, which the widget shows until the platform
// has one; a profile read that fails hides the balance.
func TestBalanceAtFirstLoad(t *testing.T) {
	t.Parallel()
	w := newWorld(t, worldOptions{})
	t.Run("shown", func(t *testing.T) {
		tb := w.widgetTab(t, "olga", "1000.00")
		tb.WaitText("#balance", "1,000.00 USD")
		tb.bet(w.outcome[0], "10")
		tb.WaitText("#slip-status", "Bet placed")
		tb.WaitText("#balance", "990.00 USD")
	})
	t.Run("read fails", func(t *testing.T) {
		tb := newTab(t)
		tb.intercept(func(s seen) verdict {
			if strings.HasPrefix(s.path(), "/api/v1/auth/me") && s.Stage == "request" {
				return verdict{status: 503}
			}
			return verdict{}
		})
		tb.Navigate(w.bettor("pia", "1000.00"))
		tb.ready()
		var hidden bool
		tb.Eval("document.getElementById('balance-box').hidden", &hidden)
		if !hidden {
			t.Errorf("a balance %q shows although its read failed", tb.Text("#balance"))
		}
	})
}

// TestBalanceReadsOutOfOrder: the balance read after a bet and the one
// on opening the history overlap; when the older read's answer comes last,
// the newer balance stays (it was replaced by the older one).
func TestBalanceReadsOutOfOrder(t *testing.T) {
	t.Parallel()
	w := newWorld(t, worldOptions{})
	tb := newTab(t)
	var armed atomic.Bool
	release := make(chan struct{})
	tb.intercept(func(s seen) verdict {
		if strings.HasPrefix(s.path(), "/api/v1/auth/me") && s.Stage == "request" && armed.CompareAndSwap(true, false) {
			return verdict{wait: release, status: 200, body: `{"bettor_id":"vera","operator_id":"sandbox","currency":"USD","balance":"1.00"}`}
		}
		return verdict{}
	})
	tb.Navigate(w.bettor("vera", "100.00"))
	tb.ready()
	armed.Store(true) // the read after the bet is held, and answers an old balance
	tb.bet(w.outcome[0], "10")
	tb.WaitText("#slip-status", "Bet placed")
	tb.Click("#tab-history")
	tb.WaitText("#balance", "90.00 USD")
	reads := "performance.getEntriesByType('resource').filter((e) => e.name.includes('/api/v1/auth/me')).length"
	var before int
	tb.Eval(reads, &before)
	close(release)
	tb.WaitFor("the held read's answer", reads+" > "+fmt.Sprint(before))
	var shown string
	tb.Eval(`new Promise((done) => setTimeout(() => setTimeout(() => done(document.getElementById('balance').textContent))))`, &shown)
	if shown != "90.00 USD" {
		t.Errorf("balance %q after an older read's answer came last, want 90.00 USD", shown)
	}
}

// TestStakeLimits: a stake outside the operator's limits (1 to 100 USD,
// payouts to 1,000) is refused before anything is sent, with the limit
// in words and no payout preview.
func TestStakeLimits(t *testing.T) {
	t.Parallel()
	w := newWorld(t, worldOptions{})
	tb, ic := w.interceptedWidgetTab(t, "quin", "1000.00", nil)
	tb.Click(outcomeButton(w.outcome[0]))
	tests := []struct{ stake, message string }{
		{"150", "The maximum stake is 100.00 USD."},
		{"0.50", "The minimum stake is 1.00 USD."},
		{"100.01", "The maximum stake is 100.00 USD."},
	}
	for _, tc := range tests {
		tb.TypeIn("#stake", tc.stake)
		tb.WaitText("#stake-error", tc.message)
		if p := tb.Text("#slip-payout"); p != "—" {
			t.Errorf("stake %s: payout preview %q, want none", tc.stake, p)
		}
		if !tb.placeDisabled() {
			t.Errorf("stake %s can be placed", tc.stake)
		}
		var submitted bool
		tb.Eval("(document.getElementById('slip-form').requestSubmit(), true)", &submitted)
	}
	tb.TypeIn("#stake", "100")
	tb.WaitText("#slip-payout", "442.00 USD")
	if e := tb.Text("#stake-error"); e != "" {
		t.Errorf("the maximum stake itself is refused: %q", e)
	}
	if posts := ic.requests("POST", "/api/v1/bettor/bets"); len(posts) != 0 {
		t.Errorf("stakes outside the limits were sent: %v", posts)
	}
}

// TestHistoryResults: the history names each bet's event with its market,
// and what a settled bet came to: won, lost or void, each with its own
// word and colour (it was one green "Settled" for all).
func TestHistoryResults(t *testing.T) {
	t.Parallel()
	w := newWorld(t, worldOptions{})
	other := w.admin("POST", "/admin/v1/events", 201, `{"category":"economy","title":{"en":"Rates"},
		"markets":[{"question":{"en":"Cut in March?"},"outcomes":[{"name":{"en":"Yes"},"probability":"0.5"},{"name":{"en":"No"},"probability":"0.5"}]}]}`)
	om := other["markets"].([]any)[0].(map[string]any)
	otherMarket := om["id"].(string)
	otherYes := om["outcomes"].([]any)[0].(map[string]any)["id"].(string)
	tb := newTab(t)
	tb.Viewport(1000, 900)
	tb.Navigate(w.bettor("rosa", "100.00"))
	tb.ready()
	tb.bet(w.outcome[0], "10")
	tb.WaitText("#slip-status", "Bet placed")
	tb.bet(w.outcome[1], "10")
	tb.WaitText("#slip-status", "Bet placed: 10.00 USD on Away")
	tb.bet(otherYes, "5")
	tb.WaitText("#slip-status", "Bet placed: 5.00 USD on Yes")
	w.admin("POST", "/admin/v1/markets/"+w.market+"/resolve", 200, fmt.Sprintf(`{"winning_outcome_id":%q}`, w.outcome[0]))
	w.admin("POST", "/admin/v1/markets/"+otherMarket+"/cancel", 200, "")
	w.waitBet("rosa", "voided")
	w.waitWallet("rosa", "124.21") // the payout and the stake back have reached the wallet
	w.waitCredited("rosa", 3)      // and the platform has the wallet's answers
	tb.Click("#tab-history")
	tb.WaitFor("three results", "[...document.querySelectorAll('#history li.bet')].filter((li) => ['won', 'lost', 'void'].includes(li.dataset.result)).length === 3")
	var rows []struct{ Result, Badge, Color, Title string }
	tb.Eval(`[...document.querySelectorAll('#history li.bet')].map((li) => { const b = li.querySelector('.bet-status');
		return {Result: li.dataset.result, Badge: b.textContent, Color: getComputedStyle(b).color + ' ' + getComputedStyle(b).backgroundColor, Title: li.querySelector('.bet-title').textContent}; })`, &rows)
	got := map[string]struct{ Badge, Color, Title string }{}
	for _, r := range rows {
		got[r.Result] = struct{ Badge, Color, Title string }{r.Badge, r.Color, r.Title}
	}
	want := map[string]struct{ badge, title string }{
		"won": {"Won", "HomeWho wins?Final"}, "lost": {"Lost", "AwayWho wins?Final"}, "void": {"Void", "YesCut in March?Rates"},
	}
	for result, w := range want {
		if g := got[result]; g.Badge != w.badge || g.Title != w.title {
			t.Errorf("%s bet: badge %q, title %q; want %q, %q", result, g.Badge, g.Title, w.badge, w.title)
		}
	}
	if got["won"].Color == got["lost"].Color || got["won"].Color == got["void"].Color || got["lost"].Color == got["void"].Color {
		t.Errorf("results share a colour: %+v", got)
	}
	// Opening the history reads the balance too: 100 − 25 staked, 44.21
	// paid and 5 returned.
	tb.WaitText("#balance", "124.21 USD")
	tb.Screenshot("history-results")
}
