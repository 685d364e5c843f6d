// Package backofficetest holds the backoffice's end-to-end tests: a real
// Foresight server on loopback (with the sandbox operator where bets are
// needed), the backoffice driven in headless Chromium through chromedp.
//
// Chromium is found as the widget's tests find it (internal/widget/
// widgettest): FORESIGHT_CHROMIUM, else chromium, chromium-browser,
// google-chrome, … on PATH. Without one the tests are skipped, except
// under CI=true, where they fail. FORESIGHT_SCREENSHOTS=1 saves the main
// screens to docs/screenshots/backoffice-*.png.
package backofficetest

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// browser is the context of the one browser all tests share (each test
// opens its own tab); nil when no browser was found.
var (
	browser     context.Context
	browserNote string
)

// chromiumPaths are the binaries looked for, in order.
var chromiumPaths = []string{"chromium", "chromium-browser", "google-chrome", "headless_shell", "chromium-headless-shell"}

func findChromium() string {
	if p := os.Getenv("FORESIGHT_CHROMIUM"); p != "" {
		return p
	}
	for _, name := range chromiumPaths {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	return ""
}

func TestMain(m *testing.M) {
	os.Exit(run(m))
}

func run(m *testing.M) int {
	path := findChromium()
	if path == "" {
		browserNote = "no Chromium found (looked for " + strings.Join(chromiumPaths, ", ") + "; install Debian's chromium)"
		return m.Run()
	}
	// The machine's network is closed: Chromium must not try to reach
	// anything but the loopback servers of the tests.
	opts := append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(path),
		chromedp.Flag("disable-gpu", true),
		chromedp.Flag("disable-quic", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.Flag("no-first-run", true),
		chromedp.Flag("disable-background-networking", true),
	)
	alloc, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	defer cancelAlloc()
	ctx, cancel := chromedp.NewContext(alloc)
	defer cancel()
	// The first run starts the browser; its context has no time limit
	// (a limit there would kill the browser with it).
	if err := chromedp.Do(ctx); err != nil {
		browserNote = fmt.Sprintf("Chromium at %s did not start: %v", path, err)
		return m.Run()
	}
	browser = ctx
	return m.Run()
}

// needBrowser skips the test when there is no browser, or fails it under
// CI=true.
func needBrowser(t *testing.T) {
	t.Helper()
	if browser != nil {
		return
	}
	if os.Getenv("CI") == "true" {
		t.Fatalf("browser tests need Chromium under CI=true: %s", browserNote)
	}
	t.Skip(browserNote)
}

// tab is one browser tab on the backoffice.
type tab struct {
	t   *testing.T
	ctx context.Context
}

func newTab(t *testing.T) *tab {
	t.Helper()
	needBrowser(t)
	ctx, cancel := chromedp.NewContext(browser)
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
