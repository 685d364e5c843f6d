package httpjson_test

import (
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/foresight-dev/foresight/internal/httpjson"
)

func TestWriters(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name        string
		write       func(w http.ResponseWriter)
		status      int
		contentType string
		body        string
	}{
		{"JSON, HTML characters kept", func(w http.ResponseWriter) {
			httpjson.Write(w, http.StatusOK, map[string]string{"launch_url": "https://x.example/?a=1&b=<2>"})
		}, 200, "application/json", `{"launch_url":"https://x.example/?a=1&b=<2>"}` + "\n"},
		{"problem", func(w http.ResponseWriter) {
			httpjson.WriteProblem(w, http.StatusConflict, "The market is closed.")
		}, 409, "application/problem+json", `{"type":"about:blank","title":"Conflict","status":409,"detail":"The market is closed."}` + "\n"},
		{"problem of the API's own shape", func(w http.ResponseWriter) {
			httpjson.WriteProblemBody(w, http.StatusNotFound, map[string]any{"status": 404, "code": "not_found"})
		}, 404, "application/problem+json", `{"code":"not_found","status":404}` + "\n"},
		{"a stored answer, sent as it is", func(w http.ResponseWriter) {
			httpjson.WriteRaw(w, http.StatusAccepted, []byte(`{"id":"b1","status":"pending"}`))
		}, 202, "application/json", `{"id":"b1","status":"pending"}`},
		{"a value that cannot be encoded", func(w http.ResponseWriter) {
			httpjson.Write(w, http.StatusOK, map[string]any{"c": make(chan int)})
		}, 500, "application/json", `{"error":"internal_error"}` + "\n"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			rec := httptest.NewRecorder()
			c.write(rec)
			if rec.Code != c.status || rec.Header().Get("Content-Type") != c.contentType || rec.Body.String() != c.body ||
				rec.Header().Get("Cache-Control") != "no-store" {
				t.Errorf("answer = %d %q %q (Cache-Control %q), want %d %q %q (no-store)", rec.Code, rec.Header().Get("Content-Type"), rec.Body,
					rec.Header().Get("Cache-Control"), c.status, c.contentType, c.body)
			}
		})
	}
}

// TestSetRetryAfter checks that a wait is told in whole seconds rounded
// up, never 0: a client that waits as told is never early.
func TestSetRetryAfter(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		wait time.Duration
		want string
	}{
		{-time.Second, "1"},
		{0, "1"},
		{time.Nanosecond, "1"},
		{500 * time.Millisecond, "1"},
		{time.Second, "1"},
		{time.Second + time.Nanosecond, "2"},
		{1500 * time.Millisecond, "2"},
		{59*time.Second + 999*time.Millisecond, "60"},
		{time.Hour, "3600"},
	} {
		rec := httptest.NewRecorder()
		httpjson.SetRetryAfter(rec, c.wait)
		if got := rec.Header().Get("Retry-After"); got != c.want {
			t.Errorf("SetRetryAfter(%v) = %q, want %q", c.wait, got, c.want)
		}
	}
}
