// Package betting is the prediction-markets platform's domain: operators
// and their configuration, the catalog of events, markets and outcomes,
// and the odds an operator's bettors see. Stores, wallets, feeds and HTTP
// live in subpackages and adapters; the rules live here.
package betting

import (
	"bytes"
	"encoding/json"
	"maps"
	"net/url"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/shopspring/decimal"

	"github.com/foresight-dev/foresight/internal/money"
	"github.com/foresight-dev/foresight/internal/odds"
)

// Integration kinds of an operator.
const (
	IntegrationStandalone = "standalone"
	IntegrationAggregator = "aggregator"
	// IntegrationBundled: Foresight keeps the bettors' balances in its
	// ledger (internal/ledger); the operator has no wallet, key set or
	// session endpoint of its own.
	IntegrationBundled = "bundled"
)

// Operator is a business that offers the game to its bettors.
type Operator struct {
	ID          string `json:"id"`
	Name        string `json:"name"`
	Integration string `json:"integration"`
	WalletURL   string `json:"wallet_url,omitempty"`
	// SigningSecret signs wallet calls; it is never shown after creation.
	SigningSecret string `json:"signing_secret,omitempty"`
	JWKSURL       string `json:"jwks_url,omitempty"`
	// SessionURL is the operator's POST /v1/session, which the widget calls
	// from the browser (standalone only); empty means SessionEndpoint's
	// default.
	SessionURL string     `json:"session_url,omitempty"`
	CasinoIDs  []string   `json:"casino_ids"`
	Currencies []Currency `json:"currencies"`
	Margin     Margin     `json:"margin"`
	// Limits per currency code.
	Limits        map[string]Limits `json:"limits"`
	OddsTolerance decimal.Decimal   `json:"odds_tolerance"`
	CreatedAt     time.Time         `json:"created_at"`
}

// SessionEndpoint is where the widget exchanges a standalone operator's
// session_request_id: SessionURL, or WalletURL + "/v1/session".
func (o Operator) SessionEndpoint() string {
	if o.SessionURL != "" {
		return o.SessionURL
	}
	return strings.TrimRight(o.WalletURL, "/") + "/v1/session"
}

// clone returns a copy of o that shares no slice or map with it (a field
// added to Operator that holds one must be copied here).
func (o Operator) clone() Operator {
	o.CasinoIDs = slices.Clone(o.CasinoIDs)
	o.Currencies = slices.Clone(o.Currencies)
	o.Limits = maps.Clone(o.Limits)
	return o
}

// Currency is a currency an operator's bettors play in.
type Currency struct {
	Code     string `json:"code"`
	Decimals int32  `json:"decimals"`
}

// decimalsUnset marks a currency read from JSON without decimals; Validate
// replaces it with the code's ISO 4217 minor units.
const decimalsUnset = -1

// UnmarshalJSON reads a currency; decimals left out are unset, and
// Operator.Validate fills them from ISO 4217 (or refuses a code that has
// none, such as a crypto currency), instead of defaulting to 0, which
// silently allowed whole-number stakes only. A key other than code and
// decimals is an error, as it is elsewhere in an operator's document (a
// misspelt "decimal" must not leave the decimals unset unnoticed).
func (c *Currency) UnmarshalJSON(b []byte) error {
	type plain Currency
	p := plain{Decimals: decimalsUnset}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&p); err != nil {
		return err
	}
	*c = Currency(p)
	return nil
}

// Margin is how an operator's odds are made from source probabilities.
type Margin struct {
	Method odds.Method     `json:"method"`
	Value  decimal.Decimal `json:"value"`
}

// Limits bound bets in one currency.
type Limits struct {
	MinStake  money.Amount `json:"min_stake"`
	MaxStake  money.Amount `json:"max_stake"`
	MaxPayout money.Amount `json:"max_payout"`
	// OutcomeExposure bounds the potential payouts of pending and
	// confirmed bets on one outcome.
	OutcomeExposure money.Amount `json:"outcome_exposure"`
}

var (
	operatorID = regexp.MustCompile(`^[a-z0-9][a-z0-9_-]{0,62}$`)
	// currencyCode: ISO 4217 codes and the longer codes of crypto
	// currencies (the aggregator protocol's: 3 to 7 upper-case letters or
	// digits).
	currencyCode = regexp.MustCompile(`^[A-Z0-9]{3,7}$`)
	// walletCurrencyCode: the operator wallet protocol's currencies (ISO
	// 4217 codes, and crypto codes of up to 5 letters), the only ones a
	// standalone operator's wallet can be sent.
	walletCurrencyCode = regexp.MustCompile(`^[A-Z]{3,5}$`)
)

// ValidWalletCurrency reports whether code may be sent to an operator's
// wallet: 3 to 5 upper-case letters.
func ValidWalletCurrency(code string) bool { return walletCurrencyCode.MatchString(code) }

// Validate checks an operator's configuration and fills the default margin
// method (odds_ratio). allowInsecure permits http:// partner URLs (local
// development and tests). Errors are *Error with ErrInvalid.
func (o *Operator) Validate(allowInsecure bool) error {
	if !operatorID.MatchString(o.ID) {
		return invalidf("id must be 1 to 63 lowercase letters, digits, '-' or '_', starting with a letter or digit")
	}
	if o.Name == "" || len(o.Name) > 200 {
		return invalidf("name must be 1 to 200 characters")
	}
	if err := o.validatePartner(allowInsecure); err != nil {
		return err
	}
	currencies, err := o.validateCurrencies()
	if err != nil {
		return err
	}
	if err := o.validateMargin(); err != nil {
		return err
	}
	if err := o.validateLimits(currencies); err != nil {
		return err
	}
	if o.OddsTolerance.IsNegative() || o.OddsTolerance.GreaterThan(decimal.NewFromInt(1)) {
		return invalidf("odds_tolerance must be between 0 and 1")
	}
	return nil
}

// validatePartner checks the integration and what it needs of the
// operator's partner settings (casino ids, JWKS, session and wallet URLs,
// signing secret), clearing the settings it does not use and setting
// missing casino ids to none.
func (o *Operator) validatePartner(allowInsecure bool) error {
	switch o.Integration {
	case IntegrationStandalone:
		if err := checkPartnerURL("jwks_url", o.JWKSURL, allowInsecure); err != nil {
			return err
		}
		if o.SessionURL != "" {
			if err := checkPartnerURL("session_url", o.SessionURL, allowInsecure); err != nil {
				return err
			}
		}
	case IntegrationAggregator:
		o.SessionURL = ""
		if len(o.CasinoIDs) == 0 {
			return invalidf("an aggregator operator needs casino_ids")
		}
	case IntegrationBundled:
		// Nothing of the operator's is called: its partner settings
		// would only mislead.
		o.WalletURL, o.SigningSecret, o.JWKSURL, o.SessionURL = "", "", "", ""
	default:
		return invalidf("integration must be standalone, aggregator or bundled")
	}
	if o.CasinoIDs == nil {
		o.CasinoIDs = []string{}
	}
	if o.Integration != IntegrationBundled {
		if err := checkPartnerURL("wallet_url", o.WalletURL, allowInsecure); err != nil {
			return err
		}
		if len(o.SigningSecret) < 16 {
			return invalidf("signing_secret must be at least 16 characters")
		}
	}
	return nil
}

// validateCurrencies checks the currencies, fills a currency's unset
// decimals from ISO 4217, and returns the set of their codes.
func (o *Operator) validateCurrencies() (map[string]bool, error) {
	if len(o.Currencies) == 0 {
		return nil, invalidf("currencies must name at least one currency")
	}
	seen := map[string]bool{}
	for i, c := range o.Currencies {
		if !currencyCode.MatchString(c.Code) {
			return nil, invalidf("currencies[%d].code %q is not a currency code", i, c.Code)
		}
		if o.Integration == IntegrationStandalone && !ValidWalletCurrency(c.Code) {
			return nil, invalidf("currencies[%d].code %q: a standalone operator's currency codes are 3 to 5 upper-case letters, as its wallet receives them", i, c.Code)
		}
		if seen[c.Code] {
			return nil, invalidf("currency %s is listed twice", c.Code)
		}
		seen[c.Code] = true
		if c.Decimals == decimalsUnset {
			d, ok := money.CurrencyDecimals(c.Code)
			if !ok {
				return nil, invalidf("currencies[%d].decimals is required: %s is not an ISO 4217 currency with a minor unit", i, c.Code)
			}
			o.Currencies[i].Decimals, c.Decimals = d, d
		}
		if c.Decimals < 0 || c.Decimals > 12 {
			return nil, invalidf("currencies[%d].decimals must be 0 to 12", i)
		}
	}
	return seen, nil
}

// validateMargin checks the margin and fills its default method.
func (o *Operator) validateMargin() error {
	if o.Margin.Method == "" {
		o.Margin.Method = odds.DefaultMethod
	}
	if !o.Margin.Method.Valid() {
		return invalidf("margin.method must be one of %v", odds.Methods())
	}
	if o.Margin.Value.IsNegative() || o.Margin.Value.GreaterThanOrEqual(decimal.New(5, -1)) {
		return invalidf("margin.value must be at least 0 and below 0.5")
	}
	return nil
}

// validateLimits checks that the limits are set for exactly the
// currencies (the set of their codes) and are consistent.
func (o *Operator) validateLimits(currencies map[string]bool) error {
	for code, l := range o.Limits {
		if !currencies[code] {
			return invalidf("limits name %s, which is not one of the currencies", code)
		}
		if !l.MinStake.IsPositive() || l.MaxStake.LessThan(l.MinStake) || !l.MaxPayout.IsPositive() || !l.OutcomeExposure.IsPositive() {
			return invalidf("limits.%s: min_stake must be positive, max_stake at least min_stake, max_payout and outcome_exposure positive", code)
		}
	}
	for _, c := range o.Currencies {
		if _, ok := o.Limits[c.Code]; !ok {
			return invalidf("limits must be set for %s", c.Code)
		}
	}
	return nil
}

// Currency returns the operator's currency with code.
func (o *Operator) Currency(code string) (Currency, bool) {
	i := slices.IndexFunc(o.Currencies, func(c Currency) bool { return c.Code == code })
	if i < 0 {
		return Currency{}, false
	}
	return o.Currencies[i], true
}

// PayoutDecimals is the scale a payout in cur is rounded to: the
// currency's decimals, or 12 on the aggregator path (aggregator-api.md:
// "Payouts are rounded to 12 decimals").
func (o *Operator) PayoutDecimals(cur Currency) int32 {
	if o.Integration == IntegrationAggregator {
		return money.AggregatorDecimals
	}
	return cur.Decimals
}

func checkPartnerURL(field, raw string, allowInsecure bool) error {
	u, err := url.Parse(raw)
	if err != nil || u.Host == "" || (u.Scheme != "https" && u.Scheme != "http") {
		return invalidf("%s must be an absolute URL", field)
	}
	if u.Scheme != "https" && !allowInsecure {
		return invalidf("%s must use https (a development server may allow http:// with --dev-allow-insecure)", field)
	}
	return nil
}
