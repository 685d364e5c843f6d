package server_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/shopspring/decimal"

	"github.com/foresight-dev/foresight/internal/betting"
	"github.com/foresight-dev/foresight/internal/feed"
	"github.com/foresight-dev/foresight/internal/server"
	"github.com/foresight-dev/foresight/internal/waitfor"
)

// switchedSource is a feed.Source that reports what the test last set.
type switchedSource struct {
	mu     sync.Mutex
	events []feed.Event
}

func (s *switchedSource) Name() string { return "simulator" }

func (s *switchedSource) Poll(context.Context, []string) ([]feed.Event, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.events, nil
}

func (s *switchedSource) set(events ...feed.Event) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.events = events
}

func fedEvent(state feed.State, winner string) feed.Event {
	return feed.Event{Key: "derby", Category: "sports", Title: betting.Texts{"en": "Derby", "es": "Derbi"}, Markets: []feed.Market{{
		Key: "winner", Question: betting.Texts{"en": "Who wins?"}, State: state, Winner: winner,
		Outcomes: []feed.Outcome{
			{Key: "home", Name: betting.Texts{"en": "Home"}, Probability: decimal.RequireFromString("0.2")},
			{Key: "away", Name: betting.Texts{"en": "Away"}, Probability: decimal.RequireFromString("0.8")},
		},
	}}}
}

// TestFedMarketSettles runs a market from import to payout through the
// feed alone: the feed's resolution settles bets exactly as the admin
// API's does.
func TestFedMarketSettles(t *testing.T) {
	t.Parallel()
	forEachDatabase(t, func(t *testing.T, db string) {
		src := &switchedSource{}
		src.set(fedEvent(feed.Open, ""))
		bw := newBettingWorldWith(t, db, worldOptions{config: func(c *server.Config) {
			c.Feed, c.FeedInterval = src, 20*time.Millisecond
		}})
		alice := bw.bettor("alice", "100.00")
		eventID, marketID := feed.EventID("simulator", "derby"), feed.MarketID("simulator", "winner")
		home := feed.OutcomeID("simulator", "winner", "home")
		waitfor.True(t, "the fed event reaching the catalog", func() bool {
			return bw.api("GET", "/api/v1/events/"+eventID, alice, "").status == 200
		})
		placed := bw.api("POST", "/api/v1/bettor/bets", alice, fmt.Sprintf(`{"market_id":%q,"outcome_id":%q,"stake":"10.00"}`, marketID, home),
			"Idempotency-Key", uuid.NewString())
		if placed.status != 202 {
			t.Fatalf("place = %d %s", placed.status, placed.body)
		}
		id := placed.json(t)["id"].(string)
		if bet := bw.settled(alice, id); bet["status"] != "confirmed" {
			t.Fatalf("bet on a fed market: %v", bet)
		}

		src.set(fedEvent(feed.Resolved, "home"))
		var bet map[string]any
		waitfor.Check(t, func() error {
			if bet = bw.api("GET", "/api/v1/bettor/bets/"+id, alice, "").json(t); bet["status"] != "settled" {
				return fmt.Errorf("bet after the feed resolved its market: %v", bet)
			}
			return nil
		})
		if bet["payout_amount"] == nil || bet["payout_amount"] == "0.00" {
			t.Fatalf("winning bet settled without a payout: %v", bet)
		}
		st, ev := bw.admin("GET", "/admin/v1/events/"+eventID, "")
		if st != 200 || ev["source"] != "simulator" || ev["source_key"] != "derby" {
			t.Fatalf("admin event = %d source %v key %v", st, ev["source"], ev["source_key"])
		}
	})
}

func TestWidgetConfig(t *testing.T) {
	t.Parallel()
	bw := newBettingWorld(t, "sqlite:"+t.TempDir()+"/w.db")
	got := bw.api("GET", "/api/v1/widget/operators/sandbox", "", "")
	if got.status != 200 {
		t.Fatalf("widget config = %d %s", got.status, got.body)
	}
	c := got.json(t)
	st, op := bw.admin("GET", "/admin/v1/operators/sandbox", "")
	if st != 200 {
		t.Fatalf("admin operator = %d", st)
	}
	if want := op["wallet_url"].(string) + "/v1/session"; c["session_url"] != want || c["integration"] != "standalone" {
		t.Fatalf("widget config %v; want session_url %s", c, want)
	}
	for _, secret := range []string{"wallet_url", "signing_secret", "margin", "jwks_url"} {
		if _, ok := c[secret]; ok {
			t.Errorf("widget config shows %s", secret)
		}
	}
	if l := c["limits"].(map[string]any)["USD"].(map[string]any); l["max_stake"] != "100" || l["outcome_exposure"] != nil {
		t.Errorf("limits %v", l)
	}
	if got := bw.api("GET", "/api/v1/widget/operators/nobody", "", ""); got.status != 404 {
		t.Fatalf("unknown operator = %d", got.status)
	}
	if st, _ := bw.admin("PATCH", "/admin/v1/operators/sandbox", `{"session_url":"http://127.0.0.1:1/session"}`); st != 200 {
		t.Fatalf("set session_url = %d", st)
	}
	if c := bw.api("GET", "/api/v1/widget/operators/sandbox", "", "").json(t); c["session_url"] != "http://127.0.0.1:1/session" {
		t.Fatalf("session_url after PATCH = %v", c["session_url"])
	}
	// An aggregator's bettors exchange their launch token with the
	// platform itself.
	if st, p := bw.admin("POST", "/admin/v1/operators", `{"id":"agg","name":"Agg","integration":"aggregator",
		"wallet_url":"http://127.0.0.1:1/wallet","signing_secret":"aggregator-secret-0123","casino_ids":["c1"],
		"currencies":[{"code":"EUR","decimals":2}],"margin":{"method":"odds_ratio","value":"0.05"},
		"limits":{"EUR":{"min_stake":"1","max_stake":"50","max_payout":"500","outcome_exposure":"1000"}},"odds_tolerance":"0.05"}`); st != 201 {
		t.Fatalf("create aggregator = %d %v", st, p)
	}
	if c := bw.api("GET", "/api/v1/widget/operators/agg", "", "").json(t); c["session_url"] != bw.url+"/api/v1/sessions" || c["integration"] != "aggregator" {
		t.Fatalf("aggregator widget config %v, want session_url %s", c, bw.url+"/api/v1/sessions")
	}
}

// TestPolymarketFeed serves recorded Gamma answers and checks that the
// polymarket feed named in the configuration imports them.
func TestPolymarketFeed(t *testing.T) {
	t.Parallel()
	page, err := os.ReadFile("../feed/polymarket/testdata/events_page1.json")
	if err != nil {
		t.Fatal(err)
	}
	gamma := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		if r.URL.Path == "/events" && r.URL.Query().Get("offset") == "0" {
			w.Write(page)
			return
		}
		w.Write([]byte("[]"))
	}))
	t.Cleanup(gamma.Close)
	w := newWorld(t, "sqlite:"+filepath.Join(t.TempDir(), "pm.db"), worldOptions{config: func(c *server.Config) {
		c.MarketFeed, c.FeedInterval = "polymarket", time.Hour
		c.Polymarket.BaseURL = gamma.URL
	}})
	var events []betting.Event
	waitfor.True(t, "a Polymarket event reaching the catalog", func() bool {
		var err error
		if events, err = w.srv.Betting().ListEvents(context.Background(), betting.EventFilter{Limit: 100}); err != nil {
			t.Fatal(err)
		}
		return len(events) > 0
	})
	for _, e := range events {
		if e.Source != "polymarket" || e.ID != feed.EventID("polymarket", e.SourceKey) {
			t.Fatalf("fed event %s: source %q key %q", e.ID, e.Source, e.SourceKey)
		}
	}
}

// TestSimulatorFeed checks that the simulator named in the configuration
// fills the catalog in every category, with images the server itself
// serves.
func TestSimulatorFeed(t *testing.T) {
	t.Parallel()
	w := newWorld(t, "sqlite:"+filepath.Join(t.TempDir(), "sim.db"), worldOptions{config: func(c *server.Config) {
		// Plain http and no --dev-allow-insecure, as `foresight serve`
		// runs for a first try: the simulator's images are the platform's own.
		c.MarketFeed, c.FeedInterval, c.DevAllowInsecure = "simulator", time.Hour, false
		c.Simulator.Seed = 7
	}})
	// The first round imports event after event: wait until every
	// category is in.
	var events []betting.Event
	categories := map[string]bool{}
	waitfor.Check(t, func() error {
		var err error
		if events, err = w.srv.Betting().ListEvents(context.Background(), betting.EventFilter{Limit: 200}); err != nil {
			t.Fatal(err)
		}
		for _, e := range events {
			categories[e.Category] = true
			if e.Source != "simulator" || len(e.Title) < 7 {
				t.Fatalf("event %s: source %q, title in %d locales", e.ID, e.Source, len(e.Title))
			}
		}
		if len(categories) < len(betting.Categories) {
			return fmt.Errorf("categories %v, want all of %v", categories, betting.Categories)
		}
		return nil
	})
	img := events[0].ImageURL
	if !strings.HasPrefix(img, w.url+"/feed/simulator/images/") {
		t.Fatalf("image URL %q is not served by the platform at %s", img, w.url)
	}
	resp, err := http.Get(img)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 200 || resp.Header.Get("Content-Type") != "image/svg+xml" {
		t.Fatalf("GET %s = %d %s", img, resp.StatusCode, resp.Header.Get("Content-Type"))
	}
}
