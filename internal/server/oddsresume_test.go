package server_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/shopspring/decimal"

	"github.com/foresight-dev/foresight/internal/betting"
)

// sseEvent is one server-sent event of the odds stream.
type sseEvent struct {
	id, event, data string
}

// nextEvent returns the stream's next event (an id-only one included),
// skipping comments.
func nextEvent(t *testing.T, s *rawStream) sseEvent {
	t.Helper()
	var e sseEvent
	seen := false
	for {
		line := nextLine(t, s)
		switch {
		case line == "" && seen:
			return e
		case line == "", strings.HasPrefix(line, ":"):
		default:
			seen = true
			field, value, _ := strings.Cut(line, ": ")
			switch field {
			case "id":
				e.id = value
			case "event":
				e.event = value
			case "data":
				e.data = value
			}
		}
	}
}

// withoutSequence is an odds event's data without its sequence number,
// and that number.
func withoutSequence(t *testing.T, data string) (string, int) {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal([]byte(data), &m); err != nil {
		t.Fatalf("data %q: %v", data, err)
	}
	seq, _ := m["sequence"].(float64)
	delete(m, "sequence")
	rest, _ := json.Marshal(m)
	return string(rest), int(seq)
}

// dialStreamFrom opens the odds stream with Last-Event-ID lastID.
func dialStreamFrom(t *testing.T, url, token, lastID string) *rawStream {
	t.Helper()
	req, _ := http.NewRequest("GET", url+"/api/v1/odds/stream", nil)
	req.Header.Set("Authorization", "Bearer "+token)
	req.Header.Set("Last-Event-ID", lastID)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { resp.Body.Close() })
	if resp.StatusCode != 200 {
		t.Fatalf("stream from %q = %d", lastID, resp.StatusCode)
	}
	s := &rawStream{resp: resp, lines: make(chan string, 100)}
	go func() {
		defer close(s.lines)
		sc := bufio.NewScanner(resp.Body)
		sc.Buffer(nil, 1<<20)
		for sc.Scan() {
			s.lines <- sc.Text()
		}
	}()
	return s
}

// connectedAt reads a new stream's first lines and returns its position.
func connectedAt(t *testing.T, s *rawStream) string {
	t.Helper()
	if first, blank := nextLine(t, s), nextLine(t, s); first != ": connected" || blank != "" {
		t.Fatalf("the stream began with %q, %q", first, blank)
	}
	at := nextEvent(t, s)
	if at.id == "" || at.event != "" || at.data != "" {
		t.Fatalf("a new stream's first event = %+v, want its position alone", at)
	}
	return at.id
}

// setPrices changes the world's market to probabilities p0 and 1-p0.
func (bw *bettingWorld) setPrices(t *testing.T, p0 string) {
	t.Helper()
	p1 := decimal.NewFromInt(1).Sub(decimal.RequireFromString(p0)).String()
	prices := fmt.Sprintf(`{"outcomes":[{"id":%q,"probability":%q},{"id":%q,"probability":%q}]}`, bw.outcome[0], p0, bw.outcome[1], p1)
	if st, _ := bw.admin("POST", "/admin/v1/markets/"+bw.market+"/prices", prices); st != 200 {
		t.Fatalf("prices = %d", st)
	}
}

// TestOddsStreamResumes: a client that read part of the stream reconnects
// with Last-Event-ID and gets exactly what it missed, in order, then the
// live changes: the same events (ids and data) as a stream that stayed
// connected, numbered from 1 on the new connection.
func TestOddsStreamResumes(t *testing.T) {
	t.Parallel()
	bw := newBettingWorld(t, "sqlite:"+t.TempDir()+"/f.db")
	alice := bw.bettor("alice", "100.00")
	_, reference := dialStream(t, bw.url, alice)
	start := connectedAt(t, reference)
	var seen []sseEvent // the reference's odds events
	probabilities := []string{"0.3", "0.35", "0.4", "0.45", "0.5"}
	for _, p := range probabilities {
		bw.setPrices(t, p)
		seen = append(seen, nextEvent(t, reference), nextEvent(t, reference))
	}
	for n, tt := range []struct {
		name string
		read int // events read before the reconnection; -1: none, resuming from the start
	}{
		{"from the start", -1},
		{"after two changes", 4},
		{"after the first line of a change", 5},
		{"after the last change", len(seen)},
	} {
		t.Run(tt.name, func(t *testing.T) {
			lastID, missed := start, seen
			if tt.read >= 0 {
				lastID, missed = seen[tt.read-1].id, seen[tt.read:]
			}
			s := dialStreamFrom(t, bw.url, alice, lastID)
			if first, blank := nextLine(t, s), nextLine(t, s); first != ": connected" || blank != "" {
				t.Fatalf("the stream began with %q, %q", first, blank)
			}
			for i, want := range missed {
				got := nextEvent(t, s)
				gotData, seq := withoutSequence(t, got.data)
				if got.id != want.id || got.event != "odds" || gotData != mustWithout(t, want.data) || seq != i+1 {
					t.Fatalf("missed event %d = %+v, want %+v with sequence %d", i+1, got, want, i+1)
				}
			}
			// The next event is the next live change: nothing else came
			// between.
			bw.setPrices(t, fmt.Sprintf("0.2%d", n))
			live := nextEvent(t, reference)
			got := nextEvent(t, s)
			gotData, seq := withoutSequence(t, got.data)
			if got.id != live.id || gotData != mustWithout(t, live.data) || seq != len(missed)+1 {
				t.Fatalf("after the missed events: %+v, want the live change %+v with sequence %d", got, live, len(missed)+1)
			}
			seen = append(seen, live, nextEvent(t, reference))
		})
	}
}

// oddsSnapshotData is a snapshot event's data.
type oddsSnapshotData struct {
	Sequence int              `json:"sequence"`
	Odds     []map[string]any `json:"odds"`
}

// TestOddsStreamSnapshot: a client whose position the server no longer
// holds (more than 1,024 changes ago, another process's, or not a
// position at all) gets a snapshot of every open event's odds first, as
// a stream that stayed connected last saw them, then the live changes.
func TestOddsStreamSnapshot(t *testing.T) {
	t.Parallel()
	bw := newBettingWorld(t, "sqlite:"+t.TempDir()+"/f.db")
	alice := bw.bettor("alice", "100.00")
	svc := bw.srv.Betting()
	_, old := dialStream(t, bw.url, alice)
	tooOld := connectedAt(t, old)
	old.resp.Body.Close()
	// 1,024 changes of another event (never stored) push the position out
	// of the server's memory.
	other, err := svc.GetEvent(context.Background(), bw.event)
	if err != nil {
		t.Fatal(err)
	}
	other.ID = uuid.NewString()
	for i := range 1024 {
		other.UpdatedAt = other.UpdatedAt.Add(time.Millisecond)
		other.Markets = slices.Clone(other.Markets)
		other.Markets[0].Version = int64(i + 2)
		svc.Hub().Publish(other)
	}
	_, reference := dialStream(t, bw.url, alice)
	connectedAt(t, reference)
	current := map[string]string{} // the odds of each outcome
	readCurrent := func() {
		for range 2 {
			data := mustWithout(t, nextEvent(t, reference).data)
			var m map[string]any
			json.Unmarshal([]byte(data), &m)
			current[m["outcome_id"].(string)] = data
		}
	}
	bw.setPrices(t, "0.3")
	readCurrent()
	for _, tt := range []struct{ name, lastID string }{
		{"more than 1,024 changes ago", tooOld},
		{"another process's", "0123456789abcdef-7"},
		{"an old server's number", "7"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			s := dialStreamFrom(t, bw.url, alice, tt.lastID)
			if first, blank := nextLine(t, s), nextLine(t, s); first != ": connected" || blank != "" {
				t.Fatalf("the stream began with %q, %q", first, blank)
			}
			e := nextEvent(t, s)
			var snap oddsSnapshotData
			if e.event != "snapshot" || json.Unmarshal([]byte(e.data), &snap) != nil || snap.Sequence != 1 || len(snap.Odds) != 2 {
				t.Fatalf("first event %+v, want a snapshot of the event's two outcomes with sequence 1", e)
			}
			if want := fmt.Sprintf("%s-%d", svc.Hub().Epoch(), svc.Hub().Position()); e.id != want {
				t.Errorf("snapshot id %q, want the position %q", e.id, want)
			}
			for _, o := range snap.Odds {
				got, _ := json.Marshal(o)
				if want := current[fmt.Sprint(o["outcome_id"])]; string(got) != want {
					t.Errorf("snapshot has %s, want %s", got, want)
				}
			}
			bw.setPrices(t, "0.4")
			live := nextEvent(t, reference)
			nextEvent(t, reference)
			got := nextEvent(t, s)
			if gotData, seq := withoutSequence(t, got.data); got.id != live.id || seq != 2 || gotData != mustWithout(t, live.data) {
				t.Fatalf("after the snapshot: %+v, want the live change %+v with sequence 2", got, live)
			}
			bw.setPrices(t, "0.3")
			readCurrent()
		})
	}
}

// readToEnd reads s until the server ends it and returns the id of the
// last event read and the last market_version.
func readToEnd(s *rawStream) (lastID string, lastVersion int64) {
	for line := range s.lines {
		if id, ok := strings.CutPrefix(line, "id: "); ok {
			lastID = id
		}
		if data, ok := strings.CutPrefix(line, "data: "); ok {
			var c struct {
				MarketVersion int64 `json:"market_version"`
			}
			json.Unmarshal([]byte(data), &c)
			lastVersion = c.MarketVersion
		}
	}
	return lastID, lastVersion
}

// mustWithout is withoutSequence's data.
func mustWithout(t *testing.T, data string) string {
	t.Helper()
	d, _ := withoutSequence(t, data)
	return d
}

// TestOddsStreamSlowReaderResumes: a client that stops reading is dropped
// once it falls 256 changes behind, /metrics counts it, and when it
// reconnects with the id of the last event it read it gets every change
// after that one, in order.
func TestOddsStreamSlowReaderResumes(t *testing.T) {
	t.Parallel()
	bw := newBettingWorld(t, "sqlite:"+t.TempDir()+"/f.db")
	alice := bw.bettor("alice", "100.00")
	hub := bw.srv.Betting().Hub()
	_, slow := dialStream(t, bw.url, alice)
	connectedAt(t, slow)
	// The client reads no further than its goroutine's 100 buffered
	// lines, and the changes come faster than the stream writes them: it
	// falls 256 changes behind.
	e, err := bw.srv.Betting().GetEvent(context.Background(), bw.event)
	if err != nil {
		t.Fatal(err)
	}
	e.ID = uuid.NewString()
	version := int64(1)
	publish := func() {
		version++
		e.UpdatedAt = e.UpdatedAt.Add(time.Millisecond)
		e.Markets = slices.Clone(e.Markets) // the published versions keep theirs
		e.Markets[0].Version = version
		hub.Publish(e)
	}
	publishUntilDropped(t, hub, 1, 1_000_000, publish)
	// What comes after the drop the dropped stream does not get.
	for range 10 {
		publish()
	}
	if got := metricValue(t, bw.world, "foresight_odds_stream_drops_total"); got != "1" {
		t.Errorf("drops = %q, want 1", got)
	}
	lastID, lastVersion := readToEnd(slow)
	if lastVersion >= version {
		t.Fatalf("the dropped reader read every change (version %d of %d)", lastVersion, version)
	}
	s := dialStreamFrom(t, bw.url, alice, lastID)
	if first, blank := nextLine(t, s), nextLine(t, s); first != ": connected" || blank != "" {
		t.Fatalf("the stream began with %q, %q", first, blank)
	}
	// The last event read may be a change's first line: its second comes
	// again, then every later change's two.
	seq := 0
	next := func() (int64, string) {
		t.Helper()
		ev := nextEvent(t, s)
		var c struct {
			Sequence      int    `json:"sequence"`
			MarketVersion int64  `json:"market_version"`
			OutcomeID     string `json:"outcome_id"`
		}
		if ev.event != "odds" || json.Unmarshal([]byte(ev.data), &c) != nil || c.Sequence != seq+1 {
			t.Fatalf("after %d events: %+v, want odds with sequence %d", seq, ev, seq+1)
		}
		seq++
		return c.MarketVersion, c.OutcomeID
	}
	if !strings.HasPrefix(lastID, hub.Epoch()+"-") {
		t.Fatalf("last id read %q, not a position of this process", lastID)
	}
	if strings.Count(lastID, "-") == 2 {
		if v, o := next(); v != lastVersion || o != bw.outcome[1] {
			t.Fatalf("first event resumed: version %d outcome %s, want the rest of version %d", v, o, lastVersion)
		}
	}
	for want := lastVersion + 1; want <= version; want++ {
		for i := range 2 {
			if v, o := next(); v != want || o != bw.outcome[i] {
				t.Fatalf("resumed event: version %d outcome %s, want version %d outcome %s", v, o, want, bw.outcome[i])
			}
		}
	}
	bw.setPrices(t, "0.3")
	if ev := nextEvent(t, s); !strings.Contains(ev.data, bw.event) {
		t.Fatalf("after the missed changes: %+v, want the live change of %s", ev, bw.event)
	}
}

// publishUntilDropped calls publish, which publishes one change, until the
// hub has dropped want streams in all; it fails after limit changes.
func publishUntilDropped(t *testing.T, hub *betting.Hub, want int64, limit int, publish func()) {
	t.Helper()
	for n := 0; hub.Dropped() < want; n++ {
		if n == limit {
			t.Fatalf("%d of %d streams that stopped reading were dropped after %d changes", hub.Dropped(), want, limit)
		}
		publish()
	}
}
