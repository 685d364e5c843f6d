package widgettest

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"
)

// TestHistory: obligation 10 and the history filters. Each placed bet
// shows its entry_odds, never the market's current odds; a rejected bet
// shows the message of its code and no payout; the filters ask the API
// (cancelled is the rejected bets) and the portfolio sums the confirmed
// stakes.
func TestHistory(t *testing.T) {
	t.Parallel()
	w := newWorld(t, worldOptions{})
	tb, ic := w.interceptedWidgetTab(t, "xena", "100.00", nil)
	tb.bet(w.outcome[0], "10")
	tb.WaitText("#slip-status", "Bet placed")
	tb.bet(w.outcome[0], "30") // 30 × 4.4214 + 44.21 is above the outcome exposure of 150
	tb.WaitText("#slip-status", "above a betting limit")
	w.moveHomeLive(tb)

	tb.Click("#tab-history")
	tb.WaitFor("two bets", "document.querySelectorAll('#history li.bet').length === 2")
	var rows []struct {
		Status, Odds, Payout, Reason string
	}
	tb.Eval(`[...document.querySelectorAll('#history li.bet')].map((li) => ({Status: li.dataset.status,
		Odds: li.querySelector('.entry-odds dd')?.textContent ?? '', Payout: li.querySelector('.payout dd')?.textContent ?? '',
		Reason: li.querySelector('.bet-reason')?.textContent ?? ''}))`, &rows)
	if len(rows) != 2 || rows[0].Status != "rejected" || rows[0].Payout != "" || rows[0].Reason != "Above a betting limit" ||
		fmt.Sprint(rows[1]) != "{confirmed 4.42 44.21 USD }" {
		t.Errorf("history rows %+v; want the rejected bet with its code's message and no payout, then the confirmed one at its entry odds", rows)
	}
	if h := tb.Text("#history"); strings.Contains(h, "3.62") {
		t.Errorf("the history shows the current odds 3.62: %q", h)
	}

	tests := []struct {
		filter, status string
		want           int
	}{
		{"cancelled", "rejected", 1},
		{"open", "confirmed", 1},
		{"settled", "", 0},
		{"", "", 2},
	}
	for _, tc := range tests {
		tb.Do(chromedp.SetValue(chromedp.CSS("#history-filter"), tc.filter, tb.Query()...))
		var dispatched bool
		tb.Eval("document.getElementById('history-filter').dispatchEvent(new Event('change'))", &dispatched)
		q := "/api/v1/bettor/bets?limit=20"
		if tc.filter != "" {
			q += "&status=" + tc.filter
		}
		tb.WaitFor("the filtered list", fmt.Sprintf("document.querySelectorAll('#history li.bet').length === %d && [...document.querySelectorAll('#history li.bet')].every((li) => %q === '' || li.dataset.status === %q)", tc.want, tc.status, tc.status))
		reqs := ic.requests("GET", "/api/v1/bettor/bets?")
		if last := reqs[len(reqs)-1].path(); last != q {
			t.Errorf("filter %q read %s, want %s", tc.filter, last, q)
		}
		if tc.want == 0 {
			tb.WaitFor("the empty history note", "!document.getElementById('history-empty').hidden")
		}
	}

	tb.Click("#tab-portfolio")
	tb.WaitText("#pf-stakes", "10.00 USD")
	tb.WaitText("#pf-positions", "2")
	tb.WaitText("#pf-balance", "90.00 USD")
}

// TestKeyboard: the bettor places a bet with the keyboard alone, and the
// tabs follow the arrow keys; every control has a label or a name.
func TestKeyboard(t *testing.T) {
	t.Parallel()
	w := newWorld(t, worldOptions{})
	tb := w.widgetTab(t, "yuri", "100.00")
	var ok bool
	tb.Eval(fmt.Sprintf("(document.querySelector(%q).focus(), true)", outcomeButton(w.outcome[0])), &ok)
	tb.Do(chromedp.KeyEvent(kb.Enter))
	tb.WaitFor("the stake field to get the focus", "document.activeElement?.id === 'stake'")
	tb.Do(chromedp.KeyEvent("25"))
	tb.WaitText("#slip-payout", "110.50 USD")
	tb.Do(chromedp.KeyEvent(kb.Enter))
	tb.WaitText("#slip-status", "Bet placed: 25.00 USD on Home")

	tb.Eval("(document.getElementById('tab-markets').focus(), true)", &ok)
	for _, step := range []struct{ key, want string }{
		{kb.ArrowRight, "tab-history"}, {kb.ArrowRight, "tab-portfolio"}, {kb.ArrowRight, "tab-markets"},
		{kb.ArrowLeft, "tab-portfolio"}, {kb.Home, "tab-markets"}, {kb.End, "tab-portfolio"},
	} {
		tb.Do(chromedp.KeyEvent(step.key))
		tb.WaitFor("the "+step.want+" tab", fmt.Sprintf("document.activeElement?.id === %q && document.activeElement.getAttribute('aria-selected') === 'true' && !document.getElementById(%q).hidden",
			step.want, "panel-"+strings.TrimPrefix(step.want, "tab-")))
	}

	var unnamed []string
	tb.Eval(`[...document.querySelectorAll('input, select, button, output, [role=tab]')].filter((e) => {
		if (e.closest('[hidden]')) return false;
		if (e.matches('input, select')) return e.labels.length === 0;
		return !(e.getAttribute('aria-label') || e.textContent.trim() || e.closest('[aria-live]') || e.labels?.length);
	}).map((e) => e.outerHTML.slice(0, 80))`, &unnamed)
	if len(unnamed) > 0 {
		t.Errorf("controls without a label or name: %v", unnamed)
	}
	var live struct{ Role, Live string }
	tb.Eval("({Role: document.getElementById('slip-status').getAttribute('role'), Live: document.getElementById('slip-status').getAttribute('aria-live')})", &live)
	if live.Role != "status" || live.Live != "polite" {
		t.Errorf("the bet status is not a live region: %+v", live)
	}
}

// contrastJS returns the contrast ratios of the theme's text colours on
// their backgrounds (WCAG 2 relative luminance).
const contrastJS = `(() => {
	const rgb = (c) => c.match(/[\d.]+/g).slice(0, 3).map(Number);
	const lum = (c) => { const [r, g, b] = rgb(c).map((v) => { v /= 255; return v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4; }); return 0.2126 * r + 0.7152 * g + 0.0722 * b; };
	const ratio = (a, b) => { const [x, y] = [lum(a), lum(b)].sort((p, q) => q - p); return (x + 0.05) / (y + 0.05); };
	const v = (name) => { const d = document.createElement('div'); d.style.color = 'var(' + name + ')'; document.body.append(d); const c = getComputedStyle(d).color; d.remove(); return c; };
	const pairs = [['--text', '--bg'], ['--text', '--surface'], ['--muted', '--bg'], ['--muted', '--surface'], ['--accent-text', '--accent'],
		['--error', '--bg'], ['--error', '--surface'], ['--ok', '--surface'], ['--demo-text', '--demo-bg'], ['--text', '--selected'], ['--accent', '--bg'],
		['--accent', '--surface'], ['--accent-text', '--ok-strong'], ['--up', '--bg'], ['--down', '--bg'], ['--up', '--selected'], ['--down', '--selected']];
	const out = {};
	for (const [f, b] of pairs) out[f + ' on ' + b] = Math.round(ratio(v(f), v(b)) * 100) / 100;
	return out;
})()`

// TestThemesAndPhone: the light and dark themes keep every text at WCAG
// AA contrast (4.5:1), and the widget fits a 360 px phone without
// sideways scrolling.
func TestThemesAndPhone(t *testing.T) {
	t.Parallel()
	w := newWorld(t, worldOptions{})
	for _, theme := range []string{"light", "dark"} {
		t.Run(theme, func(t *testing.T) {
			tb := newTab(t)
			tb.Viewport(1000, 700)
			tb.Navigate(w.bettor("zoe-"+theme, "100.00", "theme", theme))
			tb.ready()
			var got string
			tb.Eval("document.documentElement.dataset.theme", &got)
			if got != theme {
				t.Errorf("theme %q, want %q", got, theme)
			}
			var ratios map[string]float64
			tb.Eval(contrastJS, &ratios)
			for pair, r := range ratios {
				if r < 4.5 {
					t.Errorf("%s theme: %s has contrast %.2f, below 4.5", theme, pair, r)
				}
			}
			if theme == "dark" {
				tb.preview(w.outcome[0], "10", "44.20 USD")
				tb.Screenshot("dark-theme")
			}
		})
	}
	t.Run("phone", func(t *testing.T) {
		tb := newTab(t)
		tb.Viewport(360, 740)
		tb.Navigate(w.bettor("zoe-phone", "100.00"))
		tb.ready()
		tb.preview(w.outcome[0], "10", "44.20 USD")
		var layout struct {
			ScrollWidth, ClientWidth int
			SlipAbove                bool
		}
		tb.Eval(`({ScrollWidth: document.documentElement.scrollWidth, ClientWidth: document.documentElement.clientWidth,
			SlipAbove: document.getElementById('slip').getBoundingClientRect().top < document.getElementById('events').getBoundingClientRect().top})`, &layout)
		if layout.ScrollWidth > layout.ClientWidth || layout.ClientWidth != 360 || !layout.SlipAbove {
			t.Errorf("phone layout %+v: want no sideways scrolling at 360 px and the slip first", layout)
		}
		tb.Screenshot("phone")
		tb.TypeIn("#stake", "10,5") // a phone keyboard's decimal comma
		tb.WaitText("#slip-payout", "46.41 USD")
	})
}

// TestLocales: the interface speaks each supported locale (the API's
// texts come in it too), region forms included.
func TestLocales(t *testing.T) {
	t.Parallel()
	w := newWorld(t, worldOptions{})
	tests := []struct{ param, lang, title string }{
		{"en", "en", "Final"}, {"es-MX", "es", "Final"}, {"pt_BR", "pt", "Final"}, {"fr", "fr", "Final"},
		{"de_AT", "de", "Finale"}, {"nl", "nl", "Final"}, {"RU", "ru", "Final"}, {"ja", "en", "Final"},
	}
	tb := newTab(t)
	for _, tc := range tests {
		tb.Navigate(w.bettor("loc", "100.00", "locale", tc.param))
		tb.ready()
		var texts map[string]string
		raw, err := os.ReadFile(filepath.Join("..", "static", "locales", tc.lang+".json"))
		if err != nil || json.Unmarshal(raw, &texts) != nil {
			t.Fatalf("locale %s: %v", tc.lang, err)
		}
		var page struct{ Lang, Tab, Place, Title string }
		tb.Eval(`({Lang: document.documentElement.lang, Tab: document.getElementById('tab-markets').textContent,
			Place: document.getElementById('place').textContent, Title: document.querySelector('.event h3').textContent})`, &page)
		if page.Lang != tc.lang || page.Tab != texts["tabs.markets"] || page.Place != texts["slip.place"] {
			t.Errorf("locale=%s: page %+v, want lang %s, %q, %q", tc.param, page, tc.lang, texts["tabs.markets"], texts["slip.place"])
		}
		if tc.lang == "de" && page.Title != tc.title {
			t.Errorf("locale=%s: event title %q, want %q", tc.param, page.Title, tc.title)
		}
	}
}

// TestSessionStart: a session_request_id is single use; an unknown
// operator or a missing id is said plainly.
func TestSessionStart(t *testing.T) {
	t.Parallel()
	w := newWorld(t, worldOptions{})
	used := w.bettor("ann", "100.00")
	first := newTab(t)
	first.Navigate(used)
	first.ready()
	tests := []struct{ name, url, want string }{
		{"used", used, "This session link has expired or was already used."},
		{"unknown operator", strings.Replace(w.bettor("ann", "100.00"), "operator=sandbox", "operator=nobody", 1), "This site is not set up for the widget."},
		{"no session", w.URL + "/widget/?operator=sandbox", "The widget was opened without a session."},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			tb := newTab(t)
			tb.Navigate(tc.url)
			tb.WaitText("#notice", tc.want)
			var hidden bool
			tb.Eval("document.getElementById('main').hidden", &hidden)
			if !hidden {
				t.Error("the widget shows its panels without a session")
			}
		})
	}
	var kept bool
	first.Eval("location.search.includes('session_request_id')", &kept)
	if kept {
		t.Error("the session_request_id stays in the widget's address")
	}
}

// TestCategories: the category filter asks the API for one category's
// events.
func TestCategories(t *testing.T) {
	t.Parallel()
	w := newWorld(t, worldOptions{})
	tb, ic := w.interceptedWidgetTab(t, "cat", "100.00", nil)
	tb.WaitFor("both events", "document.querySelectorAll('#events .event').length === 2")
	tb.Do(chromedp.SetValue(chromedp.CSS("#category"), "elections"))
	var ok bool
	tb.Eval("document.getElementById('category').dispatchEvent(new Event('change'))", &ok)
	tb.WaitFor("the elections only", "document.querySelectorAll('#events .event').length === 1 && document.querySelector('#events .event .category').textContent === 'Elections'")
	reqs := ic.requests("GET", "/api/v1/events?")
	if last := reqs[len(reqs)-1].path(); !strings.Contains(last, "category=elections") || !strings.Contains(last, "locale=en") {
		t.Errorf("the filter read %s, want category=elections in the locale", last)
	}
}

// TestSessionExpiry: a 401 from the bettor API (the token expired) in a
// widget that no page frames (so none can renew its session) stops
// betting and tells the bettor to reload.
func TestSessionExpiry(t *testing.T) {
	t.Parallel()
	w := newWorld(t, worldOptions{})
	tb := newTab(t)
	tb.intercept(func(s seen) verdict {
		if s.Method == "POST" && s.Stage == "request" {
			return verdict{status: 401}
		}
		return verdict{}
	})
	tb.Navigate(w.bettor("exp", "100.00"))
	tb.ready()
	tb.bet(w.outcome[0], "10")
	tb.WaitText("#session-text", "Your session has expired. Reload the page to continue.")
	tb.WaitText("#slip-status", "Your session has expired.")
	tb.WaitFor("no Reconnect", "document.getElementById('session-reconnect').hidden")
	if !tb.placeDisabled() {
		t.Error("placing is still offered with an expired session")
	}
	if n := w.betsOf("exp"); n != 0 {
		t.Errorf("%d bets", n)
	}
}
