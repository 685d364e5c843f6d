// Package server assembles Foresight: it opens the database named by the
// configuration, builds the services with their engines and partners, and
// serves every HTTP API on one listener while the background workers run.
package server

import (
	"context"
	_ "embed"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	"github.com/riverqueue/river"

	"github.com/foresight-dev/foresight/api"
	"github.com/foresight-dev/foresight/internal/admin"
	"github.com/foresight-dev/foresight/internal/aggregator"
	"github.com/foresight-dev/foresight/internal/aggregator/aggregatorhttp"
	aggwallet "github.com/foresight-dev/foresight/internal/aggregator/wallet"
	"github.com/foresight-dev/foresight/internal/audit"
	"github.com/foresight-dev/foresight/internal/backoffice"
	"github.com/foresight-dev/foresight/internal/betting"
	"github.com/foresight-dev/foresight/internal/betting/bettorauth"
	"github.com/foresight-dev/foresight/internal/betting/bettorhttp"
	"github.com/foresight-dev/foresight/internal/betting/ledgerwallet"
	"github.com/foresight-dev/foresight/internal/betting/wallet"
	"github.com/foresight-dev/foresight/internal/clientaddr"
	"github.com/foresight-dev/foresight/internal/feed"
	"github.com/foresight-dev/foresight/internal/feed/polymarket"
	"github.com/foresight-dev/foresight/internal/feed/simulator"
	"github.com/foresight-dev/foresight/internal/httpjson"
	"github.com/foresight-dev/foresight/internal/jobqueue"
	"github.com/foresight-dev/foresight/internal/ledger"
	"github.com/foresight-dev/foresight/internal/money"
	"github.com/foresight-dev/foresight/internal/netguard"
	"github.com/foresight-dev/foresight/internal/postgres"
	"github.com/foresight-dev/foresight/internal/ratelimit"
	"github.com/foresight-dev/foresight/internal/requestid"
	"github.com/foresight-dev/foresight/internal/sqlite"
	"github.com/foresight-dev/foresight/internal/tickets"
	"github.com/foresight-dev/foresight/internal/tickets/anthropic"
	"github.com/foresight-dev/foresight/internal/tickets/heuristic"
	"github.com/foresight-dev/foresight/internal/tickets/llm"
	"github.com/foresight-dev/foresight/internal/tickets/openai"
	"github.com/foresight-dev/foresight/internal/tickets/tickethttp"
	"github.com/foresight-dev/foresight/internal/webhook"
	"github.com/foresight-dev/foresight/internal/widget"
)

// Config is the whole configuration of a Foresight server.
type Config struct {
	Addr        string
	DatabaseURL string
	// PublicURL is the base URL clients see; default http:// + Addr.
	PublicURL  string
	AdminToken string
	// MetricsToken is a bearer token that may read /metrics and nothing
	// else; the admin token may read it too. See CheckTokens.
	MetricsToken string
	// AuthFailuresPerMinute and AuthFailureBurst are the budget of wrong
	// admin, operator and metrics tokens per client address (burst in a
	// row, then so many a minute); 0 per minute disables it.
	AuthFailuresPerMinute float64
	AuthFailureBurst      int
	// TrustedProxies is a comma-separated list of the IP addresses and
	// CIDR prefixes of the reverse proxies in front of the server: behind
	// them, the per-address limits and the audit trail take the client
	// address from their X-Forwarded-For (clientaddr.Proxies.Of). Empty
	// trusts none: the client address is the connection's.
	TrustedProxies string
	// TicketsEngine names the ticket engine: heuristic (more come with the
	// LLM engines).
	TicketsEngine string
	// DevAllowInsecure allows http:// and non-public addresses for partner
	// URLs and callback delivery. Local development and tests only.
	DevAllowInsecure bool

	Tickets tickets.Config
	Queue   jobqueue.Config
	// ModelTimeout bounds one call of an LLM engine to its model
	// (model_timeout beyond).
	ModelTimeout time.Duration
	// ModelContextTokens is the LLM's context window; longer specs are
	// split at their headings.
	ModelContextTokens int
	// OpenAI configures the openai engine.
	OpenAI openai.Config
	// Anthropic configures the anthropic engine.
	Anthropic anthropic.Config
	// RateLimit is requests per second per API key (0 disables); RateBurst
	// the bucket size.
	RateLimit    float64
	RateBurst    int
	MaxBodyBytes int64
	// LauncherRateLimit is aggregator launcher requests per second per
	// client IP address (aggregator-api.md: 5); 0 disables the limit.
	LauncherRateLimit float64
	// RoundDetailsRateLimit is Round/Details requests per second per
	// client IP address, in bursts of as many; 0 disables the limit.
	RoundDetailsRateLimit float64
	// BetRateLimit is new bets per second per bettor, after BetRateBurst
	// in a row (betting.Placement.LimitBettorRate); 0 disables the limit.
	// With the limit, a bettor also has at most twice BetRateBurst bets
	// in progress at once (bettorhttp.Options.MaxPlacementsInProgress).
	BetRateLimit float64
	BetRateBurst int
	// OddsStreamRateLimit is odds streams opened per second per bettor,
	// after OddsStreamRateBurst in a row (bettorhttp.Options
	// StreamConnectRate); 0 disables the limit.
	OddsStreamRateLimit float64
	OddsStreamRateBurst int
	// ExpiryInterval is how often expired jobs are swept.
	ExpiryInterval time.Duration

	// Engine, when set, replaces the engine TicketsEngine names (tests
	// use it to stand in for a slow or failing model).
	Engine tickets.Engine
	// MarketFeed names the market feed that keeps the catalog up to date:
	// manual (none: the admin API only), simulator or polymarket.
	MarketFeed string
	// FeedInterval is the time between two polls of the market feed
	// (default feed.DefaultInterval).
	FeedInterval time.Duration
	// Polymarket configures the polymarket feed.
	Polymarket polymarket.Config
	// Simulator configures the simulator feed; its ImageBaseURL defaults
	// to PublicURL + simulator.ImagesPath, where the server serves the
	// images.
	Simulator simulator.Config
	// Feed, when set, replaces the feed MarketFeed names.
	Feed feed.Source
	// CatalogCacheTTL is how long a node trusts a cached operator or event
	// without a change notification (default betting.DefaultCacheTTL).
	CatalogCacheTTL time.Duration
	// JWKSRefreshLimit bounds how often an unknown key id makes an
	// operator's JWKS be fetched again (default 5 minutes).
	JWKSRefreshLimit time.Duration
	// CallbackTransport, when set, carries callback deliveries instead of
	// the guarded default transport (tests route a test host name to a
	// local TLS server with it).
	CallbackTransport *http.Transport
	// CallbackTimeout bounds one callback delivery attempt (default 15 s;
	// the callback job's own minute bounds it too).
	CallbackTimeout time.Duration
	// PlacementTimeLimit bounds a bet placement request (default the
	// spec's 3 s; no flag: tests on a busy machine set more).
	PlacementTimeLimit time.Duration
	// CallbackResolver, when set, looks up callback_url host names at
	// submission instead of net.DefaultResolver (tests make a name resolve
	// to loopback with it).
	CallbackResolver netguard.Resolver
	// OddsStreamWriteTimeout bounds each write of an odds stream; a client
	// that takes none of it in time loses its stream (zero:
	// bettorhttp.DefaultStreamWriteTimeout, 30 s; tests shorten it).
	OddsStreamWriteTimeout time.Duration
	// HTTP2MaxStreams is how many requests (odds streams among them) one
	// HTTP/2 connection may carry at once; a client or proxy with more
	// opens another connection.
	HTTP2MaxStreams int
	// HTTPWriteTimeout bounds the writing of one response, from the end
	// of its request's headers: a client that stops reading loses the
	// request then, and its handler ends. Odds streams set deadlines of
	// their own (OddsStreamWriteTimeout) and outlive it.
	HTTPWriteTimeout time.Duration
	// MaxConnections caps the connections served at once; more wait in
	// the listen backlog until one closes. 0 is DefaultMaxConnections:
	// the open-file limit minus the descriptors the database, the
	// journal and outbound calls need.
	MaxConnections int
}

// MaxHeaderBytes is the largest request line and header block the server
// reads; a larger one is answered 431. Session tokens and cookies take a
// few KiB.
const MaxHeaderBytes = 64 << 10

// DefaultConfig returns the documented defaults.
func DefaultConfig() Config {
	return Config{
		Addr:               "127.0.0.1:8080",
		DatabaseURL:        "sqlite:foresight.db",
		TicketsEngine:      "heuristic",
		MarketFeed:         "manual",
		Tickets:            tickets.DefaultConfig(),
		Queue:              jobqueue.DefaultConfig(),
		ModelTimeout:       120 * time.Second,
		ModelContextTokens: 128_000,
		OpenAI:             openai.Config{MaxTokens: llm.DefaultAnswerTokens, MaxRetries: 2},
		Anthropic:          anthropic.Config{MaxTokens: llm.DefaultAnswerTokens, MaxRetries: 2},
		RateLimit:          20,
		RateBurst:          40,
		LauncherRateLimit:  5,
		BetRateLimit:       1,
		BetRateBurst:       10,
		MaxBodyBytes:       1 << 20,
		ExpiryInterval:     time.Minute,
		HTTP2MaxStreams:    250,
		HTTPWriteTimeout:   time.Minute,

		AuthFailuresPerMinute: 10,
		AuthFailureBurst:      10,
		OddsStreamRateLimit:   1,
		OddsStreamRateBurst:   10,
		RoundDetailsRateLimit: 200,
	}
}

// Database is what the server needs of a storage engine: the stores of
// every domain, the job queue's workers and the catalog's notifications.
// OpenDatabase returns one.
type Database interface {
	TicketStore() tickets.Store
	BettingStore() betting.Store
	BetStore() betting.BetStore
	AggregatorStore() aggregator.Store
	CredentialStore() betting.CredentialStore
	LedgerStore() ledger.Store
	AuditStore() audit.Store
	StartWorkers(ctx context.Context, workers *river.Workers, cfg jobqueue.Config) (jobqueue.Running, error)
	// PlacesBetsInProcess reports whether CreateBet leaves the bet's
	// placement to a betting.Dispatcher in this process (SQLite) instead
	// of enqueuing a job any node works (PostgreSQL).
	PlacesBetsInProcess() bool
	// ListenCatalog calls changed with every operator and event another
	// node changes, until ctx ends, and listening each time it listens;
	// with one node (SQLite) it calls listening and returns.
	ListenCatalog(ctx context.Context, changed func(betting.CatalogChange), listening func())
	Close() error
}

// OpenDatabase opens and migrates the database named by url: "sqlite:PATH"
// or "postgres://…" (also "postgresql://…"). Another scheme is an error,
// and so is a database that cannot be opened or migrated.
func OpenDatabase(ctx context.Context, url string, log *slog.Logger) (Database, error) {
	switch {
	case strings.HasPrefix(url, "sqlite:"):
		return sqlite.Open(ctx, strings.TrimPrefix(url, "sqlite:"), log)
	case strings.HasPrefix(url, "postgres://"), strings.HasPrefix(url, "postgresql://"):
		return postgres.Open(ctx, url, log)
	}
	return nil, fmt.Errorf("database URL %q: want sqlite:PATH or postgres://…", url)
}

// operatorDecimals gives the ledger the decimals of an operator's
// currencies: a currency the operator does not hold is refused.
func operatorDecimals(catalog *betting.Service) func(ctx context.Context, operatorID, currency string) (int32, error) {
	return func(ctx context.Context, operatorID, currency string) (int32, error) {
		op, err := catalog.CachedOperator(ctx, operatorID)
		if err != nil {
			var be *betting.Error
			if errors.As(err, &be) && be.Code == betting.ErrNotFound {
				return 0, &ledger.Error{Code: ledger.ErrNotFound, Message: "no operator " + operatorID}
			}
			return 0, err
		}
		for _, c := range op.Currencies {
			if c.Code == currency {
				return c.Decimals, nil
			}
		}
		return 0, &ledger.Error{Code: ledger.ErrInvalid, Message: "operator " + operatorID + " has no currency " + currency}
	}
}

// NewFeed builds the market feed the configuration names; nil for the
// manual feed.
func NewFeed(cfg Config) (feed.Source, error) {
	switch {
	case cfg.Feed != nil:
		return cfg.Feed, nil
	case cfg.MarketFeed == "manual" || cfg.MarketFeed == "":
		return nil, nil
	case cfg.MarketFeed == "polymarket":
		return polymarket.New(cfg.Polymarket)
	case cfg.MarketFeed == "simulator":
		sc := cfg.Simulator
		if sc.ImageBaseURL == "" {
			sc.ImageBaseURL = strings.TrimRight(cfg.PublicURL, "/") + strings.TrimSuffix(simulator.ImagesPath, "/")
		}
		return simulator.New(sc)
	}
	return nil, fmt.Errorf("market feed %q: want manual, simulator or polymarket", cfg.MarketFeed)
}

// NewEngine builds the ticket engine the configuration names.
func NewEngine(cfg Config) (tickets.Engine, error) {
	switch {
	case cfg.Engine != nil:
		return cfg.Engine, nil
	case cfg.TicketsEngine == "heuristic":
		return heuristic.New(), nil
	case cfg.TicketsEngine == "openai":
		m, err := openai.New(cfg.OpenAI)
		if err != nil {
			return nil, err
		}
		return llm.NewEngine("openai", m, llm.Options{Timeout: cfg.ModelTimeout, ContextTokens: cfg.ModelContextTokens, AnswerTokens: int(cfg.OpenAI.MaxTokens)}), nil
	case cfg.TicketsEngine == "anthropic":
		m, err := anthropic.New(cfg.Anthropic)
		if err != nil {
			return nil, err
		}
		return llm.NewEngine("anthropic", m, llm.Options{Timeout: cfg.ModelTimeout, ContextTokens: cfg.ModelContextTokens, AnswerTokens: int(cfg.Anthropic.MaxTokens)}), nil
	}
	return nil, fmt.Errorf("tickets engine %q: want heuristic, openai or anthropic", cfg.TicketsEngine)
}

// Server is an assembled Foresight server.
type Server struct {
	cfg       Config
	db        Database
	tickets   *tickets.Service
	betting   *betting.Service
	placement *betting.Placement
	creds     *betting.Credentials
	ledger    *ledger.Ledger
	agg       *aggregator.Service
	// balances read the balances of the bettors whose tokens the
	// platform mints (aggregator and bundled paths).
	balances sessionBalances
	tokens   *bettorauth.Validator
	feed     feed.Source // nil for the manual feed
	proxies  clientaddr.Proxies
	handler  http.Handler
	log      *slog.Logger

	// dispatcher places bets in this process when the database has no
	// placement queue (SQLite); nil otherwise.
	dispatcher *betting.Dispatcher

	// workers are this process's queue workers while Run runs.
	workersMu sync.Mutex
	workers   jobqueue.Running
}

// New opens the database and assembles the services.
func New(ctx context.Context, cfg Config, log *slog.Logger) (*Server, error) {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	if cfg.AdminToken == "" {
		return nil, errors.New("an admin token is required (FORESIGHT_ADMIN_TOKEN)")
	}
	if cfg.PublicURL == "" {
		cfg.PublicURL = "http://" + cfg.Addr
	}
	proxies, err := parseTrustedProxies(cfg.TrustedProxies)
	if err != nil {
		return nil, err
	}
	source, err := NewFeed(cfg)
	if err != nil {
		return nil, err
	}
	engine, err := NewEngine(cfg)
	if err != nil {
		return nil, err
	}
	if cfg.DevAllowInsecure {
		log.Warn("FORESIGHT_DEV_ALLOW_INSECURE is on: partners' wallet, session and JWKS URLs, event images and ticket callbacks may use http:// and private addresses; never use this in production")
	}
	db, err := OpenDatabase(ctx, cfg.DatabaseURL, log)
	if err != nil {
		return nil, err
	}
	sender := webhook.NewSender(webhook.SenderOptions{AllowInsecure: cfg.DevAllowInsecure, Transport: cfg.CallbackTransport, Timeout: cfg.CallbackTimeout})
	ticketsCfg := cfg.Tickets
	ticketsCfg.CallbackPendingAtMost = jobqueue.CallbackOwedAtMost(cfg.Queue.CallbackRetries)
	svc := tickets.NewService(db.TicketStore(), engine, sender, ticketsCfg, log)
	catalog := betting.NewService(db.BettingStore(), cfg.DevAllowInsecure)
	if u, err := url.Parse(cfg.PublicURL); err == nil && u.Host != "" {
		catalog.OwnOrigin = u.Scheme + "://" + u.Host
	}
	if cfg.CatalogCacheTTL > 0 {
		catalog.SetCacheTTL(cfg.CatalogCacheTTL)
	}
	operatorWallets := wallet.New(wallet.Options{AllowInsecure: cfg.DevAllowInsecure})
	aggregatorWallets := aggwallet.New(aggwallet.Options{AllowInsecure: cfg.DevAllowInsecure})
	keys, err := aggregator.LoadKeys(ctx, db.AggregatorStore())
	if err != nil {
		db.Close()
		return nil, err
	}
	ledgerBook := ledger.New(db.LedgerStore(), ledger.Options{Decimals: operatorDecimals(catalog)})
	bundledWallets := ledgerwallet.New(ledgerBook)
	placement := betting.NewPlacement(catalog, db.BetStore(), betting.IntegrationWallets{
		betting.IntegrationStandalone: operatorWallets,
		betting.IntegrationAggregator: aggregatorWallets,
		betting.IntegrationBundled:    bundledWallets,
	})
	placement.SetLog(log)
	placement.LimitBettorRate(cfg.BetRateLimit, cfg.BetRateBurst)
	balances := sessionBalances{aggregator: aggregatorWallets, bundled: bundledWallets}
	s := &Server{cfg: cfg, db: db, tickets: svc, betting: catalog, placement: placement, feed: source, proxies: proxies,
		creds:    betting.NewCredentials(db.CredentialStore(), catalog),
		ledger:   ledgerBook,
		agg:      aggregator.New(db.AggregatorStore(), catalog, placement, db.BetStore(), balances, keys, cfg.PublicURL),
		balances: balances,
		tokens: bettorauth.New(bettorauth.Options{AllowInsecure: cfg.DevAllowInsecure, RefreshUnknownKIDRateLimit: cfg.JWKSRefreshLimit, Logger: log,
			Audience: cfg.PublicURL}),
		log: log}
	if db.PlacesBetsInProcess() {
		s.dispatcher = betting.NewDispatcher(placement, betting.DispatchConfig{Workers: cfg.Queue.BetWorkers, Log: log})
	}
	s.handler = s.routes()
	return s, nil
}

// sessionBalances reads the balance of a bettor whose token the platform
// mints: an aggregator's player from the aggregator's wallet
// (Player/Balance), a bundled operator's bettor from the ledger.
type sessionBalances struct {
	aggregator *aggwallet.Client
	bundled    *ledgerwallet.Wallet
}

// Balance reads the balance of op's bettor accountID.
func (b sessionBalances) Balance(ctx context.Context, op betting.Operator, accountID, currency, sessionID string) (money.Amount, error) {
	if op.Integration == betting.IntegrationBundled {
		return b.bundled.Balance(ctx, op, accountID, currency)
	}
	return b.aggregator.Balance(ctx, op, accountID, currency, sessionID)
}

// PausePlacement stops placing bets, on every node, until
// ResumePlacement; bets keep being accepted and stay pending. Load tests
// use it to time placement alone. It returns once this process has taken
// the pause (on PostgreSQL, the other nodes take it when River's
// notification reaches them); on PostgreSQL it fails unless Run is
// running.
func (s *Server) PausePlacement(ctx context.Context) error {
	if s.dispatcher != nil {
		s.dispatcher.Pause()
		return nil
	}
	w, err := s.runningWorkers()
	if err != nil {
		return err
	}
	return w.PauseQueue(ctx, jobqueue.QueueBets)
}

// ResumePlacement undoes PausePlacement.
func (s *Server) ResumePlacement(ctx context.Context) error {
	if s.dispatcher != nil {
		s.dispatcher.Resume()
		return nil
	}
	w, err := s.runningWorkers()
	if err != nil {
		return err
	}
	return w.ResumeQueue(ctx, jobqueue.QueueBets)
}

// runningWorkers returns the workers Run started, or an error when Run is
// not running.
func (s *Server) runningWorkers() (jobqueue.Running, error) {
	s.workersMu.Lock()
	defer s.workersMu.Unlock()
	if s.workers == nil {
		return nil, errors.New("the server's workers are not running")
	}
	return s.workers, nil
}

// Tickets returns the ticket service.
func (s *Server) Tickets() *tickets.Service { return s.tickets }

// Betting returns the betting service.
func (s *Server) Betting() *betting.Service { return s.betting }

// Credentials returns the operator credentials the admin API accepts.
func (s *Server) Credentials() *betting.Credentials { return s.creds }

// Handler returns the HTTP handler of every API.
func (s *Server) Handler() http.Handler { return s.handler }

// Close stops the token validator's refreshes and closes the database.
func (s *Server) Close() error {
	s.tokens.Close()
	return s.db.Close()
}

func (s *Server) routes() http.Handler {
	reg := prometheus.NewRegistry()
	reg.MustRegister(collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	metrics := newHTTPMetrics(reg)
	s.placement.ObserveWalletAttempts(newWalletMetrics(reg))
	registerStreamMetrics(reg, s.betting.Hub())

	mux := http.NewServeMux()
	ticketAPI := tickethttp.New(s.tickets, tickethttp.Config{
		PublicURL:    s.cfg.PublicURL,
		MaxBodyBytes: s.cfg.MaxBodyBytes,
		Limiter:      ratelimit.New(s.cfg.RateLimit, s.cfg.RateBurst),
		Resolver:     s.cfg.CallbackResolver,
		Log:          s.log,
	})
	mux.Handle("/tickets/v1/", metrics.wrap("tickets", ticketAPI))
	mux.Handle("/v1/task-generation/", metrics.wrap("tickets", ticketAPI))
	// At most BetRateBurst new bets pass the rate limit at once; twice
	// that in progress leaves room for repeated keys. A test or load that
	// turns the rate limit off runs one bettor hard, with no cap.
	placementsInProgress := 0
	if s.cfg.BetRateLimit > 0 {
		placementsInProgress = 2 * s.cfg.BetRateBurst
	}
	bettorAPI := bettorhttp.New(s.betting, s.placement, bettorhttp.TokenAuthenticator(s.betting, s.placement, s.tokens,
		bettorhttp.Platform{Keys: s.agg.Keys().PublicKey, Balance: s.balances.Balance}),
		bettorhttp.Options{Log: s.log, StreamWriteTimeout: s.cfg.OddsStreamWriteTimeout,
			StreamConnectRate: s.cfg.OddsStreamRateLimit, StreamConnectBurst: s.cfg.OddsStreamRateBurst,
			MaxPlacementsInProgress: placementsInProgress, PlacementTimeLimit: s.cfg.PlacementTimeLimit})
	mux.Handle("/api/v1/", metrics.wrap("bettor", bettorAPI))
	mux.Handle("GET /api/v1/widget/operators/{id}", metrics.wrap("bettor", bettorhttp.WidgetConfig(s.betting, s.cfg.PublicURL, s.log)))
	aggregatorAPI := http.NewServeMux()
	aggregatorhttp.Register(aggregatorAPI, s.agg, s.betting, aggregatorhttp.Options{LauncherRate: s.cfg.LauncherRateLimit,
		DetailsRate: s.cfg.RoundDetailsRateLimit, TrustedProxies: s.proxies, Log: s.log})
	for _, p := range []string{aggregatorhttp.PathLauncherReal, aggregatorhttp.PathLauncherDemo, aggregatorhttp.PathRoundDetails, "/api/v1/sessions"} {
		mux.Handle("POST "+p, metrics.wrap("aggregator", aggregatorAPI))
	}
	mux.Handle("GET /.well-known/jwks.json", metrics.wrap("aggregator", aggregatorAPI))
	mux.Handle("/widget/", metrics.wrap("widget", widget.Handler(s.betting.CachedOperator)))
	mux.Handle("/backoffice/", metrics.wrap("backoffice", backoffice.Handler()))
	// Wrong admin, operator and metrics tokens share one failure budget
	// per client address.
	failedSignIns := ratelimit.NewFailureGuard(s.cfg.AuthFailuresPerMinute, s.cfg.AuthFailureBurst, s.proxies)
	mux.Handle("/admin/v1/", metrics.wrap("admin", admin.New(s.cfg.AdminToken, s.tickets, s.betting, s.placement, s.creds,
		admin.Options{Log: s.log, FailedSignIns: failedSignIns, TrustedProxies: s.proxies, Ledger: s.ledger, Sessions: s.agg,
			Audit: audit.New(s.db.AuditStore(), audit.Options{})})))
	mux.Handle("GET "+simulator.ImagesPath, simulator.Images())
	mux.HandleFunc("GET /favicon.ico", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "image/x-icon")
		w.Header().Set("Cache-Control", "public, max-age=86400")
		w.Write(favicon)
	})
	mux.HandleFunc("GET /healthz", func(w http.ResponseWriter, r *http.Request) {
		httpjson.Write(w, http.StatusOK, map[string]string{"status": "ok"})
	})
	mux.Handle("GET /metrics", metricsAccess([]string{s.cfg.MetricsToken, s.cfg.AdminToken}, failedSignIns, promhttp.HandlerFor(reg, promhttp.HandlerOpts{})))
	mux.HandleFunc("GET /openapi/{name}", func(w http.ResponseWriter, r *http.Request) {
		b, err := api.Documents.ReadFile(r.PathValue("name"))
		if err != nil {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "application/yaml")
		w.Write(b)
	})
	// Every answer carries X-Request-Id; the log line of a failure names it.
	return closeUnreadBodies(requestid.Middleware(mux))
}

// favicon is the icon browsers ask for at /favicon.ico (the backoffice,
// the API documents and the sandboxes' pages are top-level pages).
//
//go:embed favicon.ico
var favicon []byte

// Run serves on l and runs the workers and the expiry sweeper until ctx
// ends, then shuts down gracefully: the listener closes, requests in flight
// finish, running jobs are handed back to the queue.
func (s *Server) Run(ctx context.Context, l net.Listener) error {
	workers, err := s.startWorkers(ctx, l)
	if err != nil {
		return err
	}
	loops := s.startBackground(ctx)
	srv, limited := s.newHTTPServer(l)
	serveErr := make(chan error, 1)
	go func() { serveErr <- srv.Serve(limited) }()
	s.log.Info("foresight serving", "addr", limited.Addr().String(), "public_url", s.cfg.PublicURL, "max_connections", limited.limit)

	select {
	case <-ctx.Done():
		s.log.Info("foresight stopping: finishing requests in progress, then handing running jobs back")
	case err = <-serveErr:
		s.log.Error("foresight stopping: the listener failed", "error", err)
	}
	return s.shutdown(ctx, srv, loops, workers, err)
}

// startWorkers starts this process's queue workers and keeps them for
// the handlers that report on them. Unless the configuration names the
// node, it is named after this host and l's address. The error is the
// database's failure to start them.
func (s *Server) startWorkers(ctx context.Context, l net.Listener) (jobqueue.Running, error) {
	queue := s.cfg.Queue
	if queue.NodeName == "" {
		// No other live process can listen where this one does: a process
		// with this name before it has stopped, and its jobs come back at
		// once (see jobqueue.Config.NodeName).
		host, _ := os.Hostname()
		queue.NodeName = host + "@" + l.Addr().String()
	}
	workers, err := s.db.StartWorkers(ctx, jobqueue.NewWorkers(s.tickets, s.placement, queue), queue)
	if err != nil {
		return nil, err
	}
	s.tickets.SetCallbackWaker(workers)
	s.workersMu.Lock()
	s.workers = workers
	s.workersMu.Unlock()
	return workers, nil
}

// backgroundLoops are the loops Run starts beside the HTTP server, all
// ended by one cancel.
type backgroundLoops struct {
	stop func()
	done []chan struct{}
}

// start runs loop in a goroutine of its own until it returns.
func (b *backgroundLoops) start(loop func()) {
	done := make(chan struct{})
	b.done = append(b.done, done)
	go func() {
		defer close(done)
		loop()
	}()
}

// stopAndWait ends every loop and returns once all have returned.
func (b *backgroundLoops) stopAndWait() {
	b.stop()
	for _, done := range b.done {
		<-done
	}
}

// startBackground starts the periodic sweeps, the bet dispatcher and the
// feed (when this process has them) and the relay of other nodes'
// catalog changes, until ctx ends or stopAndWait. It returns once the
// relay listens, so that other nodes' changes reach this node's streams,
// or after 5 s with a warning.
func (s *Server) startBackground(ctx context.Context) *backgroundLoops {
	loopCtx, stop := context.WithCancel(ctx)
	loops := &backgroundLoops{stop: stop}
	loops.start(func() { s.maintain(loopCtx) })
	loops.start(func() {
		if s.dispatcher != nil {
			s.dispatcher.Run(loopCtx)
		}
	})
	loops.start(func() {
		if s.feed != nil {
			feed.NewRunner(s.feed, s.betting, s.cfg.FeedInterval, s.log).Run(loopCtx)
		}
	})
	listening := make(chan struct{})
	loops.start(func() { s.relayCatalogChanges(loopCtx, listening) })
	select {
	case <-listening:
	case <-time.After(5 * time.Second):
		s.log.Warn("catalog notifications are not set up yet; serving anyway")
	}
	return loops
}

// newHTTPServer returns the HTTP server of s.handler and l wrapped in the
// cap on open connections that it is to serve.
func (s *Server) newHTTPServer(l net.Listener) (*http.Server, *connLimiter) {
	// HTTP/1.1 and, without TLS, HTTP/2 with prior knowledge on the same
	// listener: a proxy in front carries many bettors' streams on a few
	// HTTP/2 connections (docs/decisions.md).
	protocols := new(http.Protocols)
	protocols.SetHTTP1(true)
	protocols.SetUnencryptedHTTP2(true)
	srv := &http.Server{Handler: s.handler, ReadHeaderTimeout: 10 * time.Second, ReadTimeout: time.Minute,
		WriteTimeout: s.cfg.HTTPWriteTimeout, IdleTimeout: 2 * time.Minute, MaxHeaderBytes: MaxHeaderBytes,
		Protocols: protocols, HTTP2: &http.HTTP2Config{MaxConcurrentStreams: s.cfg.HTTP2MaxStreams}}
	maxConns := s.cfg.MaxConnections
	if maxConns == 0 {
		maxConns = DefaultMaxConnections()
	}
	// Connections past the cap wait for a free one in the listen backlog,
	// so that a client opening thousands cannot take the descriptors the
	// database, the journal and the wallet calls need; at the cap, the
	// connection idle the longest is closed to make room.
	limiter := newConnLimiter(l, maxConns)
	srv.ConnState = limiter.track
	// Odds streams never end by themselves: at shutdown they end first,
	// so that their connections close and requests in flight get the
	// grace period (their clients reconnect to another node).
	srv.RegisterOnShutdown(s.betting.Hub().Close)
	return srv, limiter
}

// shutdown stops what Run started, in order: srv, whose requests in
// flight get 15 s; the background loops; then the workers, which get 30 s
// to cancel their running jobs and hand them back. It returns err, why
// serving ended (nil for a server closed by Shutdown), or else the
// workers' failure to stop.
func (s *Server) shutdown(ctx context.Context, srv *http.Server, loops *backgroundLoops, workers jobqueue.Running, err error) error {
	stopping := time.Now()
	defer func() { s.log.Info("foresight stopped", "took", time.Since(stopping).Round(time.Millisecond).String()) }()
	httpCtx, cancelHTTP := context.WithTimeout(context.WithoutCancel(ctx), 15*time.Second)
	defer cancelHTTP()
	srv.Shutdown(httpCtx)
	loops.stopAndWait()
	// Workers get their own time: running jobs are cancelled and handed
	// back, which takes as long as an engine needs to notice.
	workersCtx, cancelWorkers := context.WithTimeout(context.WithoutCancel(ctx), 30*time.Second)
	defer cancelWorkers()
	s.workersMu.Lock()
	s.workers = nil
	s.workersMu.Unlock()
	if stopErr := workers.Stop(workersCtx); stopErr != nil && err == nil {
		err = fmt.Errorf("stop workers: %w", stopErr)
	}
	if errors.Is(err, http.ErrServerClosed) {
		err = nil
	}
	return err
}

// relayCatalogChanges brings the operators and events other nodes changed
// into this node's cache and odds streams, until ctx ends; ready is closed once it listens
// (at once when the database has one node).
func (s *Server) relayCatalogChanges(ctx context.Context, ready chan<- struct{}) {
	var once sync.Once
	signal := func() { once.Do(func() { close(ready) }) }
	defer signal()
	s.db.ListenCatalog(ctx, func(c betting.CatalogChange) {
		if err := s.betting.Refresh(ctx, c); err != nil {
			s.log.Warn("reading a changed "+c.Kind, "id", c.ID, "err", err)
		}
	}, signal)
}

// maintain runs the periodic sweeps until ctx ends: expiry every
// ExpiryInterval, and the cancellation of jobs whose cancel no worker
// settled every few seconds.
func (s *Server) maintain(ctx context.Context) {
	expiry := time.NewTicker(s.cfg.ExpiryInterval)
	defer expiry.Stop()
	stale := time.NewTicker(max(s.cfg.Tickets.StaleCancelAfter/4, 100*time.Millisecond))
	defer stale.Stop()
	sweep := func(name string, f func(context.Context) (int, error)) {
		if n, err := f(ctx); err != nil && ctx.Err() == nil {
			s.log.Error(name, "err", err)
		} else if n > 0 {
			s.log.Info(name, "count", n)
		}
	}
	sweep("expired jobs", s.tickets.ExpireJobs)
	for {
		select {
		case <-ctx.Done():
			return
		case <-expiry.C:
			sweep("expired jobs", s.tickets.ExpireJobs)
			sweep("expired launches", s.agg.DeleteExpiredLaunches)
		case <-stale.C:
			sweep("cancelled stale jobs", s.tickets.CancelStaleJobs)
		}
	}
}
