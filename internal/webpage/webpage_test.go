package webpage_test

import (
	"net/http"
	"net/http/httptest"
	"os"
	"regexp"
	"testing"
	"testing/fstest"

	"github.com/foresight-dev/foresight/internal/webpage"
)

func page(files fstest.MapFS) webpage.Page {
	return webpage.Page{Root: "/page/", Files: files, Headers: func(h http.Header, _ *http.Request, name string) {
		h.Set("Content-Security-Policy", "policy of "+name)
	}}
}

// TestFiles: a page's own files and the shared ones under the page's
// root; nothing else, and only to GET and HEAD.
func TestFiles(t *testing.T) {
	h := webpage.Handler(page(fstest.MapFS{"index.html": {Data: []byte("<!doctype html>")}, "js/main.js": {Data: []byte("export {};")}}))
	tests := []struct {
		method, path string
		want         int
		contentType  string
	}{
		{"GET", "/page/", 200, "text/html; charset=utf-8"},
		{"HEAD", "/page/index.html", 200, "text/html; charset=utf-8"},
		{"GET", "/page/js/main.js", 200, "text/javascript; charset=utf-8"},
		{"GET", "/page/js/decimal.js", 200, "text/javascript; charset=utf-8"},
		{"GET", "/page/js/exchange.js", 200, "text/javascript; charset=utf-8"},
		{"GET", "/page/js/elements.js", 200, "text/javascript; charset=utf-8"},
		{"GET", "/page/js/steps.js", 200, "text/javascript; charset=utf-8"},
		{"GET", "/page/js/format.js", 200, "text/javascript; charset=utf-8"},
		{"GET", "/page/css/palette.css", 200, "text/css; charset=utf-8"},
		{"GET", "/page/decimal.js", 404, ""},
		{"GET", "/page/js/../js/main.js", 404, ""},
		{"GET", "/other/", 404, ""},
		{"POST", "/page/", 405, ""},
	}
	for _, tc := range tests {
		rec := httptest.NewRecorder()
		req := httptest.NewRequest(tc.method, "/", nil)
		req.URL.Path = tc.path
		h.ServeHTTP(rec, req)
		if rec.Code != tc.want || tc.contentType != "" && rec.Header().Get("Content-Type") != tc.contentType {
			t.Errorf("%s %s = %d %q, want %d %q", tc.method, tc.path, rec.Code, rec.Header().Get("Content-Type"), tc.want, tc.contentType)
		}
	}
}

// TestHeaders: the headers every page shares, then the page's own for the
// file asked for.
func TestHeaders(t *testing.T) {
	h := webpage.Handler(page(fstest.MapFS{"index.html": {Data: []byte("<!doctype html>")}}))
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest("GET", "/page/js/decimal.js", nil))
	got := rec.Header()
	if got.Get("Cache-Control") != "no-cache" || got.Get("X-Content-Type-Options") != "nosniff" || got.Get("Referrer-Policy") != "no-referrer" ||
		got.Get("ETag") == "" || got.Get("Content-Security-Policy") != "policy of js/decimal.js" {
		t.Errorf("headers %v", got)
	}
}

// TestShadowedModule: a page's own file named as a shared module is a
// mistake Handler refuses (the page would never see its own file).
func TestShadowedModule(t *testing.T) {
	for _, name := range []string{"js/decimal.js", "js/format.js"} {
		t.Run(name, func(t *testing.T) {
			defer func() {
				if recover() == nil {
					t.Errorf("Handler served a page with its own %s", name)
				}
			}()
			webpage.Handler(page(fstest.MapFS{"index.html": {Data: []byte("<!doctype html>")}, name: {Data: []byte("export {};")}}))
		})
	}
}

// TestNoHTMLFromData: the shared modules never parse strings as HTML (data
// from the APIs could carry markup).
func TestNoHTMLFromData(t *testing.T) {
	banned := regexp.MustCompile(`innerHTML|outerHTML|insertAdjacentHTML|document\.write|\beval\(|new Function`)
	entries, err := os.ReadDir("js")
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		b, err := os.ReadFile("js/" + e.Name())
		if err != nil {
			t.Fatal(err)
		}
		if banned.Match(b) {
			t.Errorf("js/%s uses %s", e.Name(), banned.Find(b))
		}
	}
}
