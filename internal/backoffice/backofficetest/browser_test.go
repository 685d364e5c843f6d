// Package backofficetest holds the backoffice's end-to-end tests: a real
// Foresight server on loopback (with the sandbox operator where bets are
// needed), the backoffice driven in headless Chromium through chromedp.
//
// The browser is internal/browsertest's shared Chromium: without one the
// tests are skipped, except under CI=true, where they fail. FORESIGHT_SCREENSHOTS=1 saves the main
// screens to docs/screenshots/backoffice-*.png.
package backofficetest

import (
	"fmt"
	"os"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/foresight-dev/foresight/internal/browsertest"
)

func TestMain(m *testing.M) { os.Exit(browsertest.Run(m)) }

// tab is one browser tab on the backoffice.
type tab struct {
	*browsertest.Tab
}

// newTab opens a tab whose failed waits report the page's notice and view.
func newTab(t *testing.T) *tab {
	t.Helper()
	tb := browsertest.NewTab(t)
	tb.Notes = []string{"#notice", "#view"}
	return &tab{tb}
}

// openSignIn loads the backoffice at url and waits for its sign-in form.
func (tb *tab) openSignIn(url string) {
	tb.T.Helper()
	tb.Navigate(url)
	tb.WaitFor("the sign-in form", "document.body.dataset.ready === 'true' && !document.getElementById('signin').hidden")
}

// submitToken types token into the sign-in form (nothing when it is "")
// and sends it.
func (tb *tab) submitToken(token string) {
	tb.T.Helper()
	if token != "" {
		tb.TypeIn("#token", token)
	}
	tb.Click("#signin-submit")
}

// texts returns, for every element selector matches, the string the
// JavaScript function of the element fn ("e => e.dataset.bet") makes of it.
func (tb *tab) texts(selector, fn string) []string {
	tb.T.Helper()
	var out []string
	tb.Eval(fmt.Sprintf("Array.from(document.querySelectorAll(%q), %s)", selector, fn), &out)
	return out
}

// pageWidth is the width of the page's content, in CSS pixels: more than
// the window's when it scrolls sideways.
func (tb *tab) pageWidth() int {
	tb.T.Helper()
	var wide int
	tb.Eval("document.documentElement.scrollWidth", &wide)
	return wide
}

// choose selects the option with value in a select.
func (tb *tab) choose(sel, value string) {
	tb.T.Helper()
	tb.Do(chromedp.SetValue(chromedp.CSS(sel), value))
	var ok bool
	tb.Eval(fmt.Sprintf("(() => { const e = document.querySelector(%q); e.dispatchEvent(new Event('change', {bubbles: true})); return e.value === %q; })()", sel, value), &ok)
	if !ok {
		tb.T.Fatalf("%s has no option %q", sel, value)
	}
}

// screenshot saves the page as docs/screenshots/backoffice-name.png when
// FORESIGHT_SCREENSHOTS is set.
func (tb *tab) screenshot(name string) {
	tb.T.Helper()
	tb.Screenshot("backoffice-" + name)
}
