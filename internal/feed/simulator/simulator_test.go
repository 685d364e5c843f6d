package simulator

import (
	"context"
	"encoding/json"
	"errors"
	"maps"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/foresight-dev/foresight/internal/betting"
	"github.com/foresight-dev/foresight/internal/feed"
)

var _ feed.Source = (*Source)(nil)

func TestNewConfig(t *testing.T) {
	tests := []struct {
		name    string
		cfg     Config
		wantErr bool
	}{
		{"defaults", Config{}, false},
		{"fast pace", Config{Period: 10 * time.Second, Step: time.Second}, false},
		{"https images", Config{ImageBaseURL: "https://demo.example/feed/simulator/images/"}, false},
		{"period too short", Config{Period: 5 * time.Second, Step: time.Second}, true},
		{"period too long", Config{Period: 25 * time.Hour}, true},
		{"negative period", Config{Period: -time.Minute}, true},
		{"step too short", Config{Step: time.Millisecond}, true},
		{"step above period", Config{Period: time.Minute, Step: 2 * time.Minute}, true},
		{"http images (local use)", Config{ImageBaseURL: "http://localhost:8080/feed/simulator/images"}, false},
		{"ftp images", Config{ImageBaseURL: "ftp://demo.example/images"}, true},
		{"relative images", Config{ImageBaseURL: "/feed/simulator/images"}, true},
		{"images without host", Config{ImageBaseURL: "https:///images"}, true},
		{"images with credentials", Config{ImageBaseURL: "https://u:p@demo.example/images"}, true},
		{"images with query", Config{ImageBaseURL: "https://demo.example/images?v=1"}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, err := New(tt.cfg)
			if (err != nil) != tt.wantErr {
				t.Fatalf("New: err = %v, want error %v", err, tt.wantErr)
			}
			if err == nil && s.Name() != "simulator" {
				t.Errorf("Name() = %q", s.Name())
			}
		})
	}
}

func TestImageURL(t *testing.T) {
	tests := []struct{ base, prefix string }{
		{"", ""},
		{"https://demo.example/feed/simulator/images", "https://demo.example/feed/simulator/images/"},
		{"https://demo.example/feed/simulator/images/", "https://demo.example/feed/simulator/images/"},
	}
	for _, tt := range tests {
		s, _ := newSource(t, Config{Seed: 1, ImageBaseURL: tt.base})
		for _, e := range poll(t, s) {
			switch {
			case tt.prefix == "" && e.ImageURL != "":
				t.Errorf("base %q: image %q", tt.base, e.ImageURL)
			case tt.prefix != "":
				name, ok := strings.CutPrefix(e.ImageURL, tt.prefix)
				if _, known := images()[name]; !ok || !known || !strings.HasPrefix(name, e.Category+"-") {
					t.Errorf("base %q: event %s (%s) has image %q", tt.base, e.Key, e.Category, e.ImageURL)
				}
			}
		}
	}
}

func TestPollIsDeterministic(t *testing.T) {
	cfg := Config{Seed: 7, ImageBaseURL: "https://demo.example/feed/simulator/images"}
	a, ca := newSource(t, cfg)
	b, cb := newSource(t, cfg)
	tracked := []string{a.key(126000, 0), a.key(126001, 1), a.key(125990, 1)}
	for _, at := range []time.Time{testStart, testStart.Add(17 * time.Minute), testStart.Add(5*time.Hour + 3*time.Second)} {
		ca.t, cb.t = at, at
		ja, err := json.Marshal(poll(t, a, tracked...))
		if err != nil {
			t.Fatal(err)
		}
		// Another Source, the tracked keys in another order, twice.
		reversed := slices.Clone(tracked)
		slices.Reverse(reversed)
		jb, _ := json.Marshal(poll(t, b, slices.Concat(reversed, tracked)...))
		if string(ja) != string(jb) {
			t.Errorf("%v: two Sources with the same Config disagree", at)
		}
	}
}

func TestSeedsDiffer(t *testing.T) {
	a, _ := newSource(t, Config{Seed: 1})
	b, _ := newSource(t, Config{Seed: 2})
	ea, eb := poll(t, a), poll(t, b)
	titles := func(evs []feed.Event) []string {
		var out []string
		for _, e := range evs {
			out = append(out, e.Title["en"])
		}
		slices.Sort(out)
		return out
	}
	if slices.Equal(titles(ea), titles(eb)) {
		t.Error("seeds 1 and 2 give the same events")
	}
	if slices.ContainsFunc(keysOf(ea), func(k string) bool { return slices.Contains(keysOf(eb), k) }) {
		t.Error("seeds 1 and 2 share event keys")
	}
	// A key of another seed means nothing to this one.
	if evs := poll(t, b, keysOf(ea)...); len(evs) != len(eb) {
		t.Errorf("tracking seed 1's keys changed seed 2's answer: %d events, want %d", len(evs), len(eb))
	}
}

func TestEventsAreValid(t *testing.T) {
	tests := []struct {
		name  string
		cfg   Config
		every time.Duration
	}{
		{"default pace", Config{Seed: 3, ImageBaseURL: "https://demo.example/images"}, 11 * time.Minute},
		{"one-minute period", Config{Seed: 4, Period: time.Minute, Step: 10 * time.Second}, 3 * time.Minute},
		{"ten-second period", Config{Seed: 5, Period: 10 * time.Second, Step: time.Second}, 17 * time.Second},
		{"before the epoch", Config{Seed: 6, Epoch: testStart.Add(48 * time.Hour)}, 13 * time.Minute},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, c := newSource(t, tt.cfg)
			for i := range 150 {
				c.t = testStart.Add(time.Duration(i) * tt.every)
				evs := poll(t, s)
				keys := map[string]bool{}
				for _, e := range evs {
					if err := checkEvent(e); err != nil {
						t.Fatalf("%v: event %s: %v", c.t, e.Key, err)
					}
					if keys[e.Key] {
						t.Fatalf("%v: event %s twice", c.t, e.Key)
					}
					keys[e.Key] = true
					if final(e) {
						t.Fatalf("%v: untracked event %s is offered with every market final", c.t, e.Key)
					}
				}
			}
		})
	}
}

// TestWorldShape checks that at every time there are 20 to 40 events on
// offer, of all six categories.
func TestWorldShape(t *testing.T) {
	s, c := newSource(t, Config{Seed: 11})
	total, samples := 0, 0
	for c.t = testStart; c.t.Before(testStart.Add(72 * time.Hour)); c.t = c.t.Add(37 * time.Minute) {
		evs := poll(t, s)
		cats := map[string]int{}
		for _, e := range evs {
			cats[e.Category]++
		}
		if len(evs) < 20 || len(evs) > 40 {
			t.Errorf("%v: %d events on offer", c.t, len(evs))
		}
		for _, cat := range betting.Categories {
			if cats[cat] == 0 {
				t.Errorf("%v: no %s event among %v", c.t, cat, cats)
			}
		}
		total, samples = total+len(evs), samples+1
	}
	if mean := float64(total) / float64(samples); mean < 25 || mean > 35 {
		t.Errorf("%.1f events on offer on average", mean)
	}
}

// TestTemplatesVary checks that events of a category in a row use
// different templates.
func TestTemplatesVary(t *testing.T) {
	s, _ := newSource(t, Config{Seed: 12})
	for slot := range eventsPerWave {
		for n := int64(1000); n < 1600; n += 3 {
			a, b := s.template(n, slot), s.template(n+6, slot)
			if a.category != b.category {
				t.Fatalf("waves %d and %d, slot %d: categories %s and %s", n, n+6, slot, a.category, b.category)
			}
			if a == s.template(n+3, slot) && a == b {
				t.Errorf("waves %d to %d, slot %d: template %s three times in a row", n, n+6, slot, a.id)
			}
		}
	}
}

func TestProbabilitiesDrift(t *testing.T) {
	s, c := newSource(t, Config{Seed: 13})
	c.t = testStart.Add(5 * time.Second) // inside the step that starts at testStart
	before := openProbabilities(poll(t, s))
	c.t = testStart.Add(DefaultStep - time.Nanosecond)
	sameStep := openProbabilities(poll(t, s))
	c.t = testStart.Add(5 * time.Minute)
	after := openProbabilities(poll(t, s))

	changed, compared := 0, 0
	for key, p := range before {
		if q, ok := sameStep[key]; ok && !slices.Equal(p, q) {
			t.Errorf("market %s moved within a step: %v, then %v", key, p, q)
		}
		if q, ok := after[key]; ok {
			compared++
			if !slices.Equal(p, q) {
				changed++
			}
		}
	}
	if compared < 40 || changed < compared*9/10 {
		t.Errorf("%d of %d open markets moved in 5 minutes", changed, compared)
	}
}

// openProbabilities returns the probabilities of the open markets by key.
func openProbabilities(evs []feed.Event) map[string][]string {
	out := map[string][]string{}
	for _, e := range evs {
		for _, m := range e.Markets {
			if m.State != feed.Open {
				continue
			}
			for _, o := range m.Outcomes {
				out[m.Key] = append(out[m.Key], o.Probability.String())
			}
		}
	}
	return out
}

// TestLifecycle runs the feed the way feed.Sync does (polling with the keys
// of the events it saw whose markets are not all final) and checks every
// market's life: open or paused before ClosesAt, suspended from ClosesAt,
// then resolved with one of its outcomes or cancelled, and never changed
// after that; probabilities frozen after ClosesAt; texts and keys stable;
// tracked events reported until final, then gone.
func TestLifecycle(t *testing.T) {
	s, c := newSource(t, Config{Seed: 21})
	markets := map[string]*seen{}
	tracked := map[string]bool{}
	gone := map[string]bool{} // reported final: Sync stops tracking them
	for c.t = testStart; c.t.Before(testStart.Add(6 * time.Hour)); c.t = c.t.Add(30 * time.Second) {
		evs := poll(t, s, slices.Sorted(maps.Keys(tracked))...)
		reported := map[string]bool{}
		for _, e := range evs {
			reported[e.Key] = true
			if gone[e.Key] {
				t.Fatalf("%v: event %s is reported after it was final and untracked", c.t, e.Key)
			}
			for _, m := range e.Markets {
				checkLife(t, c.t, m)
				st, ok := markets[m.Key]
				if !ok {
					st = &seen{first: m}
					markets[m.Key] = st
				} else {
					checkStable(t, c.t, st, m)
				}
				if m.State == feed.Suspended && c.t.Before(*m.ClosesAt) {
					st.paused = true
				}
				if m.State == feed.Open && st.paused {
					st.reopened = true
				}
				if m.State == feed.Suspended && !c.t.Before(*m.ClosesAt) {
					st.suspended = true
				}
				st.last, st.lastAt = m, c.t
			}
			if final(e) {
				delete(tracked, e.Key)
				gone[e.Key] = true
			} else {
				tracked[e.Key] = true
			}
		}
		for key := range tracked {
			if !reported[key] {
				t.Fatalf("%v: tracked event %s is missing", c.t, key)
			}
		}
	}
	var resolved, cancelled, pausedAndReopened int
	for key, st := range markets {
		switch st.last.State {
		case feed.Resolved:
			resolved++
		case feed.Cancelled:
			cancelled++
		}
		if st.reopened {
			pausedAndReopened++
		}
		if (st.last.State == feed.Resolved || st.last.State == feed.Cancelled) && st.first.State != st.last.State && !st.suspended {
			t.Errorf("market %s went from %s to %s without being suspended", key, st.first.State, st.last.State)
		}
	}
	t.Logf("%d markets: %d resolved, %d cancelled, %d paused and reopened", len(markets), resolved, cancelled, pausedAndReopened)
	if resolved < 100 || cancelled < 1 || pausedAndReopened < 1 {
		t.Errorf("in 6 hours: %d resolved, %d cancelled, %d paused and reopened markets", resolved, cancelled, pausedAndReopened)
	}
}

// seen is what TestLifecycle saw of a market.
type seen struct {
	first, last feed.Market
	lastAt      time.Time // when last was reported
	paused      bool      // suspended before ClosesAt
	reopened    bool      // open again after a pause
	suspended   bool      // suspended at or after ClosesAt
}

// checkLife checks a market's state against its ClosesAt.
func checkLife(t *testing.T, now time.Time, m feed.Market) {
	t.Helper()
	if err := checkMarket(m); err != nil {
		t.Fatalf("%v: market %s: %v", now, m.Key, err)
	}
	if now.Before(*m.ClosesAt) && m.State != feed.Open && m.State != feed.Suspended {
		t.Fatalf("%v: market %s is %s before ClosesAt %v", now, m.Key, m.State, *m.ClosesAt)
	}
	if !now.Before(*m.ClosesAt) && m.State == feed.Open {
		t.Fatalf("%v: market %s is open after ClosesAt %v", now, m.Key, *m.ClosesAt)
	}
}

// checkStable checks what may not change between two answers: keys, texts,
// ClosesAt, a final state and its winner, and probabilities after ClosesAt.
func checkStable(t *testing.T, now time.Time, st *seen, m feed.Market) {
	t.Helper()
	first, prev := st.first, st.last
	if !m.ClosesAt.Equal(*first.ClosesAt) || m.Question["fr"] != first.Question["fr"] {
		t.Fatalf("%v: market %s changed its ClosesAt or question", now, m.Key)
	}
	for j, o := range m.Outcomes {
		if o.Key != first.Outcomes[j].Key || o.Name["ru"] != first.Outcomes[j].Name["ru"] {
			t.Fatalf("%v: market %s changed outcome %d", now, m.Key, j)
		}
		if !st.lastAt.Before(*m.ClosesAt) && !o.Probability.Equal(prev.Outcomes[j].Probability) {
			t.Fatalf("%v: market %s moved after ClosesAt", now, m.Key)
		}
	}
	if (prev.State == feed.Resolved || prev.State == feed.Cancelled) && (m.State != prev.State || m.Winner != prev.Winner) {
		t.Fatalf("%v: final market %s went from %s %q to %s %q", now, m.Key, prev.State, prev.Winner, m.State, m.Winner)
	}
}

// TestSettlement checks, over the markets of 3,000 waves polled long after
// they ended, the share of cancellations and that winners follow the
// closing probabilities.
func TestSettlement(t *testing.T) {
	s, c := newSource(t, Config{Seed: 31})
	var tracked []string
	for n := int64(126000); n < 129000; n++ {
		for slot := range eventsPerWave {
			tracked = append(tracked, s.key(n, slot))
		}
	}
	c.t = s.epoch.Add(129100 * s.period)
	isTracked := map[string]bool{}
	for _, k := range tracked {
		isTracked[k] = true
	}
	evs := slices.DeleteFunc(poll(t, s, tracked...), func(e feed.Event) bool { return !isTracked[e.Key] })
	if len(evs) != len(tracked) {
		t.Fatalf("%d events reported for %d tracked", len(evs), len(tracked))
	}
	var markets, cancelled, resolved int
	var winnerP, expectedP float64 // Σ p(winner), Σ Σ p²
	for _, e := range evs {
		if !final(e) {
			t.Fatalf("event %s is not final long after its end", e.Key)
		}
		for _, m := range e.Markets {
			markets++
			if m.State == feed.Cancelled {
				cancelled++
				continue
			}
			resolved++
			for _, o := range m.Outcomes {
				p := o.Probability.InexactFloat64()
				expectedP += p * p
				if o.Key == m.Winner {
					winnerP += p
				}
			}
		}
	}
	share := float64(cancelled) / float64(markets)
	t.Logf("%d markets, %.2f%% cancelled; mean p(winner) %.4f, expected %.4f", markets, 100*share, winnerP/float64(resolved), expectedP/float64(resolved))
	if share < 0.04 || share > 0.06 {
		t.Errorf("%.2f%% of %d markets cancelled, want about 5%%", 100*share, markets)
	}
	if d := (winnerP - expectedP) / float64(resolved); d < -0.01 || d > 0.01 {
		t.Errorf("winners' mean probability differs by %.4f from the expected", d)
	}
}

func TestTrackedKeys(t *testing.T) {
	s, c := newSource(t, Config{Seed: 41})
	other, _ := newSource(t, Config{Seed: 42})
	last := floorDiv(c.t.Sub(s.epoch), s.period)
	old := s.key(last-200, 1) // ended long ago
	tests := []struct {
		name    string
		tracked []string
		want    []string // keys reported besides the events on offer
	}{
		{"none", nil, nil},
		{"an ended event", []string{old}, []string{old}},
		{"twice", []string{old, old}, []string{old}},
		{"an event on offer", []string{s.key(last, 0)}, nil},
		{"another seed", []string{other.key(last-200, 1)}, nil},
		{"a future event", []string{s.key(last+1, 0)}, nil},
		{"a slot out of range", []string{s.key(last-200, 2)}, nil},
		{"a sign", []string{s.tag + ".+" + strings.TrimPrefix(old, s.tag+".")}, nil},
		{"a leading zero", []string{s.tag + ".0" + strings.TrimPrefix(old, s.tag+".")}, nil},
		{"garbage", []string{"", ".", s.tag, s.tag + ".x.0", "polymarket-123"}, nil},
		{"an absurd wave", []string{s.tag + ".-9223372036854775807.0", s.tag + ".-4611686018427387904.0"}, nil},
	}
	offered := keysOf(poll(t, s))
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := keysOf(poll(t, s, tt.tracked...))
			want := slices.Concat(offered, tt.want)
			slices.Sort(got)
			slices.Sort(want)
			if !slices.Equal(got, want) {
				t.Errorf("reported %v, want %v", got, want)
			}
		})
	}
	for _, e := range poll(t, s, old) {
		if e.Key == old && !final(e) {
			t.Errorf("ended event %s is not final", old)
		}
	}
}

func TestPollCancelled(t *testing.T) {
	s, _ := newSource(t, Config{})
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := s.Poll(ctx, nil); !errors.Is(err, context.Canceled) {
		t.Errorf("Poll on a cancelled context: %v", err)
	}
}
