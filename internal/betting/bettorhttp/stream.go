package bettorhttp

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/foresight-dev/foresight/internal/betting"
	"github.com/foresight-dev/foresight/internal/betting/bettorauth"
	"github.com/foresight-dev/foresight/internal/httpjson"
	"github.com/foresight-dev/foresight/internal/odds"
)

// oddsChange is one data line of the odds stream.
type oddsChange struct {
	Sequence           int64                `json:"sequence"`
	EventID            string               `json:"event_id"`
	MarketID           string               `json:"market_id"`
	MarketStatus       betting.MarketStatus `json:"market_status"`
	MarketVersion      int64                `json:"market_version"`
	OutcomeID          string               `json:"outcome_id"`
	DisplayOdds        *odds.Odds           `json:"display_odds"`
	DisplayProbability *string              `json:"display_probability"`
	EntryOdds          *odds.Odds           `json:"entry_odds"`
}

// sseFrame is one server-sent event as every stream of a margin sends
// it, but for the stream's own sequence number, which goes between head
// (ending in `"sequence":`) and tail (ending in the event's blank line).
type sseFrame struct{ head, tail []byte }

// oddsFrames are the odds events of one change as one margin prices it,
// one per outcome of every market of the event. A change is encoded once
// per margin for every stream of this process (betting.Change.Memo), each
// stream splicing in its own numbers. The data carries no text, so the
// stream's locale does not change it.
type oddsFrames []sseFrame

// sequencePrefix starts the data of every odds event (oddsChange's first
// field).
const sequencePrefix = `{"sequence":`

// marginKey names a margin among the encodings of a change: operators of
// the same margin price every outcome alike.
func marginKey(m betting.Margin) string {
	return string(m.Method) + " " + m.Value.String()
}

// streamPosition is where a stream stands in its hub's changes, written
// as the SSE id of its events and read back from Last-Event-ID: the
// client has read every line of change `change`, or with line ≥ 0 only
// its lines up to line (zero-based).
type streamPosition struct {
	epoch  string
	change uint64
	line   int
}

// String is the position as an SSE id: "epoch-change" for a whole change,
// "epoch-change-line" for a part of one.
func (p streamPosition) String() string {
	id := p.epoch + "-" + strconv.FormatUint(p.change, 10)
	if p.line >= 0 {
		id += "-" + strconv.Itoa(p.line)
	}
	return id
}

// parseStreamPosition reads a Last-Event-ID; ok is false for anything
// that String did not write.
func parseStreamPosition(id string) (p streamPosition, ok bool) {
	parts := strings.Split(id, "-")
	if len(parts) < 2 || len(parts) > 3 || parts[0] == "" {
		return p, false
	}
	change, err := strconv.ParseUint(parts[1], 10, 64)
	if err != nil {
		return p, false
	}
	p = streamPosition{epoch: parts[0], change: change, line: -1}
	if len(parts) == 3 {
		if p.line, err = strconv.Atoi(parts[2]); err != nil || p.line < 0 {
			return p, false
		}
	}
	return p, true
}

// encodeOdds returns the odds events of change c of the hub named epoch
// as op's margin prices it. Each event's id is its position; the last
// one's is the whole change's.
func encodeOdds(op betting.Operator, epoch string, c *betting.Change) oddsFrames {
	e := c.Event
	v := betting.View(op, e, "")
	var tails [][]byte
	for i, m := range v.Markets {
		for _, o := range m.Outcomes {
			data, err := json.Marshal(oddsChange{EventID: e.ID, MarketID: m.ID, MarketStatus: m.Status, MarketVersion: e.Markets[i].Version,
				OutcomeID: o.ID, DisplayOdds: o.DisplayOdds, DisplayProbability: o.DisplayProbability, EntryOdds: o.EntryOdds})
			if err != nil {
				continue // a zero price, which pricing never gives: no line rather than a broken one
			}
			tails = append(tails, append(bytes.TrimPrefix(data, []byte(sequencePrefix+"0")), "\n\n"...))
		}
	}
	frames := make(oddsFrames, len(tails))
	for i, tail := range tails {
		pos := streamPosition{epoch: epoch, change: c.Seq, line: i}
		if i == len(tails)-1 {
			pos.line = -1
		}
		frames[i] = sseFrame{head: []byte("id: " + pos.String() + "\nevent: odds\ndata: " + sequencePrefix), tail: tail}
	}
	return frames
}

// oddsSnapshot is the data of a snapshot event after its sequence: every
// outcome's odds event, without sequence.
type oddsSnapshot struct {
	Odds []json.RawMessage `json:"odds"`
}

// encodeSnapshot returns the snapshot event of s as op's margin prices
// it: the odds events of every event of s, in one event whose id is the
// snapshot's position.
func encodeSnapshot(op betting.Operator, epoch string, s *betting.OddsSnapshot) sseFrame {
	out := oddsSnapshot{Odds: []json.RawMessage{}}
	for _, e := range s.Events {
		for _, f := range encodeOdds(op, epoch, &betting.Change{Event: e}) {
			item := append([]byte{'{'}, bytes.TrimSuffix(f.tail, []byte("\n\n"))[1:]...) // the leading comma gives way to the brace
			out.Odds = append(out.Odds, item)
		}
	}
	data, _ := json.Marshal(out) // raw messages that json.Marshal wrote
	pos := streamPosition{epoch: epoch, change: s.At, line: -1}
	return sseFrame{head: []byte("id: " + pos.String() + "\nevent: snapshot\ndata: " + sequencePrefix),
		tail: append(append([]byte{','}, data[1:]...), "\n\n"...)}
}

// keepAlive is how often an idle stream sends a comment line.
const keepAlive = 15 * time.Second

// DefaultStreamWriteTimeout bounds the writes of an odds stream: a client
// that has not taken a write's bytes within half of it to all of it (its
// TCP buffers, or its HTTP/2 stream's window, stay full) has its stream
// ended, so that it gives back its descriptor or HTTP/2 stream and its
// token's slot. Two keep-alive intervals: a reading client takes a write
// at once.
const DefaultStreamWriteTimeout = 2 * keepAlive

// MaxStreamsPerToken is how many odds streams one bearer token may hold
// open at once in one process; one more is answered 429. A widget holds
// one; the rest allows for connections the client dropped that the
// server has not noticed yet.
const MaxStreamsPerToken = 4

// streamEnd is the data of the stream's last event, token_expired.
type streamEnd struct {
	ExpiresAt time.Time `json:"expires_at"`
}

// stream serves GET /api/v1/odds/stream: server-sent events, one "odds"
// event per outcome of every market that changed, priced with the
// bettor's operator's margin, each with a sequence number (this
// connection's events from 1) and, as its SSE id, its position among this
// process's changes. The stream carries odds, not availability (read the
// event before betting). A client that falls behind is disconnected and
// reconnects, and so does one that takes no write within the stream's
// write timeout (Options.StreamWriteTimeout); every stream ends when the
// process stops (betting.Hub.Close).
//
// A reconnection with Last-Event-ID resumes: the changes after that
// position come first, when this process still holds them all (its last
// 1,024 changes); otherwise a "snapshot" event with the odds of every open
// or suspended event comes first. A connection without Last-Event-ID gets
// no snapshot but an id-only event naming its starting position.
//
// A stream lasts as long as its token is accepted: at the token's exp
// plus bettorauth.Leeway it sends a "token_expired" event and ends, and
// the client reconnects with a new token. A token holds at most
// MaxStreamsPerToken streams at once; one more is 429 problem+json. A
// bettor opens at most Options.StreamConnectBurst streams in a row, then
// Options.StreamConnectRate a second: one more is 429 problem+json with
// Retry-After (a reconnection with a stale Last-Event-ID costs a snapshot
// of every open event).
func (h *handler) stream(w http.ResponseWriter, r *http.Request, b Bettor) {
	release, ok := h.admitStream(w, r, b)
	if !ok {
		return
	}
	defer release()
	hub := h.svc.Hub()
	epoch := hub.Epoch()
	lastID := r.Header.Get("Last-Event-ID")
	from, resuming := parseStreamPosition(lastID)
	sub := hub.Resume(from.epoch, resumeAfter(from, resuming))
	defer sub.Stop()
	var snapshot *betting.OddsSnapshot
	if lastID != "" && !sub.Resumed {
		var err error
		if snapshot, err = h.svc.OddsSnapshot(r.Context(), sub.At); err != nil {
			h.errors.write(w, r, err)
			return
		}
	}
	var expired <-chan time.Time
	if !b.ExpiresAt.IsZero() {
		end := time.NewTimer(time.Until(b.ExpiresAt.Add(bettorauth.Leeway)))
		defer end.Stop()
		expired = end.C
	}
	s := newOddsStream(w, h.streamWriteTimeout, b.Operator, epoch, sub.At)
	s.writeHeader()
	switch {
	case sub.Resumed:
		s.appendMissed(sub.Missed, from, resuming)
	case snapshot != nil:
		s.appendSnapshot(snapshot)
	default:
		s.appendStart(sub.At)
	}
	if err := s.writeFirst(); err != nil {
		return
	}
	s.follow(r.Context(), sub.Changes, expired, b.ExpiresAt)
}

// admitStream lets bettor b open a stream, or answers 429 and returns
// false: when b has opened too many in a row (with Retry-After), or when
// b's token holds MaxStreamsPerToken streams already. release gives the
// token's slot back when the stream ends.
func (h *handler) admitStream(w http.ResponseWriter, r *http.Request, b Bettor) (release func(), ok bool) {
	if ok, wait := h.streamConnects.Allow(b.limitKey()); !ok {
		h.errors.write(w, r, &betting.Error{Code: betting.ErrRateLimited, RetryAfter: wait,
			Message: "too many odds stream connections in a row; reconnect in a moment"})
		return nil, false
	}
	release, ok = h.streams.Take(sha256.Sum256([]byte(b.token)))
	if !ok {
		httpjson.WriteProblem(w, http.StatusTooManyRequests, fmt.Sprintf("This session already has %d odds streams open; close one first.", MaxStreamsPerToken))
		return nil, false
	}
	return release, true
}

// resumeAfter is the position after which a stream starting from `from`
// (a Last-Event-ID, read when resuming) needs the hub's changes: the
// change before from's when the client read from's change only in part,
// so that its rest comes again.
func resumeAfter(from streamPosition, resuming bool) uint64 {
	after := from.change
	if resuming && from.line >= 0 && after > 0 {
		after--
	}
	return after
}

// oddsStream is one connection's odds stream as it writes: its response
// and write deadline, the events it has numbered, and buf, the bytes of
// its next write.
type oddsStream struct {
	w        http.ResponseWriter
	rc       *http.ResponseController
	timeout  time.Duration
	deadline time.Time
	op       betting.Operator
	margin   string
	epoch    string
	seq      int64
	buf      []byte
	// skip is the last line (zero-based) of the next change that the
	// client has read already; -1 for none.
	skip int
	// seen is the last position sent: a change at or before it is in the
	// snapshot already.
	seen uint64
}

// newOddsStream starts the stream of op's odds on w from position at of
// the hub named epoch, its writes bounded by timeout; its first write
// begins with a comment line.
func newOddsStream(w http.ResponseWriter, timeout time.Duration, op betting.Operator, epoch string, at uint64) *oddsStream {
	return &oddsStream{w: w, rc: http.NewResponseController(w), timeout: timeout, op: op, margin: marginKey(op.Margin),
		epoch: epoch, buf: []byte(": connected\n\n"), skip: -1, seen: at}
}

// moveDeadline gives the next write its deadline. The server's write
// timeout does not apply to a stream; its writes have a deadline of their
// own, moved on once less than half of the timeout is left: each write
// gets at least half of it, and a stream that writes often does not move
// it at every write (on HTTP/2 each move is a message to the connection's
// goroutine).
func (s *oddsStream) moveDeadline() {
	if now := time.Now(); s.deadline.Sub(now) < s.timeout/2 {
		s.deadline = now.Add(s.timeout)
		s.rc.SetWriteDeadline(s.deadline)
	}
}

// writeHeader sets the first write's deadline and sends the response
// header of an event stream.
func (s *oddsStream) writeHeader() {
	s.moveDeadline()
	s.w.Header().Set("Content-Type", "text/event-stream")
	s.w.Header().Set("Cache-Control", "no-store")
	s.w.Header().Set("X-Accel-Buffering", "no")
	s.w.WriteHeader(http.StatusOK)
}

// appendFrame adds f to buf with the stream's next sequence number.
func (s *oddsStream) appendFrame(f sseFrame) {
	s.seq++
	s.buf = append(s.buf, f.head...)
	s.buf = strconv.AppendInt(s.buf, s.seq, 10)
	s.buf = append(s.buf, f.tail...)
}

// appendChange adds the odds events of c to buf, but for the lines the
// client has read already (skip), priced with the stream's margin.
func (s *oddsStream) appendChange(c *betting.Change) {
	frames := c.Memo(s.margin, func(betting.Event) any { return encodeOdds(s.op, s.epoch, c) }).(oddsFrames)
	for i, f := range frames {
		if i > s.skip {
			s.appendFrame(f)
		}
	}
	s.skip = -1
}

// appendMissed adds the changes a resuming client missed, without the
// lines it read of the change at `from`.
func (s *oddsStream) appendMissed(missed []*betting.Change, from streamPosition, resuming bool) {
	for _, c := range missed {
		if resuming && from.line >= 0 && c.Seq == from.change {
			s.skip = from.line
		}
		s.appendChange(c)
	}
}

// appendSnapshot adds the snapshot event of snapshot; later changes at or
// before it are skipped.
func (s *oddsStream) appendSnapshot(snapshot *betting.OddsSnapshot) {
	s.appendFrame(snapshot.Memo(s.margin, func([]betting.Event) any { return encodeSnapshot(s.op, s.epoch, snapshot) }).(sseFrame))
	s.seen = snapshot.At
}

// appendStart adds the id-only event naming a new stream's starting
// position, at.
func (s *oddsStream) appendStart(at uint64) {
	s.buf = append(s.buf, "id: "+streamPosition{epoch: s.epoch, change: at, line: -1}.String()+"\n\n"...)
}

// writeFirst sends the stream's first events (buf) at once.
func (s *oddsStream) writeFirst() error {
	if _, err := s.w.Write(s.buf); err != nil {
		return err
	}
	s.rc.Flush()
	return nil
}

// follow sends the changes of changes, and a keep-alive comment every
// keepAlive, until ctx ends, the token expires (expired fires: a
// token_expired event for expiresAt is the last), changes is closed or a
// write or flush fails.
func (s *oddsStream) follow(ctx context.Context, changes <-chan *betting.Change, expired <-chan time.Time, expiresAt time.Time) {
	ticker := time.NewTicker(keepAlive)
	defer ticker.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-expired:
			data, _ := json.Marshal(streamEnd{ExpiresAt: expiresAt.UTC()})
			s.moveDeadline()
			fmt.Fprintf(s.w, "event: token_expired\ndata: %s\n\n", data)
			s.rc.Flush()
			return
		case <-ticker.C:
			s.moveDeadline()
			fmt.Fprint(s.w, ": keep-alive\n\n")
		case c, ok := <-changes:
			if !ok {
				return // fell behind, or the process is stopping: the client reconnects
			}
			if c.Seq <= s.seen {
				continue
			}
			s.buf = s.buf[:0]
			s.appendChange(c)
			s.moveDeadline()
			if _, err := s.w.Write(s.buf); err != nil {
				return
			}
		}
		if err := s.rc.Flush(); err != nil {
			return
		}
	}
}
