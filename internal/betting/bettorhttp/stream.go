package bettorhttp

import (
	"bytes"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"sync"
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

// oddsFrames are the odds events of one change as one margin prices it,
// one per outcome of every market of the event, each without its
// sequence number: the JSON of its data line after sequencePrefix and the
// number. A change is encoded once per margin for every stream of this
// process (betting.Change.Memo), each stream splicing in its own numbers.
// The data carries no text, so the stream's locale does not change it.
type oddsFrames [][]byte

// sequencePrefix starts the data of every odds event (oddsChange's first
// field).
const sequencePrefix = `{"sequence":`

// marginKey names a margin among the encodings of a change: operators of
// the same margin price every outcome alike.
func marginKey(m betting.Margin) string {
	return string(m.Method) + " " + m.Value.String()
}

// encodeOdds returns the odds events of e as op's margin prices it.
func encodeOdds(op betting.Operator, e betting.Event) oddsFrames {
	v := betting.View(op, e, "")
	var frames oddsFrames
	for i, m := range v.Markets {
		for _, o := range m.Outcomes {
			data, err := json.Marshal(oddsChange{EventID: e.ID, MarketID: m.ID, MarketStatus: m.Status, MarketVersion: e.Markets[i].Version,
				OutcomeID: o.ID, DisplayOdds: o.DisplayOdds, DisplayProbability: o.DisplayProbability, EntryOdds: o.EntryOdds})
			if err != nil {
				continue // a zero price, which pricing never gives: no line rather than a broken one
			}
			frames = append(frames, bytes.TrimPrefix(data, []byte(sequencePrefix+"0")))
		}
	}
	return frames
}

// keepAlive is how often an idle stream sends a comment line.
const keepAlive = 15 * time.Second

// MaxStreamsPerToken is how many odds streams one bearer token may hold
// open at once in one process; one more is answered 429. A widget holds
// one; the rest allows for connections the client dropped that the
// server has not noticed yet.
const MaxStreamsPerToken = 4

// streamSlots counts the open streams of each token (by its SHA-256).
type streamSlots struct {
	max  int
	mu   sync.Mutex
	open map[[sha256.Size]byte]int
}

func newStreamSlots(max int) *streamSlots {
	return &streamSlots{max: max, open: map[[sha256.Size]byte]int{}}
}

// take holds one of token's slots; ok is false when all are held. release
// gives it back.
func (s *streamSlots) take(token string) (release func(), ok bool) {
	key := sha256.Sum256([]byte(token))
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.open[key] >= s.max {
		return nil, false
	}
	s.open[key]++
	return func() {
		s.mu.Lock()
		defer s.mu.Unlock()
		if s.open[key]--; s.open[key] <= 0 {
			delete(s.open, key)
		}
	}, true
}

// streamEnd is the data of the stream's last event, token_expired.
type streamEnd struct {
	ExpiresAt time.Time `json:"expires_at"`
}

// stream serves GET /api/v1/odds/stream: server-sent events, one "odds"
// event per outcome of every market that changed, priced with the
// bettor's operator's margin, each with a sequence number (also the SSE
// id). The stream carries odds, not availability (read the event before
// betting). A client that falls behind is disconnected and reconnects.
//
// A stream lasts as long as its token is accepted: at the token's exp
// plus bettorauth.Leeway it sends a "token_expired" event and ends, and
// the client reconnects with a new token. A token holds at most
// MaxStreamsPerToken streams at once; one more is 429 problem+json.
func (h *handler) stream(w http.ResponseWriter, r *http.Request, b Bettor) {
	release, ok := h.streams.take(b.token)
	if !ok {
		httpjson.WriteProblem(w, http.StatusTooManyRequests, fmt.Sprintf("This session already has %d odds streams open; close one first.", MaxStreamsPerToken))
		return
	}
	defer release()
	var expired <-chan time.Time
	if !b.ExpiresAt.IsZero() {
		end := time.NewTimer(time.Until(b.ExpiresAt.Add(bettorauth.Leeway)))
		defer end.Stop()
		expired = end.C
	}
	rc := http.NewResponseController(w)
	rc.SetWriteDeadline(time.Time{}) // the server's write timeout does not apply to a stream
	changes, stop := h.svc.Hub().Subscribe()
	defer stop()
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-store")
	w.Header().Set("X-Accel-Buffering", "no")
	w.WriteHeader(http.StatusOK)
	fmt.Fprint(w, ": connected\n\n")
	rc.Flush()
	ticker := time.NewTicker(keepAlive)
	defer ticker.Stop()
	var (
		seq int64
		buf []byte
	)
	margin := marginKey(b.Operator.Margin)
	for {
		select {
		case <-r.Context().Done():
			return
		case <-expired:
			data, _ := json.Marshal(streamEnd{ExpiresAt: b.ExpiresAt.UTC()})
			fmt.Fprintf(w, "event: token_expired\ndata: %s\n\n", data)
			rc.Flush()
			return
		case <-ticker.C:
			fmt.Fprint(w, ": keep-alive\n\n")
		case c, ok := <-changes:
			if !ok {
				return // fell behind: the client reconnects
			}
			op := b.Operator
			frames := c.Memo(margin, func(e betting.Event) any { return encodeOdds(op, e) }).(oddsFrames)
			buf = buf[:0]
			for _, f := range frames {
				seq++
				buf = append(buf, "id: "...)
				buf = strconv.AppendInt(buf, seq, 10)
				buf = append(buf, "\nevent: odds\ndata: "+sequencePrefix...)
				buf = strconv.AppendInt(buf, seq, 10)
				buf = append(buf, f...)
				buf = append(buf, "\n\n"...)
			}
			if _, err := w.Write(buf); err != nil {
				return
			}
		}
		if err := rc.Flush(); err != nil {
			return
		}
	}
}
