package bettorhttp

import (
	"bytes"
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
	if ok, wait := h.streamConnects.Allow(b.Operator.ID + "\x00" + b.ID); !ok {
		h.errors.write(w, r, &betting.Error{Code: betting.ErrRateLimited, RetryAfter: wait,
			Message: "too many odds stream connections in a row; reconnect in a moment"})
		return
	}
	release, ok := h.streams.Take(sha256.Sum256([]byte(b.token)))
	if !ok {
		httpjson.WriteProblem(w, http.StatusTooManyRequests, fmt.Sprintf("This session already has %d odds streams open; close one first.", MaxStreamsPerToken))
		return
	}
	defer release()
	hub := h.svc.Hub()
	epoch := hub.Epoch()
	lastID := r.Header.Get("Last-Event-ID")
	from, resuming := parseStreamPosition(lastID)
	after := from.change
	if resuming && from.line >= 0 && after > 0 {
		after-- // the rest of a change read in part comes again
	}
	sub := hub.Resume(from.epoch, after)
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
	rc := http.NewResponseController(w)
	// The server's write timeout does not apply to a stream; its writes
	// have a deadline of their own, moved on once less than half of the
	// timeout is left: each write gets at least half of it, and a stream
	// that writes often does not move it at every write (on HTTP/2 each
	// move is a message to the connection's goroutine).
	var deadline time.Time
	writeBy := func() {
		if now := time.Now(); deadline.Sub(now) < h.streamWriteTimeout/2 {
			deadline = now.Add(h.streamWriteTimeout)
			rc.SetWriteDeadline(deadline)
		}
	}
	writeBy()
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-store")
	w.Header().Set("X-Accel-Buffering", "no")
	w.WriteHeader(http.StatusOK)
	op := b.Operator
	margin := marginKey(op.Margin)
	var (
		seq  int64
		buf  = []byte(": connected\n\n")
		skip = -1 // the lines of the first missed change the client has read
		// seen is the last position sent: a change at or before it is
		// in the snapshot already.
		seen = sub.At
	)
	writeFrame := func(f sseFrame) {
		seq++
		buf = append(buf, f.head...)
		buf = strconv.AppendInt(buf, seq, 10)
		buf = append(buf, f.tail...)
	}
	writeChange := func(c *betting.Change) {
		frames := c.Memo(margin, func(betting.Event) any { return encodeOdds(op, epoch, c) }).(oddsFrames)
		for i, f := range frames {
			if i > skip {
				writeFrame(f)
			}
		}
		skip = -1
	}
	switch {
	case sub.Resumed:
		for _, c := range sub.Missed {
			if resuming && from.line >= 0 && c.Seq == from.change {
				skip = from.line
			}
			writeChange(c)
		}
	case snapshot != nil:
		writeFrame(snapshot.Memo(margin, func([]betting.Event) any { return encodeSnapshot(op, epoch, snapshot) }).(sseFrame))
		seen = snapshot.At
	default:
		buf = append(buf, "id: "+streamPosition{epoch: epoch, change: sub.At, line: -1}.String()+"\n\n"...)
	}
	if _, err := w.Write(buf); err != nil {
		return
	}
	rc.Flush()
	ticker := time.NewTicker(keepAlive)
	defer ticker.Stop()
	for {
		select {
		case <-r.Context().Done():
			return
		case <-expired:
			data, _ := json.Marshal(streamEnd{ExpiresAt: b.ExpiresAt.UTC()})
			writeBy()
			fmt.Fprintf(w, "event: token_expired\ndata: %s\n\n", data)
			rc.Flush()
			return
		case <-ticker.C:
			writeBy()
			fmt.Fprint(w, ": keep-alive\n\n")
		case c, ok := <-sub.Changes:
			if !ok {
				return // fell behind, or the process is stopping: the client reconnects
			}
			if c.Seq <= seen {
				continue
			}
			buf = buf[:0]
			writeChange(c)
			writeBy()
			if _, err := w.Write(buf); err != nil {
				return
			}
		}
		if err := rc.Flush(); err != nil {
			return
		}
	}
}
