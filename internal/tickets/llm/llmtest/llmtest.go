// Package llmtest is what the fake model servers of the LLM adapters'
// tests (openaitest, anthropictest) share: scripted replies answered in
// order, the last one repeated, every request recorded, and an answer held
// back until its delay passes or the request is cancelled, and answers
// padded to any size. Each fake writes its own protocol's answers.
package llmtest

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// Protocol is how one fake speaks its API.
type Protocol[R any] struct {
	// Accepts says whether a request is to the API's endpoint; others are
	// answered 404.
	Accepts func(*http.Request) bool
	// Record adds what the fake keeps of a request's headers to its
	// decoded body.
	Record func(r *http.Request, req map[string]any)
	// Delay is how long reply is held back.
	Delay func(reply R) time.Duration
	// Padding is how many spaces follow reply's JSON: the answer stays
	// valid JSON, as large as a test needs.
	Padding func(reply R) int64
	// Write answers reply to the request req (its decoded body).
	Write func(w http.ResponseWriter, reply R, req map[string]any)
}

// Server is a fake model server answering scripted replies of type R.
type Server[R any] struct {
	*httptest.Server
	protocol Protocol[R]
	mu       sync.Mutex
	replies  []R
	none     R
	requests []map[string]any
	padded   atomic.Int64
}

// New starts a server answering replies in order, and none when there is
// no reply at all; once they are used up it repeats the last one. It
// stops when the test ends.
func New[R any](t testing.TB, p Protocol[R], none R, replies []R) *Server[R] {
	s := &Server[R]{protocol: p, replies: replies, none: none}
	s.Server = httptest.NewServer(http.HandlerFunc(s.serve))
	t.Cleanup(s.Close)
	return s
}

// Requests returns the decoded request bodies received so far, with what
// the protocol records of their headers.
func (s *Server[R]) Requests() []map[string]any {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]map[string]any(nil), s.requests...)
}

func (s *Server[R]) serve(w http.ResponseWriter, r *http.Request) {
	if !s.protocol.Accepts(r) {
		http.NotFound(w, r)
		return
	}
	body, _ := io.ReadAll(r.Body)
	var req map[string]any
	json.Unmarshal(body, &req)
	s.protocol.Record(r, req)
	s.mu.Lock()
	s.requests = append(s.requests, req)
	reply := s.none
	if n := len(s.replies); n > 0 {
		reply = s.replies[0]
		if n > 1 {
			s.replies = s.replies[1:]
		}
	}
	s.mu.Unlock()
	if d := s.protocol.Delay(reply); d > 0 {
		select {
		case <-time.After(d):
		case <-r.Context().Done():
			return
		}
	}
	w.Header().Set("Content-Type", "application/json")
	s.protocol.Write(w, reply, req)
	s.pad(w, s.protocol.Padding(reply))
}

// PaddingWritten returns how many bytes of padding the server has written
// so far, over all answers: a client that stops reading an answer stops
// it after what the connection buffers.
func (s *Server[R]) PaddingWritten() int64 { return s.padded.Load() }

// pad writes n spaces to w, stopping when the client goes away.
func (s *Server[R]) pad(w http.ResponseWriter, n int64) {
	chunk := []byte(strings.Repeat(" ", 64<<10))
	for n > 0 {
		written, err := w.Write(chunk[:min(n, int64(len(chunk)))])
		s.padded.Add(int64(written))
		if err != nil {
			return
		}
		n -= int64(written)
	}
}
