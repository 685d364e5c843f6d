package casino

import (
	"context"
	"fmt"
	"net/http"
	"regexp"
	"strings"
	"time"

	"github.com/foresight-dev/foresight/internal/sandbox/sandboxweb"
)

// Defaults of a Site.
const (
	// DefaultSiteStartingBalance is the balance of an account a Site
	// creates on first reference when SiteConfig.StartingBalance is empty.
	DefaultSiteStartingBalance = "1000.00"
	// DefaultSiteCurrency is the lobby's currency when SiteConfig.Currency
	// is empty.
	DefaultSiteCurrency = "USD"
	// DefaultCasinoID is the casino the lobby launches for when
	// SiteConfig.CasinoID is empty.
	DefaultCasinoID = "sandbox-casino-1"
	// DefaultDemoAccount is the player the lobby offers by default.
	DefaultDemoAccount = "demo-player"
)

// Paths of the platform's launcher, below its base URL
// (aggregator-api.md; the platform serves them in aggregatorhttp).
const (
	launcherRealPath = "/v2/agg_provider.Launcher/Real"
	launcherDemoPath = "/v2/agg_provider.Launcher/Demo"
)

// platformOperatorID is the platform's rule for operator ids (the admin
// API refuses others).
var platformOperatorID = regexp.MustCompile(`^[a-z0-9][a-z0-9_-]{0,62}$`)

// SiteConfig configures a Site: a sandbox casino with its lobby, pages and
// control API, ready to serve.
type SiteConfig struct {
	// AggregatorID is the aggregator's id on the platform (an operator of
	// integration aggregator): 1 to 63 lowercase letters, digits, '-' or
	// '_'. Required.
	AggregatorID string
	// CasinoID is the casino_id of the lobby's launches, one of the
	// aggregator's casino_ids on the platform. Default DefaultCasinoID.
	CasinoID string
	// SiteSettings: SigningSecret signs wallet calls and launches, in both
	// directions (X-REQUEST-SIGN); PlatformURL is the launcher's base URL;
	// StartingBalance defaults to DefaultSiteStartingBalance; Currency,
	// the lobby's default and the one the registration offers, defaults
	// to DefaultSiteCurrency.
	sandboxweb.SiteSettings
	// DemoAccount is the player the lobby offers by default. Default
	// DefaultDemoAccount.
	DemoAccount string
	// HTTPClient calls the platform's launcher. Default: a client with a
	// 10-second time-out.
	HTTPClient *http.Client
}

// Site is a sandbox casino served with its lobby, pages and control API.
// Open it with OpenSite; serve Handler (or call Serve); Close it.
type Site struct {
	*shell // Handler, Serve and Close

	c           *Casino
	cfg         SiteConfig
	guard       sandboxweb.Guard
	platformURL string
	client      *http.Client
}

// shell is the Site's web shell: Handler serves the casino's wallet
// (Casino.Handler) at its protocol paths, the lobby, pages and control API
// under /sandbox/, and a redirect from / to the lobby.
type shell = sandboxweb.Shell

// OpenSite checks cfg, opens the database (creating it if needed) and
// replays it, and returns the Site. Errors name the field at fault.
func OpenSite(ctx context.Context, cfg SiteConfig) (*Site, error) {
	if !platformOperatorID.MatchString(cfg.AggregatorID) {
		return nil, fmt.Errorf("casino: the aggregator id %q must be 1 to 63 lowercase letters, digits, '-' or '_', starting with a letter or digit (the platform's rule)", cfg.AggregatorID)
	}
	if _, err := sandboxweb.Origin(cfg.PlatformURL); err != nil {
		return nil, fmt.Errorf("casino: the platform URL: %w", err)
	}
	if cfg.CasinoID == "" {
		cfg.CasinoID = DefaultCasinoID
	}
	if cfg.StartingBalance == "" {
		cfg.StartingBalance = DefaultSiteStartingBalance
	}
	if cfg.Currency == "" {
		cfg.Currency = DefaultSiteCurrency
	}
	if cfg.DemoAccount == "" {
		cfg.DemoAccount = DefaultDemoAccount
	}
	if !currencies.Pattern.MatchString(cfg.Currency) {
		return nil, fmt.Errorf("casino: the currency %q must be 3 to 7 upper-case letters or digits", cfg.Currency)
	}
	for name, v := range map[string]string{"casino id": cfg.CasinoID, "demo account": cfg.DemoAccount} {
		if err := sandboxweb.CheckID(name, v); err != nil {
			return nil, fmt.Errorf("casino: %w", err)
		}
	}
	s := &Site{
		cfg:         cfg,
		guard:       sandboxweb.Guard{Token: cfg.AdminToken},
		platformURL: strings.TrimRight(cfg.PlatformURL, "/"),
		client:      cfg.HTTPClient,
	}
	if s.client == nil {
		s.client = &http.Client{Timeout: 10 * time.Second}
	}
	sh, secret, err := sandboxweb.OpenShell(ctx, "casino", cfg.DatabasePath, cfg.SigningSecret)
	if err != nil {
		return nil, err
	}
	s.shell = sh
	s.c, err = New(Config{SigningSecret: secret, StartingBalance: cfg.StartingBalance, Journal: sh.Journal()})
	if err := sh.Start(err, s.routes, s.c); err != nil {
		return nil, err
	}
	return s, nil
}

// Casino returns the sandbox casino the Site serves.
func (s *Site) Casino() *Casino { return s.c }

// Registration returns the body of the platform's POST /admin/v1/operators
// that registers this casino's aggregator, whose wallet is served at
// baseURL (the wallet_url: the base of /v2/provider_agg.…): integration
// aggregator, the casino id, the signing secret, the currency with its
// decimals and default margin, limits and odds tolerance the admin may
// edit. The body holds the secret.
func (s *Site) Registration(baseURL string) []byte {
	cur := s.cfg.Currency
	s.c.mu.Lock()
	decimals := s.c.currencyDecimals(cur)
	s.c.mu.Unlock()
	return sandboxweb.Registration{
		ID:            s.cfg.AggregatorID,
		Name:          "Sandbox aggregator " + s.cfg.AggregatorID,
		Integration:   "aggregator",
		WalletURL:     strings.TrimRight(baseURL, "/"),
		SigningSecret: s.c.SigningSecret(),
		CasinoIDs:     []string{s.cfg.CasinoID},
		Currency:      cur,
		Decimals:      decimals,
	}.Body()
}
