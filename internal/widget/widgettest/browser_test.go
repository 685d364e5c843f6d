// Package widgettest holds the widget's end-to-end tests: a real
// Foresight server on loopback with the sandbox operator (and casino),
// the widget driven in headless Chromium through chromedp.
//
// The browser is internal/browsertest's shared Chromium: without one the
// tests are skipped, except under CI=true, where they fail.
// FORESIGHT_SCREENSHOTS=1 saves the main screens to docs/screenshots/.
package widgettest

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"

	"github.com/foresight-dev/foresight/internal/browsertest"
)

func TestMain(m *testing.M) { os.Exit(browsertest.Run(m)) }

// tab is one browser tab. frame, when set, is the iframe of the widget
// inside a host page: queries and waits run in it.
type tab struct {
	t     *testing.T
	ctx   context.Context
	frame *chromedp.Node
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

// newTabAt is newTab with the test clock at scale.
func newTabAt(t *testing.T, scale float64) *tab {
	t.Helper()
	ctx, cancel := chromedp.NewContext(browsertest.Browser(t))
	t.Cleanup(cancel)
	err := chromedp.Do(ctx, chromedp.Func(func(ctx context.Context, target *chromedp.Target) error {
		_, err := chromedp.Call(ctx, page.AddScriptToEvaluateOnNewDocument, page.AddScriptToEvaluateOnNewDocumentParams{
			Source: fmt.Sprintf("window.__foresightTestClock = {scale: %g};", scale)})
		return err
	}))
	if err != nil {
		t.Fatalf("opening a tab: %v", err)
	}
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

// navigate loads url in the tab.
func (tb *tab) navigate(url string) {
	tb.t.Helper()
	tb.do(chromedp.Navigate(url))
}

// viewport sets the size of the page (phone width: 360).
func (tb *tab) viewport(w, h int64) {
	tb.t.Helper()
	tb.do(chromedp.EmulateViewport(w, h))
}

func (tb *tab) query() []chromedp.QueryOption {
	if tb.frame != nil {
		return []chromedp.QueryOption{chromedp.FromNode(tb.frame)}
	}
	return nil
}

func (tb *tab) poll() []chromedp.PollOption {
	opts := []chromedp.PollOption{chromedp.WithPollingInterval(20 * time.Millisecond), chromedp.WithPollingTimeout(30 * time.Second)}
	if tb.frame != nil {
		opts = append(opts, chromedp.WithPollingInFrame(tb.frame))
	}
	return opts
}

// waitFor waits until the JavaScript condition is true in the widget's
// document; what explains the condition in a failure.
func (tb *tab) waitFor(what, cond string) {
	tb.t.Helper()
	if _, err := chromedp.Run(tb.ctx, chromedp.Poll[bool]("!!("+cond+")", tb.poll()...)); err != nil {
		tb.t.Fatalf("waiting for %s (%s): %v\nslip status: %q\nnotice: %q", what, cond, err, tb.peek("#slip-status"), tb.peek("#notice"))
	}
}

// peek reads an element's text without failing the test (diagnostics).
func (tb *tab) peek(sel string) string {
	opts := append(tb.poll()[:0:0], chromedp.WithPollingTimeout(time.Second))
	if tb.frame != nil {
		opts = append(opts, chromedp.WithPollingInFrame(tb.frame))
	}
	s, _ := chromedp.Run(tb.ctx, chromedp.Poll[string](fmt.Sprintf("JSON.stringify(document.querySelector(%q)?.textContent ?? null)", sel), opts...))
	return s
}

// eval evaluates a JavaScript expression in the widget's document and
// decodes its value into out. At the top level the expression may use
// await; in a frame it may not.
func (tb *tab) eval(expr string, out any) {
	tb.t.Helper()
	var s string
	var err error
	if tb.frame == nil {
		s, err = chromedp.Run(tb.ctx, chromedp.Evaluate[string]("(async () => JSON.stringify([await ("+expr+")]))()", chromedp.EvalAwaitPromise))
	} else {
		s, err = chromedp.Run(tb.ctx, chromedp.Poll[string]("JSON.stringify([("+expr+")])", tb.poll()...))
	}
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
	cond := fmt.Sprintf("(document.querySelector(%q)?.textContent ?? '').includes(%q)", sel, want)
	if _, err := chromedp.Run(tb.ctx, chromedp.Poll[bool]("!!("+cond+")", tb.poll()...)); err != nil {
		tb.t.Fatalf("waiting for %q in %s: %v\n%s holds %s\nslip status: %q\nnotice: %q", want, sel, err, sel, tb.peek(sel), tb.peek("#slip-status"), tb.peek("#notice"))
	}
}

func (tb *tab) click(sel string) {
	tb.t.Helper()
	tb.do(chromedp.Click(chromedp.CSS(sel), append(tb.query(), chromedp.NodeVisible)...))
}

// typeIn replaces the value of an input by typing text into it.
func (tb *tab) typeIn(sel, text string) {
	tb.t.Helper()
	var cleared bool
	tb.eval(fmt.Sprintf("(() => { const e = document.querySelector(%q); e.value = ''; e.dispatchEvent(new Event('input')); return true; })()", sel), &cleared)
	tb.do(chromedp.SendKeys(chromedp.CSS(sel), text, tb.query()...))
}

// ready waits until the widget has started (session, texts, first reads).
func (tb *tab) ready() {
	tb.t.Helper()
	tb.waitFor("the widget to start", "document.body?.dataset.ready === 'true'")
}

// screenshot saves the page as docs/screenshots/name.png when
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
	if err := os.WriteFile(filepath.Join(dir, name+".png"), png, 0o644); err != nil {
		tb.t.Fatal(err)
	}
}
