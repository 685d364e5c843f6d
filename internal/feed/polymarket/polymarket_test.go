package polymarket_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/shopspring/decimal"
	"golang.org/x/time/rate"

	"github.com/foresight-dev/foresight/internal/feed"
	"github.com/foresight-dev/foresight/internal/feed/polymarket"
)

// gamma is a fake Gamma API: it serves the listing pages by offset and the
// events by id from testdata, and records every request.
type gamma struct {
	t     *testing.T
	pages map[string]string // offset → fixture; a missing offset is an empty page
	byID  map[string]string // event id → fixture; a missing id is 404
	// before, when set, answers a request instead (it returns true when it
	// did).
	before func(n int, w http.ResponseWriter, r *http.Request) bool

	mu   sync.Mutex
	reqs []*url.URL
}

func (g *gamma) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	g.mu.Lock()
	g.reqs = append(g.reqs, r.URL)
	n := len(g.reqs)
	g.mu.Unlock()
	if g.before != nil && g.before(n, w, r) {
		return
	}
	switch {
	case r.URL.Path == "/events":
		f, ok := g.pages[r.URL.Query().Get("offset")]
		if !ok {
			f = "events_empty.json"
		}
		g.file(w, f)
	case strings.HasPrefix(r.URL.Path, "/events/"):
		f, ok := g.byID[strings.TrimPrefix(r.URL.Path, "/events/")]
		if !ok {
			w.WriteHeader(http.StatusNotFound)
			fmt.Fprint(w, `{"type":"not found error","error":"id not found"}`)
			return
		}
		g.file(w, f)
	default:
		http.NotFound(w, r)
	}
}

func (g *gamma) file(w http.ResponseWriter, name string) {
	b, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		g.t.Errorf("fixture: %v", err)
		w.WriteHeader(http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.Write(b)
}

func (g *gamma) requests() []*url.URL {
	g.mu.Lock()
	defer g.mu.Unlock()
	return slices.Clone(g.reqs)
}

func (g *gamma) paths() []string {
	var out []string
	for _, u := range g.requests() {
		p := u.Path
		if o := u.Query().Get("offset"); o != "" {
			p += "@" + o
		}
		out = append(out, p)
	}
	return out
}

// sleeps records the waits asked of Config.Sleep without waiting.
type sleeps struct {
	mu sync.Mutex
	d  []time.Duration
}

func (s *sleeps) sleep(ctx context.Context, d time.Duration) error {
	s.mu.Lock()
	s.d = append(s.d, d)
	s.mu.Unlock()
	return ctx.Err()
}

func (s *sleeps) all() []time.Duration {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.d)
}

// start serves g and returns a Source on it with page size 4, no rate
// limit and recorded sleeps; tweak adjusts the config.
func start(t *testing.T, g *gamma, tweak func(c *polymarket.Config)) (*polymarket.Source, *sleeps) {
	t.Helper()
	g.t = t
	srv := httptest.NewServer(g)
	t.Cleanup(srv.Close)
	sl := &sleeps{}
	c := polymarket.Config{
		BaseURL: srv.URL, Client: srv.Client(), PageSize: 4, RateLimit: rate.Inf,
		Backoff: time.Second, MaxBackoff: 4 * time.Second, Sleep: sl.sleep,
	}
	if tweak != nil {
		tweak(&c)
	}
	s, err := polymarket.New(c)
	if err != nil {
		t.Fatal(err)
	}
	return s, sl
}

// summary writes events one line per event and market, with outcomes by
// name, so expectations read like the fixtures.
func summary(events []feed.Event) []string {
	var out []string
	for _, e := range events {
		line := fmt.Sprintf("event %s %s %q", e.Key, e.Category, e.Title["en"])
		if e.StartsAt != nil {
			line += " starts=" + e.StartsAt.Format(time.RFC3339)
		}
		out = append(out, line)
		for _, m := range e.Markets {
			line := fmt.Sprintf("  %s %s", m.Key, m.State)
			if m.ClosesAt != nil {
				line += " closes=" + m.ClosesAt.Format(time.RFC3339)
			}
			for _, o := range m.Outcomes {
				line += fmt.Sprintf(" %s=%s", o.Name["en"], o.Probability)
				if m.Winner != "" && o.Key == m.Winner {
					line += "(won)"
				}
			}
			out = append(out, line)
		}
	}
	return out
}

func equalLines(t *testing.T, got, want []string) {
	t.Helper()
	if !slices.Equal(got, want) {
		t.Errorf("got:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

var bothPages = map[string]string{"0": "events_page1.json", "4": "events_page2.json"}

func TestPollOffersTheListing(t *testing.T) {
	t.Parallel()
	g := &gamma{pages: bothPages}
	s, _ := start(t, g, nil)
	events, err := s.Poll(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	equalLines(t, summary(events), []string{
		`event 26359 sports "Nationals vs. Mets" starts=2025-06-10T23:10:00Z`,
		`  550834 open closes=2025-06-10T23:10:00Z Nationals=0.455 Mets=0.545`,
		`event 111080 elections "Michigan Republican Senate Primary Winner"`,
		`  969760 open Yes=0.71 No=0.29`,
		`  969761 open Yes=0.22 No=0.78`,
		`event 30615 crypto "Bitcoin above $120,000 on June 30?"`,
		`  561204 open Yes=0.626263 No=0.373737`,
		`event 16085 economy "Fed decision in July?"`,
		`  516926 suspended Yes=0 No=0`,
		`  516927 open Yes=0.045 No=0.955`,
		`  516928 open Yes=0.94 No=0.06`,
		`  516929 suspended Yes=0.01 No=0.99`,
		`event 23784 climate "Will 2025 be the hottest year on record?"`,
		`  541193 open Yes=0.33 No=0.67`,
	})
	equalLines(t, g.paths(), []string{"/events@0", "/events@4"})
	for _, u := range g.requests() {
		q := u.Query()
		for k, want := range map[string]string{"closed": "false", "active": "true", "limit": "4", "order": "volume24hr", "ascending": "false"} {
			if got := q.Get(k); got != want {
				t.Errorf("%s: %s=%q, want %q", u, k, got, want)
			}
		}
		if q.Has("tag_id") {
			t.Errorf("%s: tag_id sent without Config.TagID", u)
		}
	}

	mlb := events[0]
	if mlb.Markets[0].Outcomes[0].Key != "115093477542595845459769642510663906754645636077470857739371815633441497856930" ||
		mlb.Markets[0].Outcomes[1].Key != "111033623022233125288447078063536634338953857359981191096322678314504369414568" {
		t.Errorf("outcome keys are not the clob token ids: %+v", mlb.Markets[0].Outcomes)
	}
	if mlb.ImageURL != "https://polymarket-upload.s3.us-east-2.amazonaws.com/Repetitive-markets/MLB.jpg" || !strings.HasPrefix(mlb.Description["en"], "In the upcoming MLB game") {
		t.Errorf("event image or description: %q %q", mlb.ImageURL, mlb.Description)
	}
	if got := events[1].Markets[0].ImageURL; got != "https://polymarket-upload.s3.us-east-2.amazonaws.com/mike-rogers-icon.png" {
		t.Errorf("an http image must give way to the https icon; got %q", got)
	}
	if got := events[1].Markets[0].Question["en"]; got != "Will Mike Rogers win the 2026 Michigan Republican Senate primary?" {
		t.Errorf("question %q", got)
	}
	if got := events[1].Markets[1].Outcomes[1].Key; got != "9182309617396394738410592838401047720938520478123046587345091825371625718840" {
		t.Errorf("token id of a real array: %q", got)
	}
	for _, e := range events {
		for _, m := range e.Markets {
			if m.State != feed.Open {
				continue
			}
			sum := decimal.Zero
			for _, o := range m.Outcomes {
				sum = sum.Add(o.Probability)
			}
			if !sum.Equal(decimal.NewFromInt(1)) {
				t.Errorf("market %s is open with probabilities summing to %s", m.Key, sum)
			}
		}
	}
}

func TestPollListingStops(t *testing.T) {
	t.Parallel()
	page1 := []string{"26359", "111080", "30615"}
	tests := []struct {
		name      string
		pages     map[string]string
		repeat    bool // answer page 1 whatever the offset
		maxEvents int
		wantReqs  []string
		wantKeys  []string
	}{
		{"short page", bothPages, false, 0, []string{"/events@0", "/events@4"}, append(slices.Clone(page1), "16085", "23784")},
		{"empty page", map[string]string{"0": "events_page1.json"}, false, 0, []string{"/events@0", "/events@4"}, page1},
		{"max events", bothPages, false, 2, []string{"/events@0"}, page1[:2]},
		{"max events across pages", bothPages, false, 4, []string{"/events@0", "/events@4"}, append(slices.Clone(page1), "16085")},
		{"repeated page", nil, true, 0, []string{"/events@0", "/events@4"}, page1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			g := &gamma{pages: tt.pages}
			if tt.repeat {
				g.before = func(_ int, w http.ResponseWriter, _ *http.Request) bool {
					g.file(w, "events_page1.json")
					return true
				}
			}
			s, _ := start(t, g, func(c *polymarket.Config) { c.MaxEvents = tt.maxEvents })
			events, err := s.Poll(context.Background(), nil)
			if err != nil {
				t.Fatal(err)
			}
			equalLines(t, keys(events), tt.wantKeys)
			equalLines(t, g.paths(), tt.wantReqs)
		})
	}
}

func TestPollMaxPages(t *testing.T) {
	t.Parallel()
	n := 0
	g := &gamma{}
	g.before = func(_ int, w http.ResponseWriter, _ *http.Request) bool {
		n++ // a new event on every page: paging never ends by itself
		fmt.Fprintf(w, `[{"id":"%d","title":"T","closed":false,"tags":[{"slug":"crypto"}],"markets":[]}]`, n)
		return true
	}
	s, _ := start(t, g, func(c *polymarket.Config) { c.PageSize, c.MaxPages = 1, 3 })
	if _, err := s.Poll(context.Background(), nil); err != nil {
		t.Fatal(err)
	}
	equalLines(t, g.paths(), []string{"/events@0", "/events@1", "/events@2"})
}

func TestPollTagFilter(t *testing.T) {
	t.Parallel()
	g := &gamma{}
	s, _ := start(t, g, func(c *polymarket.Config) { c.TagID, c.Order, c.Ascending = "21", "id", true })
	if _, err := s.Poll(context.Background(), nil); err != nil {
		t.Fatal(err)
	}
	q := g.requests()[0].Query()
	if q.Get("tag_id") != "21" || q.Get("order") != "id" || q.Get("ascending") != "true" {
		t.Errorf("query %v", q)
	}
}

func keys(events []feed.Event) []string {
	var out []string
	for _, e := range events {
		out = append(out, e.Key)
	}
	return out
}

func TestPollFetchesTrackedEventsByID(t *testing.T) {
	t.Parallel()
	g := &gamma{byID: map[string]string{
		"26359":  "event_26359_void.json",
		"30615":  "event_30615_resolved.json",
		"198733": "event_198733_proposed.json",
		"16085":  "event_16085_closed.json",
	}}
	s, _ := start(t, g, func(c *polymarket.Config) { c.Concurrency = 2 })
	tracked := []string{"30615", "77777", "26359", "198733", "30615", "16085"}
	events, err := s.Poll(context.Background(), tracked)
	if err != nil {
		t.Fatal(err)
	}
	equalLines(t, summary(events), []string{
		`event 30615 crypto "Bitcoin above $120,000 on June 30?"`,
		`  561204 resolved Yes=0 No=0(won)`,
		`event 26359 sports "Nationals vs. Mets" starts=2025-06-10T23:10:00Z`,
		`  550834 cancelled closes=2025-06-10T23:10:00Z Nationals=0 Mets=0`,
		`event 198733 sports "Golden Knights vs. Penguins" starts=2026-03-01T18:00:00Z`,
		`  1320233 suspended closes=2026-03-01T18:00:00Z Golden Knights=0 Penguins=0`,
		`event 16085 economy "Fed decision in July?"`,
		`  516926 suspended Yes=0 No=0`,
		`  516927 suspended Yes=0 No=0`,
		`  516928 suspended Yes=0 No=0`,
		`  516929 suspended Yes=0 No=0`,
	})
	if w := events[0].Markets[0].Winner; w != "77210394857610293847561029384756102938475610293847561029384756102938475610022" {
		t.Errorf("winner %q is not the token of the outcome priced 1", w)
	}
	got := g.paths()
	slices.Sort(got)
	equalLines(t, got, []string{"/events/16085", "/events/198733", "/events/26359", "/events/30615", "/events/77777", "/events@0"})
}

func TestPollTrackedEventInTheListing(t *testing.T) {
	t.Parallel()
	g := &gamma{pages: map[string]string{"0": "events_page1.json"}}
	s, _ := start(t, g, nil)
	events, err := s.Poll(context.Background(), []string{"40021", "111080"})
	if err != nil {
		t.Fatal(err)
	}
	// 111080 is tracked: its Other market and placeholder are reported too.
	// 40021 maps to no category but is tracked: reported, category empty.
	equalLines(t, summary(events), []string{
		`event 26359 sports "Nationals vs. Mets" starts=2025-06-10T23:10:00Z`,
		`  550834 open closes=2025-06-10T23:10:00Z Nationals=0.455 Mets=0.545`,
		`event 111080 elections "Michigan Republican Senate Primary Winner"`,
		`  969760 open Yes=0.71 No=0.29`,
		`  969761 open Yes=0.22 No=0.78`,
		`  969766 open Yes=0.04 No=0.96`,
		`  969767 suspended Yes=0 No=0`,
		`event 30615 crypto "Bitcoin above $120,000 on June 30?"`,
		`  561204 open Yes=0.626263 No=0.373737`,
		`event 40021  "New Taylor Swift album released in 2025?"`,
		`  570113 open Yes=0.31 No=0.69`,
	})
	equalLines(t, g.paths(), []string{"/events@0", "/events@4"})
}

func TestPollDefaultCategory(t *testing.T) {
	t.Parallel()
	g := &gamma{pages: map[string]string{"0": "events_page1.json"}}
	s, _ := start(t, g, func(c *polymarket.Config) { c.DefaultCategory = "technology" })
	events, err := s.Poll(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	equalLines(t, keys(events), []string{"26359", "111080", "30615", "40021"})
	if events[3].Category != "technology" {
		t.Errorf("category %q", events[3].Category)
	}
}

func TestPollLeavesOutTrackedEventsItCannotSee(t *testing.T) {
	t.Parallel()
	g := &gamma{}
	g.before = func(_ int, w http.ResponseWriter, r *http.Request) bool {
		switch r.URL.Path {
		case "/events/1":
			fmt.Fprint(w, `{"id":"2","title":"Another","markets":[]}`)
		case "/events/3":
			fmt.Fprint(w, `{"id":"3","title":{"not":"a string"}}`)
		case "/events/4":
			fmt.Fprint(w, `{"id":"4","title":"No markets","markets":[]}`)
		case "/events/5":
			fmt.Fprint(w, `{"id":"5","title":"Broken market","markets":[{"id":"9","question":"Q?","outcomes":"[\"Yes\"]","clobTokenIds":"[\"a\"]"}]}`)
		case "/events/6":
			fmt.Fprint(w, `{"id":6,"title":"Numeric id","closed":true,"markets":[{"id":60,"question":"Q?","closed":true,"umaResolutionStatus":"resolved","outcomes":["Yes","No"],"outcomePrices":[1,0],"clobTokenIds":[111,222]}]}`)
		default:
			return false
		}
		return true
	}
	s, _ := start(t, g, nil)
	events, err := s.Poll(context.Background(), []string{"1", "2", "3", "4", "5", "6"})
	if err != nil {
		t.Fatal(err)
	}
	equalLines(t, summary(events), []string{`event 6  "Numeric id"`, `  60 resolved Yes=0(won) No=0`})
}

func TestPollSkipsAnUndecodableListedEvent(t *testing.T) {
	t.Parallel()
	g := &gamma{}
	g.before = func(_ int, w http.ResponseWriter, _ *http.Request) bool {
		fmt.Fprint(w, `[{"id":"1","markets":"oops"},
			{"id":"2","title":"Fine","tags":[{"slug":"crypto"}],"markets":[{"id":"20","question":"Q?","active":true,
			 "outcomes":"[\"Yes\",\"No\"]","outcomePrices":"[\"0.4\",\"0.6\"]","clobTokenIds":"[\"a\",\"b\"]"}]}]`)
		return true
	}
	s, _ := start(t, g, nil)
	events, err := s.Poll(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	equalLines(t, summary(events), []string{`event 2 crypto "Fine"`, `  20 open Yes=0.4 No=0.6`})
}

const internalError = `{"type":"internal error","error":"cannot get the information"}`

func TestPollRetries(t *testing.T) {
	t.Parallel()
	now := time.Date(2025, 6, 10, 12, 0, 0, 0, time.UTC)
	fail := func(status int, header ...string) func(w http.ResponseWriter) {
		return func(w http.ResponseWriter) {
			for i := 0; i+1 < len(header); i += 2 {
				w.Header().Set(header[i], header[i+1])
			}
			w.WriteHeader(status)
			fmt.Fprint(w, internalError)
		}
	}
	hangUp := func(w http.ResponseWriter) {
		conn, _, err := w.(http.Hijacker).Hijack()
		if err == nil {
			conn.Close()
		}
	}
	tests := []struct {
		name        string
		failures    []func(w http.ResponseWriter) // answers of the first requests
		maxAttempts int
		wantSleeps  []time.Duration
		wantStatus  int // of the error; 0: Poll succeeds
	}{
		{"500 then success", []func(http.ResponseWriter){fail(500)}, 0, []time.Duration{time.Second}, 0},
		{"502 and 503 then success", []func(http.ResponseWriter){fail(502), fail(503)}, 0, []time.Duration{time.Second, 2 * time.Second}, 0},
		{"transport error then success", []func(http.ResponseWriter){hangUp}, 0, []time.Duration{time.Second}, 0},
		{"429 with Retry-After seconds", []func(http.ResponseWriter){fail(429, "Retry-After", "7")}, 0, []time.Duration{7 * time.Second}, 0},
		{"429 with a Retry-After date", []func(http.ResponseWriter){fail(429, "Retry-After", now.Add(30*time.Second).Format(http.TimeFormat))}, 0, []time.Duration{30 * time.Second}, 0},
		{"Retry-After shorter than the backoff", []func(http.ResponseWriter){fail(503, "Retry-After", "0")}, 0, []time.Duration{time.Second}, 0},
		{"Retry-After beyond MaxRetryAfter", []func(http.ResponseWriter){fail(429, "Retry-After", "3600")}, 0, nil, 429},
		{"gives up", []func(http.ResponseWriter){fail(500), fail(500), fail(500), fail(500), fail(500)}, 5, []time.Duration{time.Second, 2 * time.Second, 4 * time.Second, 4 * time.Second}, 500},
		{"400 is not retried", []func(http.ResponseWriter){fail(400)}, 0, nil, 400},
		{"403 is not retried", []func(http.ResponseWriter){fail(403)}, 0, nil, 403},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			g := &gamma{}
			g.before = func(n int, w http.ResponseWriter, _ *http.Request) bool {
				if n > len(tt.failures) {
					return false
				}
				tt.failures[n-1](w)
				return true
			}
			s, sl := start(t, g, func(c *polymarket.Config) {
				c.MaxAttempts = tt.maxAttempts
				c.Now = func() time.Time { return now }
			})
			_, err := s.Poll(context.Background(), nil)
			var se *polymarket.StatusError
			switch {
			case tt.wantStatus == 0 && err != nil:
				t.Fatalf("Poll: %v", err)
			case tt.wantStatus != 0 && (!errors.As(err, &se) || se.Status != tt.wantStatus):
				t.Fatalf("Poll error %v, want HTTP %d", err, tt.wantStatus)
			}
			if got := sl.all(); !slices.Equal(got, tt.wantSleeps) {
				t.Errorf("waits %v, want %v", got, tt.wantSleeps)
			}
			wantReqs := len(tt.wantSleeps) + 1
			if got := len(g.requests()); got != wantReqs {
				t.Errorf("%d requests, want %d", got, wantReqs)
			}
		})
	}
}

func TestPollFailsOnATrackedEventError(t *testing.T) {
	t.Parallel()
	g := &gamma{byID: map[string]string{"30615": "event_30615_resolved.json"}}
	g.before = func(_ int, w http.ResponseWriter, r *http.Request) bool {
		if r.URL.Path != "/events/26359" {
			return false
		}
		w.WriteHeader(http.StatusServiceUnavailable)
		return true
	}
	s, _ := start(t, g, func(c *polymarket.Config) { c.MaxAttempts = 2 })
	events, err := s.Poll(context.Background(), []string{"30615", "26359"})
	var se *polymarket.StatusError
	if !errors.As(err, &se) || se.Status != http.StatusServiceUnavailable || se.Path != "/events/26359" || events != nil {
		t.Fatalf("Poll = %v, %v; want the 503 of /events/26359 and no events", events, err)
	}
}

func TestPollFailsOnABadListing(t *testing.T) {
	t.Parallel()
	g := &gamma{}
	g.before = func(_ int, w http.ResponseWriter, _ *http.Request) bool {
		fmt.Fprint(w, `{"events":[]}`)
		return true
	}
	s, sl := start(t, g, nil)
	if _, err := s.Poll(context.Background(), nil); err == nil || !strings.Contains(err.Error(), "not a JSON array") {
		t.Fatalf("Poll error %v", err)
	}
	if len(g.requests()) != 1 || len(sl.all()) != 0 {
		t.Errorf("a bad body must not be retried: %d requests", len(g.requests()))
	}
}

func TestPollBodyLimit(t *testing.T) {
	t.Parallel()
	g := &gamma{pages: map[string]string{"0": "events_page1.json"}}
	s, _ := start(t, g, func(c *polymarket.Config) { c.MaxBodyBytes = 1024 })
	if _, err := s.Poll(context.Background(), nil); err == nil || !strings.Contains(err.Error(), "larger than 1024 bytes") {
		t.Fatalf("Poll error %v", err)
	}
	if len(g.requests()) != 1 {
		t.Errorf("%d requests, want 1", len(g.requests()))
	}
}

func TestPollContextCancelled(t *testing.T) {
	t.Parallel()
	t.Run("during a request", func(t *testing.T) {
		t.Parallel()
		started := make(chan struct{})
		g := &gamma{}
		g.before = func(_ int, w http.ResponseWriter, r *http.Request) bool {
			close(started)
			<-r.Context().Done()
			return true
		}
		s, sl := start(t, g, nil)
		ctx, cancel := context.WithCancel(context.Background())
		go func() {
			<-started
			cancel()
		}()
		_, err := s.Poll(ctx, nil)
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("Poll error %v, want context.Canceled", err)
		}
		if len(g.requests()) != 1 || len(sl.all()) != 0 {
			t.Errorf("a cancelled request was retried")
		}
	})
	t.Run("during the backoff", func(t *testing.T) {
		t.Parallel()
		ctx, cancel := context.WithCancel(context.Background())
		g := &gamma{}
		g.before = func(_ int, w http.ResponseWriter, _ *http.Request) bool {
			w.WriteHeader(http.StatusInternalServerError)
			cancel()
			return true
		}
		// The real sleep, with a backoff no test would wait for.
		s, _ := start(t, g, func(c *polymarket.Config) { c.Sleep, c.Backoff, c.MaxBackoff = nil, time.Hour, time.Hour })
		if _, err := s.Poll(ctx, nil); !errors.Is(err, context.Canceled) {
			t.Fatalf("Poll error %v, want context.Canceled", err)
		}
	})
	t.Run("before polling", func(t *testing.T) {
		t.Parallel()
		g := &gamma{}
		s, _ := start(t, g, func(c *polymarket.Config) { c.RateLimit = 1 })
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		if _, err := s.Poll(ctx, []string{"1"}); !errors.Is(err, context.Canceled) {
			t.Fatalf("Poll error %v, want context.Canceled", err)
		}
		if len(g.requests()) != 0 {
			t.Errorf("%d requests after cancellation", len(g.requests()))
		}
	})
}

func TestPollRequestTimeout(t *testing.T) {
	t.Parallel()
	g := &gamma{}
	g.before = func(_ int, _ http.ResponseWriter, r *http.Request) bool {
		<-r.Context().Done()
		return true
	}
	// The test server's client has no timeout of its own.
	s, sl := start(t, g, func(c *polymarket.Config) { c.RequestTimeout, c.MaxAttempts = 50*time.Millisecond, 2 })
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	_, err := s.Poll(ctx, nil)
	if err == nil || ctx.Err() != nil || !strings.Contains(err.Error(), "giving up after 2 attempts") {
		t.Fatalf("Poll error %v (context %v), want both attempts timed out", err, ctx.Err())
	}
	if got := len(sl.all()); got != 1 {
		t.Errorf("%d waits, want 1 between the attempts", got)
	}
}

func TestNew(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		c    polymarket.Config
		ok   bool
	}{
		{"defaults", polymarket.Config{}, true},
		{"http base URL", polymarket.Config{BaseURL: "http://127.0.0.1:8080/"}, true},
		{"relative base URL", polymarket.Config{BaseURL: "/gamma"}, false},
		{"ftp base URL", polymarket.Config{BaseURL: "ftp://gamma"}, false},
		{"negative max events", polymarket.Config{MaxEvents: -1}, false},
		{"negative backoff", polymarket.Config{Backoff: -time.Second}, false},
		{"negative request timeout", polymarket.Config{RequestTimeout: -time.Second}, false},
		{"negative rate", polymarket.Config{RateLimit: -1}, false},
		{"negative max spread", polymarket.Config{MaxSpread: decimal.RequireFromString("-0.1")}, false},
		{"page too large", polymarket.Config{PageSize: 501}, false},
		{"rule with an unknown category", polymarket.Config{Categories: []polymarket.CategoryRule{{Tag: "nba", Category: "basketball"}}}, false},
		{"rule without a tag", polymarket.Config{Categories: []polymarket.CategoryRule{{Tag: " ", Category: "sports"}}}, false},
		{"own rules", polymarket.Config{Categories: []polymarket.CategoryRule{{Tag: "nba", Category: "sports"}}}, true},
		{"unknown default category", polymarket.Config{DefaultCategory: "culture"}, false},
		{"default category", polymarket.Config{DefaultCategory: "economy"}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			s, err := polymarket.New(tt.c)
			if (err == nil) != tt.ok {
				t.Fatalf("New: %v, want ok=%v", err, tt.ok)
			}
			if err == nil && s.Name() != "polymarket" {
				t.Errorf("Name() = %q", s.Name())
			}
		})
	}
}
