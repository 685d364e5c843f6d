package server_test

import (
	"strings"
	"testing"
	"time"

	"github.com/foresight-dev/foresight/internal/server"
)

func TestCheckRefusesSettingsOutOfRange(t *testing.T) {
	t.Parallel()
	valid := server.DefaultConfig()
	valid.AdminToken = strings.Repeat("a", server.MinTokenLength)
	if err := valid.Check(); err != nil {
		t.Fatalf("the defaults with a long admin token: %v", err)
	}
	tests := []struct {
		name   string
		change func(*server.Config)
		want   string // "" when the setting is in range
	}{
		{"no unfinished job allowed", func(c *server.Config) { c.Tickets.MaxActiveJobs = 0 }, "FORESIGHT_TICKETS_MAX_ACTIVE_JOBS is 0; it must be at least 1"},
		{"negative bound of jobs", func(c *server.Config) { c.Tickets.MaxActiveJobs = -3 }, "FORESIGHT_TICKETS_MAX_ACTIVE_JOBS is -3"},
		{"no callback owed allowed", func(c *server.Config) { c.Tickets.MaxPendingCallbacks = 0 }, "FORESIGHT_TICKETS_MAX_PENDING_CALLBACKS is 0; it must be at least 1"},
		{"no worker", func(c *server.Config) { c.Queue.Workers = 0 }, "FORESIGHT_TICKETS_WORKERS is 0"},
		{"no burst", func(c *server.Config) { c.RateBurst = 0 }, "FORESIGHT_TICKETS_RATE_BURST is 0"},
		{"no failure burst", func(c *server.Config) { c.AuthFailureBurst = 0 }, "FORESIGHT_AUTH_FAILURE_BURST is 0"},
		{"no stream per connection", func(c *server.Config) { c.HTTP2MaxStreams = -1 }, "FORESIGHT_HTTP2_MAX_STREAMS is -1"},
		{"no context", func(c *server.Config) { c.ModelContextTokens = 0 }, "FORESIGHT_TICKETS_MODEL_CONTEXT_TOKENS is 0"},
		{"negative rate", func(c *server.Config) { c.RateLimit = -1 }, "FORESIGHT_TICKETS_RATE_LIMIT is -1; it must not be negative"},
		{"rate limit off", func(c *server.Config) { c.RateLimit = 0 }, ""},
		{"negative launcher rate", func(c *server.Config) { c.LauncherRateLimit = -0.5 }, "FORESIGHT_LAUNCHER_RATE_LIMIT is -0.5"},
		{"negative bet rate", func(c *server.Config) { c.BetRateLimit = -1 }, "FORESIGHT_BET_RATE_LIMIT is -1"},
		{"bet rate limit off", func(c *server.Config) { c.BetRateLimit = 0 }, ""},
		{"no bet burst", func(c *server.Config) { c.BetRateBurst = 0 }, "FORESIGHT_BET_RATE_BURST is 0"},
		{"negative failure rate", func(c *server.Config) { c.AuthFailuresPerMinute = -1 }, "FORESIGHT_AUTH_FAILURES_PER_MINUTE"},
		{"negative answer size", func(c *server.Config) { c.OpenAI.MaxTokens = -1 }, "FORESIGHT_OPENAI_MAX_TOKENS"},
		{"negative Claude answer size", func(c *server.Config) { c.Anthropic.MaxTokens = -1 }, "FORESIGHT_ANTHROPIC_MAX_TOKENS"},
		{"default answer size", func(c *server.Config) { c.OpenAI.MaxTokens = 0 }, ""},
		{"jobs expire at once", func(c *server.Config) { c.Tickets.JobLifetime = 0 }, "FORESIGHT_TICKETS_JOB_LIFETIME is 0s; it must be longer than 0"},
		{"no time to generate", func(c *server.Config) { c.Queue.JobTimeout = -time.Second }, "FORESIGHT_TICKETS_JOB_TIMEOUT is -1s"},
		{"no time for the model", func(c *server.Config) { c.ModelTimeout = 0 }, "FORESIGHT_TICKETS_MODEL_TIMEOUT"},
		{"no time to write a response", func(c *server.Config) { c.HTTPWriteTimeout = 0 }, "FORESIGHT_HTTP_WRITE_TIMEOUT is 0s"},
		{"negative connection cap", func(c *server.Config) { c.MaxConnections = -1 }, "FORESIGHT_MAX_CONNECTIONS is -1"},
		{"connection cap from the open-file limit", func(c *server.Config) { c.MaxConnections = 0 }, ""},
		{"a callback retry at once", func(c *server.Config) { c.Queue.CallbackRetries = []time.Duration{time.Second, 0} }, "a delay of FORESIGHT_CALLBACK_RETRIES is 0s"},
		{"no callback retry", func(c *server.Config) { c.Queue.CallbackRetries = nil }, ""},
		{"negative retention", func(c *server.Config) { c.Tickets.JobRetention = -time.Hour }, "FORESIGHT_TICKETS_JOB_RETENTION is -1h0m0s"},
		{"no retention", func(c *server.Config) { c.Tickets.JobRetention = 0 }, ""},
		{"negative feed interval", func(c *server.Config) { c.FeedInterval = -time.Second }, "FORESIGHT_FEED_INTERVAL"},
		{"negative cache time", func(c *server.Config) { c.CatalogCacheTTL = -time.Second }, "FORESIGHT_CATALOG_CACHE_TTL"},
		{"trusted proxy that is not an address", func(c *server.Config) { c.TrustedProxies = "10.0.0.0/8, proxy.example" }, `FORESIGHT_TRUSTED_PROXIES: "proxy.example" is not an IP address or CIDR prefix`},
		{"trusted proxies", func(c *server.Config) { c.TrustedProxies = "10.0.0.0/8, 192.0.2.7, fd00::/8" }, ""},
		{"short admin token", func(c *server.Config) { c.AdminToken = "short" }, "FORESIGHT_ADMIN_TOKEN) has 5 characters"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := valid
			c.Queue.CallbackRetries = append([]time.Duration(nil), valid.Queue.CallbackRetries...)
			tt.change(&c)
			err := c.Check()
			switch {
			case tt.want == "" && err != nil:
				t.Errorf("refused: %v", err)
			case tt.want != "" && (err == nil || !strings.Contains(err.Error(), tt.want)):
				t.Errorf("got %v; want an error with %q", err, tt.want)
			}
		})
	}

	c := valid
	c.Tickets.MaxActiveJobs, c.Queue.Workers = 0, 0
	err := c.Check()
	if err == nil || !strings.Contains(err.Error(), "FORESIGHT_TICKETS_MAX_ACTIVE_JOBS") || !strings.Contains(err.Error(), "FORESIGHT_TICKETS_WORKERS") {
		t.Errorf("two settings out of range: %v; want both named", err)
	}
}
