package requestid_test

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/foresight-dev/foresight/internal/requestid"
)

func TestMiddleware(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name, incoming string
		kept           bool
	}{
		{"none", "", false},
		{"sane", "req-7f3a_01.b:2", true},
		{"longest kept", strings.Repeat("a", 128), true},
		{"too long", strings.Repeat("a", 129), false},
		{"space", "a b", false},
		{"newline", "a\nb", false},
		{"non-ASCII", "zürich", false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var seen string
			h := requestid.Middleware(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				seen = requestid.FromContext(r.Context())
			}))
			req := httptest.NewRequest("GET", "/", nil)
			if c.incoming != "" {
				req.Header[requestid.Header] = []string{c.incoming}
			}
			rec := httptest.NewRecorder()
			h.ServeHTTP(rec, req)
			echoed := rec.Header().Get(requestid.Header)
			if echoed == "" || echoed != seen {
				t.Fatalf("echoed %q, context %q; want the same, not empty", echoed, seen)
			}
			if (seen == c.incoming) != c.kept {
				t.Errorf("id %q for incoming %q; kept = %v, want %v", seen, c.incoming, seen == c.incoming, c.kept)
			}
			if !c.kept && len(seen) != 32 {
				t.Errorf("made id %q; want 32 hex digits", seen)
			}
		})
	}
	if requestid.FromContext(httptest.NewRequest("GET", "/", nil).Context()) != "" {
		t.Error("FromContext without the middleware is not empty")
	}
}
