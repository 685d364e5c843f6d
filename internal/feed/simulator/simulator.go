package simulator

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"math"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/foresight-dev/foresight/internal/feed"
)

// Defaults of Config.
const (
	DefaultPeriod = 5 * time.Minute
	DefaultStep   = 30 * time.Second
)

// defaultEpoch is the Epoch of a Config that sets none.
var defaultEpoch = time.Date(2025, time.January, 1, 0, 0, 0, 0, time.UTC)

// catalogVersion is part of every key. Bump it when a change of the
// templates, the vocabulary or the schedule would give an existing key other
// outcomes, so that events fed by an older build are not confused with new
// ones.
const catalogVersion = 1

// Config configures a Source. Two Sources with the same Seed, Epoch, Period
// and Step report the same events, keys, texts, probabilities and states at
// the same time, on any machine and after any restart.
type Config struct {
	// Seed chooses the world: which events appear, their texts, odds and
	// results.
	Seed int64
	// Epoch anchors the schedule: wave n (any integer) starts at Epoch +
	// n·Period, and probabilities move at Epoch + k·Step. The zero value
	// means 2025-01-01T00:00:00Z, so that every node agrees without
	// configuration; the world is full at any time after it.
	Epoch time.Time
	// Period is the time between two waves of events, and the unit of every
	// other duration of the schedule (see the package documentation). The
	// zero value means DefaultPeriod (5 minutes); it must be 10 s to 24 h.
	Period time.Duration
	// Step is how often probabilities move. The zero value means DefaultStep
	// (30 s); it must be 1 s to Period.
	Step time.Duration
	// ImageBaseURL is the URL the images of Images are served under
	// (with or without a trailing slash), e.g.
	// "https://demo.example/feed/simulator/images". Events get ImageURL =
	// ImageBaseURL + "/" + name + ".svg". Empty means events without images.
	// An http base is accepted for local use: the catalog takes http image
	// URLs only when insecure partner URLs are allowed (the demo).
	ImageBaseURL string
	// Now returns the current time; nil means time.Now.
	Now func() time.Time
}

// Source is the simulated market feed. It keeps no state: every Poll is a
// function of the Config, the time and the tracked keys. It is safe for
// concurrent use.
type Source struct {
	epoch        time.Time
	period, step time.Duration
	imageBase    string
	now          func() time.Time
	world        uint64
	tag          string // the world's part of every key
}

// New returns a Source for cfg, or an error if cfg is invalid.
func New(cfg Config) (*Source, error) {
	s := &Source{epoch: cfg.Epoch, period: cfg.Period, step: cfg.Step, now: cfg.Now}
	if s.epoch.IsZero() {
		s.epoch = defaultEpoch
	}
	s.epoch = s.epoch.UTC()
	if s.period == 0 {
		s.period = DefaultPeriod
	}
	if s.step == 0 {
		s.step = DefaultStep
	}
	if s.now == nil {
		s.now = time.Now
	}
	if s.period < 10*time.Second || s.period > 24*time.Hour {
		return nil, fmt.Errorf("simulator: period %v is not between 10s and 24h", s.period)
	}
	if s.step < time.Second || s.step > s.period {
		return nil, fmt.Errorf("simulator: step %v is not between 1s and the period %v", s.step, s.period)
	}
	if cfg.ImageBaseURL != "" {
		u, err := url.Parse(cfg.ImageBaseURL)
		if err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" || u.User != nil || u.RawQuery != "" || u.Fragment != "" {
			return nil, errors.New("simulator: ImageBaseURL must be an http(s) URL without credentials, query or fragment")
		}
		s.imageBase = strings.TrimRight(cfg.ImageBaseURL, "/")
	}
	s.world = hash(tagWorld, uint64(cfg.Seed), uint64(s.epoch.UnixNano()), uint64(s.period), uint64(s.step), catalogVersion)
	s.tag = fmt.Sprintf("%08x", s.world>>32)
	return s, nil
}

// Name returns "simulator".
func (s *Source) Name() string { return "simulator" }

// Poll returns the events on offer now (appeared, with a market not yet
// resolved or cancelled) and, in their current state, the events of tracked
// that exist by now, resolved or not. Keys of tracked that this Source did
// not make (another seed, epoch or pace) are ignored. Events come in the
// order they appeared. Poll fails only when ctx is done.
func (s *Source) Poll(ctx context.Context, tracked []string) ([]feed.Event, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	return s.eventsAt(s.now(), tracked)
}

type eventID struct {
	wave int64
	slot int
}

func (s *Source) eventsAt(now time.Time, tracked []string) ([]feed.Event, error) {
	last := floorDiv(now.Sub(s.epoch), s.period)
	seen := map[eventID]bool{}
	var plans []*plan
	for n := last - horizonWaves; n <= last; n++ {
		for slot := range eventsPerWave {
			p := s.plan(n, slot)
			if !p.appears.After(now) && now.Before(p.ends) {
				seen[eventID{n, slot}] = true
				plans = append(plans, p)
			}
		}
	}
	for _, key := range tracked {
		id, ok := s.parseKey(key)
		if !ok || id.wave > last || seen[id] {
			continue
		}
		if p := s.plan(id.wave, id.slot); !p.appears.After(now) {
			seen[id] = true
			plans = append(plans, p)
		}
	}
	slices.SortFunc(plans, func(a, b *plan) int {
		if a.wave != b.wave {
			return cmp.Compare(a.wave, b.wave)
		}
		return a.slot - b.slot
	})
	events := make([]feed.Event, 0, len(plans))
	for _, p := range plans {
		e, err := s.event(p, now)
		if err != nil {
			return nil, fmt.Errorf("simulator: event %s (%s): %w", p.key, p.tmpl.id, err)
		}
		events = append(events, e)
	}
	return events, nil
}

// key returns the key of event slot of wave n: "<world>.<n>.<slot>".
func (s *Source) key(n int64, slot int) string {
	return s.tag + "." + strconv.FormatInt(n, 10) + "." + strconv.Itoa(slot)
}

// parseKey returns the event of key, if key is one this Source makes.
func (s *Source) parseKey(key string) (eventID, bool) {
	parts := strings.Split(key, ".")
	if len(parts) != 3 || parts[0] != s.tag {
		return eventID{}, false
	}
	n, err1 := strconv.ParseInt(parts[1], 10, 64)
	slot, err2 := strconv.Atoi(parts[2])
	if err1 != nil || err2 != nil || slot < 0 || slot >= eventsPerWave || s.key(n, slot) != key ||
		n < -math.MaxInt64/int64(s.period)/2 || n > math.MaxInt64/int64(s.period)/2 {
		return eventID{}, false
	}
	return eventID{n, slot}, true
}

// floorDiv returns ⌊a/b⌋ for b > 0 (durations or plain numbers).
func floorDiv[T ~int64](a, b T) int64 {
	n := int64(a / b)
	if a%b < 0 {
		n--
	}
	return n
}
