// Package browsertest starts the one headless Chromium that a package's
// end-to-end tests share (each test opens its own tab), for the widget's
// and the backoffice's browser tests.
//
// Chromium is FORESIGHT_CHROMIUM when set, else the first of
// ChromiumNames found on PATH. Without one, Browser fails the test, or
// skips it when FORESIGHT_TEST_SKIP_MISSING=1 (see package testprereq).
package browsertest

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/foresight-dev/foresight/internal/testprereq"
)

// ChromiumNames are the binaries looked for on PATH, in order.
var ChromiumNames = []string{"chromium", "chromium-browser", "google-chrome", "headless_shell", "chromium-headless-shell"}

var (
	browser context.Context // nil when no browser started
	note    string          // why there is none
)

// Run starts the shared browser, runs the package's tests and returns
// their exit code; call it from TestMain: os.Exit(browsertest.Run(m)).
// A browser that cannot be found or started is not an error here: each
// test that needs it is failed (or skipped, see package testprereq) with the reason.
func Run(m *testing.M) int {
	path := findChromium()
	if path == "" {
		note = "no Chromium found (looked for " + strings.Join(ChromiumNames, ", ") + "; install Debian's chromium)"
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
	// A start can fail on a loaded machine (the browser does not print
	// its DevTools address in time): three tries before the tests are
	// told there is no browser.
	for try := 1; try <= 3; try++ {
		alloc, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
		ctx, cancel := chromedp.NewContext(alloc)
		// The first run starts the browser; its context has no time limit
		// (a limit there would kill the browser with it).
		err := chromedp.Do(ctx)
		if err == nil {
			defer cancelAlloc()
			defer cancel()
			browser = ctx
			break
		}
		cancel()
		cancelAlloc()
		note = fmt.Sprintf("Chromium at %s did not start in %d tries: %v", path, try, err)
	}
	return m.Run()
}

// Browser returns the shared browser's context, from which a test opens
// its tab with chromedp.NewContext. Without a browser it fails t, or skips
// it when FORESIGHT_TEST_SKIP_MISSING=1.
func Browser(t testing.TB) context.Context {
	t.Helper()
	if browser != nil {
		return browser
	}
	testprereq.Missing(t, "Chromium (for the browser tests)", note)
	return nil
}

func findChromium() string {
	if p := os.Getenv("FORESIGHT_CHROMIUM"); p != "" {
		return p
	}
	for _, name := range ChromiumNames {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	return ""
}
