// Package backofficetest holds the backoffice's end-to-end tests: a real
// Foresight server on loopback (with the sandbox operator where bets are
// needed), the backoffice driven in headless Chromium through chromedp.
//
// The browser is internal/browsertest's shared Chromium: without one the
// tests are skipped, except under CI=true, where they fail. FORESIGHT_SCREENSHOTS=1 saves the main
// screens to docs/screenshots/backoffice-*.png.
package backofficetest

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/foresight-dev/foresight/internal/browsertest"
)

func TestMain(m *testing.M) { os.Exit(browsertest.Run(m)) }

// tab is one browser tab on the backoffice.
type tab struct {
	t   *testing.T
	ctx context.Context
}

func newTab(t *testing.T) *tab {
	t.Helper()
	ctx, cancel := chromedp.NewContext(browsertest.Browser(t))
	t.Cleanup(cancel)
	ctx, cancelTime := context.WithTimeout(ctx, 2*time.Minute)
	t.Cleanup(cancelTime)
	return &tab{t: t, ctx: ctx}
}

func (tb *tab) do(steps ...chromedp.Action[chromedp.Void]) {
	tb.t.Helper()
	if err := chromedp.Do(tb.ctx, steps...); err != nil {
		tb.t.Fatalf("browser: %v", err)
	}
}

func (tb *tab) navigate(url string) {
	tb.t.Helper()
	tb.do(chromedp.Navigate(url))
}

// viewport sets the size of the page (phone width: 360).
func (tb *tab) viewport(w, h int64) {
	tb.t.Helper()
	tb.do(chromedp.EmulateViewport(w, h))
}

// waitFor waits until the JavaScript condition is true; what explains the
// condition in a failure.
func (tb *tab) waitFor(what, cond string) {
	tb.t.Helper()
	_, err := chromedp.Run(tb.ctx, chromedp.Poll[bool]("!!("+cond+")",
		chromedp.WithPollingInterval(20*time.Millisecond), chromedp.WithPollingTimeout(30*time.Second)))
	if err != nil {
		tb.t.Fatalf("waiting for %s (%s): %v\nnotice: %q\nview: %q", what, cond, err, tb.peek("#notice"), tb.peek("#view"))
	}
}

// peek reads an element's text without failing the test (diagnostics).
func (tb *tab) peek(sel string) string {
	s, _ := chromedp.Run(tb.ctx, chromedp.Poll[string](fmt.Sprintf("JSON.stringify(document.querySelector(%q)?.textContent ?? null)", sel),
		chromedp.WithPollingTimeout(time.Second)))
	if len(s) > 2000 {
		s = s[:2000] + "…"
	}
	return s
}

// eval evaluates a JavaScript expression (it may await) and decodes its
// value into out.
func (tb *tab) eval(expr string, out any) {
	tb.t.Helper()
	s, err := chromedp.Run(tb.ctx, chromedp.Evaluate[string]("(async () => JSON.stringify([await ("+expr+")]))()", chromedp.EvalAwaitPromise))
	if err != nil {
		tb.t.Fatalf("evaluating %s: %v", expr, err)
	}
	var one []json.RawMessage
	if err := json.Unmarshal([]byte(s), &one); err != nil || len(one) != 1 {
		tb.t.Fatalf("evaluating %s: %s", expr, s)
	}
	if err := json.Unmarshal(one[0], out); err != nil {
		tb.t.Fatalf("evaluating %s: %s: %v", expr, one[0], err)
	}
}

// text is the trimmed text of the first element sel matches.
func (tb *tab) text(sel string) string {
	tb.t.Helper()
	var s string
	tb.eval(fmt.Sprintf("(document.querySelector(%q)?.textContent ?? '').trim()", sel), &s)
	return s
}

// waitText waits until the element's text contains want.
func (tb *tab) waitText(sel, want string) {
	tb.t.Helper()
	tb.waitFor(fmt.Sprintf("%q in %s", want, sel), fmt.Sprintf("(document.querySelector(%q)?.textContent ?? '').includes(%q)", sel, want))
}

func (tb *tab) click(sel string) {
	tb.t.Helper()
	tb.do(chromedp.Click(chromedp.CSS(sel), chromedp.NodeVisible))
}

// typeIn replaces the value of an input by typing text into it.
func (tb *tab) typeIn(sel, text string) {
	tb.t.Helper()
	var cleared bool
	tb.eval(fmt.Sprintf("(() => { const e = document.querySelector(%q); e.value = ''; e.dispatchEvent(new Event('input', {bubbles: true})); return true; })()", sel), &cleared)
	tb.do(chromedp.SendKeys(chromedp.CSS(sel), text))
}

// choose selects the option with value in a select.
func (tb *tab) choose(sel, value string) {
	tb.t.Helper()
	tb.do(chromedp.SetValue(chromedp.CSS(sel), value))
	var ok bool
	tb.eval(fmt.Sprintf("(() => { const e = document.querySelector(%q); e.dispatchEvent(new Event('change', {bubbles: true})); return e.value === %q; })()", sel, value), &ok)
	if !ok {
		tb.t.Fatalf("%s has no option %q", sel, value)
	}
}

// screenshot saves the page as docs/screenshots/backoffice-name.png when
// FORESIGHT_SCREENSHOTS is set.
func (tb *tab) screenshot(name string) {
	tb.t.Helper()
	if os.Getenv("FORESIGHT_SCREENSHOTS") == "" {
		return
	}
	png, err := chromedp.Run(tb.ctx, chromedp.FullScreenshot(100))
	if err != nil {
		tb.t.Fatalf("screenshot: %v", err)
	}
	dir := filepath.Join("..", "..", "..", "docs", "screenshots")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		tb.t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "backoffice-"+name+".png"), png, 0o644); err != nil {
		tb.t.Fatal(err)
	}
}
