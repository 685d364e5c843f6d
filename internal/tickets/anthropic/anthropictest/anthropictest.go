// Package anthropictest is a fake Anthropic Messages API server for tests:
// it answers scripted replies in order and records every request.
package anthropictest

import (
	"encoding/json"
	"net/http"
	"testing"
	"time"

	"github.com/foresight-dev/foresight/internal/tickets/llm/llmtest"
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
	// Padding is how many spaces follow the answer's JSON (which stays
	// valid), to make an answer of any size.
	Padding int64
}

// Server is the fake server; BaseURL is what to configure. Requests
// holds each request with its x-api-key header under "_api_key".
type Server struct {
	*llmtest.Server[Reply]
}

// New starts a server answering replies in order; once they are used up it
// repeats the last one. It stops when the test ends.
func New(t testing.TB, replies ...Reply) *Server {
	return &Server{llmtest.New(t, llmtest.Protocol[Reply]{
		Accepts: func(r *http.Request) bool { return r.Method == http.MethodPost && r.URL.Path == "/v1/messages" },
		Record:  func(r *http.Request, req map[string]any) { req["_api_key"] = r.Header.Get("X-Api-Key") },
		Delay:   func(r Reply) time.Duration { return r.Delay },
		Padding: func(r Reply) int64 { return r.Padding },
		Write:   write,
	}, Reply{Status: http.StatusInternalServerError}, replies)}
}

// BaseURL is the API base URL to give the SDK.
func (s *Server) BaseURL() string { return s.URL + "/" }

// write answers reply to req, the decoded request body.
func write(w http.ResponseWriter, reply Reply, req map[string]any) {
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
