package backofficetest

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/foresight-dev/foresight/internal/admin"
)

// TestOddsHistory: prices changed several times through the admin API
// show on the event screen as one line per outcome with a point per
// price, the operator's display odds by default and the source
// probabilities on request; a new price appears without a reload; the
// table alternative holds the same points; the screen fits a phone.
func TestOddsHistory(t *testing.T) {
	w, ev := newCupFinalWorld(t)
	m := ev.Markets[0]
	home, away := m.Outcomes[0].ID, m.Outcomes[1].ID
	setPrices := func(h, a string) {
		t.Helper()
		w.call("POST", "/admin/v1/markets/"+m.ID+"/prices", map[string]any{"outcomes": []any{
			map[string]string{"id": home, "probability": h}, map[string]string{"id": away, "probability": a}}}, nil)
	}
	// A second apart, for a chart that reads well in the screenshot.
	for _, p := range [][2]string{{"0.3", "0.7"}, {"0.45", "0.55"}, {"0.4", "0.6"}} {
		time.Sleep(time.Second)
		setPrices(p[0], p[1])
	}

	tb := w.openScreen("events/" + ev.ID)
	history := fmt.Sprintf("[data-history=%q]", m.ID)
	points := func(n int) string {
		return fmt.Sprintf("document.querySelectorAll('%s svg [data-series]').length === 2 && "+
			"Array.from(document.querySelectorAll('%s svg [data-series]')).every(g => g.dataset.points === '%d' && g.querySelectorAll('circle').length === %d)",
			history, history, n, n)
	}
	tb.WaitFor("one line per outcome with the creation and three new prices", points(4))
	series := tb.texts(history+" svg [data-series]", "g => g.dataset.series")
	if strings.Join(series, ",") != home+","+away {
		t.Errorf("lines of outcomes %v, want Home then Away", series)
	}
	if legend := tb.Text(history + " .legend"); !strings.Contains(legend, "Home") || !strings.Contains(legend, "Away") {
		t.Errorf("legend %q names neither outcome", legend)
	}

	// The table holds the operator's display odds at its current margin,
	// as the admin API gives them.
	want, _, err := w.admin.PriceHistory(context.Background(), m.ID, admin.PriceHistoryQuery{OperatorID: "sandbox", Limit: 100})
	if err != nil || len(want) != 4 {
		t.Fatalf("admin history = %d points, %v", len(want), err)
	}
	var rows [][]string
	tableRows := fmt.Sprintf("Array.from(document.querySelectorAll('%s [data-history-table] tbody tr'), r => Array.from(r.children, c => c.textContent))", history)
	tb.Eval(tableRows, &rows)
	if len(rows) != 4 {
		t.Fatalf("the table has %d rows, want 4", len(rows))
	}
	for i, p := range want {
		for j, o := range p.Outcomes {
			if cell := rows[i][j+1]; cell != fmt.Sprintf("%s (%s%%)", o.DisplayOdds, o.DisplayProbability) {
				t.Errorf("row %d, outcome %d: %q, want the display odds %s (%s%%)", i, j, cell, o.DisplayOdds, o.DisplayProbability)
			}
		}
	}

	// A new price shows without a reload, with a way to redraw the market.
	var marked bool
	tb.Eval("(window.__sameDocument = true)", &marked)
	setPrices("0.5", "0.5")
	tb.WaitFor("the fifth point", points(5))
	tb.WaitFor("the note that the prices changed", fmt.Sprintf("document.querySelector('%s [data-prices-changed]')", history))
	tb.Eval("window.__sameDocument === true", &marked)
	if !marked {
		t.Fatal("the page was reloaded")
	}
	tb.screenshot("odds-history")

	// Source probabilities on request.
	tb.choose("[data-history-plot]", "probability")
	tb.WaitFor("the probabilities in the table", fmt.Sprintf("(document.querySelector('%s [data-history-table] tbody tr:last-child td')?.textContent ?? '') === '0.5 (50%%)'", history))
	tb.Eval(tableRows, &rows)
	if got := strings.Join(rows[0][1:], " | "); got != "0.2 (20%) | 0.8 (80%)" {
		t.Errorf("the creation's probabilities read %q", got)
	}
	tb.Click(history + " [data-prices-changed] button")
	tb.WaitFor("the market redrawn with its prices", fmt.Sprintf("!document.querySelector('%s [data-prices-changed]') && document.querySelector('[data-market=%q] tr[data-outcome=%q] td')?.textContent === '0.5'", history, m.ID, home))

	// A phone's width: the chart scales, only the table scrolls.
	tb.Viewport(360, 740)
	tb.WaitFor("the chart at phone width", points(5))
	if wide := tb.pageWidth(); wide > 360 {
		t.Errorf("the event screen is %d px wide at a phone's 360", wide)
	}
	var chartWidth float64
	tb.Eval(fmt.Sprintf("document.querySelector('%s svg').getBoundingClientRect().width", history), &chartWidth)
	if chartWidth > 360 || chartWidth < 200 {
		t.Errorf("the chart is %.0f px wide at a phone's 360", chartWidth)
	}
}
