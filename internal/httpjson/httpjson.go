// Package httpjson writes the JSON answers of Foresight's HTTP APIs: plain
// JSON and RFC 9457 problem details, and the Retry-After header of a
// refusal. Each API keeps its own error body (docs/architecture.md,
// "Errors"); this package only writes them, the same way everywhere.
package httpjson

import (
	"bytes"
	"encoding/json"
	"net/http"
	"strconv"
	"time"
)

// Write answers status with v as application/json and Cache-Control:
// no-store. HTML characters are not escaped (a launch URL's '&' stays '&').
// The body is encoded before anything is sent: a value that cannot be
// encoded (a programming error) answers 500 {"error":"internal_error"}
// instead of a truncated body.
func Write(w http.ResponseWriter, status int, v any) {
	write(w, "application/json", status, v)
}

// WriteRaw answers status with body, JSON already encoded (a stored
// answer replayed as it was first sent), as application/json with
// Cache-Control: no-store, like Write. body is sent as it is, unchecked.
func WriteRaw(w http.ResponseWriter, status int, body []byte) {
	writeBytes(w, "application/json", status, body)
}

// Problem is an RFC 9457 problem details body with exactly type
// (about:blank), title, status and detail: the error body of the bettor
// API and of the aggregator's session exchange.
type Problem struct {
	Type   string `json:"type"`
	Title  string `json:"title"`
	Status int    `json:"status"`
	Detail string `json:"detail"`
}

// WriteProblem answers status with a Problem whose title is the status
// text and detail is detail (client-safe), as application/problem+json.
func WriteProblem(w http.ResponseWriter, status int, detail string) {
	WriteProblemBody(w, status, Problem{Type: "about:blank", Title: http.StatusText(status), Status: status, Detail: detail})
}

// WriteProblemBody answers status with body, a problem details value of
// the API's own shape (the admin API's carries a code), as
// application/problem+json.
func WriteProblemBody(w http.ResponseWriter, status int, body any) {
	write(w, "application/problem+json", status, body)
}

func write(w http.ResponseWriter, contentType string, status int, v any) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		contentType, status = "application/json", http.StatusInternalServerError
		buf.Reset()
		buf.WriteString(`{"error":"internal_error"}` + "\n")
	}
	writeBytes(w, contentType, status, buf.Bytes())
}

func writeBytes(w http.ResponseWriter, contentType string, status int, body []byte) {
	w.Header().Set("Content-Type", contentType)
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	_, _ = w.Write(body)
}

// SetRetryAfter sets the Retry-After header to d in whole seconds, rounded
// up and at least 1, so that a client that waits as told never comes back
// early (1.2 s is "2", 0 is "1"). Call it before the answer is written.
func SetRetryAfter(w http.ResponseWriter, d time.Duration) {
	secs := d / time.Second
	if d%time.Second > 0 {
		secs++
	}
	w.Header().Set("Retry-After", strconv.FormatInt(int64(max(secs, 1)), 10))
}
