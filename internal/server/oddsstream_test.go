package server_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"github.com/foresight-dev/foresight/internal/betting"
	"github.com/foresight-dev/foresight/internal/betting/bettorhttp"
	"github.com/foresight-dev/foresight/internal/odds"
	"github.com/foresight-dev/foresight/internal/sandbox/operator"
	"github.com/foresight-dev/foresight/internal/server"
	"github.com/foresight-dev/foresight/internal/waitfor"
)

// rawStream is an open odds stream read line by line.
type rawStream struct {
	resp  *http.Response
	lines chan string // closed when the server ends the stream
}

// dialStream opens the odds stream with token and returns the answer; a
// 200 is read in the background.
func dialStream(t *testing.T, url, token string) (*http.Response, *rawStream) {
	t.Helper()
	return dialStreamAt(t, url+"/api/v1/odds/stream", token)
}

// dialStreamAt is dialStream with the stream's whole URL.
func dialStreamAt(t *testing.T, url, token string) (*http.Response, *rawStream) {
	t.Helper()
	return dialStreamWith(t, http.DefaultClient, url, token)
}

// dialStreamWith is dialStreamAt through client.
func dialStreamWith(t *testing.T, client *http.Client, url, token string) (*http.Response, *rawStream) {
	t.Helper()
	req, _ := http.NewRequest("GET", url, nil)
	req.Header.Set("Authorization", "Bearer "+token)
	resp, err := client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { resp.Body.Close() })
	if resp.StatusCode != 200 {
		return resp, nil
	}
	s := &rawStream{resp: resp, lines: make(chan string, 100)}
	go func() {
		defer close(s.lines)
		sc := bufio.NewScanner(resp.Body)
		for sc.Scan() {
			s.lines <- sc.Text()
		}
	}()
	return resp, s
}

// TestOddsStreamEndsWithItsToken: a stream lasts as long as its token is
// accepted (exp plus the 30 s leeway); then it sends token_expired and
// ends, and the same token no longer opens one.
func TestOddsStreamEndsWithItsToken(t *testing.T) {
	t.Parallel()
	bw := newBettingWorld(t, "sqlite:"+t.TempDir()+"/f.db")
	// An operator whose clock is 25 s behind mints tokens of 1 s: each
	// expired 24 s ago and is accepted for about 6 s more.
	late := bw.addSandboxOperator(t, operator.Config{ID: "late", SigningSecret: "late-signing-secret-0123", TokenLifetime: time.Second,
		Now: func() time.Time { return time.Now().Add(-25 * time.Second) }}, "0.05")
	token, err := late.MintToken("bob", "USD")
	if err != nil {
		t.Fatal(err)
	}
	resp, s := dialStream(t, bw.url, token)
	if s == nil {
		t.Fatalf("stream with a token inside the leeway = %d", resp.StatusCode)
	}
	var got []string
	timeout := time.After(30 * time.Second)
	for open := true; open; {
		select {
		case line, ok := <-s.lines:
			if !ok {
				open = false
				break
			}
			got = append(got, line)
		case <-timeout:
			t.Fatalf("the stream outlived its token: %q", got)
		}
	}
	var end struct {
		ExpiresAt time.Time `json:"expires_at"`
	}
	n := len(got)
	if n < 3 || got[n-3] != "event: token_expired" || !strings.HasPrefix(got[n-2], "data: ") || got[n-1] != "" ||
		json.Unmarshal([]byte(strings.TrimPrefix(got[n-2], "data: ")), &end) != nil || end.ExpiresAt.IsZero() {
		t.Fatalf("the stream ended with %q, want a token_expired event with expires_at", got)
	}
	if resp, _ := dialStream(t, bw.url, token); resp.StatusCode != 401 {
		t.Errorf("a stream with the expired token = %d, want 401", resp.StatusCode)
	}
}

// TestOddsStreamsPerToken: one token holds at most 4 streams at once; a
// fifth is 429 in the bettor API's problem shape, a stream closed frees
// its slot, and another token of the same bettor has slots of its own.
func TestOddsStreamsPerToken(t *testing.T) {
	t.Parallel()
	bw := newBettingWorld(t, "sqlite:"+t.TempDir()+"/f.db")
	alice := bw.bettor("alice", "100.00")
	var open []*rawStream
	for i := range 4 {
		resp, s := dialStream(t, bw.url, alice)
		if s == nil {
			t.Fatalf("stream %d = %d, want 200", i+1, resp.StatusCode)
		}
		open = append(open, s)
	}
	refused, _ := dialStream(t, bw.url, alice)
	if refused.StatusCode != 429 {
		t.Fatalf("a fifth stream = %d, want 429", refused.StatusCode)
	}
	body, _ := io.ReadAll(refused.Body)
	bw.spec.Check(t, refused.Request, nil, refused.StatusCode, refused.Header, body)
	var p struct {
		Type, Title, Detail string
		Status              int
	}
	if refused.Header.Get("Content-Type") != "application/problem+json" || json.Unmarshal(body, &p) != nil || p.Status != 429 ||
		p.Title != "Too Many Requests" || p.Detail == "" {
		t.Fatalf("a fifth stream = %q %s, want problem+json", refused.Header.Get("Content-Type"), body)
	}
	// Another lifetime, another exp: another token (one minted in the same
	// second with the same claims would be the same token).
	if err := bw.op.SetTokenLifetime(2 * time.Hour); err != nil {
		t.Fatal(err)
	}
	other, err := bw.op.MintToken("alice", "USD")
	if err != nil || other == alice {
		t.Fatalf("another token: %v (the same: %t)", err, other == alice)
	}
	if resp, s := dialStream(t, bw.url, other); s == nil {
		t.Errorf("a stream with another token of the bettor = %d, want 200", resp.StatusCode)
	}
	open[0].resp.Body.Close()
	waitfor.True(t, "a slot freed by a closed stream", func() bool {
		resp, s := dialStream(t, bw.url, alice)
		if s != nil {
			s.resp.Body.Close()
		}
		return resp.StatusCode == 200
	})
}

// TestOddsStreamPerMarginAndLocale: streams of two operators with
// different margins, each in two locales, read the same two price
// changes. Every stream numbers its events from 1 ("sequence"), gives
// each the same SSE id (its position among the process's changes) and
// gets its own operator's prices, byte for byte in the documented shape,
// although a change is encoded once per margin for every stream.
func TestOddsStreamPerMarginAndLocale(t *testing.T) {
	t.Parallel()
	bw := newBettingWorld(t, "sqlite:"+t.TempDir()+"/f.db")
	wide := bw.addSandboxOperator(t, operator.Config{ID: "wide", SigningSecret: "wide-signing-secret-0123"}, "0.12")
	wideToken, err := wide.MintToken("walt", "USD")
	if err != nil {
		t.Fatal(err)
	}
	margins := map[string]betting.Margin{
		"sandbox": {Method: odds.OddsRatio, Value: decimal.RequireFromString("0.05")},
		"wide":    {Method: odds.OddsRatio, Value: decimal.RequireFromString("0.12")},
	}
	type stream struct {
		operator, locale string
		s                *rawStream
	}
	var streams []stream
	epoch := bw.srv.Betting().Hub().Epoch()
	for _, op := range []struct{ id, token string }{{"sandbox", bw.bettor("alice", "100.00")}, {"wide", wideToken}} {
		for _, locale := range []string{"en", "de"} {
			resp, s := dialStreamAt(t, bw.url+"/api/v1/odds/stream?locale="+locale, op.token)
			if s == nil {
				t.Fatalf("stream of %s in %s = %d", op.id, locale, resp.StatusCode)
			}
			if first, second := nextLine(t, s), nextLine(t, s); first != ": connected" || second != "" {
				t.Fatalf("stream of %s in %s began with %q, %q", op.id, locale, first, second)
			}
			if at, blank := nextLine(t, s), nextLine(t, s); at != "id: "+epoch+"-0" || blank != "" {
				t.Fatalf("stream of %s in %s: %q, %q, want its position, id: %s-0", op.id, locale, at, blank, epoch)
			}
			streams = append(streams, stream{op.id, locale, s})
		}
	}
	changes := [][2]string{{"0.5", "0.5"}, {"0.3", "0.7"}}
	for _, c := range changes {
		prices := fmt.Sprintf(`{"outcomes":[{"id":%q,"probability":%q},{"id":%q,"probability":%q}]}`, bw.outcome[0], c[0], bw.outcome[1], c[1])
		if st, _ := bw.admin("POST", "/admin/v1/markets/"+bw.market+"/prices", prices); st != 200 {
			t.Fatalf("prices = %d", st)
		}
	}
	for _, st := range streams {
		seq := 0
		for v, c := range changes {
			m := betting.Market{Outcomes: []betting.Outcome{{Probability: decimal.RequireFromString(c[0])}, {Probability: decimal.RequireFromString(c[1])}}}
			quotes, err := betting.Quotes(betting.Operator{Margin: margins[st.operator]}, m)
			if err != nil {
				t.Fatal(err)
			}
			for i, q := range quotes {
				seq++
				id := fmt.Sprintf("%s-%d-%d", epoch, v+1, i)
				if i == len(quotes)-1 {
					id = fmt.Sprintf("%s-%d", epoch, v+1)
				}
				want := []string{"id: " + id, "event: odds",
					fmt.Sprintf(`data: {"sequence":%d,"event_id":%q,"market_id":%q,"market_status":"open","market_version":%d,"outcome_id":%q,`+
						`"display_odds":%q,"display_probability":%q,"entry_odds":%q}`, seq, bw.event, bw.market, v+2, bw.outcome[i],
						q.DisplayOdds.String(), q.DisplayProbability.StringFixed(2), q.Odds.String()), ""}
				for _, w := range want {
					if got := nextLine(t, st.s); got != w {
						t.Fatalf("stream of %s in %s, event %d: %q, want %q", st.operator, st.locale, seq, got, w)
					}
				}
			}
		}
	}
}

// nextLine returns the stream's next line.
func nextLine(t *testing.T, s *rawStream) string {
	t.Helper()
	select {
	case line, ok := <-s.lines:
		if !ok {
			t.Fatal("the stream ended")
		}
		return line
	case <-time.After(10 * time.Second):
		t.Fatal("no line for 10 s")
	}
	return ""
}

// TestOddsStreamStalledReaderGivesBackItsSlot: four HTTP/2 streams of one
// token whose clients stop reading fill their flow-control windows, so
// the server's writes to them wait; each is dropped once it falls behind
// and ends when a write of it is not taken within the stream's write
// timeout, and the token's four slots come back. A write that waited for
// good would hold them (and the streams) as long as the client keeps its
// connection. HTTP/1.1 streams get the same deadline on their connection;
// a test would have to fill the kernel's socket buffers first.
func TestOddsStreamStalledReaderGivesBackItsSlot(t *testing.T) {
	t.Parallel()
	client := http2Client(t, nil)
	// The write timeout must not end a stream before it falls behind:
	// the four streams share one connection, whose writes a loaded
	// machine can hold up for 200 ms (a stream then ended undropped, and
	// the test failed waiting for its drop).
	bw := newBettingWorldWith(t, "sqlite:"+t.TempDir()+"/f.db", worldOptions{config: func(c *server.Config) {
		c.OddsStreamWriteTimeout = 2 * time.Second
	}})
	hub := bw.srv.Betting().Hub()
	alice := bw.bettor("alice", "100.00")
	for i := range bettorhttp.MaxStreamsPerToken {
		// Each reader stops once its 100 lines are not taken.
		if resp, s := dialStreamWith(t, client, bw.url+"/api/v1/odds/stream", alice); s == nil {
			t.Fatalf("stream %d = %d, want 200", i+1, resp.StatusCode)
		}
	}
	e, err := bw.srv.Betting().GetEvent(context.Background(), bw.event)
	if err != nil {
		t.Fatal(err)
	}
	e.ID = bw.event
	version := e.Markets[0].Version
	publishUntilDropped(t, hub, bettorhttp.MaxStreamsPerToken, 1_000_000, func() {
		version++
		e.UpdatedAt = e.UpdatedAt.Add(time.Millisecond)
		e.Markets = slices.Clone(e.Markets)
		e.Markets[0].Version = version
		hub.Publish(e)
	})
	waitfor.True(t, "a slot given back by a stalled stream", func() bool {
		resp, s := dialStreamWith(t, client, bw.url+"/api/v1/odds/stream", alice)
		if s != nil {
			s.resp.Body.Close()
		}
		return resp.StatusCode == 200
	})
}

// TestOddsStreamConnectRate: a bettor that opens more odds streams in a
// row than its burst (a stale Last-Event-ID costs a snapshot each time)
// gets 429 problem+json with Retry-After; another bettor of the operator
// still connects. Each stream is closed before the next opens, so the
// per-token bound of open streams plays no part.
func TestOddsStreamConnectRate(t *testing.T) {
	t.Parallel()
	bw := newBettingWorldWith(t, "sqlite:"+t.TempDir()+"/f.db", worldOptions{
		config: func(c *server.Config) { c.OddsStreamRateLimit, c.OddsStreamRateBurst = 0.001, 3 }, // no token back during the test
	})
	alice := bw.bettor("alice", "100.00")
	for i := range 3 {
		s := dialStreamFrom(t, bw.url, alice, "stale-1")
		if ev := nextEvent(t, s); ev.event != "snapshot" {
			t.Fatalf("stream %d with a stale Last-Event-ID began with %q, want a snapshot", i+1, ev.event)
		}
		s.resp.Body.Close()
	}
	refused, s := dialStream(t, bw.url, alice)
	if s != nil {
		t.Fatal("a stream past the burst = 200, want 429")
	}
	body, _ := io.ReadAll(refused.Body)
	if refused.StatusCode != 429 || refused.Header.Get("Content-Type") != "application/problem+json" {
		t.Fatalf("a stream past the burst = %d %q %s, want 429 problem+json", refused.StatusCode, refused.Header.Get("Content-Type"), body)
	}
	bw.spec.Check(t, refused.Request, nil, refused.StatusCode, refused.Header, body)
	if s, err := strconv.Atoi(refused.Header.Get("Retry-After")); err != nil || s < 1 {
		t.Errorf("Retry-After = %q, want whole seconds", refused.Header.Get("Retry-After"))
	}
	bob := bw.bettor("bob", "100.00")
	if resp, s := dialStream(t, bw.url, bob); s == nil {
		t.Errorf("another bettor's stream = %d, want 200", resp.StatusCode)
	}
}
