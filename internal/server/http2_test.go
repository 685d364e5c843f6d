package server_test

import (
	"context"
	"encoding/json"
	"net"
	"net/http"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// http2Client speaks HTTP/2 without TLS with prior knowledge (no
// Upgrade), as a proxy does to its upstreams; dials, when not nil,
// counts its connections. A stream's receive window of 64 KiB makes a
// stream that stops reading stop the server soon.
func http2Client(t *testing.T, dials *atomic.Int64) *http.Client {
	t.Helper()
	protocols := new(http.Protocols)
	protocols.SetUnencryptedHTTP2(true)
	var d net.Dialer
	transport := &http.Transport{Protocols: protocols, HTTP2: &http.HTTP2Config{MaxReceiveBufferPerStream: 64 << 10},
		DialContext: func(ctx context.Context, network, addr string) (net.Conn, error) {
			if dials != nil {
				dials.Add(1)
			}
			return d.DialContext(ctx, network, addr)
		}}
	t.Cleanup(transport.CloseIdleConnections)
	return &http.Client{Transport: transport}
}

// TestHTTP2WithoutTLS: a client speaking HTTP/2 with prior knowledge gets
// the APIs' answers and an odds stream that delivers a price change, on
// one connection, beside HTTP/1.1 clients on the same listener.
func TestHTTP2WithoutTLS(t *testing.T) {
	t.Parallel()
	bw := newBettingWorld(t, "sqlite:"+t.TempDir()+"/f.db")
	alice := bw.bettor("alice", "100.00")
	var dials atomic.Int64
	client := http2Client(t, &dials)
	req, _ := http.NewRequest("GET", bw.url+"/api/v1/auth/me", nil)
	req.Header.Set("Authorization", "Bearer "+alice)
	resp, err := client.Do(req)
	if err != nil {
		t.Fatalf("GET /api/v1/auth/me over HTTP/2: %v", err)
	}
	var me struct {
		BettorID string `json:"bettor_id"`
	}
	err = json.NewDecoder(resp.Body).Decode(&me)
	resp.Body.Close()
	if resp.StatusCode != 200 || resp.ProtoMajor != 2 || err != nil || me.BettorID != "alice" {
		t.Fatalf("GET /api/v1/auth/me = %d over %s (%v): %+v", resp.StatusCode, resp.Proto, err, me)
	}
	resp, s := dialStreamWith(t, client, bw.url+"/api/v1/odds/stream", alice)
	if s == nil || resp.ProtoMajor != 2 || resp.Header.Get("Content-Type") != "text/event-stream" {
		t.Fatalf("odds stream = %d over %s, %q", resp.StatusCode, resp.Proto, resp.Header.Get("Content-Type"))
	}
	connectedAt(t, s)
	bw.setPrices(t, "0.5")
	for i := range 2 {
		ev := nextEvent(t, s)
		var c struct {
			Sequence      int    `json:"sequence"`
			OutcomeID     string `json:"outcome_id"`
			MarketVersion int64  `json:"market_version"`
			DisplayOdds   string `json:"display_odds"`
		}
		if ev.event != "odds" || json.Unmarshal([]byte(ev.data), &c) != nil || c.Sequence != i+1 || c.OutcomeID != bw.outcome[i] ||
			c.MarketVersion != 2 || c.DisplayOdds != "1.90" {
			t.Fatalf("event %d over HTTP/2 = %+v", i+1, ev)
		}
	}
	if n := dials.Load(); n != 1 {
		t.Errorf("the HTTP/2 client opened %d connections, want 1 for both requests", n)
	}
	if r := bw.api("GET", "/api/v1/auth/me", alice, ""); r.status != 200 {
		t.Errorf("GET /api/v1/auth/me over HTTP/1.1 = %d", r.status)
	}
}

// TestOddsStreamHTTP2SlowReader: of two odds streams on one HTTP/2
// connection, the one that stops reading is dropped once it falls 256
// changes behind, as on HTTP/1.1, and /metrics counts it; the other, read
// all along, gets every change and is not dropped.
func TestOddsStreamHTTP2SlowReader(t *testing.T) {
	t.Parallel()
	bw := newBettingWorld(t, "sqlite:"+t.TempDir()+"/f.db")
	hub := bw.srv.Betting().Hub()
	var dials atomic.Int64
	client := http2Client(t, &dials)
	_, slow := dialStreamWith(t, client, bw.url+"/api/v1/odds/stream", bw.bettor("alice", "100.00"))
	_, fast := dialStreamWith(t, client, bw.url+"/api/v1/odds/stream", bw.bettor("bob", "100.00"))
	if slow == nil || fast == nil {
		t.Fatal("the streams did not open")
	}
	connectedAt(t, slow)
	connectedAt(t, fast)
	if n := dials.Load(); n != 1 {
		t.Fatalf("the streams came on %d connections, want 1", n)
	}
	// fast is read as every change is published; slow's reader stops at
	// its channel's 100 lines.
	versions := make(chan int64, 1)
	go func() {
		defer close(versions)
		for line := range fast.lines {
			data, ok := strings.CutPrefix(line, "data: ")
			var c struct {
				MarketVersion int64  `json:"market_version"`
				OutcomeID     string `json:"outcome_id"`
			}
			if ok && json.Unmarshal([]byte(data), &c) == nil && c.OutcomeID == bw.outcome[1] {
				versions <- c.MarketVersion
			}
		}
	}()
	e, err := bw.srv.Betting().GetEvent(context.Background(), bw.event)
	if err != nil {
		t.Fatal(err)
	}
	e.ID = bw.event
	version := e.Markets[0].Version
	publish := func() {
		t.Helper()
		version++
		e.UpdatedAt = e.UpdatedAt.Add(time.Millisecond)
		e.Markets = slices.Clone(e.Markets)
		e.Markets[0].Version = version
		hub.Publish(e)
		select {
		case got := <-versions:
			if got != version {
				t.Fatalf("the stream read along got version %d, want %d", got, version)
			}
		case <-time.After(10 * time.Second):
			t.Fatalf("the stream read along did not get version %d (drops %d)", version, hub.Dropped())
		}
	}
	publishUntilDropped(t, hub, 1, 100_000, publish)
	for range 10 {
		publish()
	}
	if got := hub.Dropped(); got != 1 {
		t.Errorf("hub drops = %d, want 1", got)
	}
	if got := metricValue(t, bw.world, "foresight_odds_stream_drops_total"); got != "1" {
		t.Errorf("drops in /metrics = %q, want 1", got)
	}
	_, lastVersion := readToEnd(slow)
	if lastVersion >= version {
		t.Fatalf("the stream that stopped reading read every change (version %d of %d)", lastVersion, version)
	}
}

// TestOddsStreamsEndAtShutdown: when the server stops, its odds streams
// end at once, on HTTP/1.1 and on HTTP/2, rather than hold the shutdown
// for its whole grace period of 15 s (their clients reconnect elsewhere).
func TestOddsStreamsEndAtShutdown(t *testing.T) {
	t.Parallel()
	bw := newBettingWorld(t, "sqlite:"+t.TempDir()+"/f.db")
	_, overHTTP1 := dialStream(t, bw.url, bw.bettor("alice", "100.00"))
	_, overHTTP2 := dialStreamWith(t, http2Client(t, nil), bw.url+"/api/v1/odds/stream", bw.bettor("bob", "100.00"))
	if overHTTP1 == nil || overHTTP2 == nil {
		t.Fatal("the streams did not open")
	}
	connectedAt(t, overHTTP1)
	connectedAt(t, overHTTP2)
	stopped := make(chan struct{})
	go func() {
		defer close(stopped)
		bw.world.stop()
	}()
	for name, s := range map[string]*rawStream{"HTTP/1.1": overHTTP1, "HTTP/2": overHTTP2} {
		ended := false
		for !ended {
			select {
			case _, ok := <-s.lines:
				ended = !ok
			case <-time.After(10 * time.Second):
				t.Fatalf("the %s stream still runs 10 s into the server's shutdown", name)
			}
		}
	}
	<-stopped
	if got := bw.srv.Betting().Hub().Dropped(); got != 0 {
		t.Errorf("drops = %d, want 0: a stream ended by shutdown did not fall behind", got)
	}
}
