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
// internal/widget/widgettest exercise; js/format.js, the display rule of
// odds and amounts, is internal/display's, shared with the backoffice.
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
	"bytes"
	"context"
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"io/fs"
	"mime"
	"net/http"
	"net/url"
	"path"
	"strings"
	"time"

	"github.com/foresight-dev/foresight/internal/betting"
	"github.com/foresight-dev/foresight/internal/display"
)

//go:embed static
var static embed.FS

// Operators reads an operator by id; the server passes the betting
// service's cached read (betting.Service.CachedOperator).
type Operators func(ctx context.Context, id string) (betting.Operator, error)

// file is one embedded file, ready to serve.
type file struct {
	body        []byte
	contentType string
	etag        string
}

type handler struct {
	files     map[string]file
	operators Operators
	modTime   time.Time
}

// Handler serves the widget's files under /widget/. operators finds the
// origin of an operator's session endpoint for the page's
// Content-Security-Policy; nil allows network calls to the widget's own
// origin only (enough for the aggregator path).
func Handler(operators Operators) http.Handler {
	h := &handler{files: map[string]file{}, operators: operators, modTime: time.Now()}
	err := fs.WalkDir(static, "static", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		body, err := static.ReadFile(p)
		if err != nil {
			return err
		}
		h.files[strings.TrimPrefix(p, "static/")] = newFile(p, body)
		return nil
	})
	if err != nil {
		panic("widget: reading the embedded files: " + err.Error()) // the files are compiled in: this cannot happen
	}
	h.files[display.ModulePath] = newFile(display.ModulePath, display.Module)
	return h
}

// contentTypes are the types of the widget's files, set explicitly so
// that they do not depend on the machine's MIME tables (a module served
// as text/plain does not run).
var contentTypes = map[string]string{
	".html": "text/html; charset=utf-8",
	".js":   "text/javascript; charset=utf-8",
	".css":  "text/css; charset=utf-8",
	".json": "application/json",
	".svg":  "image/svg+xml",
	".png":  "image/png",
}

// newFile is the file at path p (its extension gives its type) with body.
func newFile(p string, body []byte) file {
	sum := sha256.Sum256(body)
	return file{body: body, contentType: contentType(p), etag: `"` + hex.EncodeToString(sum[:12]) + `"`}
}

func contentType(p string) string {
	if t, ok := contentTypes[path.Ext(p)]; ok {
		return t
	}
	return mime.TypeByExtension(path.Ext(p))
}

func (h *handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		w.Header().Set("Allow", "GET, HEAD")
		http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
		return
	}
	name, ok := strings.CutPrefix(r.URL.Path, "/widget/")
	if !ok {
		http.NotFound(w, r)
		return
	}
	if name == "" {
		name = "index.html"
	}
	f, ok := h.files[name]
	if !ok || strings.Contains(name, "..") {
		http.NotFound(w, r)
		return
	}
	hd := w.Header()
	hd.Set("Content-Type", f.contentType)
	hd.Set("ETag", f.etag)
	// Files keep their names from release to release: revalidate every
	// time (a 304 when unchanged) so that a page never mixes modules of
	// two releases.
	hd.Set("Cache-Control", "no-cache")
	hd.Set("X-Content-Type-Options", "nosniff")
	// The page's URL holds the session_request_id: no Referer leaves it.
	hd.Set("Referrer-Policy", "no-referrer")
	hd.Set("Content-Security-Policy", h.policy(r, name))
	http.ServeContent(w, r, name, h.modTime, bytes.NewReader(f.body))
}

// policy is the Content-Security-Policy of a file. The page may also
// connect to the origin of the operator's session endpoint, which it calls
// from the browser before it holds a token.
func (h *handler) policy(r *http.Request, name string) string {
	connect := "'self'"
	if name == "index.html" {
		if o := h.sessionOrigin(r); o != "" {
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
func (h *handler) sessionOrigin(r *http.Request) string {
	id := r.URL.Query().Get("operator")
	if h.operators == nil || id == "" || len(id) > 255 {
		return ""
	}
	op, err := h.operators(r.Context(), id)
	if err != nil || op.Integration != betting.IntegrationStandalone {
		return ""
	}
	u, err := url.Parse(op.SessionEndpoint())
	if err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" || strings.ContainsAny(u.Host, " ;,'\"") {
		return ""
	}
	return u.Scheme + "://" + u.Host
}
