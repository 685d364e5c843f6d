package browsertest

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
)

// Tab is one tab of the shared browser, driven by one test. Every step
// that fails fails the test with what the tab was doing.
type Tab struct {
	T   *testing.T
	Ctx context.Context
	// Frame, when set, is an iframe of the page (the widget in a host
	// page): queries, waits and evaluations run in its document.
	Frame *chromedp.Node
	// Notes are the selectors of the page's status lines, whose texts a
	// failed wait reports ("#notice").
	Notes []string
}

// NewTab opens a tab on the shared browser (see Browser) that closes when
// t ends and has two minutes for all it does. Each of scripts runs in
// every document the tab opens, frames too, before the document's own
// scripts (a test clock, …).
func NewTab(t *testing.T, scripts ...string) *Tab {
	t.Helper()
	ctx, cancel := chromedp.NewContext(Browser(t))
	t.Cleanup(cancel)
	for _, src := range scripts {
		err := chromedp.Do(ctx, chromedp.Func(func(ctx context.Context, _ *chromedp.Target) error {
			_, err := chromedp.Call(ctx, page.AddScriptToEvaluateOnNewDocument, page.AddScriptToEvaluateOnNewDocumentParams{Source: src})
			return err
		}))
		if err != nil {
			t.Fatalf("opening a tab: %v", err)
		}
	}
	ctx, cancelTime := context.WithTimeout(ctx, 2*time.Minute)
	t.Cleanup(cancelTime)
	return &Tab{T: t, Ctx: ctx}
}

// Do runs steps in the tab.
func (tb *Tab) Do(steps ...chromedp.Action[chromedp.Void]) {
	tb.T.Helper()
	if err := chromedp.Do(tb.Ctx, steps...); err != nil {
		tb.T.Fatalf("browser: %v", err)
	}
}

// Navigate loads url in the tab.
func (tb *Tab) Navigate(url string) {
	tb.T.Helper()
	tb.Do(chromedp.Navigate(url))
}

// Viewport sets the size of the page (phone width: 360).
func (tb *Tab) Viewport(w, h int64) {
	tb.T.Helper()
	tb.Do(chromedp.EmulateViewport(w, h))
}

// Query is the options that make a chromedp query run in the Frame (none
// without one).
func (tb *Tab) Query() []chromedp.QueryOption {
	if tb.Frame != nil {
		return []chromedp.QueryOption{chromedp.FromNode(tb.Frame)}
	}
	return nil
}

func (tb *Tab) poll(timeout time.Duration) []chromedp.PollOption {
	opts := []chromedp.PollOption{chromedp.WithPollingInterval(20 * time.Millisecond), chromedp.WithPollingTimeout(timeout)}
	if tb.Frame != nil {
		opts = append(opts, chromedp.WithPollingInFrame(tb.Frame))
	}
	return opts
}

// WaitFor waits until the JavaScript condition is true in the document;
// what explains the condition in a failure, which also reports the texts
// of the Notes.
func (tb *Tab) WaitFor(what, cond string) {
	tb.T.Helper()
	if _, err := chromedp.Run(tb.Ctx, chromedp.Poll[bool]("!!("+cond+")", tb.poll(30*time.Second)...)); err != nil {
		tb.T.Fatalf("waiting for %s (%s): %v%s", what, cond, err, tb.notes())
	}
}

func (tb *Tab) notes() string {
	s := ""
	for _, sel := range tb.Notes {
		s += fmt.Sprintf("\n%s: %s", sel, tb.Peek(sel))
	}
	return s
}

// Peek reads an element's text, as JSON (null when there is none),
// without failing the test: for diagnostics.
func (tb *Tab) Peek(sel string) string {
	s, _ := chromedp.Run(tb.Ctx, chromedp.Poll[string](fmt.Sprintf("JSON.stringify(document.querySelector(%q)?.textContent ?? null)", sel), tb.poll(time.Second)...))
	if len(s) > 2000 {
		s = s[:2000] + "…"
	}
	return s
}

// Eval evaluates a JavaScript expression in the document and decodes its
// value into out. At the top level the expression may use await; in a
// frame it may not.
func (tb *Tab) Eval(expr string, out any) {
	tb.T.Helper()
	var s string
	var err error
	if tb.Frame == nil {
		s, err = chromedp.Run(tb.Ctx, chromedp.Evaluate[string]("(async () => JSON.stringify([await ("+expr+")]))()", chromedp.EvalAwaitPromise))
	} else {
		s, err = chromedp.Run(tb.Ctx, chromedp.Poll[string]("JSON.stringify([("+expr+")])", tb.poll(30*time.Second)...))
	}
	if err != nil {
		tb.T.Fatalf("evaluating %s: %v", expr, err)
	}
	var one []json.RawMessage
	if err := json.Unmarshal([]byte(s), &one); err != nil || len(one) != 1 {
		tb.T.Fatalf("evaluating %s: %s", expr, s)
	}
	if err := json.Unmarshal(one[0], out); err != nil {
		tb.T.Fatalf("evaluating %s: %s: %v", expr, one[0], err)
	}
}

// Call imports the ES module at path (relative to the page, "js/rules.js")
// and decodes into out the value of expr evaluated with the module bound
// to m ("m.pollWaits()"). Not in a frame.
func (tb *Tab) Call(path, expr string, out any) {
	tb.T.Helper()
	tb.Eval(fmt.Sprintf("await (async () => { const m = await import('./%s'); return %s; })()", path, expr), out)
}

// Text is the trimmed text of the first element sel matches ("" for none).
func (tb *Tab) Text(sel string) string {
	tb.T.Helper()
	var s string
	tb.Eval(fmt.Sprintf("(document.querySelector(%q)?.textContent ?? '').trim()", sel), &s)
	return s
}

// WaitText waits until the element's text contains want.
func (tb *Tab) WaitText(sel, want string) {
	tb.T.Helper()
	cond := fmt.Sprintf("(document.querySelector(%q)?.textContent ?? '').includes(%q)", sel, want)
	if _, err := chromedp.Run(tb.Ctx, chromedp.Poll[bool]("!!("+cond+")", tb.poll(30*time.Second)...)); err != nil {
		tb.T.Fatalf("waiting for %q in %s: %v\n%s holds %s%s", want, sel, err, sel, tb.Peek(sel), tb.notes())
	}
}

// Click clicks the element sel matches once it is visible.
func (tb *Tab) Click(sel string) {
	tb.T.Helper()
	tb.Do(chromedp.Click(chromedp.CSS(sel), append(tb.Query(), chromedp.NodeVisible)...))
}

// TypeIn replaces the value of an input by typing text into it. It waits
// until the input exists and takes the focus (a page still drawing may
// hide or disable it for a moment), empties it, then types as a user
// would, key by key.
func (tb *Tab) TypeIn(sel, text string) {
	tb.T.Helper()
	tb.WaitFor(sel+" to take the focus", fmt.Sprintf("(() => { const e = document.querySelector(%q); if (!e) return false; e.focus(); if (document.activeElement !== e) return false; e.value = ''; e.dispatchEvent(new Event('input', {bubbles: true})); return true; })()", sel))
	tb.Do(chromedp.KeyEvent(text))
}

// Screenshot saves the page as docs/screenshots/name.png when
// FORESIGHT_SCREENSHOTS is set (the test runs in a package two levels
// below internal/).
func (tb *Tab) Screenshot(name string) {
	tb.T.Helper()
	if os.Getenv("FORESIGHT_SCREENSHOTS") == "" {
		return
	}
	png, err := chromedp.Run(tb.Ctx, chromedp.FullScreenshot(100))
	if err != nil {
		tb.T.Fatalf("screenshot: %v", err)
	}
	dir := filepath.Join("..", "..", "..", "docs", "screenshots")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		tb.T.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, name+".png"), png, 0o644); err != nil {
		tb.T.Fatal(err)
	}
}
