package operator

import (
	"context"
	"fmt"
	"regexp"
	"strings"

	"github.com/foresight-dev/foresight/internal/sandbox/sandboxweb"
)

// DefaultSiteStartingBalance is the balance of a bettor a Site creates on
// first reference when SiteConfig.StartingBalance is empty.
const DefaultSiteStartingBalance = "1000.00"

// DefaultDemoBettor is the bettor the host page logs in when the page does
// not name one.
const DefaultDemoBettor = "demo-bettor"

// platformOperatorID is the platform's rule for operator ids (the admin
// API refuses others).
var platformOperatorID = regexp.MustCompile(`^[a-z0-9][a-z0-9_-]{0,62}$`)

// SiteConfig configures a Site: a sandbox operator with its pages and
// control API, ready to serve.
type SiteConfig struct {
	// ID is the operator's id (OPERATOR_ID), as the platform's admin API
	// accepts it: 1 to 63 lowercase letters, digits, '-' or '_'. Required.
	ID string
	// SiteSettings: SigningSecret signs the platform's wallet calls;
	// PlatformURL is the platform's FORESIGHT_PUBLIC_URL, where the widget
	// is served at /widget/; StartingBalance, also of a bettor first named
	// by a session request or the host page, defaults to
	// DefaultSiteStartingBalance; Currency defaults to DefaultCurrency.
	sandboxweb.SiteSettings
	// DemoBettor is the bettor the host page logs in by default. Default
	// DefaultDemoBettor.
	DemoBettor string
}

// Site is a sandbox operator served with its pages and control API. Open
// it with OpenSite; serve Handler (or call Serve); Close it.
type Site struct {
	*shell // Handler, Serve and Close

	op             *Operator
	cfg            SiteConfig
	guard          sandboxweb.Guard
	platformURL    string
	platformOrigin string
}

// shell is the Site's web shell: Handler serves the operator's wallet,
// session and JWKS endpoints (Operator.Handler) at their protocol paths,
// the pages and the control API under /sandbox/, and a redirect from / to
// the host page.
type shell = sandboxweb.Shell

// OpenSite checks cfg, opens the database (creating it if needed) and
// replays it, and returns the Site. Errors name the field at fault.
func OpenSite(ctx context.Context, cfg SiteConfig) (*Site, error) {
	if !platformOperatorID.MatchString(cfg.ID) {
		return nil, fmt.Errorf("operator: the operator id %q must be 1 to 63 lowercase letters, digits, '-' or '_', starting with a letter or digit (the platform's rule)", cfg.ID)
	}
	origin, err := sandboxweb.Origin(cfg.PlatformURL)
	if err != nil {
		return nil, fmt.Errorf("operator: the platform URL: %w", err)
	}
	if cfg.StartingBalance == "" {
		cfg.StartingBalance = DefaultSiteStartingBalance
	}
	if cfg.DemoBettor == "" {
		cfg.DemoBettor = DefaultDemoBettor
	}
	if err := sandboxweb.CheckID("the demo bettor", cfg.DemoBettor); err != nil {
		return nil, fmt.Errorf("operator: %w", err)
	}
	s := &Site{
		cfg:            cfg,
		guard:          sandboxweb.Guard{Token: cfg.AdminToken},
		platformURL:    strings.TrimRight(cfg.PlatformURL, "/"),
		platformOrigin: origin,
	}
	sh, secret, err := sandboxweb.OpenShell(ctx, "operator", cfg.DatabasePath, cfg.SigningSecret)
	if err != nil {
		return nil, err
	}
	s.shell = sh
	s.op, err = New(Config{
		ID:              cfg.ID,
		SigningSecret:   secret,
		Currency:        cfg.Currency,
		StartingBalance: cfg.StartingBalance,
		Journal:         sh.Journal(),
	})
	if err := sh.Start(err, s.routes, s.op); err != nil {
		return nil, err
	}
	return s, nil
}

// Operator returns the sandbox operator the Site serves.
func (s *Site) Operator() *Operator { return s.op }

// Registration returns the body of the platform's POST /admin/v1/operators
// that registers this operator, served at baseURL (the wallet_url: the
// base of /v1/… and of /.well-known/jwks.json): integration standalone,
// the signing secret, the currency with its decimals and default margin,
// limits and odds tolerance the admin may edit. The body holds the secret.
func (s *Site) Registration(baseURL string) []byte {
	base := strings.TrimRight(baseURL, "/")
	s.op.mu.Lock()
	currency := s.op.currency
	decimals, _ := s.op.currencyDecimals(currency)
	s.op.mu.Unlock()
	return sandboxweb.Registration{
		ID:            s.op.ID(),
		Name:          "Sandbox operator " + s.op.ID(),
		Integration:   "standalone",
		WalletURL:     base,
		SigningSecret: s.op.SigningSecret(),
		JWKSURL:       base + "/.well-known/jwks.json",
		Currency:      currency,
		Decimals:      decimals,
	}.Body()
}
