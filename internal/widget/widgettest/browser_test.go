// Package widgettest holds the widget's end-to-end tests: a real
// Foresight server on loopback with the sandbox operator (and casino),
// the widget driven in headless Chromium through chromedp.
//
// The browser is internal/browsertest's shared Chromium: without one the
// tests are skipped, except under CI=true, where they fail.
// FORESIGHT_SCREENSHOTS=1 saves the main screens to docs/screenshots/.
package widgettest

import (
	"fmt"
	"os"
	"testing"

	"github.com/foresight-dev/foresight/internal/browsertest"
)

func TestMain(m *testing.M) { os.Exit(browsertest.Run(m)) }

// tab is one browser tab; its Frame, when set, is the iframe of the
// widget inside a host page.
type tab struct {
	*browsertest.Tab
}

// clockScale is the test clock's speed: one virtual second is 20 ms (the
// 60 s poll ceiling takes 1.2 s).
const clockScale = 0.02

// heldClockScale is the test clock's speed for a test that holds a wallet
// call while the widget polls and expects the answer, not the 60 s ceiling:
// one virtual second is 200 ms, so the ceiling is 12 s away, far more than
// a hold takes on a loaded machine under the race detector.
const heldClockScale = 0.2

// newTab opens a tab whose pages (and frames) get the widget's test clock
// (js/clock.js), at clockScale, before any script of theirs runs.
func newTab(t *testing.T) *tab {
	t.Helper()
	return newTabAt(t, clockScale)
}

// newTabAt is newTab with the test clock at scale. Failed waits report the
// slip's status and the notice.
func newTabAt(t *testing.T, scale float64) *tab {
	t.Helper()
	tb := browsertest.NewTab(t, fmt.Sprintf("window.__foresightTestClock = {scale: %g};", scale))
	tb.Notes = []string{"#slip-status", "#notice"}
	return &tab{tb}
}

// ready waits until the widget has started (session, texts, first reads).
func (tb *tab) ready() {
	tb.T.Helper()
	tb.WaitFor("the widget to start", "document.body?.dataset.ready === 'true'")
}

// streaming waits until the widget's odds stream is connected: it
// connects after the first reads, and a price change made before that
// would not be sent to the page.
func (tb *tab) streaming() {
	tb.T.Helper()
	tb.WaitFor("the stream", "document.body.dataset.stream === 'connected'")
}

// wantNoSidewaysScroll reports the page (what names it) when it is wider
// than the window: it scrolls sideways.
func (tb *tab) wantNoSidewaysScroll(what string) {
	tb.T.Helper()
	var page struct{ ScrollWidth, ClientWidth int }
	tb.Eval("({ScrollWidth: document.documentElement.scrollWidth, ClientWidth: document.documentElement.clientWidth})", &page)
	if page.ScrollWidth > page.ClientWidth {
		tb.T.Errorf("%s scrolls sideways: %+v", what, page)
	}
}
