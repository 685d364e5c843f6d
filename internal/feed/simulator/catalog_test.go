package simulator

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/shopspring/decimal"
	"golang.org/x/text/language"

	"github.com/foresight-dev/foresight/internal/betting"
	"github.com/foresight-dev/foresight/internal/feed"
	"github.com/foresight-dev/foresight/internal/odds"
)

// testStart is a fixed time well after the default epoch.
var testStart = time.Date(2026, time.March, 14, 18, 0, 0, 0, time.UTC)

// clock is a settable time for Config.Now.
type clock struct{ t time.Time }

func (c *clock) now() time.Time { return c.t }

// newSource returns a Source for cfg whose clock the test sets.
func newSource(t testing.TB, cfg Config) (*Source, *clock) {
	t.Helper()
	c := &clock{t: testStart}
	cfg.Now = c.now
	s, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return s, c
}

func poll(t testing.TB, s *Source, tracked ...string) []feed.Event {
	t.Helper()
	evs, err := s.Poll(context.Background(), tracked)
	if err != nil {
		t.Fatal(err)
	}
	return evs
}

// checkEvent applies the catalog's rules for creating an event
// (betting.Service.CreateEvent, checkTexts, checkImage, checkProbabilities)
// and the feed's rules for a fed event, plus the simulator's own promises:
// all seven locales, no placeholder left, 4 decimal places, an exact sum.
func checkEvent(e feed.Event) error {
	if !slices.Contains(betting.Categories, e.Category) {
		return fmt.Errorf("category %q", e.Category)
	}
	if err := checkTexts("title", e.Title); err != nil {
		return err
	}
	if err := checkTexts("description", e.Description); err != nil {
		return err
	}
	if e.ImageURL != "" {
		if u, err := url.Parse(e.ImageURL); err != nil || u.Scheme != "https" || u.Host == "" {
			return fmt.Errorf("image_url %q is not https", e.ImageURL)
		}
	}
	if e.StartsAt == nil {
		return errors.New("no starts_at")
	}
	if len(e.Markets) < 1 || len(e.Markets) > 50 {
		return fmt.Errorf("%d markets", len(e.Markets))
	}
	keys := map[string]bool{}
	for _, m := range e.Markets {
		if keys[m.Key] || !strings.HasPrefix(m.Key, e.Key+".") {
			return fmt.Errorf("market key %q", m.Key)
		}
		keys[m.Key] = true
		if err := checkMarket(m); err != nil {
			return fmt.Errorf("market %s: %w", m.Key, err)
		}
	}
	return nil
}

func checkMarket(m feed.Market) error {
	if err := checkTexts("question", m.Question); err != nil {
		return err
	}
	if m.ClosesAt == nil {
		return errors.New("no closes_at")
	}
	if len(m.Outcomes) < 2 || len(m.Outcomes) > 20 {
		return fmt.Errorf("%d outcomes", len(m.Outcomes))
	}
	keys := map[string]bool{}
	probs := make([]decimal.Decimal, len(m.Outcomes))
	sum := decimal.Zero
	for j, o := range m.Outcomes {
		if o.Key == "" || keys[o.Key] {
			return fmt.Errorf("outcome key %q", o.Key)
		}
		keys[o.Key] = true
		if err := checkTexts("outcome name", o.Name); err != nil {
			return err
		}
		if o.Probability.Exponent() < -probabilityPlaces {
			return fmt.Errorf("probability %s has more than %d places", o.Probability, probabilityPlaces)
		}
		probs[j] = o.Probability
		sum = sum.Add(o.Probability)
	}
	if _, err := odds.Price(odds.Multiplicative, probs, decimal.Zero); err != nil {
		return err
	}
	if !sum.Equal(decimal.New(1, 0)) {
		return fmt.Errorf("probabilities sum to %s", sum)
	}
	switch m.State {
	case feed.Resolved:
		if !keys[m.Winner] {
			return fmt.Errorf("winner %q is not an outcome", m.Winner)
		}
	case feed.Open, feed.Suspended, feed.Cancelled:
		if m.Winner != "" {
			return fmt.Errorf("%s market with winner %q", m.State, m.Winner)
		}
	default:
		return fmt.Errorf("state %q", m.State)
	}
	return nil
}

func checkTexts(field string, t betting.Texts) error {
	if len(t) != len(locales) {
		return fmt.Errorf("%s has %d locales", field, len(t))
	}
	for _, loc := range locales {
		s, ok := t[loc]
		if !ok {
			return fmt.Errorf("%s has no %s text", field, loc)
		}
		if _, err := language.Parse(loc); err != nil {
			return err
		}
		if s == "" || len(s) > 2000 {
			return fmt.Errorf("%s.%s has %d bytes", field, loc, len(s))
		}
		if strings.ContainsAny(s, "{}") {
			return fmt.Errorf("%s.%s has a placeholder left: %q", field, loc, s)
		}
	}
	return nil
}

// final reports whether every market of e is resolved or cancelled.
func final(e feed.Event) bool {
	for _, m := range e.Markets {
		if m.State != feed.Resolved && m.State != feed.Cancelled {
			return false
		}
	}
	return true
}

func keysOf(evs []feed.Event) []string {
	out := make([]string, len(evs))
	for i, e := range evs {
		out[i] = e.Key
	}
	return out
}
