package operatorwallet

import (
	"cmp"
	"context"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/google/uuid"
	"github.com/shopspring/decimal"

	"github.com/foresight-dev/foresight/internal/betting/wallet"
	"github.com/foresight-dev/foresight/internal/conformance"
	"github.com/foresight-dev/foresight/internal/money"
)

// DefaultCurrency is the test bettor's currency when Config.Currency is
// empty.
const DefaultCurrency = "USD"

// MinStakes is how many stakes the test bettor must hold: the most the
// checks have debited at one time, plus one for reading the balance.
const MinStakes = 4

// userAgent names the checker in the partner's logs.
const userAgent = "Foresight-Conformance/1 (operator-wallet)"

// Config configures a run against an operator's wallet.
type Config struct {
	// URL is the wallet's base URL, the one given to the platform at
	// onboarding: the checker calls URL + "/v1/withdrawals", … Required.
	URL string
	// Secret is the signing secret shared with the platform
	// (PLATFORM_HMAC_SECRET). Required. It is never printed.
	Secret string
	// BettorID is a test bettor of the operator's, with a balance of at
	// least MinStakes stakes in Currency. Required.
	BettorID string
	// Currency is the test bettor's currency. Default DefaultCurrency.
	Currency string
	// Decimals is the number of decimal places of Currency, as configured
	// for the operator on the platform. Nil means Currency's ISO 4217 minor
	// units, and is an error for a code outside ISO 4217 (crypto).
	Decimals *int32
	// Stake is the amount of each test withdrawal, a positive decimal with
	// at most Decimals places. Default: one unit of Currency ("1.00").
	Stake string
	// MarketID is sent as metadata.market_id. Default: a fresh
	// "conformance-market-<uuid>" per run.
	MarketID string
	// Timeout bounds each request. Default conformance.DefaultTimeout.
	Timeout time.Duration
	// HTTPClient sends the requests; nil means a client of the checker's
	// own. Redirects are never followed.
	HTTPClient *http.Client
}

// suite is a configured run: the checks are its methods.
type suite struct {
	base     string
	secret   string
	bettor   string
	currency string
	decimals int32
	stake    money.Amount
	market   string
}

func newSuite(cfg Config) (*suite, error) {
	base, err := conformance.Target(cfg.URL, cfg.Secret, "bettor", cfg.BettorID)
	if err != nil {
		return nil, err
	}
	s := &suite{
		base:     base,
		secret:   cfg.Secret,
		bettor:   cfg.BettorID,
		currency: cmp.Or(cfg.Currency, DefaultCurrency),
		market:   cfg.MarketID,
	}
	if cfg.Decimals != nil {
		s.decimals = *cfg.Decimals
		if s.decimals < 0 || s.decimals > money.MaxFractionalDigits {
			return nil, fmt.Errorf("decimals must be between 0 and %d", money.MaxFractionalDigits)
		}
	} else {
		d, ok := money.CurrencyDecimals(s.currency)
		if !ok {
			return nil, fmt.Errorf("%s is not an ISO 4217 currency with minor units: give its decimals", s.currency)
		}
		s.decimals = d
	}
	if cfg.Stake == "" {
		s.stake = money.MustParse("1")
	} else {
		a, err := money.ParsePositive(cfg.Stake)
		if err != nil {
			return nil, fmt.Errorf("stake: %w", err)
		}
		if !a.FitsDecimals(s.decimals) {
			return nil, fmt.Errorf("stake %s has more decimals than %s's %d", cfg.Stake, s.currency, s.decimals)
		}
		s.stake = a
	}
	if s.market == "" {
		s.market = "conformance-market-" + uuid.NewString()
	}
	// Build one body of each kind now, so that a currency or id the
	// platform's own encoder refuses is a configuration error, not a
	// failing check.
	if _, err := wallet.WithdrawalBody(s.withdrawal("conformance-config", s.stake)); err != nil {
		return nil, err
	}
	return s, nil
}

// Run checks the operator wallet at cfg.URL against the protocol and
// returns the report; see the package documentation for the checks and
// what they leave in the ledger. The error is non-nil only for an unusable
// Config, and then nothing was sent.
func Run(ctx context.Context, cfg Config) (*conformance.Report, error) {
	s, err := newSuite(cfg)
	if err != nil {
		return nil, fmt.Errorf("operator wallet conformance: %w", err)
	}
	return conformance.Plan{
		Title:  "operator wallet",
		Target: s.base,
		Settings: []string{
			fmt.Sprintf("test bettor %q, currency %s (%d decimals), stake %s, market_id %q",
				s.bettor, s.currency, s.decimals, s.amount(s.stake), s.market),
		},
		Checks:  s.checks(),
		Balance: s.balanceReader(),
		Left: "Left in the ledger: withdrawals, each undone by a rollback, and two settled test bets " +
			"(a lost one: -1 stake; a won one paying 2 stakes: +1 stake), so the balance ends where it started when every check passes; " +
			"also one refused withdrawal (insufficient-funds) and one rollback of a withdrawal never sent (rollback-unknown).",
	}.Run(ctx, conformance.NewClient(cfg.HTTPClient, cfg.Timeout)), nil
}

// balanceReader reads the test bettor's balance and writes it as v does.
func (s *suite) balanceReader() conformance.Balance {
	return conformance.Balance{Whose: "test bettor", Currency: s.currency, Format: s.v,
		Read: func(ctx context.Context, t *conformance.T, why string) decimal.Decimal {
			return s.readBalance(ctx, t, why, false)
		}}
}

// v writes a balance for a message: with the currency's decimals, or more
// when the exact value needs more.
func (s *suite) v(d decimal.Decimal) string {
	if d.Equal(d.Round(s.decimals)) {
		return d.StringFixed(s.decimals)
	}
	return d.String()
}

// amount writes a with the currency's decimals, as the platform does.
func (s *suite) amount(a money.Amount) string { return a.StringFixed(s.decimals) }

func (s *suite) withdrawal(txID string, amount money.Amount) wallet.Withdrawal {
	return wallet.Withdrawal{TransactionID: txID, BettorID: s.bettor, Amount: amount, Currency: s.currency,
		Decimals: s.decimals, MarketID: s.market, BetID: uuid.NewString()}
}

// headers returns the headers of a correctly signed call, sent now.
func (s *suite) headers(body []byte) http.Header {
	h := http.Header{}
	h.Set("Content-Type", "application/json")
	h.Set("User-Agent", userAgent)
	h.Set(wallet.HeaderSignature, wallet.Sign(s.secret, body))
	h.Set(wallet.HeaderTimestamp, time.Now().UTC().Format(time.RFC3339))
	h.Set(wallet.HeaderNonce, uuid.NewString())
	return h
}

// send signs body, lets alter change the headers (nil: none), and sends.
func (s *suite) send(ctx context.Context, t *conformance.T, step, method, path string, body []byte, alter func(h http.Header, body []byte)) conformance.Exchange {
	h := s.headers(body)
	if alter != nil {
		alter(h, body)
	}
	return t.Do(ctx, step, conformance.Request{Method: method, URL: s.base + path, Header: h, Body: body})
}

// withdraw sends POST /v1/withdrawals for txID. The same txID, amount and
// bet id give the same bytes: pass the body of an earlier call to replay
// it.
func (s *suite) withdraw(ctx context.Context, t *conformance.T, step string, body []byte, alter func(http.Header, []byte)) conformance.Exchange {
	return s.send(ctx, t, step, http.MethodPost, "/v1/withdrawals", body, alter)
}

func (s *suite) withdrawalBody(txID string, amount money.Amount) []byte {
	b, err := wallet.WithdrawalBody(s.withdrawal(txID, amount))
	if err != nil {
		panic(err) // the configuration was checked by newSuite
	}
	return b
}

func (s *suite) rollbackBody(rbID string, amount money.Amount) []byte {
	b, err := wallet.RollbackBody(wallet.Rollback{TransactionID: rbID, BettorID: s.bettor, Amount: amount,
		Currency: s.currency, Decimals: s.decimals})
	if err != nil {
		panic(err)
	}
	return b
}

func (s *suite) depositBody(dpID, wdID string, amount money.Amount, result wallet.DepositResult) []byte {
	b, err := wallet.DepositBody(wallet.Deposit{TransactionID: dpID, BettorID: s.bettor, Amount: amount,
		Currency: s.currency, Decimals: s.decimals, MarketID: s.market, BetID: uuid.NewString(),
		WithdrawalTransactionID: wdID, Result: result})
	if err != nil {
		panic(err)
	}
	return b
}

// rollback sends DELETE /v1/rollbacks/{wdID} with body.
func (s *suite) rollback(ctx context.Context, t *conformance.T, step, wdID string, body []byte) conformance.Exchange {
	return s.send(ctx, t, step, http.MethodDelete, "/v1/rollbacks/"+url.PathEscape(wdID), body, nil)
}

// deposit sends POST /v1/deposits with body.
func (s *suite) deposit(ctx context.Context, t *conformance.T, step string, body []byte) conformance.Exchange {
	return s.send(ctx, t, step, http.MethodPost, "/v1/deposits", body, nil)
}

// undoLater registers the rollback of withdrawal wdID, unless the check
// settles it (rolled back or paid by a deposit) before it ends.
func (s *suite) undoLater(t *conformance.T, wdID string, amount money.Amount) *conformance.Pending {
	return t.UndoLater(func(ctx context.Context) error {
		ex := s.rollback(ctx, t, "cleanup: rollback of "+wdID, wdID, s.rollbackBody(conformance.NewID("rb"), amount))
		if !ok2xx(ex) {
			return fmt.Errorf("the rollback of withdrawal %s was answered %s: %s %s may stay debited", wdID, ex.Outcome(), s.amount(amount), s.currency)
		}
		return nil
	})
}

// readBalance reads the test bettor's balance. The protocol has no balance
// read, so it debits one stake with a fresh withdrawal and rolls it back:
// the balance is the withdrawal's answer plus the stake. When the balance
// cannot be read (or, with needStakes, is below MinStakes stakes) the
// check is skipped.
func (s *suite) readBalance(ctx context.Context, t *conformance.T, why string, needStakes bool) decimal.Decimal {
	wdID := conformance.NewID("wd")
	ex := s.withdraw(ctx, t, "balance read "+why+": withdrawal", s.withdrawalBody(wdID, s.stake), nil)
	if !ok2xx(ex) {
		if insufficientFunds(ex) {
			t.Skipf("the test bettor %q cannot cover one stake of %s %s: credit the test account", s.bettor, s.amount(s.stake), s.currency)
		}
		t.Skipf("could not read the balance %s: a correctly signed withdrawal was answered %s (see the check withdrawal)", why, ex.Outcome())
	}
	bal, err := conformance.AnswerBalance(ex)
	if err != nil {
		s.undoLater(t, wdID, s.stake)
		t.Skipf("could not read the balance %s: the withdrawal's answer has no readable balance: %v (see the check withdrawal)", why, err)
	}
	rb := s.rollback(ctx, t, "balance read "+why+": rollback", wdID, s.rollbackBody(conformance.NewID("rb"), s.stake))
	if !ok2xx(rb) {
		t.Skipf("could not read the balance %s: the rollback of its withdrawal %s was answered %s (see the check rollback); %s %s may stay debited",
			why, wdID, rb.Outcome(), s.amount(s.stake), s.currency)
	}
	bal = bal.Add(s.stake.Decimal())
	if needStakes {
		s.balanceReader().RequireStakes(t, s.bettor, bal, s.stake.Decimal(), MinStakes)
	}
	return bal
}

// balance is readBalance inside a check.
func (s *suite) balance(ctx context.Context, t *conformance.T, why string) decimal.Decimal {
	return s.readBalance(ctx, t, why, true)
}

// debit sends a fresh withdrawal of amount that must succeed; the check is
// skipped otherwise (it is the check withdrawal's business). It returns the
// withdrawal's id, the exchange and the balance it reported, and registers
// its rollback for the end of the check.
func (s *suite) debit(ctx context.Context, t *conformance.T, step string, amount money.Amount) (string, conformance.Exchange, decimal.Decimal, *conformance.Pending) {
	wdID := conformance.NewID("wd")
	ex := s.withdraw(ctx, t, step, s.withdrawalBody(wdID, amount), nil)
	if !ok2xx(ex) {
		t.Skipf("not checked: the %s was answered %s (see the check withdrawal)", step, ex.Outcome())
	}
	p := s.undoLater(t, wdID, amount)
	bal, err := conformance.AnswerBalance(ex)
	if err != nil {
		t.Skipf("not checked: the %s's answer has no readable balance: %v (see the check withdrawal)", step, err)
	}
	return wdID, ex, bal, p
}

// ok2xx reports whether ex got a 2xx answer.
func ok2xx(ex conformance.Exchange) bool {
	return ex.Answered() && ex.Response.Status >= 200 && ex.Response.Status < 300
}

// optionalBalance reads an answer's balance when it has one.
func optionalBalance(ex conformance.Exchange) (decimal.Decimal, bool) {
	o, err := conformance.ParseObject(ex.Response.Body)
	if err != nil || !o.Has("balance") {
		return decimal.Decimal{}, false
	}
	d, err := conformance.ReadDecimal(o["balance"])
	return d, err == nil
}

// errorCode returns the "error" member of an answer's JSON body.
func errorCode(ex conformance.Exchange) string {
	o, err := conformance.ParseObject(ex.Response.Body)
	if err != nil {
		return ""
	}
	code, _ := o.Text("error")
	return code
}

// insufficientFunds reports whether ex is the refusal the platform reads
// as insufficient funds (docs/decisions.md, "Contract details"): a 4xx with {"error":
// "insufficient_funds"}, or a 409 with no body.
func insufficientFunds(ex conformance.Exchange) bool {
	st := ex.Response.Status
	if !ex.Answered() || st < 400 || st > 499 {
		return false
	}
	return errorCode(ex) == "insufficient_funds" || (st == http.StatusConflict && len(strings.TrimSpace(string(ex.Response.Body))) == 0)
}
