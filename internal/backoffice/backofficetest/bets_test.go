package backofficetest

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/foresight-dev/foresight/internal/waitfor"
)

// TestBets: the bets of an operator with the API's filters (status,
// bettor, market), a bet's details with its deposit's confirmation, the
// plots over time, the bettors with their balances and a bettor's open
// positions.
func TestBets(t *testing.T) {
	w := newSandboxWorld(t)
	ev := w.createEvent("sports", "Cup final", "Who wins?", "Over 2.5 goals?")
	a, b := ev.Markets[0], ev.Markets[1]
	aliceA := w.placeBet("alice", a.ID, a.Outcomes[0].ID, "10.00")
	bobA := w.placeBet("bob", a.ID, a.Outcomes[1].ID, "20.00")
	aliceB := w.placeBet("alice", b.ID, b.Outcomes[1].ID, "5.00")
	w.call("POST", "/admin/v1/markets/"+b.ID+"/cancel", nil, nil)
	w.waitBet("alice", aliceB, "voided")
	// The deposit of the void is confirmed by the wallet soon after.
	waitfor.Check(t, func() error {
		var page struct {
			Items []struct {
				DepositConfirmedAt *time.Time `json:"deposit_confirmed_at"`
			}
		}
		w.call("GET", "/admin/v1/bets?operator_id=sandbox&status=voided", nil, &page)
		if len(page.Items) != 1 || page.Items[0].DepositConfirmedAt == nil {
			return fmt.Errorf("the void's deposit is not confirmed: %+v", page.Items)
		}
		return nil
	})

	tb := w.openScreen("bets")
	tb.WaitText("#view [role=status]", "3 bets.")
	var charts int
	tb.Eval("document.querySelectorAll('svg.chart').length", &charts)
	if charts != 2 {
		t.Errorf("%d plots of bets over time, want 2 (bets and stakes)", charts)
	}
	tb.screenshot("bets")

	rows := func() string {
		ids := tb.texts("tbody[data-bet]", "e => e.dataset.bet")
		return strings.Join(ids, ",")
	}
	tests := []struct {
		name, bettor, market, status string
		want                         []string
	}{
		{"voided", "", "", "voided", []string{aliceB}},
		{"bob's", "bob", "", "", []string{bobA}},
		{"alice's on the first market", "alice", a.ID, "", []string{aliceA}},
		{"confirmed on the first market", "", a.ID, "confirmed", []string{bobA, aliceA}},
		{"nobody's", "carol", "", "", nil},
	}
	for _, tc := range tests {
		tb.TypeIn("[data-filter=bettor]", tc.bettor)
		tb.TypeIn("[data-filter=market]", tc.market)
		tb.choose("[data-filter=status]", tc.status)
		tb.Click("form[data-bet-filters] button[type=submit]")
		want := strings.Join(tc.want, ",")
		tb.WaitFor(tc.name+" bets", fmt.Sprintf("Array.from(document.querySelectorAll('tbody[data-bet]'), e => e.dataset.bet).join(',') === %q && document.querySelector('#view [role=status]').textContent.startsWith('%d bet')", want, len(tc.want)))
		if got := rows(); got != want {
			t.Errorf("%s: rows %s, want %s", tc.name, got, want)
		}
	}

	// The void's details: its stake back, the deposit confirmed.
	tb.TypeIn("[data-filter=bettor]", "")
	tb.TypeIn("[data-filter=market]", "")
	tb.choose("[data-filter=status]", "voided")
	tb.WaitFor("the voided bet", fmt.Sprintf("document.querySelector('tbody[data-bet=%q]') && document.querySelectorAll('tbody[data-bet]').length === 1", aliceB))
	tb.Click(fmt.Sprintf("[data-details=%q]", aliceB))
	tb.WaitFor("the details", fmt.Sprintf("!document.getElementById('bet-%s').hidden", aliceB))
	detail := tb.Text(fmt.Sprintf("[data-bet-detail=%q]", aliceB))
	for _, want := range []string{"Paid5.00 USD", "Deposit confirmed20", "Stake5.00 USD", "Over 2.5 goals?: Away"} {
		if !strings.Contains(detail, want) {
			t.Errorf("details %q lack %q", detail, want)
		}
	}

	// Bettors with the balances their wallet reported, and a bettor's
	// open positions.
	tb.Navigate(w.URL + "/backoffice/#/bettors")
	tb.WaitText("#view [role=status]", "2 bettors.")
	if got := tb.Text("tr[data-bettor=alice] td:nth-child(3)"); got != "90.00" {
		t.Errorf("alice's balance %q, want 90.00 (100 − 10 − 5, the void's 5 back) in USD's minor units", got)
	}
	tb.Click("tr[data-bettor=alice] a")
	tb.WaitFor("alice's page", "document.querySelector('[data-positions]')")
	open := tb.texts("[data-positions] tbody[data-bet]", "e => e.dataset.bet")
	closed := tb.texts("[data-history] tbody[data-bet]", "e => e.dataset.bet")
	if strings.Join(open, ",") != aliceA || strings.Join(closed, ",") != aliceB {
		t.Errorf("alice's positions %v and history %v, want [%s] and [%s]", open, closed, aliceA, aliceB)
	}
}

// TestAmountsDisplayRule: amounts follow the display rule the widget uses
// (internal/display): the currency's minor units with grouping, the exact
// amount in the title and the details. Before it the page wrote the API's
// strings as they came: "12.5 USD", "55.2675", Paid "0", a balance "1087.5".
func TestAmountsDisplayRule(t *testing.T) {
	w, ev := newCupFinalWorld(t)
	m := ev.Markets[0]
	if err := w.Op.SetBalance("dora", "USD", "1100.00"); err != nil {
		t.Fatal(err)
	}
	won := w.placeBet("dora", m.ID, m.Outcomes[0].ID, "12.5") // 12.5 × 4.4214 = 55.2675
	lost := w.placeBet("eve", m.ID, m.Outcomes[1].ID, "20")
	w.call("POST", "/admin/v1/markets/"+m.ID+"/resolve", map[string]any{"winning_outcome_id": m.Outcomes[0].ID}, nil)
	w.waitBet("dora", won, "settled")
	w.waitBet("eve", lost, "settled")

	tb := w.openScreen("bets")
	tb.WaitText("#view [role=status]", "2 bets.")
	cell := func(bet string, n int) (text, title string) {
		var c struct{ Text, Title string }
		tb.Eval(fmt.Sprintf("(() => { const td = document.querySelectorAll('tbody[data-bet=%q] tr:first-child td')[%d]; return {Text: td.textContent, Title: td.title}; })()", bet, n), &c)
		return c.Text, c.Title
	}
	tests := []struct {
		name, bet   string
		column      int
		text, title string
	}{
		{"stake", won, 3, "12.50 USD", "Exact: 12.5 USD"},
		{"potential payout", won, 5, "55.27 USD", "Exact: 55.2675 USD"},
		{"paid", won, 7, "55.27 USD", "Exact: 55.27 USD"},
		{"lost: paid nothing", lost, 7, "0.00 USD", "Exact: 0 USD"},
	}
	for _, tc := range tests {
		text, title := cell(tc.bet, tc.column)
		if text != tc.text || title != tc.title {
			t.Errorf("%s: %q (title %q), want %q (title %q)", tc.name, text, title, tc.text, tc.title)
		}
	}
	tb.Click(fmt.Sprintf("[data-details=%q]", won))
	tb.WaitFor("the details", fmt.Sprintf("!document.getElementById('bet-%s').hidden", won))
	if detail := tb.Text(fmt.Sprintf("[data-bet-detail=%q]", won)); !strings.Contains(detail, "Potential payout55.27 USD (exact 55.2675)") {
		t.Errorf("details %q lack the rounded and exact potential payout", detail)
	}

	tb.Navigate(w.URL + "/backoffice/#/bettors")
	tb.WaitText("#view [role=status]", "2 bettors.")
	if got := tb.Text("tr[data-bettor=dora] td:nth-child(3)"); got != "1,142.77" {
		t.Errorf("dora's balance %q, want 1,142.77 (1100 − 12.50 + 55.27)", got)
	}
}
