package aggregatorwallet

import (
	"cmp"
	"context"
	"fmt"
	"net/http"
	"regexp"
	"time"

	"github.com/google/uuid"
	"github.com/shopspring/decimal"

	"github.com/foresight-dev/foresight/internal/aggregator"
	"github.com/foresight-dev/foresight/internal/aggregator/wallet"
	"github.com/foresight-dev/foresight/internal/conformance"
	"github.com/foresight-dev/foresight/internal/money"
)

// DefaultCurrency is the test account's currency when Config.Currency is
// empty.
const DefaultCurrency = "USD"

// MinStakes is how many stakes the test account must hold: the most the
// checks have debited at one time, with a margin.
const MinStakes = 3

// signatureHeader carries the request signature.
const signatureHeader = "X-REQUEST-SIGN"

// userAgent names the checker in the partner's logs.
const userAgent = "Foresight-Conformance/1 (aggregator-wallet)"

// currencyPattern is the spec's currency code: 3 to 7 upper-case letters
// or digits.
var currencyPattern = regexp.MustCompile(`^[A-Z0-9]{3,7}$`)

// Config configures a run against an aggregator's wallet.
type Config struct {
	// URL is the wallet base URL the aggregator gave: the checker calls
	// URL + "/v2/provider_agg.Player/Balance", … Required.
	URL string
	// Secret is the shared signing secret (the key of X-REQUEST-SIGN).
	// Required. It is never printed.
	Secret string
	// AccountID is a test player's account id (the account.id of a
	// launch), holding at least MinStakes stakes in Currency. Required.
	AccountID string
	// Currency is the test account's currency. Default DefaultCurrency.
	Currency string
	// SessionID is sent as session_id. Default: a fresh UUID per run, a
	// session the wallet never saw (the spec: never authorise with it).
	SessionID string
	// Stake is the amount of each test bet, a positive decimal with at most
	// 12 decimals. Default "1".
	Stake string
	// Timeout bounds each request. Default conformance.DefaultTimeout.
	Timeout time.Duration
	// HTTPClient sends the requests; nil means a client of the checker's
	// own. Redirects are never followed.
	HTTPClient *http.Client
}

// suite is a configured run: the checks are its methods.
type suite struct {
	base     string
	secret   []byte
	account  string
	currency string
	session  string
	stake    money.Amount
}

func newSuite(cfg Config) (*suite, error) {
	base, err := conformance.Target(cfg.URL, cfg.Secret, "account", cfg.AccountID)
	if err != nil {
		return nil, err
	}
	s := &suite{
		base:     base,
		secret:   []byte(cfg.Secret),
		account:  cfg.AccountID,
		currency: cmp.Or(cfg.Currency, DefaultCurrency),
		session:  cfg.SessionID,
		stake:    money.MustParse("1"),
	}
	if !currencyPattern.MatchString(s.currency) {
		return nil, fmt.Errorf("currency %q must be 3 to 7 upper-case letters or digits", s.currency)
	}
	if s.session == "" {
		s.session = uuid.NewString()
	}
	if cfg.Stake != "" {
		if s.stake, err = money.ParsePositive(cfg.Stake); err != nil {
			return nil, fmt.Errorf("stake: %w", err)
		}
	}
	return s, nil
}

// Run checks the aggregator wallet at cfg.URL against the protocol and
// returns the report; see the package documentation for the checks and
// what they leave in the ledger. The error is non-nil only for an unusable
// Config, and then nothing was sent.
func Run(ctx context.Context, cfg Config) (*conformance.Report, error) {
	s, err := newSuite(cfg)
	if err != nil {
		return nil, fmt.Errorf("aggregator wallet conformance: %w", err)
	}
	return conformance.Plan{
		Title:  "aggregator wallet",
		Target: s.base,
		Settings: []string{
			fmt.Sprintf("test account %q, currency %s, stake %s, session_id %q, game_id %q",
				s.account, s.currency, s.stake, s.session, aggregator.GameID),
		},
		Checks:  s.checks(),
		Balance: s.balanceReader(),
		Left: fmt.Sprintf("Left in the ledger: test rounds (ids conformance-round-…) whose bets are rolled back, "+
			"one lost round (-%[1]s), one won round paying twice the stake (+%[1]s), one closed round credited its stake (0), "+
			"one win without a bet and its rollback (0), a refused bet (insufficient-funds) and a rollback of a bet never sent (rollback-unknown); "+
			"the balance ends where it started when every check passes.", s.stake),
	}.Run(ctx, conformance.NewClient(cfg.HTTPClient, cfg.Timeout)), nil
}

// balanceReader reads and writes the test account's balance.
func (s *suite) balanceReader() conformance.Balance {
	return conformance.Balance{Whose: "test account", Currency: s.currency, Format: decimal.Decimal.String,
		Read: func(ctx context.Context, t *conformance.T, why string) decimal.Decimal {
			return s.readBalance(ctx, t, why, false)
		}}
}

// player is the test account and session every request names.
func (s *suite) player() wallet.Player {
	return wallet.Player{AccountID: s.account, Currency: s.currency, SessionID: s.session}
}

func (s *suite) balanceBody() []byte { return wallet.BalanceBody(s.player()) }

// betBody is a Round/BetWin of one bet (finished false), as the platform
// sends it.
func (s *suite) betBody(idProvider, roundID string, amount money.Amount) []byte {
	return wallet.BetBody(s.player(), roundID, idProvider, amount)
}

// winBody is a Round/BetWin of one win (finished true), as the platform
// sends it.
func (s *suite) winBody(idProvider, roundID string, amount money.Amount) []byte {
	return wallet.WinBody(s.player(), roundID, idProvider, amount)
}

func (s *suite) finishBody(roundID string) []byte { return wallet.FinishBody(s.player(), roundID) }

func (s *suite) rollbackBody(idProvider, roundID, original string) []byte {
	return wallet.RollbackBody(s.player(), roundID, idProvider, original)
}

// post signs body, lets alter change the headers (nil: none), and sends it
// to path.
func (s *suite) post(ctx context.Context, t *conformance.T, step, path string, body []byte, alter func(http.Header, []byte)) conformance.Exchange {
	h := http.Header{}
	h.Set("Content-Type", "application/json")
	h.Set("User-Agent", userAgent)
	h.Set(signatureHeader, wallet.Sign(string(s.secret), body))
	if alter != nil {
		alter(h, body)
	}
	return t.Do(ctx, step, conformance.Request{Method: http.MethodPost, URL: s.base + path, Header: h, Body: body})
}

// undoLater registers the Round/Rollback of transaction idProvider of
// round roundID, unless the check settles it before it ends.
func (s *suite) undoLater(t *conformance.T, what, idProvider, roundID string) *conformance.Pending {
	return t.UndoLater(func(ctx context.Context) error {
		ex := s.post(ctx, t, "cleanup: rollback of the "+what, wallet.PathRollback, s.rollbackBody(conformance.NewID("rb"), roundID, idProvider), nil)
		if !success(ex) {
			return fmt.Errorf("the rollback of the %s %s was answered %s: it may stay in the balance", what, idProvider, describe(ex))
		}
		return nil
	})
}

// readBalance reads the account's balance with Player/Balance; the check
// is skipped when it cannot (or, with needStakes, when the balance is
// below MinStakes stakes).
func (s *suite) readBalance(ctx context.Context, t *conformance.T, why string, needStakes bool) decimal.Decimal {
	ex := s.post(ctx, t, "Player/Balance "+why, wallet.PathBalance, s.balanceBody(), nil)
	if !success(ex) {
		t.Skipf("could not read the balance %s: Player/Balance was answered %s (see the check balance)", why, describe(ex))
	}
	bal, err := conformance.AnswerBalance(ex)
	if err != nil {
		t.Skipf("could not read the balance %s: %v (see the check balance)", why, err)
	}
	if needStakes {
		s.balanceReader().RequireStakes(t, s.account, bal, s.stake.Decimal(), MinStakes)
	}
	return bal
}

// balance is readBalance inside a check.
func (s *suite) balance(ctx context.Context, t *conformance.T, why string) decimal.Decimal {
	return s.readBalance(ctx, t, why, true)
}

// bet places a bet of the stake in a fresh round that must succeed; the
// check is skipped otherwise (it is the check bet's business). The bet's
// rollback is registered for the end of the check.
func (s *suite) bet(ctx context.Context, t *conformance.T) (idProvider, roundID string, ex conformance.Exchange, p *conformance.Pending) {
	idProvider, roundID = conformance.NewID("bet"), conformance.NewID("round")
	ex = s.post(ctx, t, "bet", wallet.PathBetWin, s.betBody(idProvider, roundID, s.stake), nil)
	if !success(ex) {
		t.Skipf("not checked: a bet of %s was answered %s (see the check bet)", s.stake, describe(ex))
	}
	return idProvider, roundID, ex, s.undoLater(t, "bet", idProvider, roundID)
}

// success reports whether ex is the protocol's success: HTTP 200 with a
// JSON object without meta.api_code (the platform reads api_code in every
// answer, 200 included).
func success(ex conformance.Exchange) bool {
	if !ex.Answered() || ex.Response.Status != http.StatusOK {
		return false
	}
	o, err := conformance.ParseObject(ex.Response.Body)
	if err != nil {
		return false
	}
	_, has := apiCode(o)
	return !has
}

// apiCode returns meta.api_code read leniently (a string or a number),
// and whether there is one.
func apiCode(o conformance.Object) (string, bool) {
	meta, ok := o.Object("meta")
	if !ok || !meta.Has("api_code") {
		return "", false
	}
	if text, ok := meta.Text("api_code"); ok {
		return text, true
	}
	return string(meta["api_code"]), true
}

// answerCode returns the api_code of ex's answer, "" when it has none.
func answerCode(ex conformance.Exchange) string {
	o, err := conformance.ParseObject(ex.Response.Body)
	if err != nil {
		return ""
	}
	code, _ := apiCode(o)
	return code
}

// describe is a short form of an answer for messages: the status and the
// api_code when there is one.
func describe(ex conformance.Exchange) string {
	if code := answerCode(ex); code != "" {
		return fmt.Sprintf("%s with api_code %s", ex.Outcome(), code)
	}
	return ex.Outcome()
}
