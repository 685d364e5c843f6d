package simulator

import (
	"cmp"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"time"

	"github.com/shopspring/decimal"

	"github.com/foresight-dev/foresight/internal/feed"
)

// content is what an event's slots were bound to.
type content struct {
	bind  bindings
	words map[string]word
	nums  map[string]numValue
}

type numValue struct {
	v    int64
	spec numSpec
}

// draft is an outcome before its texts are expanded and its probability
// computed. vars are placeholders of the name beside the event's ("{lo}",
// "{hi}" of a range).
type draft struct {
	key    string
	name   tr
	weight int64
	vars   bindings
}

// bindSlots draws the values of the template's slots.
func bindSlots(p *plan) (*content, error) {
	c := &content{bind: bindings{"close": formatTime(p.closes)}, words: map[string]word{}, nums: map[string]numValue{}}
	st := newStream(p.seed, tagContent)
	used := map[*pool][]int{}
	for _, sl := range p.tmpl.slots {
		switch sl.kind {
		case slotWord:
			var free []int
			for i := range sl.pool.words {
				if !slices.Contains(used[sl.pool], i) {
					free = append(free, i)
				}
			}
			if len(free) == 0 {
				return nil, fmt.Errorf("slot %s: pool %s is used up", sl.name, sl.pool.name)
			}
			i := free[st.intn(len(free))]
			used[sl.pool] = append(used[sl.pool], i)
			w := sl.pool.words[i]
			c.words[sl.name] = w
			c.bind[sl.name] = w.text
			for form, t := range w.forms {
				c.bind[sl.name+"."+form] = t
			}
		case slotNumber, slotScaled:
			spec := sl.num
			if sl.kind == slotScaled {
				w, ok := c.words[sl.of]
				if !ok || w.scale.step <= 0 {
					return nil, fmt.Errorf("slot %s: slot %s has no scale", sl.name, sl.of)
				}
				spec = w.scale
			}
			v := spec.value(st.intn(spec.count()))
			c.nums[sl.name] = numValue{v, spec}
			c.bind[sl.name] = spec.format(v)
		case slotYear:
			c.bind[sl.name] = same(strconv.Itoa(p.appears.Year() + st.between(sl.lo, sl.hi)))
		}
	}
	return c, nil
}

// drafts draws the outcomes of market i and their base weights.
func (c *content) drafts(p *plan, i int) ([]draft, error) {
	mt := &p.tmpl.markets[i]
	st := newStream(p.seed, tagContent, tagMarket, uint64(i))
	switch mt.kind {
	case yesNo:
		yes := int64(st.between(mt.yes[0], mt.yes[1])) * 100
		return []draft{{key: "yes", name: yesText, weight: yes}, {key: "no", name: noText, weight: unitsPerOne - yes}}, nil
	case fixedList:
		out := make([]draft, len(mt.outcomes))
		for j, o := range mt.outcomes {
			out[j] = draft{key: o.key, name: o.name, weight: int64(st.between(o.weight[0], o.weight[1]))}
		}
		return out, nil
	case fromPool:
		return c.poolDrafts(mt, st)
	case ranges:
		return c.rangeDrafts(mt, st)
	}
	return nil, fmt.Errorf("market %s: unknown kind %d", mt.id, mt.kind)
}

// poolDrafts picks the words of the lead slots, then others of the pool up
// to the count. Leads are favourites; the others follow by weight.
func (c *content) poolDrafts(mt *marketTemplate, st *stream) ([]draft, error) {
	count := st.between(mt.count[0], mt.count[1])
	var out []draft
	taken := map[string]bool{}
	for j, name := range mt.lead {
		w, ok := c.words[name]
		if !ok {
			return nil, fmt.Errorf("market %s: lead %s is not a word slot", mt.id, name)
		}
		lo, hi := 15, 30
		if j == 0 {
			lo, hi = 25, 40
		}
		out = append(out, draft{key: w.key, name: w.text, weight: int64(st.between(lo, hi))})
		taken[w.key] = true
	}
	var free []word
	for _, w := range mt.pool.words {
		if !taken[w.key] {
			free = append(free, w)
		}
	}
	var rest []draft
	for len(out)+len(rest) < count && len(free) > 0 {
		k := st.intn(len(free))
		rest = append(rest, draft{key: free[k].key, name: free[k].text, weight: int64(st.between(3, 15))})
		free = slices.Delete(free, k, k+1)
	}
	slices.SortStableFunc(rest, func(a, b draft) int { return cmp.Compare(b.weight, a.weight) })
	return append(out, rest...), nil
}

// rangeDrafts returns ranges of the number slot mt.of: size ranges (size
// odd), the central one from the slot's value v to v + step, the others
// stepping away, the first open below and the last open above.
func (c *content) rangeDrafts(mt *marketTemplate, st *stream) ([]draft, error) {
	nv, ok := c.nums[mt.of]
	if !ok {
		return nil, fmt.Errorf("market %s: %s is not a number slot", mt.id, mt.of)
	}
	size := mt.sizes[st.intn(len(mt.sizes))]
	mid := size / 2
	bound := func(b int) int64 { return nv.v + int64(b-(size-3)/2)*nv.spec.step } // bounds 0 … size-2
	out := make([]draft, size)
	for j := range size {
		var d draft
		switch {
		case j == 0:
			lo := bound(0)
			d = draft{key: "below-" + nv.spec.canonical(lo), name: belowText, vars: bindings{"lo": nv.spec.format(lo)}}
		case j == size-1:
			lo := bound(size - 2)
			d = draft{key: nv.spec.canonical(lo) + "-or-more", name: orMoreText, vars: bindings{"lo": nv.spec.format(lo)}}
		default:
			lo, hi := bound(j-1), bound(j)
			d = draft{key: nv.spec.canonical(lo) + "-to-" + nv.spec.canonical(hi), name: betweenText,
				vars: bindings{"lo": nv.spec.format(lo), "hi": nv.spec.format(hi)}}
		}
		dist := min(abs(j-mid), len(rangeWeights)-1)
		d.weight = int64(st.between(rangeWeights[dist][0], rangeWeights[dist][1]))
		out[j] = d
	}
	return out, nil
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}

// event builds the event of p as it is at now.
func (s *Source) event(p *plan, now time.Time) (feed.Event, error) {
	c, err := bindSlots(p)
	if err != nil {
		return feed.Event{}, err
	}
	e := feed.Event{Key: p.key, Category: p.tmpl.category}
	if e.Title, err = c.bind.expand(p.tmpl.title); err != nil {
		return feed.Event{}, err
	}
	if e.Description, err = c.bind.expand(p.tmpl.description); err != nil {
		return feed.Event{}, err
	}
	if s.imageBase != "" {
		e.ImageURL = s.imageBase + "/" + p.tmpl.image + ".svg"
	}
	startsAt := p.closes
	e.StartsAt = &startsAt
	e.Markets = make([]feed.Market, len(p.tmpl.markets))
	for i := range p.tmpl.markets {
		if e.Markets[i], err = s.market(p, c, i, now); err != nil {
			return feed.Event{}, err
		}
	}
	return e, nil
}

func (s *Source) market(p *plan, c *content, i int, now time.Time) (feed.Market, error) {
	mt := &p.tmpl.markets[i]
	drafts, err := c.drafts(p, i)
	if err != nil {
		return feed.Market{}, err
	}
	closes := p.markets[i].closes
	m := feed.Market{Key: p.key + "." + mt.id, ClosesAt: &closes, State: s.state(p, i, now)}
	if m.Question, err = c.bind.expand(mt.question); err != nil {
		return feed.Market{}, err
	}
	weights := make([]int64, len(drafts))
	for j, d := range drafts {
		weights[j] = d.weight
	}
	noiseSeed := hash(p.seed, tagNoise, uint64(i))
	units := probabilities(noiseSeed, weights, s.stepAt(p, i, now))
	m.Outcomes = make([]feed.Outcome, len(drafts))
	for j, d := range drafts {
		o := &m.Outcomes[j]
		o.Key, o.Probability = d.key, decimal.New(units[j], -probabilityPlaces)
		b := c.bind
		if d.vars != nil {
			b = maps.Clone(c.bind)
			maps.Copy(b, d.vars)
		}
		if o.Name, err = b.expand(d.name); err != nil {
			return feed.Market{}, err
		}
	}
	if m.State == feed.Resolved {
		m.Winner = drafts[winner(hash(p.seed, tagWinner, uint64(i)), units)].key
	}
	return m, nil
}

// winner draws an outcome with the probabilities units: the one whose
// cumulative range holds a roll in [0, 10000).
func winner(seed uint64, units []int64) int {
	roll := int64(seed % unitsPerOne)
	for j, u := range units {
		if roll < u {
			return j
		}
		roll -= u
	}
	return len(units) - 1
}
