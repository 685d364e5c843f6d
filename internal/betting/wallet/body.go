package wallet

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"strings"
	"unicode/utf8"

	"github.com/foresight-dev/foresight/internal/betting"
	"github.com/foresight-dev/foresight/internal/money"
)

// ErrInvalidBody is wrapped by the errors of WithdrawalBody, DepositBody and
// RollbackBody: a request the platform must never send.
var ErrInvalidBody = errors.New("wallet: invalid request")

// Withdrawal is a debit of a bettor's stake at bet placement
// (POST /v1/withdrawals).
type Withdrawal struct {
	// TransactionID is the platform's id of this debit and the operator's
	// idempotency key; a rollback names it in its path.
	TransactionID string
	// BettorID is the bettor's id in the operator's system (the JWT's sub).
	BettorID string
	// Amount is the stake; it must be positive and have no more than
	// Decimals decimal places.
	Amount money.Amount
	// Currency is the bettor's currency code.
	Currency string
	// Decimals is the number of decimal places of Currency as configured for
	// the operator (its ISO 4217 minor units unless overridden); the amount
	// is written with exactly that many.
	Decimals int32
	// MarketID and BetID go into the metadata object.
	MarketID string
	BetID    string
}

// DepositResult is how a bet settled, as told to the operator in a
// deposit's metadata.
type DepositResult string

// The results of a deposit.
const (
	// ResultWon pays stake × entry_odds.
	ResultWon DepositResult = "won"
	// ResultLost pays zero: the deposit is a settlement notification.
	ResultLost DepositResult = "lost"
	// ResultVoided returns the stake.
	ResultVoided DepositResult = "voided"
)

// Deposit is a credit at settlement (POST /v1/deposits).
type Deposit struct {
	// TransactionID is the platform's id of this credit and the operator's
	// idempotency key.
	TransactionID string
	// BettorID is the bettor's id in the operator's system.
	BettorID string
	// Amount is the payout: positive for ResultWon and ResultVoided, zero
	// for ResultLost; at most Decimals decimal places.
	Amount money.Amount
	// Currency is the bet's currency code.
	Currency string
	// Decimals is the number of decimal places of Currency as configured for
	// the operator; the amount is written with exactly that many.
	Decimals int32
	// MarketID, BetID and WithdrawalTransactionID (the transaction_id of the
	// bet's stake debit) go into the metadata object.
	MarketID                string
	BetID                   string
	WithdrawalTransactionID string
	// Result is won, lost or voided.
	Result DepositResult
}

// Rollback reverses a withdrawal
// (DELETE /v1/rollbacks/{withdrawal transaction_id}).
type Rollback struct {
	// TransactionID is the rollback's own id (not the withdrawal's).
	TransactionID string
	// BettorID is the bettor's id in the operator's system.
	BettorID string
	// Amount is the stake being returned: positive, at most Decimals
	// decimal places.
	Amount money.Amount
	// Currency is the withdrawal's currency code.
	Currency string
	// Decimals is the number of decimal places of Currency as configured for
	// the operator.
	Decimals int32
}

// The wire forms. Field order is the order in the JSON.

// transferHead is what every body begins with.
type transferHead struct {
	TransactionID string `json:"transaction_id"`
	BettorID      string `json:"bettor_id"`
	Amount        string `json:"amount"`
	Currency      string `json:"currency"`
}

type withdrawalWire struct {
	transferHead
	Metadata withdrawalMetadata `json:"metadata"`
}

type withdrawalMetadata struct {
	MarketID string `json:"market_id"`
	BetID    string `json:"bet_id"`
}

type depositWire struct {
	transferHead
	Metadata depositMetadata `json:"metadata"`
}

type depositMetadata struct {
	MarketID                string        `json:"market_id"`
	BetID                   string        `json:"bet_id"`
	WithdrawalTransactionID string        `json:"withdrawal_transaction_id"`
	Result                  DepositResult `json:"result"`
}

// WithdrawalBody returns the canonical JSON bytes of a withdrawal:
//
//	{"transaction_id":"…","bettor_id":"…","amount":"10.50","currency":"USD","metadata":{"market_id":"…","bet_id":"…"}}
//
// Persist the bytes before the first attempt and send the same bytes on
// every retry, also after a restart. Errors wrap ErrInvalidBody.
func WithdrawalBody(w Withdrawal) ([]byte, error) {
	head, err := newTransferHead(w.TransactionID, w.BettorID, w.Amount, w.Currency, w.Decimals, true,
		field{"market_id", w.MarketID}, field{"bet_id", w.BetID})
	if err != nil {
		return nil, err
	}
	return encode(withdrawalWire{transferHead: head, Metadata: withdrawalMetadata{MarketID: w.MarketID, BetID: w.BetID}})
}

// DepositBody returns the canonical JSON bytes of a deposit:
//
//	{"transaction_id":"…","bettor_id":"…","amount":"0.00","currency":"USD","metadata":{"market_id":"…","bet_id":"…","withdrawal_transaction_id":"…","result":"lost"}}
//
// The amount must be zero for a lost bet and positive otherwise. Errors wrap
// ErrInvalidBody.
func DepositBody(d Deposit) ([]byte, error) {
	switch d.Result {
	case ResultLost:
		if !d.Amount.IsZero() {
			return nil, fmt.Errorf("%w: the amount of a lost bet's deposit must be 0", ErrInvalidBody)
		}
	case ResultWon, ResultVoided:
		if !d.Amount.IsPositive() {
			return nil, fmt.Errorf("%w: the amount of a %s bet's deposit must be positive", ErrInvalidBody, d.Result)
		}
	default:
		return nil, fmt.Errorf("%w: result must be won, lost or voided", ErrInvalidBody)
	}
	head, err := newTransferHead(d.TransactionID, d.BettorID, d.Amount, d.Currency, d.Decimals, false,
		field{"market_id", d.MarketID}, field{"bet_id", d.BetID},
		field{"withdrawal_transaction_id", d.WithdrawalTransactionID})
	if err != nil {
		return nil, err
	}
	return encode(depositWire{transferHead: head, Metadata: depositMetadata{
		MarketID:                d.MarketID,
		BetID:                   d.BetID,
		WithdrawalTransactionID: d.WithdrawalTransactionID,
		Result:                  d.Result,
	}})
}

// RollbackBody returns the canonical JSON bytes of a rollback:
//
//	{"transaction_id":"…","bettor_id":"…","amount":"10.50","currency":"USD"}
//
// Errors wrap ErrInvalidBody.
func RollbackBody(r Rollback) ([]byte, error) {
	head, err := newTransferHead(r.TransactionID, r.BettorID, r.Amount, r.Currency, r.Decimals, true)
	if err != nil {
		return nil, err
	}
	return encode(head)
}

// newTransferHead checks what every body has, and the ids of its metadata,
// and returns the head with the amount written with exactly decimals
// places; positive says the amount must be more than zero. It checks the
// amount first, then the ids in order, then the currency.
func newTransferHead(transactionID, bettorID string, amount money.Amount, currency string, decimals int32, positive bool, metadata ...field) (transferHead, error) {
	a, err := formatAmount(amount, decimals, positive)
	if err != nil {
		return transferHead{}, err
	}
	if err := checkFields(append([]field{{"transaction_id", transactionID}, {"bettor_id", bettorID}}, metadata...)...); err != nil {
		return transferHead{}, err
	}
	if err := checkCurrency(currency); err != nil {
		return transferHead{}, err
	}
	return transferHead{TransactionID: transactionID, BettorID: bettorID, Amount: a, Currency: currency}, nil
}

// maxIDLength bounds the ids the platform sends.
const maxIDLength = 255

type field struct{ name, value string }

func checkFields(fields ...field) error {
	for _, f := range fields {
		if err := checkID(f.name, f.value); err != nil {
			return err
		}
	}
	return nil
}

// checkID accepts 1 to maxIDLength bytes of valid UTF-8 without control
// characters.
func checkID(name, v string) error {
	if v == "" || len(v) > maxIDLength || !utf8.ValidString(v) {
		return fmt.Errorf("%w: %s must be 1 to %d bytes of UTF-8", ErrInvalidBody, name, maxIDLength)
	}
	for _, r := range v {
		if r < 0x20 || r == 0x7f {
			return fmt.Errorf("%w: %s contains a control character", ErrInvalidBody, name)
		}
	}
	return nil
}

func checkCurrency(c string) error {
	if !betting.ValidWalletCurrency(c) {
		return fmt.Errorf("%w: currency must be 3 to 5 uppercase letters", ErrInvalidBody)
	}
	return nil
}

// formatAmount writes a with exactly decimals places, refusing an amount
// that would need rounding: the wallet must move exactly what the platform
// recorded.
func formatAmount(a money.Amount, decimals int32, positive bool) (string, error) {
	if decimals < 0 || decimals > money.MaxScale {
		return "", fmt.Errorf("%w: decimals must be between 0 and %d", ErrInvalidBody, money.MaxScale)
	}
	if a.IsNegative() || (positive && !a.IsPositive()) {
		if positive {
			return "", fmt.Errorf("%w: amount must be positive", ErrInvalidBody)
		}
		return "", fmt.Errorf("%w: amount must not be negative", ErrInvalidBody)
	}
	if !a.FitsDecimals(decimals) {
		return "", fmt.Errorf("%w: amount %s has more than %d decimal places", ErrInvalidBody, a, decimals)
	}
	return a.StringFixed(decimals), nil
}

// encode marshals v without HTML escaping and without a trailing newline.
func encode(v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrInvalidBody, err)
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n")), nil
}

// prepare checks a call's inputs and returns the endpoint URL: the wallet
// URL (without a trailing slash) followed by path.
func (c *Client) prepare(walletURL, secret string, body []byte, path string) (string, error) {
	u, err := url.Parse(walletURL)
	switch {
	case err != nil || u.Host == "" || u.Opaque != "" || (u.Scheme != "https" && u.Scheme != "http"):
		return "", fmt.Errorf("%w: the wallet URL must be an absolute https URL", ErrConfig)
	case u.Scheme == "http" && !c.calls.AllowsInsecure():
		return "", fmt.Errorf("%w: the wallet URL must use https", ErrConfig)
	case u.User != nil:
		return "", fmt.Errorf("%w: the wallet URL must not contain credentials", ErrConfig)
	case u.RawQuery != "" || u.ForceQuery || u.Fragment != "":
		return "", fmt.Errorf("%w: the wallet URL must not have a query or a fragment", ErrConfig)
	case secret == "":
		return "", fmt.Errorf("%w: the operator has no signing secret", ErrConfig)
	case !json.Valid(body):
		return "", fmt.Errorf("%w: the body is not JSON", ErrConfig)
	}
	return strings.TrimRight(u.String(), "/") + path, nil
}
