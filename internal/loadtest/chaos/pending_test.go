package chaos

import (
	"testing"
	"time"
)

// TestAfterRestarts measures bets pending across restarts: on one node
// exactly, on two nodes between the upper bound (any node's restart while
// the bet was pending) and the lower bound (the latest restart).
func TestAfterRestarts(t *testing.T) {
	t0 := time.Date(2026, 11, 26, 12, 0, 0, 0, time.UTC)
	at := func(s float64) time.Time { return t0.Add(time.Duration(s * float64(time.Second))) }
	w := &pendingWatch{seen: map[string]*pendingSeen{
		"stranded": {created: at(-1), last: at(12)},
		"quick":    {created: at(2), last: at(3)},
		"late":     {created: at(7), last: at(40)},
	}}
	// Node 0 killed at 0, up at 1, killed at 30, up at 31; node 1 killed
	// at 5, up at 6.
	windows := []nodeWindow{{node: 0, start: at(1), end: at(30)}, {node: 0, start: at(31)}, {node: 1, start: at(6)}}
	kills := []time.Time{at(0), at(5), at(30)}
	got := w.afterRestarts(windows, kills)
	want := []PendingAfterRestart{
		// Pending across node 0's restart at 1 and node 1's at 6: 11 s after
		// the first, 6 s after the latest.
		{BetID: "stranded", Node: 0, For: 11 * time.Second, AfterLatest: 6 * time.Second},
		// Created after node 0's first restart: node 0's second (31 → 40)
		// and node 1's (up at 6, before it was created) — only the second.
		{BetID: "late", Node: 0, For: 9 * time.Second, AfterLatest: 9 * time.Second},
	}
	if len(got) != len(want) {
		t.Fatalf("got %+v, want %+v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("bet %d = %+v, want %+v", i, got[i], want[i])
		}
	}
}
