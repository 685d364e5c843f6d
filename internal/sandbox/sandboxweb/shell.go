package sandboxweb

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"

	"github.com/foresight-dev/foresight/internal/sandbox/journal"
)

// Shell is the part of a sandbox Site that is not its partner: the journal
// file it owns, the handler it serves and how it stops. A Site embeds it,
// which gives it Handler, Serve and Close.
type Shell struct {
	journal *journal.Journal
	handler http.Handler
	stop    func()
}

// OpenShell opens (creating if needed) the journal file at path, or none
// when path is "", for the sandbox named sandbox ("operator"). It returns
// the signing secret to give the partner: secret, or when secret is empty
// and there is no journal a new random one (with a journal the partner
// reads its secret from it, or generates one into it).
func OpenShell(ctx context.Context, sandbox, path, secret string) (*Shell, string, error) {
	s := &Shell{}
	if path != "" {
		j, err := journal.Open(ctx, path)
		if err != nil {
			return nil, "", fmt.Errorf("%s: %w", sandbox, err)
		}
		s.journal = j
	}
	if secret == "" && s.journal == nil {
		secret = RandomSecret()
	}
	return s, secret, nil
}

// Journal is the journal the shell owns; nil without one.
func (s *Shell) Journal() *journal.Journal { return s.journal }

// Start finishes opening the Site once its partner was created with the
// shell's journal: when that failed (err is not nil) it closes the journal
// and returns err; otherwise the shell serves routes() and stops with
// the partner's Close, which ends the requests it holds waiting.
func (s *Shell) Start(err error, routes func() http.Handler, partner interface{ Close() }) error {
	if err != nil {
		s.Close()
		return err
	}
	s.handler, s.stop = routes(), partner.Close
	return nil
}

// Handler returns everything the Site serves: its partner's protocol
// endpoints, the pages and the control API under /sandbox/, and a
// redirect from / to its first page.
func (s *Shell) Handler() http.Handler { return s.handler }

// Serve serves Handler on l until ctx is done, then stops cleanly: waiting
// requests (DelayNext, StallNext) are ended, the HTTP server shuts down
// gracefully and the database is closed. It returns nil after a clean stop.
func (s *Shell) Serve(ctx context.Context, l net.Listener) error {
	err := Serve(ctx, l, s.handler, s.stop)
	return errors.Join(err, s.Close())
}

// Close ends waiting requests and closes the database; the Site must not
// be used after. It is safe to call more than once.
func (s *Shell) Close() error {
	if s.stop != nil {
		s.stop()
	}
	if s.journal == nil {
		return nil
	}
	j := s.journal
	s.journal = nil
	return j.Close()
}

// RandomSecret is a new signing secret: 48 hex digits (192 random bits).
func RandomSecret() string {
	var raw [24]byte
	_, _ = rand.Read(raw[:]) // never fails (crypto/rand)
	return hex.EncodeToString(raw[:])
}

// Registration is the body of the platform's POST /admin/v1/operators
// that registers a sandbox partner, in the order of the integration
// guides. JWKSURL is the operator's; CasinoIDs the aggregator's.
type Registration struct {
	ID            string   `json:"id"`
	Name          string   `json:"name"`
	Integration   string   `json:"integration"`
	WalletURL     string   `json:"wallet_url"`
	SigningSecret string   `json:"signing_secret"`
	JWKSURL       string   `json:"jwks_url,omitempty"`
	CasinoIDs     []string `json:"casino_ids,omitempty"`
	// Currency and Decimals are the one currency the partner registers,
	// with the default margin, limits and odds tolerance the platform's
	// admin may edit.
	Currency string `json:"-"`
	Decimals int32  `json:"-"`
}

// Body is the registration as indented JSON, with the currency, the
// default margin (odds_ratio 0.05), limits and odds tolerance (0.05).
func (r Registration) Body() []byte {
	type currency struct {
		Code     string `json:"code"`
		Decimals int32  `json:"decimals"`
	}
	type margin struct {
		Method string `json:"method"`
		Value  string `json:"value"`
	}
	type limits struct {
		MinStake        string `json:"min_stake"`
		MaxStake        string `json:"max_stake"`
		MaxPayout       string `json:"max_payout"`
		OutcomeExposure string `json:"outcome_exposure"`
	}
	b, err := json.MarshalIndent(struct {
		Registration
		Currencies    []currency        `json:"currencies"`
		Margin        margin            `json:"margin"`
		Limits        map[string]limits `json:"limits"`
		OddsTolerance string            `json:"odds_tolerance"`
	}{
		Registration:  r,
		Currencies:    []currency{{Code: r.Currency, Decimals: r.Decimals}},
		Margin:        margin{Method: "odds_ratio", Value: "0.05"},
		Limits:        map[string]limits{r.Currency: {MinStake: "1", MaxStake: "100", MaxPayout: "1000", OutcomeExposure: "50000"}},
		OddsTolerance: "0.05",
	}, "", "  ")
	if err != nil {
		panic(err) // strings and numbers always encode
	}
	return b
}

// SiteSettings are the settings every sandbox site has. A site's
// SiteConfig embeds them and states its own defaults.
type SiteSettings struct {
	// SigningSecret is the secret shared with the platform. Empty: the one
	// recorded in the database, or a new random one recorded there (in
	// memory only without a database); see OpenShell.
	SigningSecret string
	// PlatformURL is the base URL of the Foresight platform. Required.
	PlatformURL string
	// DatabasePath is the SQLite file of the site's journal; empty keeps
	// everything in memory.
	DatabasePath string
	// StartingBalance is the balance of an account (a bettor, a player)
	// first named by a wallet call.
	StartingBalance string
	// Currency is the currency of new accounts.
	Currency string
	// AdminToken guards the control API; empty opens it to loopback
	// clients only (Guard).
	AdminToken string
}
