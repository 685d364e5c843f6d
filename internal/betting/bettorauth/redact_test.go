package bettorauth_test

import (
	"context"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/golang-jwt/jwt/v5"

	"github.com/foresight-dev/foresight/internal/betting/bettorauth"
	"github.com/foresight-dev/foresight/internal/logbuffer"
)

// TestJWKSFailureHidesTheURL: an operator's JWKS URL may hold a token in
// its path; when fetching it fails, neither the error Validate returns nor
// the log shows that path.
func TestJWKSFailureHidesTheURL(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, "down", http.StatusInternalServerError)
	}))
	t.Cleanup(srv.Close)
	logs := &logbuffer.Buffer{}
	v := bettorauth.New(bettorauth.Options{AllowInsecure: true, Logger: slog.New(slog.NewTextHandler(logs, nil))})
	t.Cleanup(v.Close)
	k := testKeys()
	tok := sign(t, jwt.SigningMethodRS256, k[0], "k1", claims("op-a"))
	_, err := v.Validate(context.Background(), bettorauth.Operator{ID: "op-a", JWKSURL: srv.URL + "/path-s3cret/jwks.json"}, tok)
	if err == nil {
		t.Fatal("Validate succeeded against a failing JWKS")
	}
	for _, text := range []string{err.Error(), logs.String()} {
		if strings.Contains(text, "s3cret") {
			t.Errorf("the JWKS URL's path leaks: %q", text)
		}
	}
}
