// Package webpage serves the platform's two browser pages, the bettor
// widget (internal/widget) and the backoffice (internal/backoffice), from
// files embedded in the binary, and holds the ES modules both pages share.
// Neither page has a build step: its files are plain ES modules, served as
// they are.
//
// The shared files live in this package's js and css directories, one
// copy each, and every page serves them beside its own files under the
// same names, so a page imports them as "./decimal.js" from its own
// origin (its Content-Security-Policy keeps script-src 'self'):
//
//   - js/decimal.js: exact decimal arithmetic on the APIs' decimal strings,
//     with BigInt (no float ever holds an amount, odds or a probability);
//   - js/exchange.js: one HTTP exchange (fetch with a time limit, the JSON
//     body, a problem body's message), which both pages' API clients use;
//   - js/elements.js: building elements and SVG nodes from data without
//     ever parsing it as HTML;
//   - js/steps.js: the vertices of a stepped line over time, the shape of
//     both pages' price charts;
//   - css/palette.css: the colours both pages share;
//   - js/format.js: the display rule of odds and amounts, which is
//     internal/display's (see there).
//
// A page's own file may not carry the name of a shared one: Handler
// panics, since the page would otherwise never see its own file.
package webpage

import (
	"bytes"
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"io/fs"
	"mime"
	"net/http"
	"path"
	"strings"
	"time"

	"github.com/foresight-dev/foresight/internal/display"
)

//go:embed js css
var shared embed.FS

// Page is one page: where it is served, its own files and the headers
// that are its own.
type Page struct {
	// Root is the path the page is served under, with both slashes
	// ("/widget/"); Root itself answers the page's index.html.
	Root string
	// Files hold the page's own files in their directory Dir (Files'
	// root when ""), named there as under Root (index.html, js/main.js,
	// css/page.css, …).
	Files fs.FS
	Dir   string
	// Headers sets the page's own headers of an answer (its
	// Content-Security-Policy at least) for the file name (relative to
	// Root) that r asked for. It runs after the headers every page shares:
	// Content-Type, ETag, Cache-Control: no-cache, X-Content-Type-Options:
	// nosniff and Referrer-Policy: no-referrer.
	Headers func(h http.Header, r *http.Request, name string)
}

// file is one embedded file, ready to serve.
type file struct {
	body        []byte
	contentType string
	etag        string
}

type handler struct {
	page    Page
	files   map[string]file
	modTime time.Time
}

// Handler serves the page's files and the shared modules under p.Root to
// GET and HEAD (405 to any other method, 404 to a name it does not have).
// Every file is revalidated on each use (Cache-Control: no-cache, a 304
// for an unchanged ETag), so that a page never mixes the modules of two
// releases. It panics when p.Files cannot be read or holds a file named
// as a shared module: both are mistakes in the binary itself.
func Handler(p Page) http.Handler {
	h := &handler{page: p, files: map[string]file{}, modTime: time.Now()}
	err := h.add(shared, "")
	if err == nil {
		h.files[display.ModulePath] = newFile(display.ModulePath, display.Module)
		own := p.Files
		if p.Dir != "" {
			own, err = fs.Sub(p.Files, p.Dir)
		}
		if err == nil {
			err = h.add(own, "")
		}
	}
	if err != nil {
		panic("webpage: reading the files of " + p.Root + ": " + err.Error())
	}
	return h
}

// add adds the files of fsys, each named prefix + its path, and refuses a
// name that is already taken.
func (h *handler) add(fsys fs.FS, prefix string) error {
	return fs.WalkDir(fsys, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		body, err := fs.ReadFile(fsys, p)
		if err != nil {
			return err
		}
		name := prefix + p
		if _, taken := h.files[name]; taken {
			return &fs.PathError{Op: "add", Path: name, Err: fs.ErrExist}
		}
		h.files[name] = newFile(name, body)
		return nil
	})
}

// contentTypes are the types of the pages' files, set explicitly so that
// they do not depend on the machine's MIME tables (a module served as
// text/plain does not run).
var contentTypes = map[string]string{
	".html": "text/html; charset=utf-8",
	".js":   "text/javascript; charset=utf-8",
	".css":  "text/css; charset=utf-8",
	".json": "application/json",
	".svg":  "image/svg+xml",
	".png":  "image/png",
}

// newFile is the file named name (its extension gives its type) with body.
func newFile(name string, body []byte) file {
	sum := sha256.Sum256(body)
	return file{body: body, contentType: contentType(name), etag: `"` + hex.EncodeToString(sum[:12]) + `"`}
}

func contentType(name string) string {
	if t, ok := contentTypes[path.Ext(name)]; ok {
		return t
	}
	return mime.TypeByExtension(path.Ext(name))
}

func (h *handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		w.Header().Set("Allow", "GET, HEAD")
		http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
		return
	}
	name, ok := strings.CutPrefix(r.URL.Path, h.page.Root)
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
	hd.Set("Cache-Control", "no-cache")
	hd.Set("X-Content-Type-Options", "nosniff")
	// A page's URL may hold a secret (the widget's session_request_id): no
	// Referer leaves it.
	hd.Set("Referrer-Policy", "no-referrer")
	if h.page.Headers != nil {
		h.page.Headers(hd, r, name)
	}
	http.ServeContent(w, r, name, h.modTime, bytes.NewReader(f.body))
}
