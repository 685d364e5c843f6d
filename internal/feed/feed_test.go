package feed_test

import (
	"context"
	"errors"
	"slices"
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"github.com/foresight-dev/foresight/internal/betting"
	"github.com/foresight-dev/foresight/internal/feed"
	"github.com/foresight-dev/foresight/internal/sqlite/sqlitetest"
	"github.com/foresight-dev/foresight/internal/waitfor"
)

func newCatalog(t *testing.T) *betting.Service {
	t.Helper()
	return betting.NewService(sqlitetest.Open(t).BettingStore(), false)
}

func d(s string) decimal.Decimal { return decimal.RequireFromString(s) }

func en(s string) betting.Texts { return betting.Texts{"en": s} }

func binary(key string, state feed.State, yes, no string) feed.Market {
	return feed.Market{Key: key, Question: en("Question " + key + "?"), State: state, Outcomes: []feed.Outcome{
		{Key: "yes", Name: en("Yes"), Probability: d(yes)},
		{Key: "no", Name: en("No"), Probability: d(no)},
	}}
}

func event(key string, markets ...feed.Market) feed.Event {
	return feed.Event{Key: key, Category: "economy", Title: en("Event " + key), Markets: markets}
}

func market(t *testing.T, e betting.Event, source, key string) *betting.Market {
	t.Helper()
	m, ok := e.Market(feed.MarketID(source, key))
	if !ok {
		t.Fatalf("event %s has no market %s", e.ID, key)
	}
	return m
}

func TestSyncImport(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	c := newCatalog(t)
	ev := event("e1",
		binary("open", feed.Open, "0.40", "0.60"),
		binary("paused", feed.Suspended, "0.5", "0.5"),
		binary("done", feed.Resolved, "0.99", "0.01"),
		binary("unpriced", feed.Open, "0.40", "0.70"),
	)
	got, ch, err := feed.Sync(ctx, c, "test", ev)
	if err != nil {
		t.Fatal(err)
	}
	if ch != (feed.Changes{Imported: 1}) {
		t.Fatalf("changes = %+v, want one import", ch)
	}
	if got.ID != feed.EventID("test", "e1") || got.Source != "test" || got.SourceKey != "e1" {
		t.Fatalf("imported event id %s source %q key %q", got.ID, got.Source, got.SourceKey)
	}
	stored, err := c.GetEvent(ctx, got.ID)
	if err != nil {
		t.Fatal(err)
	}
	var keys []string
	for _, m := range stored.Markets {
		keys = append(keys, m.ID)
	}
	want := []string{feed.MarketID("test", "open"), feed.MarketID("test", "paused")}
	if !slices.Equal(keys, want) {
		t.Fatalf("imported markets %v, want open and paused only %v", keys, want)
	}
	if s := market(t, stored, "test", "paused").Status; s != betting.StatusSuspended {
		t.Fatalf("suspended market imported %s", s)
	}
	o, _, ok := market(t, stored, "test", "open").Outcome(feed.OutcomeID("test", "open", "yes"))
	if !ok || !o.Probability.Equal(d("0.40")) {
		t.Fatalf("outcome yes = %+v, %v", o, ok)
	}

	_, ch, err = feed.Sync(ctx, c, "test", ev)
	if err != nil || ch != (feed.Changes{}) {
		t.Fatalf("second sync of the same event: changes %+v, err %v; want nothing", ch, err)
	}
	if _, err := c.ImportEvent(ctx, stored); !isCode(err, betting.ErrConflict) {
		t.Fatalf("importing an existing event: %v, want conflict", err)
	}
}

func TestSyncNothingToImport(t *testing.T) {
	t.Parallel()
	c := newCatalog(t)
	got, ch, err := feed.Sync(context.Background(), c, "test", event("gone", binary("m", feed.Resolved, "0.5", "0.5")))
	if err != nil || got.ID != "" || ch != (feed.Changes{}) {
		t.Fatalf("an event with only final markets: %+v %+v %v; want nothing imported", got, ch, err)
	}
	if _, err := c.GetEvent(context.Background(), feed.EventID("test", "gone")); !betting.IsNotFound(err) {
		t.Fatalf("event stored: %v", err)
	}
}

func TestSyncMarketLife(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	c := newCatalog(t)
	steps := []struct {
		name  string
		ev    feed.Event
		want  feed.Changes
		check func(t *testing.T, e betting.Event)
	}{
		{"import", event("e", binary("a", feed.Open, "0.3", "0.7"), binary("b", feed.Open, "0.5", "0.5")),
			feed.Changes{Imported: 1}, nil},
		{"new prices", event("e", binary("a", feed.Open, "0.35", "0.65"), binary("b", feed.Open, "0.5", "0.5")),
			feed.Changes{Priced: 1}, func(t *testing.T, e betting.Event) {
				m := market(t, e, "test", "a")
				if m.Version != 2 || !m.Outcomes[0].Probability.Equal(d("0.35")) {
					t.Fatalf("market a after new prices: version %d, %v", m.Version, m.Outcomes[0].Probability)
				}
			}},
		{"equal prices written differently", event("e", binary("a", feed.Open, "0.350", "0.650"), binary("b", feed.Open, "0.5", "0.5")),
			feed.Changes{}, nil},
		{"suspend", event("e", binary("a", feed.Suspended, "0", "1"), binary("b", feed.Open, "0.5", "0.5")),
			feed.Changes{Suspended: 1}, func(t *testing.T, e betting.Event) {
				if s := market(t, e, "test", "a").Status; s != betting.StatusSuspended {
					t.Fatalf("status %s", s)
				}
			}},
		{"reopen with new prices", event("e", binary("a", feed.Open, "0.2", "0.8"), binary("b", feed.Open, "0.5", "0.5")),
			feed.Changes{Priced: 1, Opened: 1}, func(t *testing.T, e betting.Event) {
				m := market(t, e, "test", "a")
				if m.Status != betting.StatusOpen || !m.Outcomes[0].Probability.Equal(d("0.2")) {
					t.Fatalf("market a: %s at %v", m.Status, m.Outcomes[0].Probability)
				}
			}},
		{"resolve and cancel", event("e", feed.Market{Key: "a", State: feed.Resolved, Winner: "no"}, feed.Market{Key: "b", State: feed.Cancelled}),
			feed.Changes{Resolved: 1, Cancelled: 1}, func(t *testing.T, e betting.Event) {
				a, b := market(t, e, "test", "a"), market(t, e, "test", "b")
				if a.Status != betting.StatusResolved || a.WinningOutcomeID != feed.OutcomeID("test", "a", "no") || b.Status != betting.StatusCancelled {
					t.Fatalf("a %s won by %s, b %s", a.Status, a.WinningOutcomeID, b.Status)
				}
			}},
		{"final markets stay final", event("e", binary("a", feed.Open, "0.5", "0.5"), feed.Market{Key: "b", State: feed.Resolved, Winner: "yes"}),
			feed.Changes{}, func(t *testing.T, e betting.Event) {
				if s := market(t, e, "test", "b").Status; s != betting.StatusCancelled {
					t.Fatalf("cancelled market b is now %s", s)
				}
			}},
	}
	for _, s := range steps {
		_, ch, err := feed.Sync(ctx, c, "test", s.ev)
		if err != nil {
			t.Fatalf("%s: %v", s.name, err)
		}
		if ch != s.want {
			t.Fatalf("%s: changes %+v, want %+v", s.name, ch, s.want)
		}
		if s.check != nil {
			e, err := c.GetEvent(ctx, feed.EventID("test", "e"))
			if err != nil {
				t.Fatal(err)
			}
			s.check(t, e)
		}
	}
}

func TestSyncAppliesWhatItCan(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	c := newCatalog(t)
	if _, _, err := feed.Sync(ctx, c, "test", event("e", binary("a", feed.Open, "0.5", "0.5"), binary("b", feed.Open, "0.5", "0.5"), binary("c", feed.Open, "0.5", "0.5"))); err != nil {
		t.Fatal(err)
	}
	// An admin resolves c by hand meanwhile.
	if _, err := c.ResolveMarket(ctx, feed.MarketID("test", "c"), feed.OutcomeID("test", "c", "yes")); err != nil {
		t.Fatal(err)
	}
	got, ch, err := feed.Sync(ctx, c, "test", event("e",
		feed.Market{Key: "a", State: feed.Resolved, Winner: "maybe"},
		feed.Market{Key: "b", State: feed.Resolved, Winner: "yes"},
		feed.Market{Key: "c", State: feed.Cancelled},
	))
	if err == nil || !isCode(err, betting.ErrInvalid) {
		t.Fatalf("a winner that is not an outcome: err %v, want invalid", err)
	}
	if ch != (feed.Changes{Resolved: 1}) {
		t.Fatalf("changes %+v, want b resolved only", ch)
	}
	if a, b, c := market(t, got, "test", "a").Status, market(t, got, "test", "b").Status, market(t, got, "test", "c").Status; a != betting.StatusOpen || b != betting.StatusResolved || c != betting.StatusResolved {
		t.Fatalf("statuses a %s b %s c %s; want open, resolved, and c resolved by the admin", a, b, c)
	}
}

// scripted is a Source that answers from a script and records what it
// was asked.
type scripted struct {
	answers [][]feed.Event
	asked   [][]string
	err     error
}

func (s *scripted) Name() string { return "test" }

func (s *scripted) Poll(_ context.Context, tracked []string) ([]feed.Event, error) {
	s.asked = append(s.asked, tracked)
	if s.err != nil {
		return nil, s.err
	}
	a := s.answers[0]
	if len(s.answers) > 1 {
		s.answers = s.answers[1:]
	}
	return a, nil
}

func TestRunnerTracksEventsUntilFinal(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	c := newCatalog(t)
	src := &scripted{answers: [][]feed.Event{
		{event("e1", binary("m1", feed.Open, "0.5", "0.5")), event("e2", binary("m2", feed.Open, "0.5", "0.5"))},
		{event("e1", feed.Market{Key: "m1", State: feed.Resolved, Winner: "yes"})},
	}}
	r := feed.NewRunner(src, c, time.Hour, nil)
	if _, err := r.Step(ctx); err != nil {
		t.Fatal(err)
	}
	if got := r.Tracked(); !slices.Equal(got, []string{"e1", "e2"}) {
		t.Fatalf("tracked after import %v", got)
	}
	ch, err := r.Step(ctx)
	if err != nil || ch.Resolved != 1 {
		t.Fatalf("second round: %+v %v", ch, err)
	}
	if got := r.Tracked(); !slices.Equal(got, []string{"e2"}) {
		t.Fatalf("tracked after e1 resolved %v, want e2", got)
	}
	if !slices.Equal(src.asked[1], []string{"e1", "e2"}) {
		t.Fatalf("second poll asked about %v", src.asked[1])
	}

	// A new runner (a restart, another node) finds e2 in the catalog and
	// asks the source about it.
	other := &scripted{answers: [][]feed.Event{nil}}
	if _, err := feed.NewRunner(other, c, 0, nil).Step(ctx); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(other.asked[0], []string{"e2"}) {
		t.Fatalf("a new runner asked about %v, want [e2]", other.asked[0])
	}

	failing := &scripted{err: errors.New("source down")}
	if _, err := feed.NewRunner(failing, c, 0, nil).Step(ctx); err == nil {
		t.Fatal("a failed poll was not reported")
	}
}

func TestRunStopsWithContext(t *testing.T) {
	t.Parallel()
	c := newCatalog(t)
	ctx, cancel := context.WithCancel(context.Background())
	src := &scripted{answers: [][]feed.Event{{event("e1", binary("m1", feed.Open, "0.5", "0.5"))}}}
	done := make(chan error, 1)
	go func() { done <- feed.NewRunner(src, c, time.Hour, nil).Run(ctx) }()
	// The first round runs at once; wait until it imported the event.
	waitfor.True(t, "the first round's import", func() bool {
		_, err := c.GetEvent(context.Background(), feed.EventID("test", "e1"))
		return err == nil
	})
	cancel()
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Fatalf("Run returned %v, want context.Canceled", err)
	}
}

func isCode(err error, code betting.ErrorCode) bool {
	var be *betting.Error
	return errors.As(err, &be) && be.Code == code
}

func TestIDsAreStableAndDistinct(t *testing.T) {
	t.Parallel()
	ids := []string{
		feed.EventID("polymarket", "1"), feed.EventID("simulator", "1"), feed.MarketID("polymarket", "1"),
		feed.OutcomeID("polymarket", "1", "0"), feed.OutcomeID("polymarket", "10", ""), feed.OutcomeID("polymarket", "1", "0\x00"),
	}
	seen := map[string]bool{}
	for _, id := range ids {
		if seen[id] {
			t.Fatalf("id %s derived twice", id)
		}
		seen[id] = true
	}
	// Ids are part of stored data: a change of the derivation would
	// re-import every fed event under a new id.
	if got, want := feed.EventID("polymarket", "1"), "d6f13cae-8b93-5e92-b2be-f8382ae8c4e6"; got != want {
		t.Fatalf("EventID(polymarket, 1) = %s, want %s", got, want)
	}
}
