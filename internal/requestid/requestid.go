// Package requestid gives every HTTP request an id: the caller's
// X-Request-Id when it is sane, a new one otherwise. The id is echoed in
// the answer's X-Request-Id and carried in the request's context, so that
// the log line of a failure (docs/architecture.md, "Errors") names the
// request a client or a partner reports.
package requestid

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"log/slog"
	"net/http"
)

// Header is the request and answer header of the id.
const Header = "X-Request-Id"

// maxLen bounds an incoming id; a longer one is replaced.
const maxLen = 128

type contextKey struct{}

// Middleware gives each request an id: a sane incoming X-Request-Id (1 to
// 128 characters of letters, digits and "-_.:") is kept, anything else is
// replaced by 32 random hex digits. The id is set on the answer's
// X-Request-Id before next runs and is in the request's context
// (FromContext).
func Middleware(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		id := r.Header.Get(Header)
		if !sane(id) {
			id = newID()
		}
		w.Header().Set(Header, id)
		next.ServeHTTP(w, r.WithContext(context.WithValue(r.Context(), contextKey{}, id)))
	})
}

// FromContext returns the request id in ctx, or "" when there is none.
func FromContext(ctx context.Context) string {
	id, _ := ctx.Value(contextKey{}).(string)
	return id
}

// Attr is the request_id attribute of ctx's request for a log line.
func Attr(ctx context.Context) slog.Attr {
	return slog.String("request_id", FromContext(ctx))
}

func sane(id string) bool {
	if id == "" || len(id) > maxLen {
		return false
	}
	for _, c := range []byte(id) {
		switch {
		case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', '0' <= c && c <= '9', c == '-', c == '_', c == '.', c == ':':
		default:
			return false
		}
	}
	return true
}

func newID() string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}
