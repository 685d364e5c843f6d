// Package openaitest is a fake OpenAI-compatible chat-completions server for
// tests: it answers scripted replies in order and records every request.
package openaitest

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/foresight-dev/foresight/internal/tickets/llm/llmtest"
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
	// Padding is how many spaces follow the answer's JSON (which stays
	// valid), to make an answer of any size.
	Padding int64
}

// Server is the fake server. URL + "/v1" is the base URL to configure.
// Requests holds each request with its Authorization header under
// "_authorization".
type Server struct {
	*llmtest.Server[Reply]
}

// New starts a server answering replies in order; once they are used up it
// repeats the last one. It stops when the test ends.
func New(t testing.TB, replies ...Reply) *Server {
	return &Server{llmtest.New(t, llmtest.Protocol[Reply]{
		Accepts: func(r *http.Request) bool {
			return r.Method == http.MethodPost && strings.HasSuffix(r.URL.Path, "/chat/completions")
		},
		Record:  func(r *http.Request, req map[string]any) { req["_authorization"] = r.Header.Get("Authorization") },
		Delay:   func(r Reply) time.Duration { return r.Delay },
		Padding: func(r Reply) int64 { return r.Padding },
		Write:   write,
	}, Reply{Status: http.StatusInternalServerError}, replies)}
}

// BaseURL is the API base URL to give the SDK.
func (s *Server) BaseURL() string { return s.URL + "/v1/" }

// write answers reply to req, the decoded request body.
func write(w http.ResponseWriter, reply Reply, req map[string]any) {
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
