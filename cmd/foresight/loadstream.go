package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/foresight-dev/foresight/internal/loadtest"
	"github.com/foresight-dev/foresight/internal/loadtest/betload"
)

// runLoadtestStream measures the odds stream: it connects many bettors to
// GET /api/v1/odds/stream of an in-process server (or of --target), changes a market's
// prices through the admin API at an interval, and reports how long each
// change took to reach each stream, from the moment the admin request was
// sent to the moment the stream delivered the change's line. With --http2
// the streams share HTTP/2 connections without TLS, as behind a proxy
// that speaks HTTP/2 to the node; the report counts the connections.
func runLoadtestStream(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("loadtest stream", stderr)
	var (
		world    betWorldFlags
		streams  int
		changes  int
		interval time.Duration
		http2    bool
	)
	world.register(fs)
	fs.IntVar(&streams, "streams", 5000, "connected streams")
	fs.IntVar(&changes, "changes", 20, "price changes")
	fs.DurationVar(&interval, "interval", 500*time.Millisecond, "time between price changes")
	fs.BoolVar(&http2, "http2", false, "open the streams over HTTP/2 without TLS (prior knowledge), many on a connection, instead of one HTTP/1.1 connection each")
	if err := fs.Parse(args); err != nil {
		return err
	}
	w, done, err := world.start(ctx, 8)
	if err != nil {
		return err
	}
	defer done()
	protocol := "HTTP/1.1"
	if http2 {
		protocol = "HTTP/2"
	}
	fmt.Fprintf(stdout, "%s, %d streams over %s, %d price changes %v apart\n", w.Describe(), streams, protocol, changes, interval)

	// One token per stream: a token holds at most
	// bettorhttp.MaxStreamsPerToken streams.
	tokens := make([]string, streams)
	for i := range tokens {
		if tokens[i], err = w.Operator.MintToken(fmt.Sprint("bettor-", i), "USD"); err != nil {
			return err
		}
	}
	// sent[v] is when the change that makes the market's version v was sent.
	var (
		mu        sync.Mutex
		sent      = map[int64]time.Time{}
		latencies []time.Duration
	)
	streamCtx, stopStreams := context.WithCancel(ctx)
	defer stopStreams()
	// conns counts the streams' connections: one per stream over
	// HTTP/1.1; over HTTP/2 the transport opens another when the server's
	// limit of streams per connection is reached.
	var (
		conns  connCounter
		dialer net.Dialer
	)
	transport := &http.Transport{MaxIdleConnsPerHost: -1, DisableCompression: true,
		DialContext: func(ctx context.Context, network, addr string) (net.Conn, error) {
			c, err := dialer.DialContext(ctx, network, addr)
			if err != nil {
				return nil, err
			}
			return conns.track(c), nil
		}}
	if http2 {
		transport.MaxIdleConnsPerHost = 0 // an HTTP/2 connection is shared from the idle list
		transport.Protocols = new(http.Protocols)
		transport.Protocols.SetUnencryptedHTTP2(true)
	}
	defer transport.CloseIdleConnections()
	client := &http.Client{Transport: transport}
	connected := make(chan error, streams)
	var readers sync.WaitGroup
	first := w.Market.Outcomes[0].ID
	start := time.Now()
	// Over HTTP/2 the streams open a wave at a time: requests started
	// together while no connection has room each dial one, and the
	// transport keeps one of them.
	wave := streams
	if http2 {
		wave = http2Wave
	}
	open := func(i int) {
		readers.Go(func() {
			req, _ := http.NewRequestWithContext(streamCtx, "GET", w.Base+"/api/v1/odds/stream?locale=en", nil)
			req.Header.Set("Authorization", "Bearer "+tokens[i])
			resp, err := client.Do(req)
			if err != nil {
				connected <- err
				return
			}
			defer resp.Body.Close()
			if resp.StatusCode != http.StatusOK {
				connected <- fmt.Errorf("stream: %s", resp.Status)
				return
			}
			lines := bufio.NewScanner(resp.Body)
			for lines.Scan() {
				line := lines.Text()
				if line == ": connected" {
					connected <- nil
					continue
				}
				data, ok := strings.CutPrefix(line, "data: ")
				if !ok {
					continue
				}
				var c struct {
					OutcomeID     string `json:"outcome_id"`
					MarketVersion int64  `json:"market_version"`
				}
				if json.Unmarshal([]byte(data), &c) != nil || c.OutcomeID != first {
					continue
				}
				now := time.Now()
				mu.Lock()
				if at, ok := sent[c.MarketVersion]; ok {
					latencies = append(latencies, now.Sub(at))
				}
				mu.Unlock()
			}
		})
	}
	for from := 0; from < streams; from += wave {
		n := min(wave, streams-from)
		for i := range n {
			open(from + i)
		}
		for range n {
			if err := <-connected; err != nil {
				return fmt.Errorf("connect the streams: %w", err)
			}
		}
	}
	fmt.Fprintf(stdout, "%-40s %d streams in %v (TCP connections: %d open, %d dialed)\n", "connected", streams, time.Since(start).Round(time.Millisecond),
		conns.open.Load(), conns.dialed.Load())

	version := w.Market.Version
	for i := range changes {
		p := []string{"0.5", "0.5"}
		if i%2 == 0 {
			p = []string{"0.6", "0.4"}
		}
		body := fmt.Sprintf(`{"outcomes":[{"id":%q,"probability":%q},{"id":%q,"probability":%q}]}`,
			w.Market.Outcomes[0].ID, p[0], w.Market.Outcomes[1].ID, p[1])
		mu.Lock()
		sent[version+1] = time.Now()
		mu.Unlock()
		var ev struct {
			Markets []betload.Market `json:"markets"`
		}
		if err := w.Admin(ctx, "POST", "/admin/v1/markets/"+w.Market.ID+"/prices", body, &ev); err != nil {
			return err
		}
		version = ev.Markets[0].Version
		time.Sleep(interval)
	}
	want := streams * changes
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		mu.Lock()
		n := len(latencies)
		mu.Unlock()
		if n >= want {
			break
		}
	}
	stopStreams()
	readers.Wait()
	mu.Lock()
	defer mu.Unlock()
	slices.Sort(latencies)
	if len(latencies) == 0 {
		return fmt.Errorf("no change reached any stream")
	}
	q := func(p float64) time.Duration { return loadtest.Quantile(latencies, p) }
	fmt.Fprintf(stdout, "%-40s %d of %d deliveries: p50 %v, p90 %v, p99 %v, max %v\n", "price change to every stream", len(latencies), want,
		q(0.50).Round(10*time.Microsecond), q(0.90).Round(10*time.Microsecond), q(0.99).Round(10*time.Microsecond),
		latencies[len(latencies)-1].Round(10*time.Microsecond))
	return nil
}

// http2Wave is how many streams a run over HTTP/2 opens at once.
const http2Wave = 100

// connCounter counts the connections a transport dialed and those still
// open.
type connCounter struct{ dialed, open atomic.Int64 }

// track counts c and returns it, counting its close.
func (n *connCounter) track(c net.Conn) net.Conn {
	n.dialed.Add(1)
	n.open.Add(1)
	return &countedConn{Conn: c, n: n}
}

// countedConn is a connection of a connCounter.
type countedConn struct {
	net.Conn
	n      *connCounter
	closed sync.Once
}

// Close closes the connection and counts it closed the first time.
func (c *countedConn) Close() error {
	c.closed.Do(func() { c.n.open.Add(-1) })
	return c.Conn.Close()
}
