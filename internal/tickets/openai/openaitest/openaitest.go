// Package openaitest is a fake OpenAI-compatible chat-completions server for
// tests: it answers scripted replies in order and records every request.
package openaitest

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"
)

// Reply is one scripted answer.
type Reply struct {
	// Status is the HTTP status; 0 means 200.
	Status int
	// Content is the assistant message of a 200 answer.
	Content string
	// FinishReason defaults to "stop".
	FinishReason string
	// Delay holds the answer back (the request's cancellation ends it).
	Delay time.Duration
}

// Server is the fake server. URL + "/v1" is the base URL to configure.
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
func (s *Server) BaseURL() string { return s.URL + "/v1/" }

// Requests returns the decoded request bodies received so far.
func (s *Server) Requests() []map[string]any {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]map[string]any(nil), s.requests...)
}

func (s *Server) serve(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost || !strings.HasSuffix(r.URL.Path, "/chat/completions") {
		http.NotFound(w, r)
		return
	}
	body, _ := io.ReadAll(r.Body)
	var req map[string]any
	json.Unmarshal(body, &req)
	req["_authorization"] = r.Header.Get("Authorization")
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
		json.NewEncoder(w).Encode(map[string]any{"error": map[string]any{
			"message": "Incorrect API key provided: sk-test-SECRET", "type": "invalid_request_error", "code": "error"}})
		return
	}
	finish := reply.FinishReason
	if finish == "" {
		finish = "stop"
	}
	model, _ := req["model"].(string)
	json.NewEncoder(w).Encode(map[string]any{
		"id": "chatcmpl-test", "object": "chat.completion", "created": 1800000000, "model": model,
		"choices": []any{map[string]any{"index": 0, "finish_reason": finish,
			"message": map[string]any{"role": "assistant", "content": reply.Content}}},
		"usage": map[string]any{"prompt_tokens": 1200, "completion_tokens": 800, "total_tokens": 2000},
	})
}
