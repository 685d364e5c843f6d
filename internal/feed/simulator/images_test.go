package simulator

import (
	"bytes"
	"encoding/xml"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

func TestImagesHandler(t *testing.T) {
	h := Images()
	etag := images()["sports-ball.svg"].etag
	tests := []struct {
		name, method, path string
		header             map[string]string
		status             int
		svg                bool // the body is the SVG
	}{
		{"mounted path", http.MethodGet, ImagesPath + "sports-ball.svg", nil, http.StatusOK, true},
		{"prefix stripped", http.MethodGet, "/sports-ball.svg", nil, http.StatusOK, true},
		{"head", http.MethodHead, ImagesPath + "climate-storm.svg", nil, http.StatusOK, false},
		{"not modified", http.MethodGet, ImagesPath + "sports-ball.svg", map[string]string{"If-None-Match": etag}, http.StatusNotModified, false},
		{"unknown name", http.MethodGet, ImagesPath + "sports-golf.svg", nil, http.StatusNotFound, false},
		{"directory", http.MethodGet, ImagesPath, nil, http.StatusNotFound, false},
		{"trailing slash", http.MethodGet, ImagesPath + "sports-ball.svg/", nil, http.StatusNotFound, false},
		{"not an svg", http.MethodGet, ImagesPath + "images", nil, http.StatusNotFound, false},
		{"post", http.MethodPost, ImagesPath + "sports-ball.svg", nil, http.StatusMethodNotAllowed, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			req := httptest.NewRequest(tt.method, tt.path, nil)
			for k, v := range tt.header {
				req.Header.Set(k, v)
			}
			rec := httptest.NewRecorder()
			h.ServeHTTP(rec, req)
			res := rec.Result()
			if res.StatusCode != tt.status {
				t.Fatalf("status %d, want %d", res.StatusCode, tt.status)
			}
			if tt.status == http.StatusOK {
				for k, want := range map[string]string{
					"Content-Type":           "image/svg+xml",
					"Cache-Control":          "public, max-age=86400",
					"X-Content-Type-Options": "nosniff",
				} {
					if got := res.Header.Get(k); got != want {
						t.Errorf("%s: %q, want %q", k, got, want)
					}
				}
				if res.Header.Get("ETag") == "" || !strings.Contains(res.Header.Get("Content-Security-Policy"), "default-src 'none'") {
					t.Errorf("headers %v", res.Header)
				}
			}
			body, _ := io.ReadAll(res.Body)
			if tt.svg != bytes.HasPrefix(body, []byte("<svg ")) {
				t.Errorf("body %.40q", body)
			}
			if tt.status == http.StatusMethodNotAllowed && res.Header.Get("Allow") != "GET, HEAD" {
				t.Errorf("Allow %q", res.Header.Get("Allow"))
			}
		})
	}
}

// TestImageFiles checks that every image is a self-contained SVG: well
// formed, with a viewBox, and without scripts, text (fonts) or references
// to other resources.
func TestImageFiles(t *testing.T) {
	if len(images()) < 12 {
		t.Errorf("%d images, want two per category", len(images()))
	}
	for name, img := range images() {
		d := xml.NewDecoder(bytes.NewReader(img.body))
		root := true
		for {
			tok, err := d.Token()
			if errors.Is(err, io.EOF) {
				break
			}
			if err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			el, ok := tok.(xml.StartElement)
			if !ok {
				continue
			}
			switch el.Name.Local {
			case "script", "text", "image", "use", "foreignObject", "style", "a":
				t.Errorf("%s: <%s>", name, el.Name.Local)
			}
			hasViewBox := false
			for _, a := range el.Attr {
				if a.Name.Local == "href" || strings.Contains(a.Value, "url(") || strings.HasPrefix(a.Name.Local, "on") {
					t.Errorf("%s: attribute %s=%q", name, a.Name.Local, a.Value)
				}
				hasViewBox = hasViewBox || a.Name.Local == "viewBox"
			}
			if root && (el.Name.Local != "svg" || !hasViewBox) {
				t.Errorf("%s: root <%s> without viewBox", name, el.Name.Local)
			}
			root = false
		}
	}
}
