package polymarket

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/shopspring/decimal"
	"golang.org/x/time/rate"

	"github.com/foresight-dev/foresight/internal/betting"
	"github.com/foresight-dev/foresight/internal/feed"
)

// Name is the source name of the adapter.
const Name = "polymarket"

// DefaultBaseURL is the Gamma API.
const DefaultBaseURL = "https://gamma-api.polymarket.com"

// Defaults of Config.
const (
	DefaultMaxEvents     = 50
	DefaultPageSize      = 50
	DefaultMaxPages      = 20
	DefaultOrder         = "volume24hr"
	DefaultRateLimit     = rate.Limit(10)
	DefaultBurst         = 5
	DefaultMaxAttempts   = 4
	DefaultBackoff       = 500 * time.Millisecond
	DefaultMaxBackoff    = 10 * time.Second
	DefaultMaxRetryAfter = time.Minute
	DefaultConcurrency   = 4
	DefaultMaxBodyBytes  = 32 << 20
	DefaultTimeout       = 20 * time.Second
	// DefaultMaxSpread is the widest spread of an open market the adapter
	// reports Open: Polymarket itself stops showing the midpoint above it.
	DefaultMaxSpread = "0.1"
)

// Config configures a Source. A zero field takes its default.
type Config struct {
	// BaseURL is the Gamma API's root (DefaultBaseURL): an absolute http or
	// https URL.
	BaseURL string
	// Client sends the requests (a new http.Client, without a timeout of
	// its own, when nil). Every request also carries Poll's context and its
	// deadline.
	Client *http.Client
	// RequestTimeout bounds each attempt of a request (DefaultTimeout),
	// whatever Client's own timeout; an attempt that times out is a
	// transport error and is retried.
	RequestTimeout time.Duration
	// MaxEvents is how many new events Poll offers at most
	// (DefaultMaxEvents).
	MaxEvents int
	// PageSize is the limit of one listing request, 1 to 500
	// (DefaultPageSize).
	PageSize int
	// MaxPages bounds the listing requests of one Poll (DefaultMaxPages).
	MaxPages int
	// Order is the listing's order field (DefaultOrder), descending unless
	// Ascending.
	Order     string
	Ascending bool
	// TagID, when set, restricts the listing to one Gamma tag (tag_id).
	TagID string
	// Categories map tags to categories, first match wins
	// (DefaultCategories()).
	Categories []CategoryRule
	// DefaultCategory is the category of an event no rule matches; when
	// empty such an event is not offered.
	DefaultCategory string
	// MaxSpread: an open market whose spread is above it is Suspended
	// (DefaultMaxSpread; 1 or more disables the rule).
	MaxSpread decimal.Decimal
	// RateLimit is the rate of requests (DefaultRateLimit per second;
	// rate.Inf for none) with a burst of Burst (DefaultBurst).
	RateLimit rate.Limit
	Burst     int
	// MaxAttempts is how many times a request is tried
	// (DefaultMaxAttempts).
	MaxAttempts int
	// Backoff is the wait before the second attempt, doubled before each
	// next one up to MaxBackoff (DefaultBackoff, DefaultMaxBackoff).
	Backoff, MaxBackoff time.Duration
	// MaxRetryAfter is the longest Retry-After honoured; a longer one fails
	// the request at once (DefaultMaxRetryAfter).
	MaxRetryAfter time.Duration
	// Concurrency is how many tracked events are fetched at once
	// (DefaultConcurrency).
	Concurrency int
	// MaxBodyBytes bounds a response body (DefaultMaxBodyBytes).
	MaxBodyBytes int64
	// Logger receives retries and undecodable events (warn) and skipped
	// events and markets (debug); nothing when nil.
	Logger *slog.Logger
	// Sleep waits d, or less when ctx ends first and then returns ctx's
	// error (a timer when nil). Tests replace it to avoid real waits.
	Sleep func(ctx context.Context, d time.Duration) error
	// Now is the clock that reads a Retry-After date (time.Now when nil).
	Now func() time.Time
}

// Source is the Polymarket feed.Source. It is safe for concurrent use.
type Source struct {
	base            string
	client          *http.Client
	maxEvents       int
	pageSize        int
	maxPages        int
	order           string
	ascending       bool
	tagID           string
	categories      []CategoryRule
	defaultCategory string
	rules           rules
	limiter         *rate.Limiter
	maxAttempts     int
	backoff         time.Duration
	maxBackoff      time.Duration
	maxRetryAfter   time.Duration
	concurrency     int
	maxBody         int64
	requestTimeout  time.Duration
	log             *slog.Logger
	sleep           func(ctx context.Context, d time.Duration) error
	now             func() time.Time
}

var _ feed.Source = (*Source)(nil)

// New returns a Source configured by c with its defaults applied. It fails
// when BaseURL is not an absolute http(s) URL, a number is negative,
// PageSize is above 500, a category rule has no tag or a category not in
// betting.Categories, or DefaultCategory is set and not one of them.
func New(c Config) (*Source, error) {
	s := &Source{
		base: strings.TrimRight(or(c.BaseURL, DefaultBaseURL), "/"), client: c.Client,
		maxEvents: orInt(c.MaxEvents, DefaultMaxEvents), pageSize: orInt(c.PageSize, DefaultPageSize),
		maxPages: orInt(c.MaxPages, DefaultMaxPages), order: or(c.Order, DefaultOrder), ascending: c.Ascending,
		tagID: c.TagID, categories: slices.Clone(c.Categories), defaultCategory: c.DefaultCategory,
		rules:       rules{maxSpread: c.MaxSpread},
		maxAttempts: orInt(c.MaxAttempts, DefaultMaxAttempts), backoff: orDur(c.Backoff, DefaultBackoff),
		maxBackoff: orDur(c.MaxBackoff, DefaultMaxBackoff), maxRetryAfter: orDur(c.MaxRetryAfter, DefaultMaxRetryAfter),
		concurrency: orInt(c.Concurrency, DefaultConcurrency), maxBody: c.MaxBodyBytes,
		requestTimeout: orDur(c.RequestTimeout, DefaultTimeout),
		log:            c.Logger, sleep: c.Sleep, now: c.Now,
	}
	u, err := url.Parse(s.base)
	if err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" {
		return nil, fmt.Errorf("polymarket: base URL %q is not an absolute http(s) URL", s.base)
	}
	for _, f := range []struct {
		name string
		v    int64
	}{
		{"MaxEvents", int64(c.MaxEvents)}, {"PageSize", int64(c.PageSize)}, {"MaxPages", int64(c.MaxPages)},
		{"Burst", int64(c.Burst)}, {"MaxAttempts", int64(c.MaxAttempts)}, {"Backoff", int64(c.Backoff)},
		{"MaxBackoff", int64(c.MaxBackoff)}, {"MaxRetryAfter", int64(c.MaxRetryAfter)},
		{"Concurrency", int64(c.Concurrency)}, {"MaxBodyBytes", c.MaxBodyBytes},
		{"RequestTimeout", int64(c.RequestTimeout)},
	} {
		if f.v < 0 {
			return nil, fmt.Errorf("polymarket: %s must not be negative", f.name)
		}
	}
	if c.RateLimit < 0 || c.MaxSpread.IsNegative() {
		return nil, errors.New("polymarket: RateLimit and MaxSpread must not be negative")
	}
	if s.pageSize > 500 {
		return nil, fmt.Errorf("polymarket: PageSize %d is above 500", s.pageSize)
	}
	if s.categories == nil {
		s.categories = DefaultCategories()
	}
	for _, r := range s.categories {
		if strings.TrimSpace(r.Tag) == "" || !slices.Contains(betting.Categories, r.Category) {
			return nil, fmt.Errorf("polymarket: category rule %+v needs a tag and one of %v", r, betting.Categories)
		}
	}
	if s.defaultCategory != "" && !slices.Contains(betting.Categories, s.defaultCategory) {
		return nil, fmt.Errorf("polymarket: default category %q is not one of %v", s.defaultCategory, betting.Categories)
	}
	if s.rules.maxSpread.IsZero() {
		s.rules.maxSpread = decimal.RequireFromString(DefaultMaxSpread)
	}
	if s.client == nil {
		s.client = &http.Client{}
	}
	if s.maxBody == 0 {
		s.maxBody = DefaultMaxBodyBytes
	}
	limit := c.RateLimit
	if limit == 0 {
		limit = DefaultRateLimit
	}
	s.limiter = rate.NewLimiter(limit, orInt(c.Burst, DefaultBurst))
	if s.log == nil {
		s.log = slog.New(slog.DiscardHandler)
	}
	if s.sleep == nil {
		s.sleep = sleep
	}
	if s.now == nil {
		s.now = time.Now
	}
	return s, nil
}

// Name returns "polymarket".
func (s *Source) Name() string { return Name }

// Poll returns the open events offered now (at most MaxEvents, in listing
// order) followed by the tracked events the listing did not return, each
// fetched by id, in the order of tracked. A tracked event Gamma answers 404
// for, or whose JSON cannot be decoded, is left out. It fails when a
// request fails after its retries, or when ctx ends.
func (s *Source) Poll(ctx context.Context, tracked []string) ([]feed.Event, error) {
	want := make(map[string]bool, len(tracked))
	var keys []string
	for _, k := range tracked {
		if k != "" && !want[k] {
			want[k] = true
			keys = append(keys, k)
		}
	}
	events, seen, err := s.list(ctx, want)
	if err != nil {
		return nil, err
	}
	keys = slices.DeleteFunc(keys, func(k string) bool { return seen[k] })
	more, err := s.fetchTracked(ctx, keys)
	if err != nil {
		return nil, err
	}
	return append(events, more...), nil
}

// list pages through the open events. It returns the events to report
// (offered ones and tracked ones found) and the ids of every event it saw.
func (s *Source) list(ctx context.Context, tracked map[string]bool) ([]feed.Event, map[string]bool, error) {
	var out []feed.Event
	seen := map[string]bool{}
	offered := 0
	for page := 0; page < s.maxPages && offered < s.maxEvents; page++ {
		q := url.Values{
			"closed": {"false"}, "active": {"true"},
			"limit": {strconv.Itoa(s.pageSize)}, "offset": {strconv.Itoa(page * s.pageSize)},
			"order": {s.order}, "ascending": {strconv.FormatBool(s.ascending)},
		}
		if s.tagID != "" {
			q.Set("tag_id", s.tagID)
		}
		body, err := s.get(ctx, "/events", q)
		if err != nil {
			return nil, nil, err
		}
		raws, bad, err := decodeEvents(body)
		if err != nil {
			return nil, nil, fmt.Errorf("polymarket: GET /events offset %d: %w", page*s.pageSize, err)
		}
		for _, e := range bad {
			s.log.Warn("polymarket: event skipped", "err", e)
		}
		fresh := 0
		for i := range raws {
			e := &raws[i]
			key := string(e.ID)
			if key == "" || seen[key] {
				continue
			}
			seen[key] = true
			fresh++
			if !tracked[key] && offered >= s.maxEvents {
				continue
			}
			ev, why := s.mapEvent(e, tracked[key])
			if why != "" {
				s.log.Debug("polymarket: event not reported", "event", key, "reason", why)
				continue
			}
			out = append(out, ev)
			if !tracked[key] {
				offered++
			}
		}
		if fresh == 0 && len(raws) > 0 {
			s.log.Warn("polymarket: the events listing repeated a page; paging stopped", "offset", page*s.pageSize)
			break
		}
		if len(raws)+len(bad) < s.pageSize {
			break
		}
	}
	return out, seen, nil
}

// fetchTracked fetches the events of keys by id, Concurrency at a time,
// and returns those it can report in the order of keys.
func (s *Source) fetchTracked(parent context.Context, keys []string) ([]feed.Event, error) {
	ctx, cancel := context.WithCancel(parent)
	defer cancel()
	found := make([]*feed.Event, len(keys))
	var (
		mu       sync.Mutex
		firstErr error
		wg       sync.WaitGroup
	)
	sem := make(chan struct{}, s.concurrency)
	for i, k := range keys {
		wg.Go(func() {
			select {
			case sem <- struct{}{}:
				defer func() { <-sem }()
			case <-ctx.Done():
				return
			}
			ev, ok, err := s.fetchEvent(ctx, k)
			if err != nil {
				mu.Lock()
				if firstErr == nil {
					firstErr = err
				}
				mu.Unlock()
				cancel()
				return
			}
			if ok {
				found[i] = &ev
			}
		})
	}
	wg.Wait()
	if firstErr != nil {
		return nil, firstErr
	}
	if err := parent.Err(); err != nil {
		return nil, fmt.Errorf("polymarket: %w", err)
	}
	var out []feed.Event
	for _, ev := range found {
		if ev != nil {
			out = append(out, *ev)
		}
	}
	return out, nil
}

// fetchEvent fetches one tracked event; ok is false when it is not to be
// reported (404, undecodable, another id, or no market can be mapped).
func (s *Source) fetchEvent(ctx context.Context, key string) (feed.Event, bool, error) {
	path := "/events/" + url.PathEscape(key)
	body, err := s.get(ctx, path, nil)
	if errors.Is(err, errNotFound) {
		s.log.Info("polymarket: tracked event not found", "event", key)
		return feed.Event{}, false, nil
	}
	if err != nil {
		return feed.Event{}, false, err
	}
	var e rawEvent
	if err := json.Unmarshal(body, &e); err != nil {
		s.log.Warn("polymarket: tracked event skipped", "event", key, "err", err)
		return feed.Event{}, false, nil
	}
	if string(e.ID) != key {
		s.log.Warn("polymarket: tracked event answered with another id", "event", key, "id", string(e.ID))
		return feed.Event{}, false, nil
	}
	ev, why := s.mapEvent(&e, true)
	if why != "" {
		s.log.Warn("polymarket: tracked event not reported", "event", key, "reason", why)
		return feed.Event{}, false, nil
	}
	return ev, true, nil
}

func or(s, def string) string {
	if s == "" {
		return def
	}
	return s
}

func orInt(n, def int) int {
	if n == 0 {
		return def
	}
	return n
}

func orDur(d, def time.Duration) time.Duration {
	if d == 0 {
		return def
	}
	return d
}
