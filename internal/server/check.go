package server

import (
	"errors"
	"fmt"
	"time"

	"github.com/foresight-dev/foresight/internal/clientaddr"
)

// MinTokenLength is the fewest characters CheckTokens accepts in the admin
// token and the metrics token: 32 random letters or hex digits are beyond
// guessing. `openssl rand -hex 24` gives 48, and `foresight demo`
// generates 52.
const MinTokenLength = 32

// Check refuses a configuration that `foresight serve` must not start
// with: the tokens CheckTokens refuses, every count, rate and duration
// outside its range (CheckLimits), and a trusted proxy that is not an IP
// address or CIDR prefix. The error names each setting by its environment
// variable, never a token's value.
func (c Config) Check() error {
	_, proxiesErr := parseTrustedProxies(c.TrustedProxies)
	return errors.Join(c.CheckTokens(), c.CheckLimits(), proxiesErr)
}

// parseTrustedProxies parses FORESIGHT_TRUSTED_PROXIES; the error names
// the setting and the entry that does not parse.
func parseTrustedProxies(list string) (clientaddr.Proxies, error) {
	proxies, err := clientaddr.ParseProxies(list)
	if err != nil {
		return clientaddr.Proxies{}, fmt.Errorf("FORESIGHT_TRUSTED_PROXIES: %w", err)
	}
	return proxies, nil
}

// CheckTokens refuses an admin token, or a metrics token when one is set,
// shorter than MinTokenLength. The error names the setting, never the
// value.
func (c Config) CheckTokens() error {
	if n := len([]rune(c.AdminToken)); n < MinTokenLength {
		return fmt.Errorf("the admin token (FORESIGHT_ADMIN_TOKEN) has %d characters; it needs at least %d, e.g. from `openssl rand -hex 24`", n, MinTokenLength)
	}
	if n := len([]rune(c.MetricsToken)); n > 0 && n < MinTokenLength {
		return fmt.Errorf("the metrics token (FORESIGHT_METRICS_TOKEN) has %d characters; it needs at least %d, e.g. from `openssl rand -hex 24`", n, MinTokenLength)
	}
	return nil
}

// CheckLimits refuses counts, rates and durations that would make the
// server refuse everything, never run a job or misread a setting: a bound
// of unfinished jobs, a worker count, a burst or a streams-per-connection
// limit below 1; a negative rate (0 turns a rate limit off), answer size
// (0 is the engine's default) or connection cap (0 is
// DefaultMaxConnections); a job lifetime, a generation, model or response
// write time limit or a callback delay that is not positive; a negative retention,
// feed interval or catalog cache time (0 is the default). Every setting
// out of range is named, by its environment variable, in one error.
func (c Config) CheckLimits() error {
	var errs []error
	atLeastOne := func(name string, v int) {
		if v < 1 {
			errs = append(errs, fmt.Errorf("%s is %d; it must be at least 1", name, v))
		}
	}
	notNegative := func(name string, v float64) {
		if v < 0 {
			errs = append(errs, fmt.Errorf("%s is %v; it must not be negative", name, v))
		}
	}
	positive := func(name string, d time.Duration) {
		if d <= 0 {
			errs = append(errs, fmt.Errorf("%s is %v; it must be longer than 0", name, d))
		}
	}
	notNegativeDuration := func(name string, d time.Duration) {
		if d < 0 {
			errs = append(errs, fmt.Errorf("%s is %v; it must not be negative", name, d))
		}
	}
	atLeastOne("FORESIGHT_TICKETS_MAX_ACTIVE_JOBS", c.Tickets.MaxActiveJobs)
	atLeastOne("FORESIGHT_TICKETS_MAX_PENDING_CALLBACKS", c.Tickets.MaxPendingCallbacks)
	atLeastOne("FORESIGHT_TICKETS_WORKERS", c.Queue.Workers)
	atLeastOne("FORESIGHT_TICKETS_RATE_BURST", c.RateBurst)
	atLeastOne("FORESIGHT_AUTH_FAILURE_BURST", c.AuthFailureBurst)
	atLeastOne("FORESIGHT_BET_RATE_BURST", c.BetRateBurst)
	atLeastOne("FORESIGHT_ODDS_STREAM_RATE_BURST", c.OddsStreamRateBurst)
	atLeastOne("FORESIGHT_HTTP2_MAX_STREAMS", c.HTTP2MaxStreams)
	atLeastOne("FORESIGHT_TICKETS_MODEL_CONTEXT_TOKENS", c.ModelContextTokens)
	notNegative("FORESIGHT_TICKETS_RATE_LIMIT", c.RateLimit)
	notNegative("FORESIGHT_LAUNCHER_RATE_LIMIT", c.LauncherRateLimit)
	notNegative("FORESIGHT_ROUND_DETAILS_RATE_LIMIT", c.RoundDetailsRateLimit)
	notNegative("FORESIGHT_BET_RATE_LIMIT", c.BetRateLimit)
	notNegative("FORESIGHT_ODDS_STREAM_RATE_LIMIT", c.OddsStreamRateLimit)
	notNegative("FORESIGHT_AUTH_FAILURES_PER_MINUTE", c.AuthFailuresPerMinute)
	notNegative("FORESIGHT_MAX_CONNECTIONS", float64(c.MaxConnections))
	notNegative("FORESIGHT_OPENAI_MAX_TOKENS", float64(c.OpenAI.MaxTokens))
	notNegative("FORESIGHT_ANTHROPIC_MAX_TOKENS", float64(c.Anthropic.MaxTokens))
	positive("FORESIGHT_TICKETS_JOB_LIFETIME", c.Tickets.JobLifetime)
	positive("FORESIGHT_TICKETS_JOB_TIMEOUT", c.Queue.JobTimeout)
	positive("FORESIGHT_TICKETS_MODEL_TIMEOUT", c.ModelTimeout)
	positive("FORESIGHT_HTTP_WRITE_TIMEOUT", c.HTTPWriteTimeout)
	for _, d := range c.Queue.CallbackRetries {
		positive("a delay of FORESIGHT_CALLBACK_RETRIES", d)
	}
	notNegativeDuration("FORESIGHT_TICKETS_JOB_RETENTION", c.Tickets.JobRetention)
	notNegativeDuration("FORESIGHT_FEED_INTERVAL", c.FeedInterval)
	notNegativeDuration("FORESIGHT_CATALOG_CACHE_TTL", c.CatalogCacheTTL)
	return errors.Join(errs...)
}
