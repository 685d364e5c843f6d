package betting

import (
	"testing"
	"time"
)

// Resume hands a subscriber the changes after its position while the hub
// holds them all (its last hubReplay), and none otherwise.
func TestHubResume(t *testing.T) {
	t.Parallel()
	h := NewHub()
	t0 := time.Date(2026, 11, 26, 12, 0, 0, 0, time.UTC)
	const published = hubReplay + 10
	for i := range published {
		h.Publish(Event{ID: "e", UpdatedAt: t0.Add(time.Duration(i) * time.Second)})
	}
	for _, tt := range []struct {
		name    string
		epoch   string
		after   uint64
		resumed bool
	}{
		{"the last change read", h.Epoch(), published, true},
		{"a few missed", h.Epoch(), published - 3, true},
		{"the oldest held missed", h.Epoch(), published - hubReplay, true},
		{"one more than held missed", h.Epoch(), published - hubReplay - 1, false},
		{"a position not yet published", h.Epoch(), published + 1, false},
		{"another hub's", "0123456789abcdef", published, false},
		{"no position", "", 0, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			s := h.Resume(tt.epoch, tt.after)
			defer s.Stop()
			if s.Resumed != tt.resumed || s.At != published {
				t.Fatalf("Resumed %t at %d, want %t at %d", s.Resumed, s.At, tt.resumed, published)
			}
			want := 0
			if tt.resumed {
				want = int(published - tt.after)
			}
			if len(s.Missed) != want {
				t.Fatalf("%d missed, want %d", len(s.Missed), want)
			}
			for i, c := range s.Missed {
				if c.Seq != tt.after+uint64(i)+1 {
					t.Fatalf("missed[%d] at %d, want %d", i, c.Seq, tt.after+uint64(i)+1)
				}
			}
		})
	}
}

// Close ends every subscription and every later one, without counting a
// drop; a publish after it reaches no one and does not panic.
func TestHubClose(t *testing.T) {
	t.Parallel()
	h := NewHub()
	before := h.Resume("", 0)
	h.Close()
	after := h.Resume("", 0)
	h.Publish(Event{ID: "e", UpdatedAt: time.Date(2026, 11, 27, 9, 0, 0, 0, time.UTC)})
	for name, s := range map[string]Subscription{"before": before, "after": after} {
		if _, open := <-s.Changes; open {
			t.Errorf("the subscription %s Close got a change", name)
		}
		s.Stop()
	}
	if h.Dropped() != 0 || h.Subscribers() != 0 {
		t.Errorf("after Close: %d dropped, %d subscribers, want 0 and 0", h.Dropped(), h.Subscribers())
	}
}
