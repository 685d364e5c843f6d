package server_test

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/foresight-dev/foresight/internal/server"
	"github.com/foresight-dev/foresight/internal/waitfor"
)

// TestHeaderBlockLimit: a request line and headers beyond
// server.MaxHeaderBytes are refused with 431 before any handler runs; a
// block under it is served.
func TestHeaderBlockLimit(t *testing.T) {
	t.Parallel()
	w := newWorld(t, "sqlite:"+t.TempDir()+"/f.db", worldOptions{noContractCheck: true})
	for _, c := range []struct {
		size int
		want int
	}{
		{server.MaxHeaderBytes / 2, http.StatusOK},
		{server.MaxHeaderBytes + 16<<10, http.StatusRequestHeaderFieldsTooLarge},
	} {
		req, _ := http.NewRequest("GET", w.url+"/healthz", nil)
		req.Header.Set("X-Padding", strings.Repeat("a", c.size))
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatalf("GET /healthz with %d bytes of headers: %v", c.size, err)
		}
		resp.Body.Close()
		if resp.StatusCode != c.want {
			t.Errorf("GET /healthz with %d bytes of headers = %d, want %d", c.size, resp.StatusCode, c.want)
		}
	}
}

// TestWriteTimeoutEndsStalledResponses: a client that sends requests and
// never reads their answers loses its connection after
// FORESIGHT_HTTP_WRITE_TIMEOUT, instead of holding the handler and its
// response for as long as it keeps the connection open.
func TestWriteTimeoutEndsStalledResponses(t *testing.T) {
	t.Parallel()
	// The timeout applies to the world's setup requests too: 5 s leaves
	// them room under the race detector on a loaded machine (500 ms did
	// not: "create key: EOF"; TestOddsStreamOutlivesWriteTimeout's setup
	// took over 2 s).
	const writeTimeout = 5 * time.Second
	w := newWorld(t, "sqlite:"+t.TempDir()+"/f.db", worldOptions{noContractCheck: true,
		config: func(c *server.Config) { c.HTTPWriteTimeout = writeTimeout }})
	conn, err := net.Dial("tcp", strings.TrimPrefix(w.url, "http://"))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	// More answers (36 MB) than the sockets' buffers hold: the server
	// blocks writing them while the client reads nothing.
	const requests = 300
	go fmt.Fprint(conn, strings.Repeat("GET /openapi/admin.yaml HTTP/1.1\r\nHost: x\r\n\r\n", requests))
	time.Sleep(writeTimeout + 2*time.Second)
	conn.SetReadDeadline(time.Now().Add(30 * time.Second))
	r := bufio.NewReader(conn)
	answered := 0
	for answered < requests {
		resp, err := http.ReadResponse(r, nil)
		if err != nil {
			break
		}
		_, err = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		if err != nil {
			break
		}
		answered++
	}
	if answered == requests {
		t.Errorf("all %d answers arrived after the client stalled past the write timeout; want the connection closed", requests)
	}
}

// TestOddsStreamOutlivesWriteTimeout: an odds stream sets write deadlines
// of its own, so it delivers changes long after the server's write
// timeout.
func TestOddsStreamOutlivesWriteTimeout(t *testing.T) {
	t.Parallel()
	// The timeout applies to the setup's admin requests too: 5 s leaves
	// them room under the race detector on a loaded machine (300 ms did
	// not: "create client: EOF"; nor did 2 s, with the server's other
	// tests and two more test runs beside it: "set prices: EOF").
	const writeTimeout = 5 * time.Second
	bw := newBettingWorldWith(t, "sqlite:"+t.TempDir()+"/f.db", worldOptions{config: func(c *server.Config) { c.HTTPWriteTimeout = writeTimeout }})
	alice := bw.bettor("alice", "100.00")
	resp, s := dialStream(t, bw.url, alice)
	if s == nil {
		t.Fatalf("odds stream = %d", resp.StatusCode)
	}
	connectedAt(t, s)
	time.Sleep(writeTimeout + time.Second)
	bw.setPrices(t, "0.5")
	if ev := nextEvent(t, s); ev.event != "odds" {
		t.Fatalf("event after the write timeout = %+v", ev)
	}
}

// postStalled posts to url, with header's name and value pairs and a JSON
// content type, a body that stops after its first byte, and returns the
// answer once the server gives one (or ctx ends); closing stall ends the
// body.
func postStalled(ctx context.Context, client *http.Client, url string, header ...string) (resp *http.Response, stall *io.PipeWriter, err error) {
	body, stall := io.Pipe()
	go stall.Write([]byte("{"))
	req, err := http.NewRequestWithContext(ctx, "POST", url, body)
	if err != nil {
		return nil, stall, err
	}
	req.Header.Set("Content-Type", "application/json")
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	resp, err = client.Do(req)
	return resp, stall, err
}

// TestStalledBodiesEndSoon: over HTTP/2, where one connection carries
// hundreds of requests, a request whose body sends one byte and stalls
// does not hold its handler for the read timeout (a minute): a
// round-details call without a signature is refused before its body is
// read, and a bet's body must arrive within the placement's 3 s.
func TestStalledBodiesEndSoon(t *testing.T) {
	t.Parallel()
	bw := newBettingWorld(t, "sqlite:"+t.TempDir()+"/f.db")
	alice := bw.bettor("alice", "100.00")
	client := http2Client(t, nil)
	for _, c := range []struct {
		name, path string
		header     []string
		want       int
		within     time.Duration
	}{
		// Each bound leaves a loaded machine room and stays below the 10 s
		// (requestbody.Within) a read of the stalled body would take.
		{"round details without a signature", "/v2/agg_provider.Round/Details", nil, http.StatusForbidden, 5 * time.Second},
		{"a bet", "/api/v1/bettor/bets", []string{"Authorization", "Bearer " + alice,
			"Idempotency-Key", "6f1c2d3e-4a5b-4c6d-8e7f-000000000001"}, http.StatusBadRequest, 3*time.Second + 4*time.Second},
	} {
		t.Run(c.name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
			defer cancel()
			start := time.Now()
			resp, stall, err := postStalled(ctx, client, bw.url+c.path, c.header...)
			defer stall.Close()
			if err != nil {
				t.Fatalf("POST %s with a stalled body: %v after %v; want %d within %v", c.path, err, time.Since(start).Round(time.Millisecond), c.want, c.within)
			}
			resp.Body.Close()
			if took := time.Since(start); resp.StatusCode != c.want || took > c.within {
				t.Errorf("POST %s with a stalled body = %d after %v, want %d within %v", c.path, resp.StatusCode, took.Round(time.Millisecond), c.want, c.within)
			}
		})
	}
}

// TestPlacementsInProgressPerBettor: with the bet rate limit on, one
// bettor's bets in progress at once are capped at twice its burst, so that
// one token cannot keep thousands of handlers reading stalled bodies over
// HTTP/2: one more is 429 with Retry-After before its body is read, and
// once they end the bettor places again.
func TestPlacementsInProgressPerBettor(t *testing.T) {
	t.Parallel()
	const burst, inProgress = 8, 16
	bw := newBettingWorldWith(t, "sqlite:"+t.TempDir()+"/f.db", worldOptions{
		config: func(c *server.Config) { c.BetRateLimit, c.BetRateBurst = 1, burst }})
	alice := bw.bettor("alice", "100.00")
	client := http2Client(t, nil)
	// stalledBet sends a bet whose body stops after one byte, until ctx
	// ends or the server answers.
	stalledBet := func(ctx context.Context) (*http.Response, *io.PipeWriter, error) {
		return postStalled(ctx, client, bw.url+"/api/v1/bettor/bets", "Authorization", "Bearer "+alice, "Idempotency-Key", uuid.NewString())
	}
	// inProgress stalled bets, each sent again when a probe below held the
	// slot it came for, and again when the placement's 3 s ended it, until
	// a probe has been refused: a loaded machine may take longer than
	// those 3 s to answer a probe.
	refused := make(chan struct{})
	answered := make(chan int, inProgress)
	for range inProgress {
		go func() {
			for {
				resp, stall, err := stalledBet(context.Background())
				stall.Close()
				if err != nil {
					answered <- 0
					return
				}
				resp.Body.Close()
				if resp.StatusCode == http.StatusTooManyRequests {
					time.Sleep(10 * time.Millisecond) // a probe holds the slot until its answer
					continue
				}
				select {
				case <-refused:
				default:
					if resp.StatusCode == http.StatusBadRequest {
						continue
					}
				}
				answered <- resp.StatusCode
				return
			}
		}()
	}
	// Once their handlers are reading, one more bet is refused before its
	// body is read. Each probe is a stalled bet: one let in before the
	// others arrived holds a slot until the placement's 3 s end it (400).
	waitfor.Check(t, func() error {
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		defer cancel()
		resp, stall, err := stalledBet(ctx)
		defer stall.Close()
		if err != nil {
			return fmt.Errorf("bet %d while %d should be in progress: no answer (%v), want 429", inProgress+1, inProgress, err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusTooManyRequests || resp.Header.Get("Retry-After") != "1" {
			return fmt.Errorf("bet %d while %d are in progress = %d (Retry-After %q), want 429 with Retry-After 1",
				inProgress+1, inProgress, resp.StatusCode, resp.Header.Get("Retry-After"))
		}
		return nil
	})
	close(refused)
	for range inProgress {
		if status := <-answered; status != http.StatusBadRequest {
			t.Errorf("a bet whose body ended after one byte = %d, want 400", status)
		}
	}
	if r := bw.place(alice, uuid.NewString(), bw.outcome[0], "1.00"); r.status != http.StatusAccepted {
		t.Errorf("a bet once the others ended = %d %s, want 202", r.status, r.body)
	}
}

// TestStalledBodiesOfLargeLimitsEnd: a ticket job's submission and an
// admin request whose bodies stall end once requestbody.ReadLarge's time
// for their body limit has passed (a 64 KiB ticket limit here: 11 s; the
// admin API's 1 MiB: 26 s), answered 400 in each API's error shape,
// instead of holding their handlers for the server's read timeout.
func TestStalledBodiesOfLargeLimitsEnd(t *testing.T) {
	t.Parallel()
	w := newWorld(t, "sqlite:"+t.TempDir()+"/f.db", worldOptions{
		config: func(c *server.Config) { c.MaxBodyBytes = 64 << 10 }})
	client := http2Client(t, nil)
	for _, c := range []struct {
		name, path, token string
		within            time.Duration
	}{
		{"a ticket job", "/tickets/v1/jobs", w.key, 11 * time.Second},
		{"an admin request", "/admin/v1/operators", adminToken, 26 * time.Second},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			ctx, cancel := context.WithTimeout(context.Background(), 50*time.Second)
			defer cancel()
			start := time.Now()
			resp, stall, err := postStalled(ctx, client, w.url+c.path, "Authorization", "Bearer "+c.token)
			defer stall.Close()
			if err != nil {
				t.Fatalf("a stalled body: %v after %v", err, time.Since(start).Round(time.Millisecond))
			}
			defer resp.Body.Close()
			raw, _ := io.ReadAll(resp.Body)
			if took := time.Since(start); resp.StatusCode != http.StatusBadRequest || !strings.Contains(string(raw), "invalid_request") || took > c.within+10*time.Second {
				t.Errorf("a stalled body = %d %s after %v, want 400 invalid_request within %v", resp.StatusCode, raw, took.Round(time.Millisecond), c.within)
			}
		})
	}
}
