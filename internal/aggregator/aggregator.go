// Package aggregator is the platform's side of the aggregator integration
// (aggregator-api.md): the launcher (real and demo sessions, their
// single-use launch tokens), the exchange of a launch token for a session
// token the platform mints, and the details of a round. The game is the
// betting platform's: an aggregator is an operator with integration
// "aggregator", its players are bettors, and a round is one bet. The wallet
// protocol the platform calls is in the wallet subpackage; HTTP is in
// aggregatorhttp. Bundled operators' sessions (OpenBundled) use the same
// launches, exchange and platform keys.
package aggregator

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"net/url"
	"slices"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/google/uuid"

	"github.com/foresight-dev/foresight/internal/betting"
	"github.com/foresight-dev/foresight/internal/money"
)

// GameID is the game's identifier in launcher requests (game) and wallet
// requests (game_id).
const GameID = "prediction-markets"

// LaunchLifetime is how long a launch token can be exchanged.
const LaunchLifetime = time.Minute

// SessionLifetime is the lifetime of the session tokens the platform mints.
const SessionLifetime = time.Hour

// Launch is one launcher call: a single-use token, stored hashed, that the
// game's frontend exchanges for a session token.
type Launch struct {
	// TokenHash is the hex SHA-256 of the token in the launch URL.
	TokenHash  string
	OperatorID string
	CasinoID   string
	// AccountID and Currency are the player's; empty for a demo.
	AccountID string
	Currency  string
	// SessionID is the aggregator's session_id, as sent (letter case
	// included), repeated in wallet calls.
	SessionID string
	Locale    string
	Demo      bool
	CreatedAt time.Time
	ExpiresAt time.Time
}

// StoredKey is a private key of the platform's session tokens, as stored.
type StoredKey struct {
	ID         string
	PrivatePEM string
	CreatedAt  time.Time
}

// Store keeps launches and the platform's keys.
type Store interface {
	// CreateLaunch stores a launch.
	CreateLaunch(ctx context.Context, l Launch) error
	// UseLaunch marks the launch with tokenHash used at now and returns
	// it. It fails with ErrLaunchInvalid for an unknown, used or expired
	// launch; a launch is used once even when two calls race.
	UseLaunch(ctx context.Context, tokenHash string, now time.Time) (Launch, error)
	// DeleteLaunches deletes the launches that expired before t, used or
	// not, and returns how many.
	DeleteLaunches(ctx context.Context, before time.Time) (int, error)
	// PlatformKeys returns every stored key, oldest first.
	PlatformKeys(ctx context.Context) ([]StoredKey, error)
	// AddPlatformKey stores k unless a key with its id exists.
	AddPlatformKey(ctx context.Context, k StoredKey) error
}

// ErrLaunchInvalid is the error of an unknown, used or expired launch
// token (code betting.ErrUnauthorized). The package's errors are
// *betting.Error, the platform's one error shape (docs/architecture.md,
// "Errors"); aggregatorhttp maps their codes.
var ErrLaunchInvalid = betting.Errorf(betting.ErrUnauthorized, "the launch token is unknown, used or expired")

func invalidf(format string, args ...any) error {
	return betting.Errorf(betting.ErrInvalid, format, args...)
}

// BalanceReader reads a player's balance from the aggregator's wallet
// (Player/Balance), or a bundled bettor's from the ledger (sessionID
// empty).
type BalanceReader interface {
	Balance(ctx context.Context, op betting.Operator, accountID, currency, sessionID string) (money.Amount, error)
}

// Service is the launcher, the session exchange and the round details.
type Service struct {
	store     Store
	catalog   *betting.Service
	placement *betting.Placement
	bets      betting.BetStore
	wallet    BalanceReader
	keys      *Keys
	widgetURL string
	// Now returns the current time; tests may replace it.
	Now func() time.Time
}

// New returns a Service. publicURL is the platform's base URL, where the
// widget is served (launch URLs are absolute).
func New(store Store, catalog *betting.Service, placement *betting.Placement, bets betting.BetStore, wallet BalanceReader, keys *Keys, publicURL string) *Service {
	return &Service{store: store, catalog: catalog, placement: placement, bets: bets, wallet: wallet, keys: keys,
		widgetURL: strings.TrimRight(publicURL, "/") + "/widget/", Now: time.Now}
}

// Keys returns the platform's session token keys.
func (s *Service) Keys() *Keys { return s.keys }

// LaunchRequest is what the launcher uses of a Launcher/Real or
// Launcher/Demo request; nil pointers are absent fields.
type LaunchRequest struct {
	CasinoID  string
	Game      string
	Locale    string
	SessionID *string
	URLs      *struct{}
	Account   *Account
}

// Account is the player of a Launcher/Real request.
type Account struct {
	ID       string
	Currency string
}

// Real starts a real-money session (Launcher/Real): the player is created
// or found (bettor = account id, in the account's currency, which the
// aggregator must offer), the launch is stored, and the absolute launch URL
// holding the single-use token is returned.
//
// Errors: betting.ErrInvalid for a field rule (session_id missing, blank or not
// a UUID; urls or account missing; account id or currency missing; a
// currency not of 3 to 7 upper-case letters or digits, or not offered; a
// game other than GameID; a player first seen in another currency);
// betting.ErrForbidden for a casino the aggregator does not list.
func (s *Service) Real(ctx context.Context, op betting.Operator, r LaunchRequest) (string, error) {
	if err := checkCommon(op, r); err != nil {
		return "", err
	}
	switch {
	case r.SessionID == nil || strings.TrimSpace(*r.SessionID) == "":
		return "", invalidf("session_id is required")
	case uuid.Validate(*r.SessionID) != nil:
		return "", invalidf("session_id must be a UUID")
	case r.URLs == nil:
		return "", invalidf("urls is required (an empty object is enough)")
	case r.Account == nil:
		return "", invalidf("account is required")
	case r.Account.ID == "" || len(r.Account.ID) > 255:
		return "", invalidf("account.id is required (at most 255 bytes)")
	}
	// The operator's currencies are 3 to 7 upper-case letters or digits:
	// any other code is not one of them.
	if _, ok := op.Currency(r.Account.Currency); !ok {
		return "", invalidf("account.currency %q is not one the aggregator offers", r.Account.Currency)
	}
	b, err := s.placement.Bettor(ctx, op.ID, r.Account.ID, r.Account.Currency)
	if err != nil {
		return "", err
	}
	if b.Currency != r.Account.Currency {
		return "", invalidf("account %s plays in %s", r.Account.ID, b.Currency)
	}
	return s.launch(ctx, Launch{OperatorID: op.ID, CasinoID: r.CasinoID, AccountID: r.Account.ID, Currency: r.Account.Currency,
		SessionID: *r.SessionID, Locale: LauncherLocale(r.Locale)})
}

// Demo starts a demo session (Launcher/Demo): no player, no wallet call,
// no real bet. Errors as Real's, for the fields a demo has.
func (s *Service) Demo(ctx context.Context, op betting.Operator, r LaunchRequest) (string, error) {
	if err := checkCommon(op, r); err != nil {
		return "", err
	}
	return s.launch(ctx, Launch{OperatorID: op.ID, CasinoID: r.CasinoID, Currency: op.Currencies[0].Code, Locale: LauncherLocale(r.Locale), Demo: true})
}

func checkCommon(op betting.Operator, r LaunchRequest) error {
	switch {
	case r.CasinoID == "":
		return invalidf("casino_id is required")
	case r.Game != GameID:
		return invalidf("game must be %q", GameID)
	case !slices.Contains(op.CasinoIDs, r.CasinoID):
		return betting.Errorf(betting.ErrForbidden, "the casino is not configured for this aggregator")
	}
	return nil
}

func (s *Service) launch(ctx context.Context, l Launch) (string, error) {
	token, err := s.newLaunch(ctx, &l)
	if err != nil {
		return "", err
	}
	return s.launchURL(l, token, betting.IntegrationAggregator), nil
}

// newLaunch stores l with a new single-use token and returns the token.
func (s *Service) newLaunch(ctx context.Context, l *Launch) (string, error) {
	raw := make([]byte, 32)
	if _, err := rand.Read(raw); err != nil {
		return "", err
	}
	token := base64.RawURLEncoding.EncodeToString(raw)
	now := s.Now().UTC().Truncate(time.Microsecond)
	l.TokenHash, l.CreatedAt, l.ExpiresAt = HashToken(token), now, now.Add(LaunchLifetime)
	if err := s.store.CreateLaunch(ctx, *l); err != nil {
		return "", err
	}
	return token, nil
}

// launchURL is the widget's URL for the launch l with token.
func (s *Service) launchURL(l Launch, token, integration string) string {
	q := url.Values{"session_request_id": {token}, "locale": {l.Locale}, "operator": {l.OperatorID}, "integration": {integration}}
	if l.Demo {
		q.Set("demo", "true")
	}
	return s.widgetURL + "?" + q.Encode()
}

// BundledRequest is what a bundled operator's server sends to open a
// session for one of its bettors.
type BundledRequest struct {
	BettorID string
	Currency string
	Locale   string
}

// BundledSession is an opened session of a bundled operator's bettor:
// the widget URL to show (it holds SessionRequestID, single use, valid
// for LaunchLifetime, exchanged by the widget at POST /api/v1/sessions),
// and a session token for the operator's own client of the bettor API.
type BundledSession struct {
	SessionRequestID string    `json:"session_request_id"`
	WidgetURL        string    `json:"widget_url"`
	AuthToken        string    `json:"auth_token"`
	ExpiresAt        time.Time `json:"expires_at"`
	// Balance is the bettor's available balance in the ledger, with the
	// currency's decimals.
	Balance string `json:"balance"`
}

// maxBundledBettorID bounds a bundled bettor's id: it names the bettor's
// ledger account, whose references the ledger bounds at 200 bytes.
const maxBundledBettorID = 200

// OpenBundled opens a session of a bundled operator's bettor (the
// bundled path has no session endpoint of the operator's: its server asks
// Foresight, with its operator credential). The bettor is created on
// first sight in the currency, which the operator must offer. The launch
// and the token are the aggregator path's: the platform mints the token
// and the widget exchanges the launch at POST /api/v1/sessions.
//
// Errors: betting.ErrInvalid for a bettor_id that is empty, longer than
// 200 bytes or holds control characters, a currency the operator does not
// offer or a bettor first seen in another currency; betting.ErrConflict
// for an operator that is not bundled.
func (s *Service) OpenBundled(ctx context.Context, op betting.Operator, r BundledRequest) (BundledSession, error) {
	if op.Integration != betting.IntegrationBundled {
		return BundledSession{}, betting.Errorf(betting.ErrConflict, "operator %s is %s: its bettors' sessions come from its own server", op.ID, op.Integration)
	}
	if r.BettorID == "" || len(r.BettorID) > maxBundledBettorID || strings.IndexFunc(r.BettorID, unicode.IsControl) >= 0 || !utf8.ValidString(r.BettorID) {
		return BundledSession{}, invalidf("bettor_id is required: 1 to %d bytes of UTF-8 without control characters", maxBundledBettorID)
	}
	cur, ok := op.Currency(r.Currency)
	if !ok {
		return BundledSession{}, invalidf("currency %q is not one the operator offers", r.Currency)
	}
	b, err := s.placement.Bettor(ctx, op.ID, r.BettorID, r.Currency)
	if err != nil {
		return BundledSession{}, err
	}
	if b.Currency != r.Currency {
		return BundledSession{}, invalidf("bettor %s plays in %s", r.BettorID, b.Currency)
	}
	balance, err := s.wallet.Balance(ctx, op, b.ID, b.Currency, "")
	if err != nil {
		return BundledSession{}, err
	}
	l := Launch{OperatorID: op.ID, AccountID: b.ID, Currency: b.Currency, Locale: LauncherLocale(r.Locale)}
	token, err := s.newLaunch(ctx, &l)
	if err != nil {
		return BundledSession{}, err
	}
	now := s.Now().UTC()
	exp := now.Add(SessionLifetime).Truncate(time.Second)
	auth, err := s.keys.Mint(ctx, SessionClaims{Issuer: op.ID, Subject: b.ID, Currency: b.Currency, IssuedAt: now, ExpiresAt: exp})
	if err != nil {
		return BundledSession{}, err
	}
	return BundledSession{SessionRequestID: token, WidgetURL: s.launchURL(l, token, betting.IntegrationBundled), AuthToken: auth, ExpiresAt: exp,
		Balance: balance.StringFixed(cur.Decimals)}, nil
}

// launchRetention is how long an expired launch is kept (for support:
// which casino launched which session) before it is deleted.
const launchRetention = 24 * time.Hour

// DeleteExpiredLaunches deletes the launches that expired more than a day
// ago and returns how many; the server calls it periodically.
func (s *Service) DeleteExpiredLaunches(ctx context.Context) (int, error) {
	return s.store.DeleteLaunches(ctx, s.Now().UTC().Add(-launchRetention))
}

// HashToken is how a launch token is stored: hex SHA-256.
func HashToken(token string) string {
	sum := sha256.Sum256([]byte(token))
	return hex.EncodeToString(sum[:])
}

// Session is a started session: the token the widget uses.
type Session struct {
	AuthToken string    `json:"auth_token"`
	ExpiresAt time.Time `json:"expires_at"`
	// Balance is a bundled bettor's available balance in the ledger;
	// nil on the aggregator path.
	Balance *string `json:"balance,omitempty"`
}

// StartSession exchanges a launch token (POST /api/v1/sessions): the
// launch is used up, a real session reads the player's balance once
// (Player/Balance), and a session token is minted; a demo session's token
// carries a random session id (sid) of its own. Errors:
// ErrLaunchInvalid; betting.ErrUnavailable, with the wallet's error as the
// cause, when Player/Balance fails (aggregator-api.md: "an error at
// session start fails the session"); anything else is internal.
func (s *Service) StartSession(ctx context.Context, token string) (Session, error) {
	if token == "" || len(token) > 256 {
		return Session{}, ErrLaunchInvalid
	}
	now := s.Now().UTC()
	l, err := s.store.UseLaunch(ctx, HashToken(token), now)
	if err != nil {
		return Session{}, err
	}
	op, err := s.catalog.CachedOperator(ctx, l.OperatorID)
	if err != nil {
		return Session{}, err
	}
	sub, sid := "demo", l.SessionID
	var balance *string
	if l.Demo {
		// A demo launch has no session_id: each demo session gets its own,
		// so that two demo tokens minted in the same second differ and the
		// bettor API can tell their players apart.
		sid = uuid.NewString()
	} else {
		b, err := s.wallet.Balance(ctx, op, l.AccountID, l.Currency, l.SessionID)
		if err != nil {
			return Session{}, &betting.Error{Code: betting.ErrUnavailable, Message: "the wallet did not give the balance", Err: err}
		}
		if op.Integration == betting.IntegrationBundled {
			shown := b.String() // as the bettor API writes amounts
			balance = &shown
		}
		sub = l.AccountID
	}
	exp := now.Add(SessionLifetime).Truncate(time.Second)
	tok, err := s.keys.Mint(ctx, SessionClaims{Issuer: op.ID, Subject: sub, Currency: l.Currency, SessionID: sid, Demo: l.Demo,
		IssuedAt: now, ExpiresAt: exp})
	if err != nil {
		return Session{}, err
	}
	return Session{AuthToken: tok, ExpiresAt: exp, Balance: balance}, nil
}
