package simulator

import (
	"bytes"
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"net/http"
	"path"
	"strings"
	"sync"
	"time"
)

// ImagesPath is where the server should mount Images, and the path of
// Config.ImageBaseURL: "https://<host>/feed/simulator/images".
const ImagesPath = "/feed/simulator/images/"

//go:embed images/*.svg
var imageFiles embed.FS

type image struct {
	body []byte
	etag string
}

var images = sync.OnceValue(func() map[string]image {
	entries, _ := imageFiles.ReadDir("images") // embedded: cannot fail
	m := make(map[string]image, len(entries))
	for _, e := range entries {
		body, _ := imageFiles.ReadFile("images/" + e.Name())
		sum := sha256.Sum256(body)
		m[e.Name()] = image{body: body, etag: `"` + hex.EncodeToString(sum[:8]) + `"`}
	}
	return m
})

// Images returns a handler that serves the events' images, GET and HEAD
// only: the last element of the request path names the image
// ("sports-ball.svg"), so it works mounted at ImagesPath with or without
// http.StripPrefix. An image is served as image/svg+xml with Cache-Control
// "public, max-age=86400", a strong ETag (conditional requests answer 304)
// and a Content-Security-Policy that forbids scripts; an unknown name is 404
// and another method 405.
func Images() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodGet && r.Method != http.MethodHead {
			w.Header().Set("Allow", "GET, HEAD")
			http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
			return
		}
		name := path.Base(r.URL.Path)
		img, ok := images()[name]
		if !ok || strings.HasSuffix(r.URL.Path, "/") {
			http.NotFound(w, r)
			return
		}
		h := w.Header()
		h.Set("Content-Type", "image/svg+xml")
		h.Set("Cache-Control", "public, max-age=86400")
		h.Set("ETag", img.etag)
		h.Set("X-Content-Type-Options", "nosniff")
		h.Set("Content-Security-Policy", "default-src 'none'; style-src 'unsafe-inline'; sandbox")
		http.ServeContent(w, r, name, time.Time{}, bytes.NewReader(img.body))
	})
}
