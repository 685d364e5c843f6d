package widgettest

import (
	"context"
	"fmt"
	"net/http/httptest"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/foresight-dev/foresight/internal/sandbox/casino"
	"github.com/foresight-dev/foresight/internal/sandbox/sandboxweb"
	"github.com/foresight-dev/foresight/internal/waitfor"
)

// createEvent creates an event through the admin API from its JSON and
// returns the admin API's answer.
func (w *world) createEvent(body string) map[string]any {
	w.T.Helper()
	return w.admin("POST", "/admin/v1/events", 201, body)
}

// marketOf returns the id of an event's market i and of its outcomes.
func marketOf(ev map[string]any, i int) (string, []string) {
	m := ev["markets"].([]any)[i].(map[string]any)
	var outcomes []string
	for _, o := range m["outcomes"].([]any) {
		outcomes = append(outcomes, o.(map[string]any)["id"].(string))
	}
	return m["id"].(string), outcomes
}

// TestManyOutcomes: on a market of six outcomes with long names, each
// outcome's name, chance and odds stay inside its button, on a desktop and
// at phone width ("Social Democratic Union 11.59" ran over the button's
// edge).
func TestManyOutcomes(t *testing.T) {
	t.Parallel()
	w := newWorld(t, worldOptions{})
	w.createEvent(`{"category":"elections","title":{"en":"Parliament"},"markets":[{"question":{"en":"Which party wins the most seats?"},"outcomes":[
		{"name":{"en":"Social Democratic Union"},"probability":"0.08"},{"name":{"en":"Christlich-Demokratische Volkspartei"},"probability":"0.3"},
		{"name":{"en":"Greens"},"probability":"0.12"},{"name":{"en":"Liberal Reform Alliance"},"probability":"0.2"},
		{"name":{"en":"Independents"},"probability":"0.05"},{"name":{"en":"Workers' and Farmers' Party"},"probability":"0.25"}]}]}`)
	for _, size := range []struct{ w, h int64 }{{1000, 800}, {390, 800}, {360, 740}} {
		t.Run(fmt.Sprint(size.w), func(t *testing.T) {
			tb := newTab(t)
			tb.Viewport(size.w, size.h)
			tb.Navigate(w.bettor(fmt.Sprint("many-", size.w), "100.00"))
			tb.ready()
			tb.WaitFor("the six outcomes", "document.querySelectorAll('[data-market-id] .outcome').length >= 8")
			var over []string
			tb.Eval(`[...document.querySelectorAll('.outcome')].filter((b) => {
				const r = b.getBoundingClientRect();
				return b.scrollWidth > b.clientWidth + 1 || [...b.querySelectorAll('.outcome-name, .odds, .prob-text')].some((e) => {
					const c = e.getBoundingClientRect(); return c.right > r.right + 0.5 || c.left < r.left - 0.5; });
			}).map((b) => b.textContent)`, &over)
			if len(over) > 0 {
				t.Errorf("at %d px these outcomes overflow their buttons: %q", size.w, over)
			}
			tb.wantNoSidewaysScroll(fmt.Sprintf("at %d px the page", size.w))
		})
	}
}

// TestMarketsThatTakeNoBets: a market that takes no bets (suspended) is
// listed after its event's open markets, its outcomes shown with their
// odds but not as (disabled) buttons among the ones a bettor can pick.
func TestMarketsThatTakeNoBets(t *testing.T) {
	t.Parallel()
	w := newWorld(t, worldOptions{})
	ev := w.createEvent(`{"category":"economy","title":{"en":"Rates"},"markets":[
		{"question":{"en":"Cut in March?"},"outcomes":[{"name":{"en":"Yes"},"probability":"0.5"},{"name":{"en":"No"},"probability":"0.5"}]},
		{"question":{"en":"Cut in June?"},"outcomes":[{"name":{"en":"Yes"},"probability":"0.6"},{"name":{"en":"No"},"probability":"0.4"}]}]}`)
	march, _ := marketOf(ev, 0)
	june, _ := marketOf(ev, 1)
	w.admin("POST", "/admin/v1/markets/"+march+"/suspend", 200, "")
	tb := w.widgetTab(t, "sam", "100.00")
	var card struct {
		Order    []string
		Disabled int
		Readonly int
		Status   string
	}
	tb.Eval(fmt.Sprintf(`(() => { const e = document.querySelector('[data-event-id=%q]');
		return {Order: [...e.querySelectorAll('.market')].map((m) => m.dataset.marketId), Disabled: document.querySelectorAll('button.outcome:disabled').length,
			Readonly: e.querySelectorAll('[data-market-id=%q] .outcome.readonly').length, Status: e.querySelector('[data-market-id=%q] .market-status').textContent}; })()`,
		ev["id"], march, march), &card)
	if len(card.Order) != 2 || card.Order[0] != june || card.Order[1] != march || card.Disabled != 0 || card.Readonly != 2 || card.Status != "Suspended" {
		t.Errorf("event card %+v; want the open June market first, the suspended March market after it with its outcomes as text", card)
	}
}

// TestChancesImagesCountdown: every outcome shows its implied probability
// (display_probability) with a bar beside its odds; the event's and the
// market's images show; a market with a closing time counts down to it,
// in the bettor's language.
func TestChancesImagesCountdown(t *testing.T) {
	t.Parallel()
	w := newWorld(t, worldOptions{})
	closes := time.Now().Add(2*time.Hour + 30*time.Minute).UTC().Format(time.RFC3339)
	image := w.URL + "/favicon.ico" // the platform's own origin: accepted over http
	ev := w.createEvent(fmt.Sprintf(`{"category":"crypto","title":{"en":"Bitcoin","de":"Bitcoin"},"image_url":%q,"markets":[
		{"question":{"en":"Above 100k by June?","de":"Über 100k bis Juni?"},"image_url":%q,"closes_at":%q,
		"outcomes":[{"name":{"en":"Yes"},"probability":"0.2"},{"name":{"en":"No"},"probability":"0.8"}]}]}`, image, image, closes))
	market, outcomes := marketOf(ev, 0)
	for _, tc := range []struct{ locale, countdown string }{{"en", `^Closes in 2 h (29|30) min$`}, {"de", `^Schließt in 2 Std\. (29|30) Min\.$`}} {
		t.Run(tc.locale, func(t *testing.T) {
			tb := newTab(t)
			tb.Navigate(w.bettor("tia-"+tc.locale, "100.00", "locale", tc.locale))
			tb.ready()
			tb.WaitFor("the images", fmt.Sprintf("document.querySelector('[data-event-id=%q] img.event-image')?.complete && document.querySelector('[data-market-id=%q] img.market-image')?.complete", ev["id"], market))
			var got struct {
				EventImage, MarketImage, Countdown, Chance, Odds string
				Fill                                             float64
				Label                                            string
			}
			tb.Eval(fmt.Sprintf(`(() => { const b = document.querySelector('[data-outcome-id=%q]'); const fill = b.querySelector('.prob-fill'); const bar = b.querySelector('.prob-bar');
				return {EventImage: document.querySelector('[data-event-id=%q] img.event-image').src, MarketImage: document.querySelector('[data-market-id=%q] img.market-image').src,
					Countdown: document.querySelector('[data-market-id=%q] .countdown').textContent, Chance: b.querySelector('.prob-text').textContent,
					Odds: b.querySelector('.odds').textContent, Fill: fill.getBoundingClientRect().width / bar.getBoundingClientRect().width, Label: b.getAttribute('aria-label')}; })()`,
				outcomes[0], ev["id"], market, market), &got)
			if got.EventImage != image || got.MarketImage != image {
				t.Errorf("images %q and %q, want %q", got.EventImage, got.MarketImage, image)
			}
			if !regexp.MustCompile(tc.countdown).MatchString(got.Countdown) {
				t.Errorf("countdown %q, want %s", got.Countdown, tc.countdown)
			}
			// 0.2 at the operator's margin: odds 4.42, 100 / 4.42 = 22.62 %.
			if got.Chance != "23%" || (got.Odds != "4.42" && got.Odds != "4,42") || got.Fill < 0.2 || got.Fill > 0.25 {
				t.Errorf("outcome shows chance %q with a bar %.2f full, odds %q; want 23%%, about 0.23, 4.42", got.Chance, got.Fill, got.Odds)
			}
			if !regexp.MustCompile(`23%`).MatchString(got.Label) {
				t.Errorf("the outcome's label %q does not say its chance", got.Label)
			}
		})
	}
}

// TestOddsMovement: a price change on the stream moves the odds, chance
// and bar; the outcome whose odds fell shows ▼ and the one whose odds rose
// ▲ (until their next move), with a short flash, and their labels say so.
// The slip's chart draws the selected outcome's chance through the prices
// seen since the widget opened.
func TestOddsMovement(t *testing.T) {
	t.Parallel()
	w := newWorld(t, worldOptions{})
	tb := w.widgetTab(t, "uma", "100.00")
	tb.Click(outcomeButton(w.outcome[0]))
	tb.WaitFor("the chart's first point", "document.querySelector('#slip-chart svg')?.dataset.points === '1'")
	w.moveHomeLive(tb)
	type move struct{ Moved, Arrow, Chance, Label string }
	read := func(id string) move {
		var m move
		tb.Eval(fmt.Sprintf(`(() => { const b = document.querySelector(%q); return {Moved: b.dataset.moved + (b.classList.contains('flash') ? ' flash' : ''),
			Arrow: b.querySelector('.move').textContent, Chance: b.querySelector('.prob-text').textContent, Label: b.getAttribute('aria-label')}; })()`, outcomeButton(id)), &m)
		return m
	}
	home := read(w.outcome[0])
	if home.Moved != "down flash" || home.Arrow != "▼" || home.Chance != "28%" || !regexp.MustCompile(`Odds down`).MatchString(home.Label) {
		t.Errorf("Home after its odds fell 4.42 → 3.62: %+v", home)
	}
	tb.WaitText(outcomeButton(w.outcome[1])+" .odds", "1.29")
	away := read(w.outcome[1])
	if away.Moved != "up flash" || away.Arrow != "▲" || away.Chance != "78%" {
		t.Errorf("Away after its odds rose 1.21 → 1.29: %+v", away)
	}
	tb.WaitFor("the chart's second point", "document.querySelector('#slip-chart svg')?.dataset.points === '2'")
	tb.WaitText("#slip-chart figcaption", "Chance from 23% to 28%")
	w.price("0.3", "0.7")
	tb.WaitFor("the chart's third point", "document.querySelector('#slip-chart svg')?.dataset.points === '3'")
	var trend string
	tb.Eval("document.querySelector('#slip-chart svg').dataset.trend", &trend)
	if trend != "up" {
		t.Errorf("chart trend %q, want up (23%% → 33%%)", trend)
	}
	tb.Screenshot("odds-moved")
}

// TestSlipChartShowsHistory: the slip's chart draws the outcome's price
// history from before the page opened (read from the bettor API), on a
// time axis from the market's opening price, and adds the moves the
// stream brings after it.
func TestSlipChartShowsHistory(t *testing.T) {
	t.Parallel()
	w := newWorld(t, worldOptions{})
	// Home opened at 0.2 (odds 4.42, 23 %), then 0.25 and 0.3, all before
	// the page opens.
	w.price("0.25", "0.75")
	w.price("0.3", "0.7")
	tb := w.widgetTab(t, "una", "100.00")
	tb.Click(outcomeButton(w.outcome[0]))
	tb.WaitFor("the history on the chart", "document.querySelector('#slip-chart svg')?.dataset.source === 'history'")
	var chart struct {
		Points, Trend, Caption string
		FirstX                 float64
	}
	read := func() {
		tb.Eval(`(() => { const s = document.querySelector('#slip-chart svg'); return {Points: s.dataset.points, Trend: s.dataset.trend,
			Caption: document.querySelector('#slip-chart figcaption').textContent, FirstX: Number(s.querySelector('polyline').getAttribute('points').split(',')[0])}; })()`, &chart)
	}
	read()
	if chart.Points != "3" || chart.Trend != "up" || chart.FirstX != 0 || !regexp.MustCompile(`^Chance from 23% to 33% since \d{1,2}:\d{2}`).MatchString(chart.Caption) {
		t.Errorf("chart of Home's history: %+v; want 3 points from 23%% to 33%%, since the opening, rising", chart)
	}
	tb.streaming()
	w.price("0.2", "0.8")
	tb.WaitFor("the stream's move on the chart", "document.querySelector('#slip-chart svg')?.dataset.points === '4'")
	read()
	if chart.Trend != "flat" || !strings.HasPrefix(chart.Caption, "Chance from 23% to 23% since") {
		t.Errorf("chart after Home went back to 0.2: %+v", chart)
	}
}

// TestSlipChartWithoutHistory: when the history cannot be read the chart
// draws the prices seen since the page opened and says so; the history is
// asked for again at the next selection of the outcome, and drawn once it
// comes.
func TestSlipChartWithoutHistory(t *testing.T) {
	t.Parallel()
	w := newWorld(t, worldOptions{})
	w.price("0.25", "0.75")
	tb := newTab(t)
	var mu sync.Mutex
	failed := false
	ic := tb.intercept(func(s seen) verdict {
		mu.Lock()
		defer mu.Unlock()
		if strings.Contains(s.URL, "/price-history?outcome_id="+w.outcome[0]) && !failed {
			failed = true
			return verdict{status: 500, body: `{"type":"about:blank","title":"Internal Server Error","status":500,"detail":"Internal error."}`}
		}
		return verdict{}
	})
	tb.Navigate(w.bettor("ula", "100.00"))
	tb.ready()
	tb.Click(outcomeButton(w.outcome[0]))
	histories := func() int { // Home's history reads
		return len(ic.requests("GET", "/api/v1/markets/"+w.market+"/price-history?outcome_id="+w.outcome[0]))
	}
	waitfor.True(t, "the first history read", func() bool { return histories() == 1 })
	tb.WaitText("#slip-chart figcaption", "The chart shows every move from now on.")
	var source string
	tb.Eval("document.querySelector('#slip-chart svg').dataset.source", &source)
	if source != "seen" {
		t.Errorf("the chart's source after a failed history read: %q, want seen", source)
	}
	// Selecting the outcome again asks again once the failed read is over.
	waitfor.True(t, "a second history read", func() bool {
		tb.Click(outcomeButton(w.outcome[1]))
		tb.Click(outcomeButton(w.outcome[0]))
		return histories() == 2
	})
	tb.WaitFor("the history on the chart", "document.querySelector('#slip-chart svg')?.dataset.source === 'history' && document.querySelector('#slip-chart svg').dataset.points === '2'")
	tb.WaitText("#slip-chart figcaption", "Chance from 23% to 28% since")
}

// TestSandboxPagesAtPhoneWidth: the sandbox operator's host page does not
// scroll sideways at 390 px (a long widget URL widened it), and the casino
// lobby shows the launched game in view, not below its launch form.
func TestSandboxPagesAtPhoneWidth(t *testing.T) {
	t.Parallel()
	w := newWorld(t, worldOptions{site: true})
	site, err := casino.OpenSite(context.Background(), casino.SiteConfig{AggregatorID: "sandbox-agg", SiteSettings: sandboxweb.SiteSettings{PlatformURL: w.URL}})
	if err != nil {
		t.Fatal(err)
	}
	lobby := httptest.NewServer(site.Handler())
	t.Cleanup(func() {
		lobby.Close()
		site.Close()
	})
	w.admin("POST", "/admin/v1/operators", 201, string(site.Registration(lobby.URL)))

	for _, size := range []struct{ w, h int64 }{{390, 844}, {1000, 700}} {
		t.Run(fmt.Sprint("host ", size.w), func(t *testing.T) {
			tb := hostTab(t, w.hostOf(fmt.Sprint("vic-", size.w)), size.w, size.h)
			tb.Frame = nil
			tb.wantNoSidewaysScroll(fmt.Sprintf("the host page at %d px", size.w))
		})
		t.Run(fmt.Sprint("lobby ", size.w), func(t *testing.T) {
			tb := newTab(t)
			tb.Viewport(size.w, size.h)
			tb.Navigate(lobby.URL + "/sandbox/lobby")
			tb.Click("form[action='/sandbox/lobby'] button[type=submit]")
			tb.Do(chromedp.WaitReady(chromedp.CSS("iframe#game"))) // across the form's navigation
			var game struct{ Top, Height float64 }
			tb.Eval("(() => { const r = document.getElementById('game').getBoundingClientRect(); return {Top: r.top, Height: innerHeight}; })()", &game)
			if game.Top > game.Height/2 {
				t.Errorf("at %d px the game starts %.0f px down a %.0f px window: below the fold", size.w, game.Top, game.Height)
			}
			tb.wantNoSidewaysScroll(fmt.Sprintf("the lobby at %d px", size.w))
		})
	}
}

// TestEveryLocaleAndThemeAtPhoneWidth: in each of the 7 locales and both
// themes, at 360 px, the markets (chances, bars, odds, countdowns) and the
// slip (chart, limits, an error) fit without sideways scrolling, and no
// outcome's text runs out of its button.
func TestEveryLocaleAndThemeAtPhoneWidth(t *testing.T) {
	t.Parallel()
	w := newWorld(t, worldOptions{})
	tb := newTab(t)
	tb.Viewport(360, 740)
	for _, locale := range []string{"en", "es", "pt", "fr", "de", "nl", "ru"} {
		for _, theme := range []string{"light", "dark"} {
			tb.Navigate(w.bettor("phone-"+locale+"-"+theme, "1000.00", "locale", locale, "theme", theme))
			tb.ready()
			tb.Click(outcomeButton(w.outcome[0]))
			tb.TypeIn("#stake", "150")
			tb.WaitFor("the stake error", "document.getElementById('stake-error').textContent !== ''")
			var got struct {
				ScrollWidth, ClientWidth int
				Over                     []string
			}
			tb.Eval(`({ScrollWidth: document.documentElement.scrollWidth, ClientWidth: document.documentElement.clientWidth,
				Over: [...document.querySelectorAll('.outcome, .slip, .market-head, .countdown, .slip-chart, .balance')].filter((e) => e.scrollWidth > e.clientWidth + 1).map((e) => e.className + ': ' + e.textContent)})`, &got)
			if got.ScrollWidth > got.ClientWidth || len(got.Over) > 0 {
				t.Errorf("%s, %s theme at 360 px: page %d wide in %d; overflowing %q", locale, theme, got.ScrollWidth, got.ClientWidth, got.Over)
			}
		}
	}
}
