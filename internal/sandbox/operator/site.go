package operator

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"regexp"
	"strings"

	"github.com/foresight-dev/foresight/internal/sandbox/journal"
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
	// SigningSecret is the secret the platform signs wallet calls with.
	// Empty: the one recorded in the database, or a new random one
	// recorded there (in memory only without a database).
	SigningSecret string
	// PlatformURL is the base URL of the Foresight platform (its
	// FORESIGHT_PUBLIC_URL), where the widget is served at /widget/.
	// Required.
	PlatformURL string
	// DatabasePath is the SQLite file of the operator's journal; empty
	// keeps everything in memory.
	DatabasePath string
	// StartingBalance is the balance of a bettor first named by a wallet
	// call, a session request or the host page. Default
	// DefaultSiteStartingBalance.
	StartingBalance string
	// Currency is the currency of new bettors. Default DefaultCurrency.
	Currency string
	// AdminToken guards the control API; empty opens it to loopback
	// clients only (sandboxweb.Guard).
	AdminToken string
	// DemoBettor is the bettor the host page logs in by default. Default
	// DefaultDemoBettor.
	DemoBettor string
}

// Site is a sandbox operator served with its pages and control API. Open
// it with OpenSite; serve Handler (or call Serve); Close it.
type Site struct {
	op             *Operator
	journal        *journal.Journal
	cfg            SiteConfig
	guard          sandboxweb.Guard
	platformURL    string
	platformOrigin string
	handler        http.Handler
}

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
	if cfg.DatabasePath != "" {
		if s.journal, err = journal.Open(ctx, cfg.DatabasePath); err != nil {
			return nil, fmt.Errorf("operator: %w", err)
		}
	}
	secret := cfg.SigningSecret
	if secret == "" && s.journal == nil {
		secret = randomSecret()
	}
	s.op, err = New(Config{
		ID:              cfg.ID,
		SigningSecret:   secret,
		Currency:        cfg.Currency,
		StartingBalance: cfg.StartingBalance,
		Journal:         s.journal,
	})
	if err != nil {
		if s.journal != nil {
			s.journal.Close()
		}
		return nil, err
	}
	s.handler = s.routes()
	return s, nil
}

// Operator returns the sandbox operator the Site serves.
func (s *Site) Operator() *Operator { return s.op }

// Handler returns everything the Site serves: the operator's wallet,
// session and JWKS endpoints (Operator.Handler) at their protocol paths,
// the pages and the control API under /sandbox/, and a redirect from / to
// the host page.
func (s *Site) Handler() http.Handler { return s.handler }

// Serve serves Handler on l until ctx is done, then stops cleanly: waiting
// requests (DelayNext, StallNext) are ended, the HTTP server shuts down
// gracefully and the database is closed. It returns nil after a clean stop.
func (s *Site) Serve(ctx context.Context, l net.Listener) error {
	err := sandboxweb.Serve(ctx, l, s.handler, s.op.Close)
	return errors.Join(err, s.Close())
}

// Close ends waiting requests and closes the database; the Site must not
// be used after. It is safe to call more than once.
func (s *Site) Close() error {
	s.op.Close()
	if s.journal == nil {
		return nil
	}
	j := s.journal
	s.journal = nil
	return j.Close()
}

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
	b, err := json.MarshalIndent(registration{
		ID:            s.op.ID(),
		Name:          "Sandbox operator " + s.op.ID(),
		Integration:   "standalone",
		WalletURL:     base,
		SigningSecret: s.op.SigningSecret(),
		JWKSURL:       base + "/.well-known/jwks.json",
		Currencies:    []registrationCurrency{{Code: currency, Decimals: decimals}},
		Margin:        registrationMargin{Method: "odds_ratio", Value: "0.05"},
		Limits:        map[string]registrationLimits{currency: defaultLimits},
		OddsTolerance: "0.05",
	}, "", "  ")
	if err != nil {
		panic(err)
	}
	return b
}

// registration is the body of the platform's POST /admin/v1/operators, in
// the order of the integration guide.
type registration struct {
	ID            string                        `json:"id"`
	Name          string                        `json:"name"`
	Integration   string                        `json:"integration"`
	WalletURL     string                        `json:"wallet_url"`
	SigningSecret string                        `json:"signing_secret"`
	JWKSURL       string                        `json:"jwks_url"`
	Currencies    []registrationCurrency        `json:"currencies"`
	Margin        registrationMargin            `json:"margin"`
	Limits        map[string]registrationLimits `json:"limits"`
	OddsTolerance string                        `json:"odds_tolerance"`
}

type registrationCurrency struct {
	Code     string `json:"code"`
	Decimals int32  `json:"decimals"`
}

type registrationMargin struct {
	Method string `json:"method"`
	Value  string `json:"value"`
}

type registrationLimits struct {
	MinStake        string `json:"min_stake"`
	MaxStake        string `json:"max_stake"`
	MaxPayout       string `json:"max_payout"`
	OutcomeExposure string `json:"outcome_exposure"`
}

// defaultLimits are the limits a registration proposes; the platform's
// admin edits them.
var defaultLimits = registrationLimits{MinStake: "1", MaxStake: "100", MaxPayout: "1000", OutcomeExposure: "50000"}
