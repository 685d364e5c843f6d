package simulator

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/foresight-dev/foresight/internal/betting"
)

// templateTexts returns every text of t with a name for messages.
func templateTexts(t *eventTemplate) map[string]tr {
	out := map[string]tr{"title": t.title, "description": t.description}
	for _, m := range t.markets {
		out[m.id+".question"] = m.question
		for _, o := range m.outcomes {
			out[m.id+"."+o.key] = o.name
		}
	}
	return out
}

// checkLocales checks that t has a non-empty text in each of the seven
// locales and the same placeholders in each, in any order.
func checkLocales(t tr) error {
	if len(t) != len(locales) {
		return fmt.Errorf("%d locales", len(t))
	}
	want := slices.Sorted(slices.Values(placeholders(t["en"])))
	for _, loc := range locales {
		s := t[loc]
		if strings.TrimSpace(s) == "" {
			return fmt.Errorf("no %s text", loc)
		}
		if got := slices.Sorted(slices.Values(placeholders(s))); !slices.Equal(got, want) {
			return fmt.Errorf("%s has placeholders %v, en has %v", loc, got, want)
		}
		if strings.Count(s, "{") != strings.Count(s, "}") {
			return fmt.Errorf("%s has unbalanced braces: %q", loc, s)
		}
	}
	return nil
}

func TestSharedTexts(t *testing.T) {
	for name, text := range map[string]tr{"yes": yesText, "no": noText, "draw": drawText, "below": belowText, "between": betweenText, "or more": orMoreText} {
		if err := checkLocales(text); err != nil {
			t.Errorf("%s: %v", name, err)
		}
	}
}

func TestVocabulary(t *testing.T) {
	pools := map[*pool]bool{}
	for _, tmpl := range templates {
		for _, sl := range tmpl.slots {
			if sl.pool != nil {
				pools[sl.pool] = true
			}
		}
		for _, m := range tmpl.markets {
			if m.pool != nil {
				pools[m.pool] = true
			}
		}
	}
	for p := range pools {
		keys := map[string]bool{}
		for _, w := range p.words {
			if w.key == "" || keys[w.key] {
				t.Errorf("pool %s: key %q", p.name, w.key)
			}
			keys[w.key] = true
			if err := checkLocales(w.text); err != nil || len(placeholders(w.text["en"])) > 0 {
				t.Errorf("pool %s, %s: %v", p.name, w.key, err)
			}
			for form, text := range w.forms {
				if err := checkLocales(text); err != nil {
					t.Errorf("pool %s, %s.%s: %v", p.name, w.key, form, err)
				}
			}
			if (w.scale != numSpec{}) && (w.scale.step <= 0 || w.scale.min > w.scale.max) {
				t.Errorf("pool %s, %s: scale %+v", p.name, w.key, w.scale)
			}
		}
	}
}

// TestTemplates checks each template: its texts have all seven locales with
// the same placeholders, every placeholder is bound, and the rest of its
// structure is sound.
func TestTemplates(t *testing.T) {
	ids := map[string]bool{}
	for i := range templates {
		tmpl := &templates[i]
		t.Run(tmpl.id, func(t *testing.T) {
			if ids[tmpl.id] {
				t.Errorf("template id %s twice", tmpl.id)
			}
			ids[tmpl.id] = true
			if !slices.Contains(betting.Categories, tmpl.category) || !strings.HasPrefix(tmpl.image, tmpl.category+"-") {
				t.Errorf("category %q, image %q", tmpl.category, tmpl.image)
			}
			if _, ok := images()[tmpl.image+".svg"]; !ok {
				t.Errorf("image %s.svg is not embedded", tmpl.image)
			}
			bound := boundNames(t, tmpl)
			for name, text := range templateTexts(tmpl) {
				if err := checkLocales(text); err != nil {
					t.Errorf("%s: %v", name, err)
				}
				for _, ph := range placeholders(text["en"]) {
					if !bound[ph] {
						t.Errorf("%s: placeholder {%s} is not bound", name, ph)
					}
				}
			}
			checkMarketTemplates(t, tmpl)
		})
	}
	for _, cat := range betting.Categories {
		if len(byCategory[cat]) < 2 {
			t.Errorf("category %s has %d templates", cat, len(byCategory[cat]))
		}
	}
}

// boundNames returns the placeholders tmpl binds: "close", its slots and
// the forms every word of a slot's pool has.
func boundNames(t *testing.T, tmpl *eventTemplate) map[string]bool {
	bound := map[string]bool{"close": true}
	perPool := map[*pool]int{}
	for _, sl := range tmpl.slots {
		if bound[sl.name] {
			t.Errorf("slot %s twice", sl.name)
		}
		bound[sl.name] = true
		switch sl.kind {
		case slotWord:
			perPool[sl.pool]++
			for form := range sl.pool.words[0].forms {
				if !slices.ContainsFunc(sl.pool.words, func(w word) bool { _, ok := w.forms[form]; return !ok }) {
					bound[sl.name+"."+form] = true
				}
			}
		case slotScaled:
			i := slices.IndexFunc(tmpl.slots, func(o slot) bool { return o.name == sl.of })
			if i < 0 || tmpl.slots[i].kind != slotWord || slices.ContainsFunc(tmpl.slots[i].pool.words, func(w word) bool { return w.scale.step <= 0 }) {
				t.Errorf("slot %s: %s is not a word slot whose words all have a scale", sl.name, sl.of)
			}
		case slotNumber:
			if sl.num.step <= 0 || sl.num.min > sl.num.max {
				t.Errorf("slot %s: %+v", sl.name, sl.num)
			}
		}
	}
	for p, n := range perPool {
		if n > len(p.words) {
			t.Errorf("%d slots on pool %s of %d words", n, p.name, len(p.words))
		}
	}
	return bound
}

func checkMarketTemplates(t *testing.T, tmpl *eventTemplate) {
	ids := map[string]bool{}
	early := 0
	for _, m := range tmpl.markets {
		if m.id == "" || ids[m.id] || strings.Contains(m.id, ".") {
			t.Errorf("market id %q", m.id)
		}
		ids[m.id] = true
		texts := []string{m.question["en"]}
		for _, o := range m.outcomes {
			texts = append(texts, o.name["en"])
		}
		if m.early {
			early++
			if slices.ContainsFunc(texts, func(s string) bool { return slices.Contains(placeholders(s), "close") }) {
				t.Errorf("market %s closes early but names {close}", m.id)
			}
		}
		switch m.kind {
		case yesNo:
			if m.yes[0] < 1 || m.yes[0] > m.yes[1] || m.yes[1] > 99 {
				t.Errorf("market %s: yes %v", m.id, m.yes)
			}
		case fixedList:
			keys := map[string]bool{}
			for _, o := range m.outcomes {
				if keys[o.key] || o.weight[0] < 1 || o.weight[0] > o.weight[1] {
					t.Errorf("market %s: outcome %s %v", m.id, o.key, o.weight)
				}
				keys[o.key] = true
			}
			if len(m.outcomes) < 2 || len(m.outcomes) > 20 {
				t.Errorf("market %s: %d outcomes", m.id, len(m.outcomes))
			}
		case fromPool:
			if m.count[0] < 2 || m.count[0] > m.count[1] || m.count[1] > 20 || m.count[1] > len(m.pool.words) {
				t.Errorf("market %s: count %v of pool %s (%d words)", m.id, m.count, m.pool.name, len(m.pool.words))
			}
			for _, lead := range m.lead {
				i := slices.IndexFunc(tmpl.slots, func(s slot) bool { return s.name == lead })
				if i < 0 || tmpl.slots[i].pool != m.pool {
					t.Errorf("market %s: lead %s is not a slot on pool %s", m.id, lead, m.pool.name)
				}
			}
		case ranges:
			i := slices.IndexFunc(tmpl.slots, func(s slot) bool { return s.name == m.of })
			if i < 0 || (tmpl.slots[i].kind != slotNumber && tmpl.slots[i].kind != slotScaled) {
				t.Errorf("market %s: %s is not a number slot", m.id, m.of)
			}
			if len(m.sizes) == 0 || slices.ContainsFunc(m.sizes, func(n int) bool { return n < 3 || n%2 == 0 || n > 9 }) {
				t.Errorf("market %s: sizes %v", m.id, m.sizes)
			}
		}
	}
	if early == len(tmpl.markets) {
		t.Errorf("every market closes early")
	}
}

// TestTemplatesBuild builds every template for many seeds and checks the
// events against the catalog's rules: every slot value, form and range
// expands.
func TestTemplatesBuild(t *testing.T) {
	s, _ := newSource(t, Config{Seed: 51, ImageBaseURL: "https://demo.example/images"})
	for i := range templates {
		tmpl := &templates[i]
		t.Run(tmpl.id, func(t *testing.T) {
			for n := range int64(60) {
				p := s.plan(130000+n, 0)
				p.tmpl = tmpl
				p.markets = make([]marketPlan, len(tmpl.markets))
				for i := range p.markets {
					p.markets[i] = marketPlan{closes: p.closes, settles: p.closes.Add(time.Minute)}
				}
				for _, at := range []time.Time{p.appears, p.closes.Add(2 * time.Minute)} {
					e, err := s.event(p, at)
					if err != nil {
						t.Fatalf("wave %d: %v", p.wave, err)
					}
					if err := checkEvent(e); err != nil {
						t.Fatalf("wave %d: %v", p.wave, err)
					}
				}
			}
		})
	}
}

func TestFormatNumber(t *testing.T) {
	tests := []struct {
		spec numSpec
		v    int64
		want tr
	}{
		{numSpec{unit: usd}, 95000, tx("$95,000", "95.000\u00a0$", "US$\u00a095.000", "95\u202f000\u00a0$", "95.000\u00a0$", "$\u00a095.000", "95\u00a0000\u00a0$")},
		{numSpec{unit: usd}, 2500, tx("$2,500", "2500\u00a0$", "US$\u00a02.500", "2\u202f500\u00a0$", "2.500\u00a0$", "$\u00a02.500", "2\u00a0500\u00a0$")},
		{numSpec{decimals: 3, unit: usd}, 85, tx("$0.085", "0,085\u00a0$", "US$\u00a00,085", "0,085\u00a0$", "0,085\u00a0$", "$\u00a00,085", "0,085\u00a0$")},
		{numSpec{decimals: 1, unit: percent}, 24, tx("2.4%", "2,4\u00a0%", "2,4%", "2,4\u00a0%", "2,4\u00a0%", "2,4%", "2,4\u00a0%")},
		{numSpec{decimals: 1, unit: percent}, -3, tx("\u22120.3%", "\u22120,3\u00a0%", "\u22120,3%", "\u22120,3\u00a0%", "\u22120,3\u00a0%", "\u22120,3%", "\u22120,3\u00a0%")},
		{numSpec{unit: celsius}, 38, tx("38\u00a0°C", "38\u00a0°C", "38\u00a0°C", "38\u00a0°C", "38\u00a0°C", "38\u00a0°C", "38\u00a0°C")},
		{numSpec{decimals: 2, unit: signedCelsius}, 135, tx("+1.35\u00a0°C", "+1,35\u00a0°C", "+1,35\u00a0°C", "+1,35\u00a0°C", "+1,35\u00a0°C", "+1,35\u00a0°C", "+1,35\u00a0°C")},
		{numSpec{unit: plain}, 2040, same("2040")},
	}
	for _, tt := range tests {
		for _, loc := range locales {
			if got := tt.spec.formatIn(loc, tt.v); got != tt.want[loc] {
				t.Errorf("%+v %d in %s: %q, want %q", tt.spec, tt.v, loc, got, tt.want[loc])
			}
		}
	}
	for _, tt := range []struct {
		spec numSpec
		v    int64
		want string
	}{{numSpec{decimals: 1}, -3, "-0.3"}, {numSpec{}, 95000, "95000"}, {numSpec{decimals: 2}, 5, "0.05"}} {
		if got := tt.spec.canonical(tt.v); got != tt.want {
			t.Errorf("canonical(%d) = %q, want %q", tt.v, got, tt.want)
		}
	}
}

func TestFormatTime(t *testing.T) {
	tests := []struct {
		at   time.Time
		want tr
	}{
		{time.Date(2026, 3, 14, 18, 30, 59, 0, time.UTC), tx(
			"March 14, 18:30 UTC", "14 de marzo, 18:30 UTC", "14 de março, 18:30 UTC", "14 mars, 18:30 UTC",
			"14. März, 18:30 UTC", "14 maart, 18:30 UTC", "14 марта, 18:30 UTC")},
		{time.Date(2026, 8, 1, 7, 5, 0, 0, time.FixedZone("CEST", 7200)), tx(
			"August 1, 05:05 UTC", "1 de agosto, 05:05 UTC", "1 de agosto, 05:05 UTC", "1er août, 05:05 UTC",
			"1. August, 05:05 UTC", "1 augustus, 05:05 UTC", "1 августа, 05:05 UTC")},
	}
	for _, tt := range tests {
		got := formatTime(tt.at)
		for _, loc := range locales {
			if got[loc] != tt.want[loc] {
				t.Errorf("%v in %s: %q, want %q", tt.at, loc, got[loc], tt.want[loc])
			}
		}
	}
}

func TestExpand(t *testing.T) {
	b := bindings{"a": same("A"), "a.f": same("F")}
	tests := []struct {
		in, want string
		wantErr  bool
	}{
		{"x {a} y {a.f}", "x A y F", false},
		{"no placeholder", "no placeholder", false},
		{"{b}", "", true},
		{"{a", "", true},
	}
	for _, tt := range tests {
		got, err := b.expand(same(tt.in))
		if (err != nil) != tt.wantErr || (err == nil && got["nl"] != tt.want) {
			t.Errorf("expand(%q) = %q, %v", tt.in, got["nl"], err)
		}
	}
}
