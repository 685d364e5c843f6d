package simulator

import (
	"time"

	"github.com/foresight-dev/foresight/internal/betting"
	"github.com/foresight-dev/foresight/internal/feed"
)

// The schedule, in units of the period P (see doc.go).
const (
	eventsPerWave = 2
	// Life classes of events, in quarters of P: long for every fourth event
	// of a category, else short or medium in the ratio of their shares.
	shortShare, shortMin, shortMax    = 40, 4, 12
	mediumShare, mediumMin, mediumMax = 35, 16, 64
	longMin, longMax                  = 96, 240
	// Early markets close at this share (percent) of the event's life.
	earlyMin, earlyMax = 50, 90
	// Settlement delay after ClosesAt, in percent of P.
	settleMin, settleMax = 20, 50
	// Mid-life pauses: chance per market and period (basis points) and
	// length in percent of P.
	pauseRate          = 400
	pauseMin, pauseMax = 10, 25
	// Share of markets cancelled instead of resolved, in basis points.
	cancelRate = 500
	// horizonWaves is how many waves back an event can still be on offer:
	// the longest life plus the longest settlement delay.
	horizonWaves = longMax/4 + 1
)

// A plan is the schedule of one event: everything but its texts and
// probabilities.
type plan struct {
	wave    int64
	slot    int
	key     string
	seed    uint64
	tmpl    *eventTemplate
	appears time.Time
	closes  time.Time // when the markets that are not early close
	ends    time.Time // when the last market is resolved or cancelled
	markets []marketPlan
}

type marketPlan struct {
	closes    time.Time
	settles   time.Time // resolved or cancelled from then on
	cancelled bool
}

// plan returns the schedule of event slot of wave n.
func (s *Source) plan(n int64, slot int) *plan {
	seed := hash(tagEvent, s.world, uint64(n), uint64(slot))
	p := &plan{
		wave: n, slot: slot, key: s.key(n, slot), seed: seed,
		tmpl:    s.template(n, slot),
		appears: s.epoch.Add(time.Duration(n) * s.period),
	}
	st := newStream(seed, tagSchedule)
	var quarters int
	switch {
	case floorDiv(n, 3)%4 == 0:
		// Every fourth event of a category is long, so that each category
		// always has an event on offer.
		quarters = st.between(longMin, longMax)
	case st.intn(shortShare+mediumShare) < shortShare:
		quarters = st.between(shortMin, shortMax)
	default:
		quarters = st.between(mediumMin, mediumMax)
	}
	life := s.period * time.Duration(quarters) / 4
	p.closes = p.appears.Add(life)
	p.ends = p.closes
	p.markets = make([]marketPlan, len(p.tmpl.markets))
	for i, mt := range p.tmpl.markets {
		ms := newStream(seed, tagSchedule, tagMarket, uint64(i))
		m := &p.markets[i]
		m.closes = p.closes
		if mt.early {
			m.closes = p.appears.Add(life * time.Duration(ms.between(earlyMin, earlyMax)) / 100).Truncate(time.Second)
		}
		m.settles = m.closes.Add(s.period * time.Duration(ms.between(settleMin, settleMax)) / 100)
		m.cancelled = chance(seed, tagCancel, uint64(i)) < cancelRate
		if m.settles.After(p.ends) {
			p.ends = m.settles
		}
	}
	return p
}

// template returns the template of event slot of wave n. The category is
// Categories[(2n + slot) mod 6], so each category has one event every three
// waves; its q-th event (q = ⌊n/3⌋) takes the templates of the category in
// cycles, each cycle a seeded permutation of them, so that events in a row
// differ.
func (s *Source) template(n int64, slot int) *eventTemplate {
	c := ((2*n+int64(slot))%6 + 6) % 6
	choices := byCategory[betting.Categories[c]]
	q := floorDiv(n, 3)
	size := int64(len(choices))
	cycle := floorDiv(q, size)
	st := newStream(s.world, tagTemplate, uint64(c), uint64(cycle))
	perm := make([]int, size)
	for i := range perm {
		j := st.intn(i + 1)
		perm[i], perm[j] = perm[j], i
	}
	return choices[perm[q-cycle*size]]
}

// state returns the state of market i at t.
func (s *Source) state(p *plan, i int, t time.Time) feed.State {
	m := &p.markets[i]
	switch {
	case !t.Before(m.settles) && m.cancelled:
		return feed.Cancelled
	case !t.Before(m.settles):
		return feed.Resolved
	case !t.Before(m.closes) || s.paused(p, i, t):
		return feed.Suspended
	}
	return feed.Open
}

// paused reports whether market i is in a mid-life pause at t: in each
// whole period b ≥ 1 after the event appeared, the market pauses with a
// chance of pauseRate, once, for a stretch inside that period that ends
// before the market closes.
func (s *Source) paused(p *plan, i int, t time.Time) bool {
	b := floorDiv(t.Sub(p.appears), s.period)
	if b < 1 || chance(p.seed, tagPause, uint64(i), uint64(b)) >= pauseRate {
		return false
	}
	st := newStream(p.seed, tagPause, uint64(i), uint64(b), 1)
	length := s.period * time.Duration(st.between(pauseMin, pauseMax)) / 100
	start := p.appears.Add(time.Duration(b)*s.period + (s.period-length)*time.Duration(st.between(0, 100))/100)
	end := start.Add(length)
	return !end.After(p.markets[i].closes) && !t.Before(start) && t.Before(end)
}

// stepAt returns the price step of market i at t: the current step while
// the market is before ClosesAt, the last one before it afterwards.
func (s *Source) stepAt(p *plan, i int, t time.Time) int64 {
	if c := p.markets[i].closes; !t.Before(c) {
		t = c.Add(-time.Nanosecond)
	}
	return floorDiv(t.Sub(s.epoch), s.step)
}
