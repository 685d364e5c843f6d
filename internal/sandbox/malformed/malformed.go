// Package malformed writes the answers the sandbox partners' "malformed"
// fault sends in place of a wallet's: a 200 whose body is not the
// protocol's answer, as a proxy, a gateway or a stub in front of a wallet
// sends it, or as an answer damaged on its way. Both sandboxes use the
// same shapes, so that an integrator rehearses the same cases on either
// path.
package malformed

import (
	"fmt"
	"net/http"
	"strings"
)

// The shapes of a malformed answer; every one is sent with status 200.
const (
	// Garbage: bytes that are no text at all, as application/octet-stream.
	Garbage = "garbage"
	// HTML: a proxy's error page, as text/html.
	HTML = "html"
	// Truncated: a JSON answer cut short, as application/json.
	Truncated = "truncated"
	// Empty: no body at all.
	Empty = "empty"
	// Foreign: well-formed JSON that is not the protocol's answer
	// ({"status":"ok"}), as application/json.
	Foreign = "foreign"
)

// Shapes lists every shape, in the order the control pages offer them.
var Shapes = []string{Garbage, HTML, Truncated, Empty, Foreign}

// Check returns an error naming the shapes when shape is none of them.
func Check(shape string) error {
	for _, s := range Shapes {
		if s == shape {
			return nil
		}
	}
	return fmt.Errorf("shape %q must be one of %s", shape, strings.Join(Shapes, ", "))
}

// Write answers 200 with a body of shape (Check it first; an unknown shape
// is written as Empty).
func Write(w http.ResponseWriter, shape string) {
	h := w.Header()
	h.Set("Cache-Control", "no-store")
	var body string
	switch shape {
	case Garbage:
		h.Set("Content-Type", "application/octet-stream")
		body = "\x1f\x8b\x08\x00\xff\xfe\x00garbage\x00"
	case HTML:
		h.Set("Content-Type", "text/html; charset=utf-8")
		body = "<!DOCTYPE html>\n<html><head><title>502 Bad Gateway</title></head><body><h1>Bad Gateway</h1><p>The upstream server did not answer.</p></body></html>\n"
	case Truncated:
		h.Set("Content-Type", "application/json")
		body = `{"transaction_id":"op-1","bal`
	case Foreign:
		h.Set("Content-Type", "application/json")
		body = `{"status":"ok"}` + "\n"
	}
	w.WriteHeader(http.StatusOK)
	_, _ = w.Write([]byte(body))
}
