// Package anthropictest is a fake Anthropic Messages API server for tests:
// it answers scripted replies in order and records every request.
package anthropictest

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"
)

// Reply is one scripted answer.
type Reply struct {
	// Status is the HTTP status; 0 means 200.
	Status int
	// Text is the assistant's text of a 200 answer.
	Text string
	// StopReason defaults to "end_turn".
	StopReason string
	// Delay holds the answer back (the request's cancellation ends it).
	Delay time.Duration
}

// Server is the fake server; BaseURL is what to configure.
type Server struct {
	*httptest.Server
	mu       sync.Mutex
	replies  []Reply
	requests []map[string]any
}

// New starts a server answering replies in order; once they are used up it
// repeats the last one. It stops when the test ends.
func New(t testing.TB, replies ...Reply) *Server {
	s := &Server{replies: replies}
	s.Server = httptest.NewServer(http.HandlerFunc(s.serve))
	t.Cleanup(s.Close)
	return s
}

// BaseURL is the API base URL to give the SDK.
func (s *Server) BaseURL() string { return s.URL + "/" }

// Requests returns the decoded request bodies received so far, each with
// the x-api-key header under "_api_key".
func (s *Server) Requests() []map[string]any {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]map[string]any(nil), s.requests...)
}

func (s *Server) serve(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost || r.URL.Path != "/v1/messages" {
		http.NotFound(w, r)
		return
	}
	body, _ := io.ReadAll(r.Body)
	var req map[string]any
	json.Unmarshal(body, &req)
	req["_api_key"] = r.Header.Get("X-Api-Key")
	s.mu.Lock()
	s.requests = append(s.requests, req)
	reply := Reply{Status: http.StatusInternalServerError}
	if n := len(s.replies); n > 0 {
		reply = s.replies[0]
		if n > 1 {
			s.replies = s.replies[1:]
		}
	}
	s.mu.Unlock()
	if reply.Delay > 0 {
		select {
		case <-time.After(reply.Delay):
		case <-r.Context().Done():
			return
		}
	}
	w.Header().Set("Content-Type", "application/json")
	if reply.Status != 0 && reply.Status != http.StatusOK {
		w.WriteHeader(reply.Status)
		json.NewEncoder(w).Encode(map[string]any{"type": "error", "error": map[string]any{
			"type": "authentication_error", "message": "invalid x-api-key sk-ant-SECRET"}})
		return
	}
	stop := reply.StopReason
	if stop == "" {
		stop = "end_turn"
	}
	model, _ := req["model"].(string)
	json.NewEncoder(w).Encode(map[string]any{
		"id": "msg_test", "type": "message", "role": "assistant", "model": model,
		"content":     []any{map[string]any{"type": "text", "text": reply.Text}},
		"stop_reason": stop, "stop_sequence": nil,
		"usage": map[string]any{"input_tokens": 900, "output_tokens": 700},
	})
}
