// Package widget serves the bettor widget at /widget/: a static page of
// plain ES modules (no build step), embedded in the binary, that an
// operator's page loads in an iframe with
//
//	/widget/?operator=<OPERATOR_ID>&session_request_id=<id>&locale=<tag>&theme=light|dark
//
// (the aggregator's launch URL adds integration=aggregator and, for a demo,
// demo=true). The page exchanges the session_request_id where the
// operator's public widget configuration says (GET
// /api/v1/widget/operators/{id}: the operator's POST /v1/session, or the
// platform's POST /api/v1/sessions for an aggregator) and calls the bettor
// API with the token it gets. The betting rules the page keeps (payout
// rounding, the poll schedule, the messages of rejection codes, …) live in
// its own modules under static/js, which the browser tests in
// internal/widget/widgettest exercise. What it shares with the backoffice
// (decimal arithmetic, the HTTP exchange, the element builder, the
// palette and internal/display's format.js, the display rule of odds and
// amounts) is internal/webpage's, which also serves the files.
//
// Every answer carries a Content-Security-Policy: scripts, styles and
// fonts only from the widget's own origin, no inline code, and network
// calls only to the widget's own origin plus, on the page itself, the
// origin of the operator's session endpoint (looked up per request from
// the operator query parameter). Any page may frame the widget
// (frame-ancestors *): operators and the casinos of aggregators embed it
// from origins the platform does not know.
package widget

import (
	"context"
	"embed"
	"net/http"
	"net/url"
	"strings"

	"github.com/foresight-dev/foresight/internal/betting"
	"github.com/foresight-dev/foresight/internal/webpage"
)

//go:embed static
var static embed.FS

// Operators reads an operator by id; the server passes the betting
// service's cached read (betting.Service.CachedOperator).
type Operators func(ctx context.Context, id string) (betting.Operator, error)

type page struct {
	operators Operators
}

// Handler serves the widget's files, and the modules it shares with the
// backoffice (internal/webpage), under /widget/. operators finds the
// origin of an operator's session endpoint for the page's
// Content-Security-Policy; nil allows network calls to the widget's own
// origin only (enough for the aggregator path).
func Handler(operators Operators) http.Handler {
	p := &page{operators: operators}
	return webpage.Handler(webpage.Page{Root: "/widget/", Files: static, Dir: "static", Headers: p.headers})
}

// headers sets the widget's own header: its Content-Security-Policy.
func (p *page) headers(h http.Header, r *http.Request, name string) {
	h.Set("Content-Security-Policy", p.policy(r, name))
}

// policy is the Content-Security-Policy of a file. The page may also
// connect to the origin of the operator's session endpoint, which it calls
// from the browser before it holds a token.
func (p *page) policy(r *http.Request, name string) string {
	connect := "'self'"
	if name == "index.html" {
		if o := p.sessionOrigin(r); o != "" {
			connect += " " + o
		}
	}
	return "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' https: data:; font-src 'self'; " +
		"connect-src " + connect + "; base-uri 'none'; form-action 'none'; frame-ancestors *"
}

// sessionOrigin is the origin of the session endpoint of the operator the
// query names, or "" when there is none to add (no such operator, an
// aggregator, which uses the platform's own endpoint, or a lookup error:
// the page then shows that it cannot start).
func (p *page) sessionOrigin(r *http.Request) string {
	id := r.URL.Query().Get("operator")
	if p.operators == nil || id == "" || len(id) > 255 {
		return ""
	}
	op, err := p.operators(r.Context(), id)
	if err != nil || op.Integration != betting.IntegrationStandalone {
		return ""
	}
	u, err := url.Parse(op.SessionEndpoint())
	if err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" || strings.ContainsAny(u.Host, " ;,'\"") {
		return ""
	}
	return u.Scheme + "://" + u.Host
}
