// Package backoffice serves the backoffice at /backoffice/: a single page
// of plain ES modules (no build step), embedded in the binary, that drives
// the admin API (/admin/v1) from the browser with the admin token as a
// bearer token. The page asks for the token, checks it with a cheap admin
// call and keeps it in the tab's sessionStorage only; signing out forgets
// it. What it shares with the widget (decimal arithmetic, the HTTP
// exchange, the element builder, the palette and internal/display's
// format.js, the display rule of amounts) is internal/webpage's, which
// also serves the files.
//
// Every answer carries a strict Content-Security-Policy: scripts, styles,
// images and network calls only from the backoffice's own origin, no
// inline code, and no framing by any page (the backoffice holds the admin
// token: a frame could trick its user into clicks).
package backoffice

import (
	"embed"
	"net/http"

	"github.com/foresight-dev/foresight/internal/webpage"
)

//go:embed static
var static embed.FS

// Policy is the Content-Security-Policy of every backoffice answer.
const Policy = "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; " +
	"base-uri 'none'; form-action 'none'; frame-ancestors 'none'"

// Handler serves the backoffice's files, and the modules it shares with
// the widget (internal/webpage), under /backoffice/ (the page at
// /backoffice/ itself). The page calls /admin/v1 on the same origin.
func Handler() http.Handler {
	return webpage.Handler(webpage.Page{Root: "/backoffice/", Files: static, Dir: "static", Headers: headers})
}

// headers sets the backoffice's own headers: its Content-Security-Policy
// and, for browsers that do not read frame-ancestors, no framing.
func headers(h http.Header, _ *http.Request, _ string) {
	h.Set("X-Frame-Options", "DENY")
	h.Set("Content-Security-Policy", Policy)
}
