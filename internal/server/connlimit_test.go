package server

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"testing"
	"time"

	"github.com/foresight-dev/foresight/internal/waitfor"
)

// limitedServer serves h behind a connLimiter of limit connections on a
// loopback port and returns its address and the limiter.
func limitedServer(t *testing.T, limit int, h http.Handler) (string, *connLimiter) {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	limiter := newConnLimiter(l, limit)
	srv := &http.Server{Handler: h, ReadHeaderTimeout: time.Minute, IdleTimeout: time.Hour, ConnState: limiter.track}
	go srv.Serve(limiter)
	t.Cleanup(func() { srv.Close() })
	return l.Addr().String(), limiter
}

// waitIdle waits until l counts n idle connections: the server has
// finished with their last requests.
func waitIdle(t *testing.T, l *connLimiter, n int) {
	t.Helper()
	waitfor.True(t, fmt.Sprintf("%d idle connections", n), func() bool {
		l.mu.Lock()
		defer l.mu.Unlock()
		return l.idle.Len() == n
	})
}

// keepAlive opens a connection to addr, gets path on it and keeps it
// open, idle.
func keepAlive(t *testing.T, addr, path string) net.Conn {
	t.Helper()
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	fmt.Fprintf(c, "GET %s HTTP/1.1\r\nHost: x\r\n\r\n", path)
	c.SetReadDeadline(time.Now().Add(5 * time.Second))
	resp, err := http.ReadResponse(bufio.NewReader(c), nil)
	if err != nil {
		t.Fatalf("GET %s on a kept connection: %v", path, err)
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	return c
}

// isClosed reports whether the server closed c (a read ends at once
// with EOF or a reset) rather than keeping it open.
func isClosed(c net.Conn) bool {
	c.SetReadDeadline(time.Now().Add(200 * time.Millisecond))
	_, err := c.Read(make([]byte, 1))
	return err != nil && !errors.Is(err, os.ErrDeadlineExceeded)
}

// TestIdleConnectionsMakeRoom: at the cap, a new client is served at once
// and the connection idle the longest is closed for it, instead of the
// client waiting for the idle timeout; connections busy with a request
// are kept.
func TestIdleConnectionsMakeRoom(t *testing.T) {
	t.Parallel()
	release := make(chan struct{})
	defer close(release)
	addr, limiter := limitedServer(t, 4, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/busy" {
			w.WriteHeader(http.StatusOK)
			http.NewResponseController(w).Flush()
			<-release
		}
	}))
	busy, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer busy.Close()
	fmt.Fprint(busy, "GET /busy HTTP/1.1\r\nHost: x\r\n\r\n")
	busy.SetReadDeadline(time.Now().Add(5 * time.Second))
	if _, err := http.ReadResponse(bufio.NewReader(busy), nil); err != nil {
		t.Fatalf("GET /busy: %v", err)
	}
	var idle []net.Conn
	for i := range 3 {
		idle = append(idle, keepAlive(t, addr, "/"))
		waitIdle(t, limiter, i+1) // idle in the order they were opened
	}

	// Two new clients, each keeping its connection: each takes the place
	// of the oldest idle connection left.
	for i := range 2 {
		transport := &http.Transport{}
		defer transport.CloseIdleConnections()
		resp, err := (&http.Client{Transport: transport, Timeout: 5 * time.Second}).Get("http://" + addr + "/")
		if err != nil {
			t.Fatalf("new client %d at the cap: %v; want it served, an idle connection closed for it", i+1, err)
		}
		resp.Body.Close()
	}
	for i, c := range idle {
		if closed, want := isClosed(c), i < 2; closed != want {
			t.Errorf("idle connection %d (oldest first): closed %v, want %v", i+1, closed, want)
		}
	}
	if isClosed(busy) {
		t.Error("the connection busy with a request was closed")
	}
}

// TestConnectionsWaitWhenNoneIsIdle: at the cap with every connection
// busy, a new connection waits until one closes.
func TestConnectionsWaitWhenNoneIsIdle(t *testing.T) {
	t.Parallel()
	release, inHandler := make(chan struct{}), make(chan struct{})
	addr, _ := limitedServer(t, 1, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/busy" {
			close(inHandler)
			<-release
		}
	}))
	busy, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	fmt.Fprint(busy, "GET /busy HTTP/1.1\r\nHost: x\r\n\r\n")
	// Until its request is read the connection counts as idle, and the
	// new one below would close it.
	select {
	case <-inHandler:
	case <-time.After(waitfor.Bound):
		t.Fatalf("the busy request did not reach its handler within %v", waitfor.Bound)
	}
	answered := make(chan error, 1)
	go func() {
		client := &http.Client{Transport: &http.Transport{DisableKeepAlives: true}, Timeout: 10 * time.Second}
		resp, err := client.Get("http://" + addr + "/")
		if err == nil {
			resp.Body.Close()
		}
		answered <- err
	}()
	select {
	case err := <-answered:
		t.Fatalf("a new connection was served (%v) while the only one was busy", err)
	case <-time.After(300 * time.Millisecond):
	}
	close(release)
	busy.Close()
	if err := <-answered; err != nil {
		t.Fatalf("once the busy connection closed, the waiting one: %v", err)
	}
}

// TestUnreadBodyDoesNotHoldItsConnection: a request that announces a body
// and never sends it, to a route that reads none, is answered at once and
// its connection closed, so that the cap's worth of them cannot lock out
// everyone (the server waited for the body to discard it, up to its
// ReadTimeout, with the connection busy and out of the limiter's reach;
// found by an outside review). A body read to its end keeps the
// connection alive.
func TestUnreadBodyDoesNotHoldItsConnection(t *testing.T) {
	t.Parallel()
	addr, _ := limitedServer(t, 1, closeUnreadBodies(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/read" {
			io.Copy(io.Discard, r.Body)
		}
	})))
	for _, head := range []string{"Content-Length: 100", "Transfer-Encoding: chunked"} {
		stalled, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		fmt.Fprintf(stalled, "POST /healthz HTTP/1.1\r\nHost: x\r\n%s\r\n\r\n", head)
		stalled.SetReadDeadline(time.Now().Add(waitfor.Bound))
		resp, err := http.ReadResponse(bufio.NewReader(stalled), nil)
		if err != nil {
			t.Fatalf("%s, body never sent: no answer (%v)", head, err)
		}
		resp.Body.Close()
		if !resp.Close || !isClosed(stalled) {
			t.Errorf("%s, body never sent: the connection stays open", head)
		}
		stalled.Close()
	}
	// The cap is one connection: the next client is served.
	kept := keepAlive(t, addr, "/")
	fmt.Fprint(kept, "POST /read HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\n\r\nhello")
	kept.SetReadDeadline(time.Now().Add(waitfor.Bound))
	resp, err := http.ReadResponse(bufio.NewReader(kept), nil)
	if err != nil {
		t.Fatalf("a body read to its end: %v", err)
	}
	resp.Body.Close()
	if resp.Close || isClosed(kept) {
		t.Error("a request whose body was read to its end closed its connection")
	}
}
