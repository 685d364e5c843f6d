package admin

import (
	"errors"
	"fmt"
	"net/http"
	"time"
)

// A long export's client must take it in at exportMinRate on average,
// after exportGrace: the first n bytes must be written by start +
// exportGrace + n/exportMinRate. 16 KiB/s is below any link an operator
// downloads over (a 1 Mbit/s line is 8 times faster), so a large ledger
// is never cut short, while a client that reads slower than that, or
// stops, loses the connection instead of holding it for as long as it
// keeps reading.
const (
	exportGrace   = time.Minute
	exportMinRate = 16 << 10 // bytes per second
)

// pacedWriter writes a long response, moving its write deadline before
// each write so that its client is held to a minimum average rate: the
// server's write timeout bounds a whole response, which a large export
// may take longer than to send, and a fresh deadline per write would let
// a client that reads a little now and then hold the connection forever.
type pacedWriter struct {
	w     http.ResponseWriter
	rc    *http.ResponseController
	start time.Time
	// grace and bytesPerSecond make the deadline of the first n bytes
	// start + grace + n/bytesPerSecond.
	grace          time.Duration
	bytesPerSecond float64
	sent           int64
}

// newPacedWriter returns a pacedWriter of w whose export starts now, with
// exportGrace and exportMinRate, and sets its first deadline. The error
// is the one of setting it: http.ErrNotSupported when w's deadline
// cannot move, the server's write timeout then bounding the whole
// response; the pacedWriter is usable either way.
func newPacedWriter(w http.ResponseWriter) (*pacedWriter, error) {
	p := &pacedWriter{w: w, rc: http.NewResponseController(w), start: time.Now(), grace: exportGrace, bytesPerSecond: exportMinRate}
	return p, p.rc.SetWriteDeadline(p.deadline(0))
}

// deadline returns the time by which the first n bytes must be written.
func (p *pacedWriter) deadline(n int64) time.Time {
	return p.start.Add(p.grace + time.Duration(float64(n)/p.bytesPerSecond*float64(time.Second)))
}

// Write writes b, which must be written by the deadline of the bytes sent
// with it (unless w's deadline cannot move).
func (p *pacedWriter) Write(b []byte) (int, error) {
	err := p.rc.SetWriteDeadline(p.deadline(p.sent + int64(len(b))))
	if err != nil && !errors.Is(err, http.ErrNotSupported) {
		return 0, fmt.Errorf("moving the write deadline: %w", err)
	}
	n, err := p.w.Write(b)
	p.sent += int64(n)
	return n, err
}
