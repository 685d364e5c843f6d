// Package streamload measures the odds stream: it connects many bettors to
// GET /api/v1/odds/stream of a betload.World's server, changes the World's
// market's prices through the admin API at an interval, and reports how
// long each change took to reach each stream, from the moment the admin
// request was sent to the moment the stream delivered the change's line.
// Over HTTP/2 the streams share connections without TLS, as behind a proxy
// that speaks HTTP/2 to the node; the report counts the connections.
package streamload

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/foresight-dev/foresight/internal/loadtest"
	"github.com/foresight-dev/foresight/internal/loadtest/betload"
)

// Options describe a Run.
type Options struct {
	// Streams is the number of streams connected.
	Streams int
	// Changes is the number of price changes, Interval apart.
	Changes  int
	Interval time.Duration
	// HTTP2 opens the streams over HTTP/2 without TLS (prior knowledge),
	// many on a connection, instead of one HTTP/1.1 connection each.
	HTTP2 bool
}

// http2Wave is how many streams a run over HTTP/2 opens at once.
const http2Wave = 100

// Run connects o.Streams streams, makes o.Changes price changes, and
// writes the report's lines to report: the time to connect and the
// connections it took, then the percentiles of the deliveries. It waits at
// most 10 s after the last change for the deliveries. It fails when a
// stream does not connect, a price change fails, or no change reached any
// stream.
func Run(ctx context.Context, w *betload.World, o Options, report io.Writer) error {
	protocol := "HTTP/1.1"
	if o.HTTP2 {
		protocol = "HTTP/2"
	}
	fmt.Fprintf(report, "%s, %d streams over %s, %d price changes %v apart\n", w.Describe(), o.Streams, protocol, o.Changes, o.Interval)
	tokens, err := bettorTokens(w, o.Streams)
	if err != nil {
		return err
	}
	streamCtx, stopStreams := context.WithCancel(ctx)
	defer stopStreams()
	var conns connCounter
	transport := newTransport(&conns, o.HTTP2)
	defer transport.CloseIdleConnections()
	s := &streams{w: w, client: &http.Client{Transport: transport}, outcome: w.Market.Outcomes[0].ID, sent: map[int64]time.Time{}}
	start := time.Now()
	if err := s.connect(streamCtx, tokens, o.HTTP2); err != nil {
		return err
	}
	fmt.Fprintf(report, "%-40s %d streams in %v (TCP connections: %d open, %d dialed)\n", "connected", o.Streams, time.Since(start).Round(time.Millisecond),
		conns.open.Load(), conns.dialed.Load())

	if err := s.changePrices(ctx, o.Changes, o.Interval); err != nil {
		return err
	}
	want := o.Streams * o.Changes
	s.waitDeliveries(want, 10*time.Second)
	stopStreams()
	s.readers.Wait()
	return s.report(report, want)
}

// bettorTokens mints a token for each of n streams: a token holds at most
// bettorhttp.MaxStreamsPerToken streams.
func bettorTokens(w *betload.World, n int) ([]string, error) {
	tokens := make([]string, n)
	for i := range tokens {
		var err error
		if tokens[i], err = w.Operator.MintToken(fmt.Sprint("bettor-", i), "USD"); err != nil {
			return nil, err
		}
	}
	return tokens, nil
}

// streams are the open streams of a Run and what they measured.
type streams struct {
	w      *betload.World
	client *http.Client
	// outcome is the outcome whose changes are timed.
	outcome string
	// readers are the streams' readers.
	readers sync.WaitGroup

	mu sync.Mutex
	// sent[v] is when the change that makes the market's version v was
	// sent.
	sent map[int64]time.Time
	// latencies are the deliveries' times from sent.
	latencies []time.Duration
}

// connect opens a stream for each token and returns once each is
// connected, or with the first failure. Over HTTP/2 the streams open a
// wave at a time: requests started together while no connection has room
// each dial one, and the transport keeps one of them. The streams read
// until ctx ends.
func (s *streams) connect(ctx context.Context, tokens []string, http2 bool) error {
	connected := make(chan error, len(tokens))
	wave := len(tokens)
	if http2 {
		wave = http2Wave
	}
	for from := 0; from < len(tokens); from += wave {
		n := min(wave, len(tokens)-from)
		for i := range n {
			token := tokens[from+i]
			s.readers.Go(func() { s.read(ctx, token, connected) })
		}
		for range n {
			if err := <-connected; err != nil {
				return fmt.Errorf("connect the streams: %w", err)
			}
		}
	}
	return nil
}

// read opens the stream of the bettor of token, says on connected when it
// is connected or failed, and records the latency of each timed change it
// delivers until ctx ends.
func (s *streams) read(ctx context.Context, token string, connected chan<- error) {
	req, _ := http.NewRequestWithContext(ctx, "GET", s.w.Base+"/api/v1/odds/stream?locale=en", nil)
	req.Header.Set("Authorization", "Bearer "+token)
	resp, err := s.client.Do(req)
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
		if json.Unmarshal([]byte(data), &c) != nil || c.OutcomeID != s.outcome {
			continue
		}
		now := time.Now()
		s.mu.Lock()
		if at, ok := s.sent[c.MarketVersion]; ok {
			s.latencies = append(s.latencies, now.Sub(at))
		}
		s.mu.Unlock()
	}
}

// changePrices moves the market's prices between 0.6/0.4 and 0.5/0.5
// changes times, interval apart, noting when each change was sent.
func (s *streams) changePrices(ctx context.Context, changes int, interval time.Duration) error {
	m := s.w.Market
	version := m.Version
	for i := range changes {
		p := []string{"0.5", "0.5"}
		if i%2 == 0 {
			p = []string{"0.6", "0.4"}
		}
		body := fmt.Sprintf(`{"outcomes":[{"id":%q,"probability":%q},{"id":%q,"probability":%q}]}`,
			m.Outcomes[0].ID, p[0], m.Outcomes[1].ID, p[1])
		s.mu.Lock()
		s.sent[version+1] = time.Now()
		s.mu.Unlock()
		var ev struct {
			Markets []betload.Market `json:"markets"`
		}
		if err := s.w.Admin(ctx, "POST", "/admin/v1/markets/"+m.ID+"/prices", body, &ev); err != nil {
			return err
		}
		version = ev.Markets[0].Version
		time.Sleep(interval)
	}
	return nil
}

// waitDeliveries waits until want deliveries were recorded, looking every
// 50 ms, for at most limit.
func (s *streams) waitDeliveries(want int, limit time.Duration) {
	for deadline := time.Now().Add(limit); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		s.mu.Lock()
		n := len(s.latencies)
		s.mu.Unlock()
		if n >= want {
			return
		}
	}
}

// report writes the percentiles of the deliveries, of want; it fails
// when there were none.
func (s *streams) report(report io.Writer, want int) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	latencies := s.latencies
	slices.Sort(latencies)
	if len(latencies) == 0 {
		return fmt.Errorf("no change reached any stream")
	}
	q := func(p float64) time.Duration { return loadtest.Quantile(latencies, p) }
	fmt.Fprintf(report, "%-40s %d of %d deliveries: p50 %v, p90 %v, p99 %v, max %v\n", "price change to every stream", len(latencies), want,
		q(0.50).Round(10*time.Microsecond), q(0.90).Round(10*time.Microsecond), q(0.99).Round(10*time.Microsecond),
		latencies[len(latencies)-1].Round(10*time.Microsecond))
	return nil
}
