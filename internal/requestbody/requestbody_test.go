package requestbody

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"testing"
	"time"
)

// serve starts a server speaking HTTP/1.1 and HTTP/2 with prior knowledge
// whose handler is h, and returns its URL and a client of the protocol
// named (h2 or http/1.1).
func serve(t *testing.T, protocol string, h http.HandlerFunc) (string, *http.Client) {
	t.Helper()
	srv := httptest.NewUnstartedServer(h)
	srv.Config.Protocols = new(http.Protocols)
	srv.Config.Protocols.SetHTTP1(true)
	srv.Config.Protocols.SetUnencryptedHTTP2(true)
	srv.Start()
	t.Cleanup(srv.Close)
	tr := &http.Transport{Protocols: new(http.Protocols)}
	if protocol == "h2" {
		tr.Protocols.SetUnencryptedHTTP2(true)
	} else {
		tr.Protocols.SetHTTP1(true)
	}
	t.Cleanup(tr.CloseIdleConnections)
	return srv.URL, &http.Client{Transport: tr}
}

// TestStalledBodyEnds: a client that sends one byte of its body and
// stalls loses its request at the deadline, over both protocols, instead
// of holding the handler for the server's read timeout (none here).
func TestStalledBodyEnds(t *testing.T) {
	t.Parallel()
	for _, protocol := range []string{"http/1.1", "h2"} {
		t.Run(protocol, func(t *testing.T) {
			t.Parallel()
			readErr := make(chan error, 1)
			url, client := serve(t, protocol, func(w http.ResponseWriter, r *http.Request) {
				_, err := read(w, r, 1024, 200*time.Millisecond)
				readErr <- err
				w.WriteHeader(http.StatusBadRequest)
			})
			body, stall := io.Pipe()
			defer stall.Close()
			go stall.Write([]byte("{"))
			req, _ := http.NewRequest("POST", url, body)
			go client.Do(req)
			select {
			case err := <-readErr:
				if !errors.Is(err, os.ErrDeadlineExceeded) {
					t.Fatalf("read of a stalled body = %v, want os.ErrDeadlineExceeded", err)
				}
			case <-time.After(5 * time.Second):
				t.Fatal("the read of a stalled body was still waiting after 5 s; its deadline was 200 ms")
			}
		})
	}
}

// TestContextDeadlineBoundsTheRead: a request whose context ends before
// Within (a bet's 3 s) gets no more time for its body than that.
func TestContextDeadlineBoundsTheRead(t *testing.T) {
	t.Parallel()
	readErr := make(chan error, 1)
	url, client := serve(t, "h2", func(w http.ResponseWriter, r *http.Request) {
		ctx, cancel := context.WithTimeout(r.Context(), 200*time.Millisecond)
		defer cancel()
		_, err := read(w, r.WithContext(ctx), 1024, time.Hour)
		readErr <- err
		w.WriteHeader(http.StatusBadRequest)
	})
	body, stall := io.Pipe()
	defer stall.Close()
	req, _ := http.NewRequest("POST", url, body)
	go client.Do(req)
	select {
	case err := <-readErr:
		if !errors.Is(err, os.ErrDeadlineExceeded) {
			t.Fatalf("read = %v, want os.ErrDeadlineExceeded", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("the read outlived its request's context deadline of 200 ms")
	}
}

// TestHandlerOutlivesTheDeadline: once the body is read, a handler that
// runs past the body's deadline keeps its context and answers (net/http
// lifts the deadline at the end of the body, which Read relies on).
func TestHandlerOutlivesTheDeadline(t *testing.T) {
	t.Parallel()
	for _, protocol := range []string{"http/1.1", "h2"} {
		t.Run(protocol, func(t *testing.T) {
			t.Parallel()
			url, client := serve(t, protocol, func(w http.ResponseWriter, r *http.Request) {
				// Time enough for the body on a loaded machine; the
				// handler then runs past the deadline.
				const within = 2 * time.Second
				deadline := time.Now().Add(within)
				body, err := read(w, r, 1024, within)
				if err != nil {
					w.WriteHeader(http.StatusBadRequest)
					return
				}
				time.Sleep(time.Until(deadline) + 500*time.Millisecond)
				if r.Context().Err() != nil {
					w.WriteHeader(http.StatusServiceUnavailable)
					return
				}
				w.Write(body)
			})
			resp, err := client.Post(url, "application/json", strings.NewReader(`{"a":1}`))
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			got, _ := io.ReadAll(resp.Body)
			if resp.StatusCode != http.StatusOK || string(got) != `{"a":1}` {
				t.Fatalf("answer = %d %q, want 200 with the body (503: the context ended with the body's deadline)", resp.StatusCode, got)
			}
		})
	}
}

func TestLimit(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		body string
		err  error
	}{
		{"12345678", nil},
		{"123456789", ErrTooLarge},
		{"", nil},
	} {
		r := httptest.NewRequest("POST", "/", strings.NewReader(c.body))
		got, err := Read(httptest.NewRecorder(), r, 8)
		if !errors.Is(err, c.err) || (err == nil && string(got) != c.body) {
			t.Errorf("Read(%q) with a limit of 8 = %q, %v; want the body, %v", c.body, got, err, c.err)
		}
	}
}
