// Package apitest sends one request to an HTTP API from a test and reads
// the whole answer: the round trip the server, browser and sandbox tests
// make against a real listener.
package apitest

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"testing"
	"time"
)

// timeout bounds one round trip, the answer read whole. It is generous
// because the machines that run the tests are loaded.
const timeout = time.Minute

// Response is an answer read whole.
type Response struct {
	Status int
	Header http.Header
	Body   []byte
}

// Do sends a request to url with body, declared JSON when not nil, the
// bearer token (none when empty) and the header pairs, each name followed
// by its value (set last), through http.DefaultClient. The round trip
// ends with t's context and lasts at most a minute, so a server that does
// not answer fails the test then rather than at the test binary's
// timeout. It returns the request sent (its context ended) and the
// answer. A request that cannot be sent or an answer that cannot be read
// fails t.
func Do(t testing.TB, method, url, token string, body []byte, header ...string) (*http.Request, Response) {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, method, url, bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return req, Response{Status: resp.StatusCode, Header: resp.Header, Body: data}
}
