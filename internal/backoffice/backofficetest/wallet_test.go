package backofficetest

import (
	"fmt"
	"strings"
	"testing"
)

// TestBetWalletTransactions: the wallet fails the first withdrawal attempt
// of a bet (503), the retry debits the stake; the bet's details show the
// withdrawal with both attempts, each with its answer, at desktop and at
// phone width.
func TestBetWalletTransactions(t *testing.T) {
	w, ev := newCupFinalWorld(t)
	m := ev.Markets[0]
	w.Op.ForBettor("alice").FailNext("withdrawals", 1, 503)
	id := w.placeBet("alice", m.ID, m.Outcomes[0].ID, "10.00")

	tb := w.openScreen("bets")
	tb.WaitText("#view [role=status]", "1 bet.")
	tb.Click(fmt.Sprintf("[data-details=%q]", id))
	withdrawal := fmt.Sprintf("section[data-wallet=%q] table[data-kind=withdrawal]", id)
	tb.WaitFor("the withdrawal's attempts", fmt.Sprintf("document.querySelectorAll('%s tbody tr').length === 2", withdrawal))

	results := tb.texts(withdrawal+" tbody tr", "r => r.dataset.attempt + ' ' + r.dataset.result")
	if got := strings.Join(results, ", "); got != "1 unknown, 2 done" {
		t.Errorf("attempts %s, want 1 unknown, 2 done", got)
	}
	for i, want := range [][]string{{"#1", "unknown", "HTTP 503"}, {"#2", "done", "HTTP 200"}} {
		cells := tb.texts(fmt.Sprintf("%s tbody tr:nth-child(%d) td", withdrawal, i+1), "c => c.textContent")
		if len(cells) != 5 || cells[0] != want[0] || !strings.HasSuffix(cells[1], " UTC") || !strings.HasSuffix(cells[2], " ms") ||
			cells[3] != want[1] || cells[4] != want[2] {
			t.Errorf("attempt %d shows %q, want %s, its start, its duration, %s and %s", i+1, cells, want[0], want[1], want[2])
		}
	}
	caption := tb.Text(withdrawal + " caption")
	for _, want := range []string{"Withdrawal", "10.00 USD", "wd-" + id, "confirmed"} {
		if !strings.Contains(caption, want) {
			t.Errorf("the withdrawal's caption %q lacks %q", caption, want)
		}
	}
	if status := tb.Text(fmt.Sprintf("section[data-wallet=%q] [role=status]", id)); status != "1 transaction, 2 attempts." {
		t.Errorf("status %q", status)
	}
	var labelled bool
	tb.Eval(fmt.Sprintf("(() => { const s = document.querySelector('section[data-wallet=%q]'); const h = document.getElementById(s.getAttribute('aria-labelledby')); return !!h && h.textContent === 'Wallet transactions' && s.querySelectorAll('th[scope=col]').length === 5; })()", id), &labelled)
	if !labelled {
		t.Error("the wallet section is not labelled by its heading, or its table lacks column headers")
	}
	tb.screenshot("bet-wallet")

	tb.Viewport(360, 740)
	if wide := tb.pageWidth(); wide > 360 {
		t.Errorf("the bets screen with a bet's wallet transactions is %d px wide at a phone's 360", wide)
	}
}
