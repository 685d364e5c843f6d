package widgettest

import (
	"fmt"
	"strings"
	"sync"
	"testing"
)

// loseAnswers replaces the server's answer to the first n place-bet calls
// (at the response stage: the server did receive them) with v.
func loseAnswers(n int, v verdict) func(seen) verdict {
	var mu sync.Mutex
	lost := 0
	return func(s seen) verdict {
		if s.Method != "POST" || s.Stage != "response" {
			return verdict{}
		}
		mu.Lock()
		defer mu.Unlock()
		if lost < n {
			lost++
			return v
		}
		return verdict{}
	}
}

// TestLostAnswerReplaysTheKey: obligations 4, 8 and 9. When the answer to
// the place-bet call is lost (a network error, a 5xx, a body that does not
// parse) after the server created the bet, the widget sends the same call
// again with the same Idempotency-Key, gets the original 202, and the bet
// exists once.
func TestLostAnswerReplaysTheKey(t *testing.T) {
	t.Parallel()
	w := newWorld(t, worldOptions{})
	tests := []struct {
		name, bettor string
		lost         verdict
	}{
		{"network error", "nina", verdict{fail: true}},
		{"500 after 3 seconds", "omar", verdict{status: 500, body: `{"type":"about:blank","title":"Internal Server Error","status":500,"detail":"took longer than 3 seconds"}`}},
		{"unreadable 202", "pia", verdict{status: 202, body: `<html>proxy error`}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			tb, ic := w.interceptedWidgetTab(t, tc.bettor, "100.00", loseAnswers(1, tc.lost))
			tb.bet(w.outcome[0], "10")
			tb.WaitText("#slip-status", "Bet placed: 10.00 USD on Home")
			posts := ic.requests("POST", "/api/v1/bettor/bets")
			var keys []string
			for _, p := range posts {
				if p.Stage == "request" {
					keys = append(keys, p.Key)
				}
			}
			if len(keys) != 2 || keys[0] != keys[1] || !uuidV4.MatchString(keys[0]) {
				t.Errorf("place-bet calls carried keys %v, want two with the same UUID v4", keys)
			}
			if n := w.betsOf(tc.bettor); n != 1 {
				t.Errorf("%s has %d bets, want 1", tc.bettor, n)
			}
			if waits := tb.waits("replay"); len(waits) != 1 || waits[0] != 1000 {
				t.Errorf("replay waits %v, want [1000]", waits)
			}
		})
	}
}

// TestUnansweredBetOffersOnlyTheSameKey: every replay's answer is lost.
// The widget says it could not confirm the bet and offers only to send the
// same bet again (same key) or to check the history, never a new bet; the
// bettor's "send again" gets the original 202.
func TestUnansweredBetOffersOnlyTheSameKey(t *testing.T) {
	t.Parallel()
	w := newWorld(t, worldOptions{})
	tb, ic := w.interceptedWidgetTab(t, "quinn", "100.00", loseAnswers(3, verdict{fail: true}))
	tb.bet(w.outcome[0], "10")
	tb.WaitText("#slip-status", "We could not confirm that your bet was received.")
	var state struct {
		Replay, History, PlaceDisabled, StakeDisabled bool
	}
	tb.Eval(`({Replay: !!document.getElementById('slip-replay'), History: !!document.getElementById('slip-history'),
		PlaceDisabled: document.getElementById('place').disabled, StakeDisabled: document.getElementById('stake').disabled})`, &state)
	if !state.Replay || !state.History || !state.PlaceDisabled || !state.StakeDisabled {
		t.Errorf("after the lost answers: %+v; want send-again and history offered, placing and the stake locked", state)
	}
	tb.Click("#slip-replay")
	tb.WaitText("#slip-status", "Bet placed: 10.00 USD on Home")
	keys := map[string]int{}
	for _, p := range ic.requests("POST", "/api/v1/bettor/bets") {
		if p.Stage == "request" {
			keys[p.Key]++
		}
	}
	if len(keys) != 1 {
		t.Errorf("keys sent: %v, want one key for the whole attempt", keys)
	}
	for _, n := range keys {
		if n != 4 {
			t.Errorf("the key was sent %d times, want 4 (3 calls, then send again)", n)
		}
	}
	if n := w.betsOf("quinn"); n != 1 {
		t.Errorf("quinn has %d bets, want 1", n)
	}
}

// TestPollCeiling: obligation 7, with a wallet that stalls. At the 60 s
// ceiling (60 virtual seconds of the test clock) the bet is still pending:
// the widget says it is still processing and to check the history, says
// neither failed nor placed, and offers no retry. The history, read when
// opened (obligation 11), shows the bet once the wallet answers.
func TestPollCeiling(t *testing.T) {
	t.Parallel()
	w := newWorld(t, worldOptions{})
	tb, ic := w.interceptedWidgetTab(t, "rita", "100.00", nil)
	wallet := w.gate.holdNext("/v1/withdrawals")
	tb.bet(w.outcome[0], "10")
	w.waitArrived(wallet)
	tb.WaitText("#slip-status", "Your bet is still being processed. Check My bets for its status.")
	status := strings.ToLower(tb.Text("#slip-status"))
	for _, word := range []string{"placed", "failed", "not placed", "rejected"} {
		if strings.Contains(status, word) {
			t.Errorf("the ceiling message %q says %q", status, word)
		}
	}
	var offers struct{ Replay, Place, History bool }
	tb.Eval(`({Replay: !!document.getElementById('slip-replay'), Place: !document.getElementById('slip-form').hidden,
		History: !!document.getElementById('slip-history')})`, &offers)
	if offers.Replay || offers.Place || !offers.History {
		t.Errorf("at the ceiling the slip offers %+v; want only the history", offers)
	}
	want := "[1000 2000 3000 3000 3000 5000 5000 5000 5000 5000 5000 5000 5000 5000 3000]"
	if got := fmt.Sprint(tb.waits("poll")); got != want {
		t.Errorf("poll waits %v, want %s (60 s)", got, want)
	}
	if n := len(ic.requests("GET", "/api/v1/bettor/bets/")); n != 15 {
		t.Errorf("the bet was read %d times, want 15", n)
	}

	tb.Click("#slip-history")
	tb.WaitText("#history li.bet .bet-status", "Pending")
	w.gate.release("/v1/withdrawals")
	w.waitBet("rita", "confirmed")
	tb.Click("#tab-markets")
	tb.Click("#tab-history")
	tb.WaitText("#history li.bet .bet-status", "Confirmed")
}

// TestRateLimitedBetIsNotReplayed: a 429 (the bettor's rate, which stores
// nothing) is a definite refusal, not a lost answer: the widget says to
// wait and try again, sends the call once, and no bet exists.
func TestRateLimitedBetIsNotReplayed(t *testing.T) {
	t.Parallel()
	w := newWorld(t, worldOptions{})
	tb, ic := w.interceptedWidgetTab(t, "sam", "100.00", func(s seen) verdict {
		if s.Method == "POST" && s.Stage == "request" {
			return verdict{status: 429, body: `{"type":"about:blank","title":"Too Many Requests","status":429,"detail":"too many bets in a row; try again in a moment"}`}
		}
		return verdict{}
	})
	tb.bet(w.outcome[0], "10")
	tb.WaitText("#slip-status", "Too many bets in a row. Wait a moment and try again.")
	if n := len(ic.requests("POST", "/api/v1/bettor/bets")); n != 1 {
		t.Errorf("the place-bet call was sent %d times, want once", n)
	}
	if n := w.betsOf("sam"); n != 0 {
		t.Errorf("sam has %d bets, want none", n)
	}
}
