// Package backoffice serves the backoffice at /backoffice/: a single page
// of plain ES modules (no build step), embedded in the binary, that drives
// the admin API (/admin/v1) from the browser with the admin token as a
// bearer token. The page asks for the token, checks it with a cheap admin
// call and keeps it in the tab's sessionStorage only; signing out forgets
// it. Its js/format.js, the display rule of amounts, is internal/display's,
// shared with the widget.
//
// Every answer carries a strict Content-Security-Policy: scripts, styles,
// images and network calls only from the backoffice's own origin, no
// inline code, and no framing by any page (the backoffice holds the admin
// token: a frame could trick its user into clicks).
package backoffice

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

//go:embed static
var static embed.FS

// Policy is the Content-Security-Policy of every backoffice answer.
const Policy = "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; " +
	"base-uri 'none'; form-action 'none'; frame-ancestors 'none'"

// file is one embedded file, ready to serve.
type file struct {
	body        []byte
	contentType string
	etag        string
}

type handler struct {
	files   map[string]file
	modTime time.Time
}

// Handler serves the backoffice's files under /backoffice/ (the page at
// /backoffice/ itself). The page calls /admin/v1 on the same origin.
func Handler() http.Handler {
	h := &handler{files: map[string]file{}, modTime: time.Now()}
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
		panic("backoffice: reading the embedded files: " + err.Error()) // the files are compiled in: this cannot happen
	}
	h.files[display.ModulePath] = newFile(display.ModulePath, display.Module)
	return h
}

// contentTypes are the types of the backoffice's files, set explicitly so
// that they do not depend on the machine's MIME tables (a module served as
// text/plain does not run).
var contentTypes = map[string]string{
	".html": "text/html; charset=utf-8",
	".js":   "text/javascript; charset=utf-8",
	".css":  "text/css; charset=utf-8",
	".svg":  "image/svg+xml",
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
	name, ok := strings.CutPrefix(r.URL.Path, "/backoffice/")
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
	hd.Set("X-Frame-Options", "DENY")
	hd.Set("Referrer-Policy", "no-referrer")
	hd.Set("Content-Security-Policy", Policy)
	http.ServeContent(w, r, name, h.modTime, bytes.NewReader(f.body))
}
