package llm_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"

	"github.com/foresight-dev/foresight/internal/tickets"
	"github.com/foresight-dev/foresight/internal/tickets/llm"
)

func TestResponseLimit(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct{ tokens, want int64 }{
		{0, llm.MinResponseBytes},
		{llm.DefaultAnswerTokens, llm.MinResponseBytes},
		{1 << 20, 64 << 20},
		{math.MaxInt64 / 2, math.MaxInt64},
	} {
		if got := llm.ResponseLimit(tt.tokens); got != tt.want {
			t.Errorf("ResponseLimit(%d) = %d, want %d", tt.tokens, got, tt.want)
		}
	}
}

// TestLimitResponseBody: a body of exactly the limit reads whole; one byte
// more fails after the limit's bytes, never a shorter body without error.
func TestLimitResponseBody(t *testing.T) {
	t.Parallel()
	const limit = 100 << 10
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var n int
		fmt.Sscan(r.URL.Query().Get("n"), &n)
		io.WriteString(w, strings.Repeat("x", n))
	}))
	t.Cleanup(srv.Close)
	read := func(n int) ([]byte, error) {
		req, _ := http.NewRequest(http.MethodGet, fmt.Sprintf("%s?n=%d", srv.URL, n), nil)
		res, err := llm.LimitResponseBody(limit)(req, http.DefaultClient.Do)
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		return io.ReadAll(res.Body)
	}
	if body, err := read(limit); err != nil || len(body) != limit {
		t.Errorf("a body at the limit: %d bytes, %v", len(body), err)
	}
	body, err := read(limit + 1)
	var tooLarge *llm.ResponseTooLargeError
	if !errors.As(err, &tooLarge) || tooLarge.Limit != limit || len(body) != limit {
		t.Errorf("a body over the limit: %d bytes, %v; want %d bytes and a ResponseTooLargeError", len(body), err, limit)
	}
}

func TestCallError(t *testing.T) {
	t.Parallel()
	tooLarge := fmt.Errorf("error reading response body: %w", &llm.ResponseTooLargeError{Limit: 8 << 20})
	err := llm.CallError(context.Background(), "model API", tooLarge)
	if tickets.ErrorCode(err) != tickets.CodeEngineUnavailable ||
		tickets.ErrorMessage(err) != "The model API's answer is larger than 8 MiB, more than any answer within the token limit needs." {
		t.Errorf("too large: %v (%q)", err, tickets.ErrorMessage(err))
	}
	// What net/http returns for a refused connection.
	refused := errors.New("connect: connection refused")
	err = llm.CallError(context.Background(), "model API", &url.Error{Op: "Post", URL: "http://127.0.0.1:1/v1/messages",
		Err: &net.OpError{Op: "dial", Net: "tcp", Err: refused}})
	if tickets.ErrorMessage(err) != "The model API cannot be reached." || !errors.Is(err, refused) {
		t.Errorf("unreachable: %v (%q)", err, tickets.ErrorMessage(err))
	}
	notJSON := &json.SyntaxError{Offset: 1}
	err = llm.CallError(context.Background(), "model API", fmt.Errorf("decoding the answer: %w", notJSON))
	if !strings.Contains(tickets.ErrorMessage(err), "not the API's answer") || !errors.Is(err, notJSON) {
		t.Errorf("an answer that is not JSON: %v (%q)", err, tickets.ErrorMessage(err))
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := llm.CallError(ctx, "model API", tooLarge); err != context.Canceled {
		t.Errorf("ended context: %v, want context.Canceled", err)
	}
}
