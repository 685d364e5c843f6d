// Package requestbody reads the bodies of API requests (a bet, an
// aggregator's launcher or round-details call, a session exchange, a
// ticket job's submission) with a bound on their size and on the time
// their client takes to send them.
//
// The server's read timeout bounds a whole request to a minute, which is
// too long for a body of a few hundred bytes: over HTTP/2 one connection
// carries hundreds of requests, and a client that sends one byte of each
// body and stalls held a handler and its buffers per request for that
// minute (docs/operations.md, "Limits on connections and requests").
package requestbody

import (
	"errors"
	"fmt"
	"io"
	"net/http"
	"time"
)

// Within is how long a client has to send a small body, from the moment
// its handler starts reading it: 64 KiB, the largest body read this way,
// then needs 6.5 KB/s; the bodies clients send are a few hundred bytes.
const Within = 10 * time.Second

// MinRate is the slowest average rate, in bytes a second, at which
// ReadLarge lets a client send a body beyond Within.
const MinRate = 64 << 10

// ErrTooLarge is Read's error for a body longer than its limit.
var ErrTooLarge = errors.New("the request body is larger than its limit")

// Read returns r's whole body when it has at most limit bytes; a longer
// one is ErrTooLarge. The client must have sent it within Within, or by
// r's context's deadline when that is earlier: past it the read fails
// with an error that wraps os.ErrDeadlineExceeded.
//
// The deadline is set on w's connection (HTTP/1.1) or stream (HTTP/2)
// through http.ResponseController; a w that cannot take one (a test's
// recorder) is read without it. It bounds the body only: once the body
// has been read whole, net/http lifts it and the handler may run past it
// with its context intact; after a failed or oversized read it stays, and
// the server gives up on the rest of the body by then.
func Read(w http.ResponseWriter, r *http.Request, limit int64) ([]byte, error) {
	return read(w, r, limit, Within)
}

// ReadLarge is Read for a body whose limit is larger than the small ones'
// (a ticket spec's 1 MiB): the client has Within plus a second for every
// MinRate bytes of limit (26 s for 1 MiB), so that a client sending a whole
// body at 64 KiB/s is never cut, while one that stalls is.
func ReadLarge(w http.ResponseWriter, r *http.Request, limit int64) ([]byte, error) {
	return read(w, r, limit, Within+time.Duration(limit)*time.Second/MinRate)
}

// read is Read with within in place of Within.
func read(w http.ResponseWriter, r *http.Request, limit int64, within time.Duration) ([]byte, error) {
	deadline := time.Now().Add(within)
	if d, ok := r.Context().Deadline(); ok && d.Before(deadline) {
		deadline = d
	}
	err := http.NewResponseController(w).SetReadDeadline(deadline)
	if err != nil && !errors.Is(err, http.ErrNotSupported) {
		return nil, fmt.Errorf("setting the deadline of the request body: %w", err)
	}
	body, err := io.ReadAll(io.LimitReader(r.Body, limit+1))
	if err != nil {
		return nil, fmt.Errorf("reading the request body: %w", err)
	}
	if int64(len(body)) > limit {
		return nil, ErrTooLarge
	}
	return body, nil
}
