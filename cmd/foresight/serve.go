package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"strings"
	"time"

	"github.com/foresight-dev/foresight/internal/betting"
	"github.com/foresight-dev/foresight/internal/feed"
	"github.com/foresight-dev/foresight/internal/feed/polymarket"
	"github.com/foresight-dev/foresight/internal/feed/simulator"
	"github.com/foresight-dev/foresight/internal/server"
)

// envFlags defines flags that also read FORESIGHT_* variables. The
// variables are applied after parsing to the flags the command line did not
// set, so that the usage text shows built-in defaults, never a secret from
// the environment.
type envFlags struct {
	fs     *flag.FlagSet
	getenv func(string) string
	envs   map[string]string // flag name → variable
}

// bind records that the flag name reads the variable envName and returns
// the flag's usage text, which names the variable.
func (e *envFlags) bind(name, envName, usage string) string {
	if e.envs == nil {
		e.envs = map[string]string{}
	}
	e.envs[name] = envName
	return usage + " ($" + envName + ")"
}

func (e *envFlags) String(p *string, name, envName, def, usage string) {
	e.fs.StringVar(p, name, def, e.bind(name, envName, usage))
}

func (e *envFlags) Bool(p *bool, name, envName string, def bool, usage string) {
	e.fs.BoolVar(p, name, def, e.bind(name, envName, usage))
}

func (e *envFlags) Int(p *int, name, envName string, def int, usage string) {
	e.fs.IntVar(p, name, def, e.bind(name, envName, usage))
}

func (e *envFlags) Int64(p *int64, name, envName string, def int64, usage string) {
	e.fs.Int64Var(p, name, def, e.bind(name, envName, usage))
}

func (e *envFlags) Float(p *float64, name, envName string, def float64, usage string) {
	e.fs.Float64Var(p, name, def, e.bind(name, envName, usage))
}

func (e *envFlags) Duration(p *time.Duration, name, envName string, def time.Duration, usage string) {
	e.fs.DurationVar(p, name, def, e.bind(name, envName, usage))
}

// Durations is a comma-separated list of durations.
func (e *envFlags) Durations(p *[]time.Duration, name, envName string, def []time.Duration, usage string) {
	*p = def
	e.fs.Func(name, e.bind(name, envName, usage), func(s string) error {
		var ds []time.Duration
		for f := range strings.SplitSeq(s, ",") {
			d, err := time.ParseDuration(strings.TrimSpace(f))
			if err != nil || d <= 0 {
				return fmt.Errorf("%q is not a positive duration", f)
			}
			ds = append(ds, d)
		}
		*p = ds
		return nil
	})
}

// parse parses args, which must be flags only (anything after them is a
// usageError), then applies the variables of the flags args did not set.
func (e *envFlags) parse(args []string) error {
	if err := parseFlags(e.fs, args); err != nil {
		return err
	}
	if e.fs.NArg() > 0 {
		return usageError{fmt.Errorf("unexpected arguments: %v", e.fs.Args())}
	}
	return e.applyEnv()
}

// applyEnv applies the variables of the flags the parsed command line did
// not set. A bad variable is reported by name, without its value.
func (e *envFlags) applyEnv() error {
	set := map[string]bool{}
	e.fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
	var errs []error
	e.fs.VisitAll(func(f *flag.Flag) {
		envName, bound := e.envs[f.Name]
		if !bound || set[f.Name] {
			return
		}
		if v := e.getenv(envName); v != "" {
			if err := e.fs.Set(f.Name, v); err != nil {
				errs = append(errs, fmt.Errorf("$%s is not a valid value for --%s", envName, f.Name))
			}
		}
	})
	return errors.Join(errs...)
}

// serverFlags defines every server setting on fs.
func serverFlags(fs *flag.FlagSet, getenv func(string) string) (*server.Config, *string, *envFlags) {
	cfg := server.DefaultConfig()
	var logFormat string
	e := &envFlags{fs: fs, getenv: getenv}
	e.String(&cfg.Addr, "addr", "FORESIGHT_ADDR", cfg.Addr, "listen address")
	e.String(&cfg.DatabaseURL, "database-url", "FORESIGHT_DATABASE_URL", cfg.DatabaseURL, "sqlite:PATH or postgres://…")
	e.String(&cfg.PublicURL, "public-url", "FORESIGHT_PUBLIC_URL", "", "base URL clients see (default http:// + listen address)")
	e.String(&cfg.AdminToken, "admin-token", "FORESIGHT_ADMIN_TOKEN", "", "bearer token of /admin/v1 and /metrics (required, at least 32 characters)")
	e.String(&cfg.MetricsToken, "metrics-token", "FORESIGHT_METRICS_TOKEN", "", "bearer token that may read /metrics only (at least 32 characters; the admin token reads it too)")
	e.Float(&cfg.AuthFailuresPerMinute, "auth-failures-per-minute", "FORESIGHT_AUTH_FAILURES_PER_MINUTE", cfg.AuthFailuresPerMinute, "wrong admin, operator and metrics tokens per client address a minute, after the burst (0: unlimited)")
	e.Int(&cfg.AuthFailureBurst, "auth-failure-burst", "FORESIGHT_AUTH_FAILURE_BURST", cfg.AuthFailureBurst, "wrong tokens per client address in a row before 429")
	e.String(&cfg.TrustedProxies, "trusted-proxies", "FORESIGHT_TRUSTED_PROXIES", "", "IP addresses and CIDR prefixes of the reverse proxies whose X-Forwarded-For names the client address, comma-separated (default: none)")
	engineFlags(e, &cfg)
	e.Bool(&cfg.DevAllowInsecure, "dev-allow-insecure", "FORESIGHT_DEV_ALLOW_INSECURE", false, "development only: allow http:// and private addresses for partners' wallet, session and JWKS URLs, event images and ticket callback delivery")
	e.Duration(&cfg.Tickets.JobLifetime, "tickets-job-lifetime", "FORESIGHT_TICKETS_JOB_LIFETIME", cfg.Tickets.JobLifetime, "time from job creation to expiry")
	e.Duration(&cfg.Tickets.JobRetention, "tickets-job-retention", "FORESIGHT_TICKETS_JOB_RETENTION", cfg.Tickets.JobRetention, "time an expired job's record is kept before it is deleted")
	e.Int(&cfg.Tickets.MaxActiveJobs, "tickets-max-active-jobs", "FORESIGHT_TICKETS_MAX_ACTIVE_JOBS", cfg.Tickets.MaxActiveJobs, "unfinished jobs per client before queue_full")
	e.Int(&cfg.Tickets.MaxPendingCallbacks, "tickets-max-pending-callbacks", "FORESIGHT_TICKETS_MAX_PENDING_CALLBACKS", cfg.Tickets.MaxPendingCallbacks, "jobs per client whose callback is not delivered yet before a job with a callback_url gets queue_full")
	e.Float(&cfg.RateLimit, "tickets-rate-limit", "FORESIGHT_TICKETS_RATE_LIMIT", cfg.RateLimit, "requests per second per API key (0: unlimited)")
	e.Float(&cfg.LauncherRateLimit, "launcher-rate-limit", "FORESIGHT_LAUNCHER_RATE_LIMIT", cfg.LauncherRateLimit, "aggregator launcher requests per second per client IP (0: unlimited)")
	e.Float(&cfg.RoundDetailsRateLimit, "round-details-rate-limit", "FORESIGHT_ROUND_DETAILS_RATE_LIMIT", cfg.RoundDetailsRateLimit, "aggregator Round/Details requests per second per client IP, in bursts of as many (0: unlimited)")
	e.Float(&cfg.BetRateLimit, "bet-rate-limit", "FORESIGHT_BET_RATE_LIMIT", cfg.BetRateLimit, "new bets per second per bettor, after the burst (0: unlimited)")
	e.Int(&cfg.BetRateBurst, "bet-rate-burst", "FORESIGHT_BET_RATE_BURST", cfg.BetRateBurst, "new bets per bettor in a row before 429")
	e.Float(&cfg.OddsStreamRateLimit, "odds-stream-rate-limit", "FORESIGHT_ODDS_STREAM_RATE_LIMIT", cfg.OddsStreamRateLimit, "odds streams opened per second per bettor, after the burst (0: unlimited)")
	e.Int(&cfg.OddsStreamRateBurst, "odds-stream-rate-burst", "FORESIGHT_ODDS_STREAM_RATE_BURST", cfg.OddsStreamRateBurst, "odds streams a bettor may open in a row before 429")
	e.Int(&cfg.HTTP2MaxStreams, "http2-max-streams", "FORESIGHT_HTTP2_MAX_STREAMS", cfg.HTTP2MaxStreams, "requests (odds streams among them) one HTTP/2 connection carries at once")
	e.Duration(&cfg.HTTPWriteTimeout, "http-write-timeout", "FORESIGHT_HTTP_WRITE_TIMEOUT", cfg.HTTPWriteTimeout, "time to write one response to a client that stops reading (odds streams excepted)")
	e.Int(&cfg.MaxConnections, "max-connections", "FORESIGHT_MAX_CONNECTIONS", cfg.MaxConnections, "connections served at once; more wait (0: the open-file limit minus 1,000)")
	e.String(&cfg.MarketFeed, "market-feed", "FORESIGHT_MARKET_FEED", cfg.MarketFeed, "market feed: manual (admin API only), simulator or polymarket")
	e.Duration(&cfg.FeedInterval, "feed-interval", "FORESIGHT_FEED_INTERVAL", feed.DefaultInterval, "time between two polls of the market feed")
	e.String(&cfg.Polymarket.BaseURL, "polymarket-url", "FORESIGHT_POLYMARKET_URL", polymarket.DefaultBaseURL, "Polymarket Gamma API base URL (polymarket feed)")
	e.Int(&cfg.Polymarket.MaxEvents, "polymarket-max-events", "FORESIGHT_POLYMARKET_MAX_EVENTS", polymarket.DefaultMaxEvents, "open Polymarket events offered at most (polymarket feed)")
	e.String(&cfg.Polymarket.TagID, "polymarket-tag-id", "FORESIGHT_POLYMARKET_TAG_ID", "", "only events of this Gamma tag id (polymarket feed)")
	e.String(&cfg.Polymarket.DefaultCategory, "polymarket-default-category", "FORESIGHT_POLYMARKET_DEFAULT_CATEGORY", "", "category of events no tag rule matches; empty skips them (polymarket feed)")
	e.Int64(&cfg.Simulator.Seed, "simulator-seed", "FORESIGHT_SIMULATOR_SEED", 1, "seed of the simulated catalog (simulator feed)")
	e.Duration(&cfg.Simulator.Period, "simulator-period", "FORESIGHT_SIMULATOR_PERIOD", simulator.DefaultPeriod, "time between two waves of simulated events; lifetimes scale with it (simulator feed)")
	e.Duration(&cfg.CatalogCacheTTL, "catalog-cache-ttl", "FORESIGHT_CATALOG_CACHE_TTL", betting.DefaultCacheTTL, "how long a node trusts a cached operator or event without a change notification")
	e.Int(&cfg.RateBurst, "tickets-rate-burst", "FORESIGHT_TICKETS_RATE_BURST", cfg.RateBurst, "burst of requests per API key")
	e.Int(&cfg.Queue.Workers, "tickets-workers", "FORESIGHT_TICKETS_WORKERS", cfg.Queue.Workers, "generations run at once per process")
	e.Duration(&cfg.Queue.JobTimeout, "tickets-job-timeout", "FORESIGHT_TICKETS_JOB_TIMEOUT", cfg.Queue.JobTimeout, "time limit of one generation attempt")
	e.Durations(&cfg.Queue.CallbackRetries, "callback-retries", "FORESIGHT_CALLBACK_RETRIES", cfg.Queue.CallbackRetries, "delays between callback attempts, comma-separated")
	e.Duration(&cfg.Queue.PollInterval, "queue-poll-interval", "FORESIGHT_QUEUE_POLL_INTERVAL", cfg.Queue.PollInterval, "how often idle workers poll for jobs")
	e.Duration(&cfg.ExpiryInterval, "expiry-interval", "FORESIGHT_EXPIRY_INTERVAL", cfg.ExpiryInterval, "how often expired jobs are swept")
	e.Int64(&cfg.MaxBodyBytes, "max-body-bytes", "FORESIGHT_MAX_BODY_BYTES", cfg.MaxBodyBytes, "largest request body accepted")
	e.String(&logFormat, "log-format", "FORESIGHT_LOG_FORMAT", "text", "log format: text or json")
	return &cfg, &logFormat, e
}

// engineFlags defines the ticket engine's settings on e, into cfg: the
// engine and its model servers, for serve and demo and for the tickets
// commands that run an engine without a server.
func engineFlags(e *envFlags, cfg *server.Config) {
	e.String(&cfg.TicketsEngine, "tickets-engine", "FORESIGHT_TICKETS_ENGINE", cfg.TicketsEngine, "ticket engine: heuristic, openai or anthropic")
	e.String(&cfg.OpenAI.BaseURL, "openai-base-url", "FORESIGHT_OPENAI_BASE_URL", "", "OpenAI-compatible API base URL (default OpenAI's; Ollama: http://127.0.0.1:11434/v1)")
	e.String(&cfg.OpenAI.APIKey, "openai-api-key", "FORESIGHT_OPENAI_API_KEY", "", "API key of the OpenAI-compatible server")
	e.String(&cfg.OpenAI.Model, "openai-model", "FORESIGHT_OPENAI_MODEL", "", "model name, e.g. gpt-4.1 or llama3.1:8b")
	e.Float(&cfg.OpenAI.Temperature, "openai-temperature", "FORESIGHT_OPENAI_TEMPERATURE", 0, "sampling temperature")
	e.Int64(&cfg.OpenAI.MaxTokens, "openai-max-tokens", "FORESIGHT_OPENAI_MAX_TOKENS", cfg.OpenAI.MaxTokens, "largest answer, in tokens")
	e.String(&cfg.Anthropic.BaseURL, "anthropic-base-url", "FORESIGHT_ANTHROPIC_BASE_URL", "", "Anthropic API base URL (default Anthropic's)")
	e.String(&cfg.Anthropic.APIKey, "anthropic-api-key", "FORESIGHT_ANTHROPIC_API_KEY", "", "Anthropic API key")
	e.String(&cfg.Anthropic.Model, "anthropic-model", "FORESIGHT_ANTHROPIC_MODEL", "", "model name, e.g. claude-sonnet-4-5")
	e.Float(&cfg.Anthropic.Temperature, "anthropic-temperature", "FORESIGHT_ANTHROPIC_TEMPERATURE", 0, "sampling temperature")
	e.Int64(&cfg.Anthropic.MaxTokens, "anthropic-max-tokens", "FORESIGHT_ANTHROPIC_MAX_TOKENS", cfg.Anthropic.MaxTokens, "largest answer, in tokens")
	e.Duration(&cfg.ModelTimeout, "tickets-model-timeout", "FORESIGHT_TICKETS_MODEL_TIMEOUT", cfg.ModelTimeout, "time limit of one engine call (model_timeout beyond)")
	e.Int(&cfg.ModelContextTokens, "tickets-model-context-tokens", "FORESIGHT_TICKETS_MODEL_CONTEXT_TOKENS", cfg.ModelContextTokens, "context window of the LLM; longer specs are split at their headings")
}

func newLogger(format string, w io.Writer) *slog.Logger {
	if format == "json" {
		return slog.New(slog.NewJSONHandler(w, nil))
	}
	return slog.New(slog.NewTextHandler(w, nil))
}

func runServe(ctx context.Context, args []string, getenv func(string) string, stderr io.Writer) error {
	fs := newFlagSet("serve", stderr)
	cfg, logFormat, e := serverFlags(fs, getenv)
	if err := e.parse(args); err != nil {
		return err
	}
	if err := cfg.Check(); err != nil {
		return err
	}
	log := newLogger(*logFormat, stderr)
	srv, err := server.New(ctx, *cfg, log)
	if err != nil {
		return err
	}
	defer srv.Close()
	l, err := e.listen("addr")
	if err != nil {
		return err
	}
	return srv.Run(ctx, l)
}

func runMigrate(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	fs := newFlagSet("migrate", stderr)
	var url string
	e := &envFlags{fs: fs, getenv: getenv}
	e.String(&url, "database-url", "FORESIGHT_DATABASE_URL", server.DefaultConfig().DatabaseURL, "sqlite:PATH or postgres://…")
	if err := e.parse(args); err != nil {
		return err
	}
	db, err := server.OpenDatabase(ctx, url, nil)
	if err != nil {
		return err
	}
	fmt.Fprintln(stdout, "migrations applied to", redactURL(url))
	return db.Close()
}

// redactURL hides a password in a database URL.
func redactURL(u string) string {
	at := strings.LastIndex(u, "@")
	scheme := strings.Index(u, "://")
	if at < 0 || scheme < 0 {
		return u
	}
	creds := u[scheme+3 : at]
	if user, _, ok := strings.Cut(creds, ":"); ok {
		return u[:scheme+3] + user + ":***" + u[at:]
	}
	return u
}
