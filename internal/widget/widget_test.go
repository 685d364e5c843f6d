package widget_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/foresight-dev/foresight/internal/betting"
	"github.com/foresight-dev/foresight/internal/display"
	"github.com/foresight-dev/foresight/internal/widget"
)

func operators(_ context.Context, id string) (betting.Operator, error) {
	switch id {
	case "acme":
		return betting.Operator{ID: id, Integration: betting.IntegrationStandalone, WalletURL: "https://wallet.acme.example/base"}, nil
	case "own-session":
		return betting.Operator{ID: id, Integration: betting.IntegrationStandalone, WalletURL: "https://wallet.example",
			SessionURL: "https://login.example:8443/v1/session"}, nil
	case "agg":
		return betting.Operator{ID: id, Integration: betting.IntegrationAggregator, WalletURL: "https://casino.example"}, nil
	}
	return betting.Operator{}, errors.New("not found")
}

func TestFiles(t *testing.T) {
	h := widget.Handler(operators)
	tests := []struct {
		path, contentType string
		status            int
	}{
		{"/widget/", "text/html; charset=utf-8", 200},
		{"/widget/index.html", "text/html; charset=utf-8", 200},
		{"/widget/js/main.js", "text/javascript; charset=utf-8", 200},
		{"/widget/js/rules.js", "text/javascript; charset=utf-8", 200},
		{"/widget/css/widget.css", "text/css; charset=utf-8", 200},
		{"/widget/locales/de.json", "application/json", 200},
		{"/widget/nope.js", "text/plain; charset=utf-8", 404},
		{"/widget/js/", "text/plain; charset=utf-8", 404},
		{"/widget/../widget.go", "text/plain; charset=utf-8", 404},
	}
	for _, tc := range tests {
		t.Run(tc.path, func(t *testing.T) {
			rec := httptest.NewRecorder()
			h.ServeHTTP(rec, httptest.NewRequest("GET", tc.path, nil))
			if rec.Code != tc.status || rec.Header().Get("Content-Type") != tc.contentType {
				t.Fatalf("GET %s = %d %q, want %d %q", tc.path, rec.Code, rec.Header().Get("Content-Type"), tc.status, tc.contentType)
			}
			if tc.status != 200 {
				return
			}
			for k, want := range map[string]string{"Cache-Control": "no-cache", "X-Content-Type-Options": "nosniff", "Referrer-Policy": "no-referrer"} {
				if got := rec.Header().Get(k); got != want {
					t.Errorf("%s = %q, want %q", k, got, want)
				}
			}
			if rec.Header().Get("ETag") == "" || rec.Header().Get("Content-Security-Policy") == "" {
				t.Errorf("no ETag or Content-Security-Policy: %v", rec.Header())
			}
		})
	}
}

func TestRevalidation(t *testing.T) {
	h := widget.Handler(nil)
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest("GET", "/widget/js/slip.js", nil))
	etag := rec.Header().Get("ETag")
	req := httptest.NewRequest("GET", "/widget/js/slip.js", nil)
	req.Header.Set("If-None-Match", etag)
	rec = httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	if rec.Code != http.StatusNotModified || rec.Body.Len() != 0 {
		t.Errorf("If-None-Match %s = %d with %d bytes, want 304 and no body", etag, rec.Code, rec.Body.Len())
	}
}

func TestMethods(t *testing.T) {
	h := widget.Handler(nil)
	for _, m := range []string{"POST", "PUT", "DELETE"} {
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, httptest.NewRequest(m, "/widget/", nil))
		if rec.Code != http.StatusMethodNotAllowed || rec.Header().Get("Allow") != "GET, HEAD" {
			t.Errorf("%s = %d Allow %q, want 405 GET, HEAD", m, rec.Code, rec.Header().Get("Allow"))
		}
	}
}

// TestPolicy: the page may call the widget's own origin and the origin of
// its operator's session endpoint, nothing else; every page may frame it.
func TestPolicy(t *testing.T) {
	const fixed = "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' https: data:; font-src 'self'; "
	tests := []struct {
		name, path, connect string
	}{
		{"standalone operator", "/widget/?operator=acme&session_request_id=x", "'self' https://wallet.acme.example"},
		{"operator's own session URL", "/widget/?operator=own-session", "'self' https://login.example:8443"},
		{"aggregator: the platform's own endpoint", "/widget/?operator=agg&integration=aggregator", "'self'"},
		{"unknown operator", "/widget/?operator=nobody", "'self'"},
		{"no operator", "/widget/", "'self'"},
		{"not the page", "/widget/js/main.js?operator=acme", "'self'"},
	}
	h := widget.Handler(operators)
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			rec := httptest.NewRecorder()
			h.ServeHTTP(rec, httptest.NewRequest("GET", tc.path, nil))
			want := fixed + "connect-src " + tc.connect + "; base-uri 'none'; form-action 'none'; frame-ancestors *"
			if got := rec.Header().Get("Content-Security-Policy"); got != want {
				t.Errorf("policy\n got %s\nwant %s", got, want)
			}
		})
	}
}

// TestLocales: every locale file has exactly the keys of English, and
// every text is non-empty with the same placeholders.
func TestLocales(t *testing.T) {
	read := func(name string) map[string]string {
		b, err := os.ReadFile(filepath.Join("static", "locales", name))
		if err != nil {
			t.Fatal(err)
		}
		var m map[string]string
		if err := json.Unmarshal(b, &m); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		return m
	}
	en := read("en.json")
	files, err := fs.Glob(os.DirFS("static/locales"), "*.json")
	if err != nil || len(files) < 7 {
		t.Fatalf("locale files %v, %v; want at least 7", files, err)
	}
	for _, f := range files {
		m := read(f)
		for k, v := range en {
			got, ok := m[k]
			if !ok || strings.TrimSpace(got) == "" {
				t.Errorf("%s: %s missing or empty", f, k)
				continue
			}
			if placeholders(got) != placeholders(v) {
				t.Errorf("%s: %s has placeholders %q, English %q", f, k, placeholders(got), placeholders(v))
			}
		}
		for k := range m {
			if _, ok := en[k]; !ok {
				t.Errorf("%s: %s is not an English key", f, k)
			}
		}
	}
}

func placeholders(s string) string {
	var out []string
	for {
		i := strings.IndexByte(s, '{')
		if i < 0 {
			break
		}
		j := strings.IndexByte(s[i:], '}')
		if j < 0 {
			break
		}
		out = append(out, s[i:i+j+1])
		s = s[i+j+1:]
	}
	slices.Sort(out)
	return strings.Join(out, ",")
}

// TestSharedDisplayRule: js/format.js is the display rule the backoffice
// serves too (internal/display), byte for byte, as a JavaScript module.
func TestSharedDisplayRule(t *testing.T) {
	rec := httptest.NewRecorder()
	widget.Handler(operators).ServeHTTP(rec, httptest.NewRequest("GET", "/widget/js/format.js", nil))
	if rec.Code != 200 || rec.Header().Get("Content-Type") != "text/javascript; charset=utf-8" || !bytes.Equal(rec.Body.Bytes(), display.Module) {
		t.Errorf("GET /widget/js/format.js = %d %q, %d bytes; want internal/display's module", rec.Code, rec.Header().Get("Content-Type"), rec.Body.Len())
	}
	if _, err := os.Stat(filepath.Join("static", "js", "format.js")); err == nil {
		t.Error("static/js/format.js would be a second copy of the display rule")
	}
}
