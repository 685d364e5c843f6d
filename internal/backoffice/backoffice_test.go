package backoffice_test

import (
	"bytes"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/foresight-dev/foresight/internal/backoffice"
	"github.com/foresight-dev/foresight/internal/display"
)

func TestFiles(t *testing.T) {
	h := backoffice.Handler()
	tests := []struct {
		method, path, contentType string
		status                    int
	}{
		{"GET", "/backoffice/", "text/html; charset=utf-8", 200},
		{"HEAD", "/backoffice/", "text/html; charset=utf-8", 200},
		{"GET", "/backoffice/index.html", "text/html; charset=utf-8", 200},
		{"GET", "/backoffice/js/main.js", "text/javascript; charset=utf-8", 200},
		{"GET", "/backoffice/js/api.js", "text/javascript; charset=utf-8", 200},
		{"GET", "/backoffice/css/backoffice.css", "text/css; charset=utf-8", 200},
		{"GET", "/backoffice/nope.js", "text/plain; charset=utf-8", 404},
		{"GET", "/backoffice/js/", "text/plain; charset=utf-8", 404},
		{"GET", "/backoffice/../backoffice.go", "text/plain; charset=utf-8", 404},
		{"GET", "/widget/", "text/plain; charset=utf-8", 404},
		{"POST", "/backoffice/", "text/plain; charset=utf-8", 405},
		{"DELETE", "/backoffice/js/main.js", "text/plain; charset=utf-8", 405},
	}
	for _, tc := range tests {
		t.Run(tc.method+" "+tc.path, func(t *testing.T) {
			rec := httptest.NewRecorder()
			h.ServeHTTP(rec, httptest.NewRequest(tc.method, tc.path, nil))
			if rec.Code != tc.status || rec.Header().Get("Content-Type") != tc.contentType {
				t.Fatalf("%s %s = %d %q, want %d %q", tc.method, tc.path, rec.Code, rec.Header().Get("Content-Type"), tc.status, tc.contentType)
			}
			if tc.status == 405 && rec.Header().Get("Allow") != "GET, HEAD" {
				t.Errorf("Allow = %q, want GET, HEAD", rec.Header().Get("Allow"))
			}
			if tc.status != 200 {
				return
			}
			for k, want := range map[string]string{
				"Cache-Control":           "no-cache",
				"X-Content-Type-Options":  "nosniff",
				"X-Frame-Options":         "DENY",
				"Referrer-Policy":         "no-referrer",
				"Content-Security-Policy": backoffice.Policy,
			} {
				if got := rec.Header().Get(k); got != want {
					t.Errorf("%s = %q, want %q", k, got, want)
				}
			}
			if rec.Header().Get("ETag") == "" {
				t.Error("no ETag")
			}
		})
	}
}

// TestPolicy: scripts and calls only from the backoffice's own origin, no
// inline code, no framing.
func TestPolicy(t *testing.T) {
	for _, want := range []string{"default-src 'none'", "script-src 'self'", "connect-src 'self'", "frame-ancestors 'none'", "base-uri 'none'"} {
		if !strings.Contains(backoffice.Policy, want) {
			t.Errorf("policy %q lacks %q", backoffice.Policy, want)
		}
	}
	if strings.Contains(backoffice.Policy, "unsafe") {
		t.Errorf("policy %q allows unsafe code", backoffice.Policy)
	}
}

func TestRevalidation(t *testing.T) {
	h := backoffice.Handler()
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest("GET", "/backoffice/js/main.js", nil))
	req := httptest.NewRequest("GET", "/backoffice/js/main.js", nil)
	req.Header.Set("If-None-Match", rec.Header().Get("ETag"))
	rec = httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	if rec.Code != http.StatusNotModified || rec.Body.Len() != 0 {
		t.Errorf("If-None-Match = %d with %d bytes, want 304 and no body", rec.Code, rec.Body.Len())
	}
}

// TestNoHTMLFromData: the page never parses strings as HTML (data from the
// API could carry markup), and has no inline script or handler the policy
// would block anyway.
func TestNoHTMLFromData(t *testing.T) {
	banned := regexp.MustCompile(`innerHTML|outerHTML|insertAdjacentHTML|document\.write|\beval\(|new Function`)
	inline := regexp.MustCompile(`<script>|<script [^>]*>[^<]|\son[a-z]+=|style=`)
	err := fs.WalkDir(os.DirFS("static"), ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile("static/" + p)
		if err != nil {
			return err
		}
		if strings.HasSuffix(p, ".js") && banned.Match(b) {
			t.Errorf("%s uses %s", p, banned.Find(b))
		}
		if strings.HasSuffix(p, ".html") && inline.Match(b) {
			t.Errorf("%s has inline code or style: %s", p, inline.Find(b))
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// TestSharedDisplayRule: js/format.js is the display rule the widget
// serves too (internal/display), byte for byte, as a JavaScript module.
func TestSharedDisplayRule(t *testing.T) {
	rec := httptest.NewRecorder()
	backoffice.Handler().ServeHTTP(rec, httptest.NewRequest("GET", "/backoffice/js/format.js", nil))
	if rec.Code != 200 || rec.Header().Get("Content-Type") != "text/javascript; charset=utf-8" || !bytes.Equal(rec.Body.Bytes(), display.Module) {
		t.Errorf("GET /backoffice/js/format.js = %d %q, %d bytes; want internal/display's module", rec.Code, rec.Header().Get("Content-Type"), rec.Body.Len())
	}
	if _, err := os.Stat("static/js/format.js"); err == nil {
		t.Error("static/js/format.js would be a second copy of the display rule")
	}
}
