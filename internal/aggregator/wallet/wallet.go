// Package wallet is the platform's client of an aggregator's wallet
// (aggregator-api.md, "Wallet requests and responses"): Player/Balance,
// Round/BetWin (a bet's stake, a win or a void's refund), Round/Finish (a
// lost bet) and Round/Rollback (the reversal of a failed debit), each a JSON
// body signed with X-REQUEST-SIGN (lowercase hex HMAC-SHA256 of the exact
// bytes) under the operator's wallet base URL.
//
// Bodies are built from the bet alone (Go struct order, no timestamps), so
// every attempt and every retry after a crash sends the same bytes, and the
// aggregator's idempotency by id_provider holds. A bet's transactions use
// our ids: the stake "wd-<bet id>" (the bet's withdrawal id), the credit
// "dp-<bet id>", the rollback "rb-<bet id>"; round_id is the bet id.
//
// Every answer's meta.api_code is read, on 200 too, and parsed as a number:
// 100 is insufficient_funds, 105 and 106 bet_limit_reached, 110 (player
// disabled) bettor_blocked, any other 1xx or 4xx a final bet_rejected_other;
// 503 and every other number or a non-numeric code are temporary, as are
// 5xx answers, time-outs, unreadable bodies and a 200 to a credit (a win, a
// Round/Finish, a Round/Rollback) without a decimal-string balance, which
// is not the protocol's answer. An HTTP 403 without an api_code (a refused
// signature) is final.
package wallet

import (
	"bytes"
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/foresight-dev/foresight/internal/aggregator"
	"github.com/foresight-dev/foresight/internal/betting"
	"github.com/foresight-dev/foresight/internal/money"
	"github.com/foresight-dev/foresight/internal/netguard"
)

// Limits and schedule of the calls.
const (
	// DefaultTimeout bounds one attempt when Options.Timeout is zero.
	DefaultTimeout = 5 * time.Second
	// BetAttempts is how many Round/BetWin requests a stake's debit sends
	// at most while the answers are temporary.
	BetAttempts = 3
	// FirstBackoff is the wait before the second attempt; each further
	// wait doubles, up to MaxBackoff.
	FirstBackoff = 200 * time.Millisecond
	// MaxBackoff caps the wait between two attempts.
	MaxBackoff = 2 * time.Second
	// maxAnswer is how much of an answer is read.
	maxAnswer = 64 << 10
)

// Endpoint paths under the wallet base URL.
const (
	PathBalance  = "/v2/provider_agg.Player/Balance"
	PathBetWin   = "/v2/provider_agg.Round/BetWin"
	PathFinish   = "/v2/provider_agg.Round/Finish"
	PathRollback = "/v2/provider_agg.Round/Rollback"
)

// ErrConfig is wrapped by errors of calls that cannot be made: the wallet
// URL is not an absolute https URL (http needs Options.AllowInsecure) or the
// secret is empty. Nothing was sent.
var ErrConfig = errors.New("aggregator wallet: invalid call")

// Options configure a Client.
type Options struct {
	// HTTPClient sends the requests; nil means a client whose dialer refuses
	// non-public addresses unless AllowInsecure. Redirects are not followed.
	HTTPClient *http.Client
	// AllowInsecure permits http:// wallet URLs and non-public addresses.
	AllowInsecure bool
	// Timeout bounds each attempt; zero means DefaultTimeout.
	Timeout time.Duration
}

// Client calls aggregators' wallets; it is a betting.Wallet for operators
// of integration "aggregator" and the aggregator.BalanceReader of session
// starts. It is safe for concurrent use.
type Client struct {
	hc       *http.Client
	insecure bool
	timeout  time.Duration
}

var (
	_ betting.Wallet           = (*Client)(nil)
	_ aggregator.BalanceReader = (*Client)(nil)
)

// New returns a Client.
func New(opts Options) *Client {
	var hc http.Client
	if opts.HTTPClient != nil {
		hc = *opts.HTTPClient
	} else {
		tr := http.DefaultTransport.(*http.Transport).Clone()
		if !opts.AllowInsecure {
			tr.Proxy = nil
			d := &net.Dialer{Timeout: 10 * time.Second, KeepAlive: 30 * time.Second, Control: netguard.Control}
			tr.DialContext = d.DialContext
		}
		tr.MaxIdleConnsPerHost = 64
		hc.Transport = tr
	}
	hc.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	c := &Client{hc: &hc, insecure: opts.AllowInsecure, timeout: opts.Timeout}
	if c.timeout <= 0 {
		c.timeout = DefaultTimeout
	}
	return c
}

// Sign returns the X-REQUEST-SIGN of body: lowercase hex HMAC-SHA256.
func Sign(secret, body []byte) string {
	m := hmac.New(sha256.New, secret)
	m.Write(body)
	return hex.EncodeToString(m.Sum(nil))
}

// Request bodies, in the field order of the spec's table.
type (
	transaction struct {
		IDProvider         string `json:"id_provider"`
		Type               string `json:"type"`
		Amount             string `json:"amount,omitempty"`
		OriginalIDProvider string `json:"original_id_provider,omitempty"`
	}
	balanceRequest struct {
		AccountID string `json:"account_id"`
		Currency  string `json:"currency"`
		GameID    string `json:"game_id"`
		SessionID string `json:"session_id"`
	}
	betWinRequest struct {
		AccountID    string        `json:"account_id"`
		Currency     string        `json:"currency"`
		GameID       string        `json:"game_id"`
		RoundID      string        `json:"round_id"`
		Finished     bool          `json:"finished"`
		SessionID    string        `json:"session_id"`
		Transactions []transaction `json:"transactions"`
	}
	finishRequest struct {
		AccountID string `json:"account_id"`
		Currency  string `json:"currency"`
		RoundID   string `json:"round_id"`
		SessionID string `json:"session_id"`
	}
	rollbackRequest struct {
		AccountID       string        `json:"account_id"`
		Currency        string        `json:"currency"`
		GameID          string        `json:"game_id"`
		RoundIDProvider string        `json:"round_id_provider"`
		Finished        bool          `json:"finished"`
		SessionID       string        `json:"session_id"`
		Transactions    []transaction `json:"transactions"`
	}
)

// Transaction ids of a bet.
func creditID(b betting.Bet) string   { return "dp-" + b.ID }
func rollbackID(b betting.Bet) string { return "rb-" + b.ID }

// kind classifies an answer.
type kind int

const (
	temporary kind = iota // resend the identical request
	done                  // 200 without an api_code
	final                 // a definite refusal
)

// answer is what one call established.
type answer struct {
	kind    kind
	code    betting.RejectionCode // the rejection code of a final answer
	detail  string                // for logs: status and api_code
	status  int                   // the HTTP status; 0 without an answer
	failure string                // a betting.Failure* value for an answer missing or unreadable
	started time.Time
	took    time.Duration
	body    struct {
		RoundID      *string `json:"round_id"`
		Balance      *string `json:"balance"`
		Transactions []struct {
			IDProvider string `json:"id_provider"`
			ID         string `json:"id"`
		} `json:"transactions"`
		Meta *struct {
			APICode json.RawMessage `json:"api_code"`
		} `json:"meta"`
	}
}

// classify reads meta.api_code of every answer; see the package comment.
func classify(status int, raw []byte) answer {
	var a answer
	parsed := json.Unmarshal(raw, &a.body) == nil
	if parsed && a.body.Meta != nil && len(a.body.Meta.APICode) > 0 && string(a.body.Meta.APICode) != "null" {
		text := string(a.body.Meta.APICode)
		if unq, err := strconv.Unquote(text); err == nil {
			text = unq
		}
		a.detail = fmt.Sprintf("HTTP %d, api_code %q", status, text)
		n, err := strconv.Atoi(strings.TrimSpace(text))
		switch {
		case err != nil:
			a.kind = temporary
		case n == 100:
			a.kind, a.code = final, betting.RejectInsufficientFund
		case n == 105 || n == 106:
			a.kind, a.code = final, betting.RejectBetLimitReached
		case n == 110:
			a.kind, a.code = final, betting.RejectBettorBlocked
		case (n >= 100 && n <= 199) || (n >= 400 && n <= 499):
			a.kind, a.code = final, betting.RejectOther
		default:
			a.kind = temporary
		}
		return a
	}
	a.detail = fmt.Sprintf("HTTP %d", status)
	switch {
	case status == http.StatusOK && parsed:
		a.kind = done
	case status == http.StatusOK:
		// Not JSON, or JSON of other types than the protocol's.
		a.kind, a.failure = temporary, betting.FailureUnreadableAnswer
	case status == http.StatusForbidden:
		a.kind, a.code = final, betting.RejectOther
	default:
		a.kind = temporary
	}
	return a
}

// call sends body once.
func (c *Client) call(ctx context.Context, op betting.Operator, path string, body []byte) (answer, error) {
	start := time.Now()
	a, err := c.exchange(ctx, op, path, body)
	a.started, a.took = start.UTC(), time.Since(start)
	return a, err
}

func (c *Client) exchange(ctx context.Context, op betting.Operator, path string, body []byte) (answer, error) {
	u, err := url.Parse(strings.TrimRight(op.WalletURL, "/") + path)
	if err != nil || u.Host == "" || (u.Scheme != "https" && !(c.insecure && u.Scheme == "http")) {
		return answer{}, fmt.Errorf("%w: operator %s's wallet URL must be an absolute https URL", ErrConfig, op.ID)
	}
	if op.SigningSecret == "" {
		return answer{}, fmt.Errorf("%w: operator %s has no signing secret", ErrConfig, op.ID)
	}
	ctx, cancel := context.WithTimeout(ctx, c.timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, u.String(), bytes.NewReader(body))
	if err != nil {
		return answer{}, fmt.Errorf("%w: %w", ErrConfig, err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("X-REQUEST-SIGN", Sign([]byte(op.SigningSecret), body))
	resp, err := c.hc.Do(req)
	if err != nil {
		// The error names the URL, which may hold a token: it goes into
		// attempt records and logs without its path and query.
		err = netguard.RedactErrorURL(err)
		if errors.Is(err, netguard.ErrForbiddenAddress) {
			return answer{}, err
		}
		return answer{kind: temporary, detail: "no answer", failure: betting.TransportFailure(err)}, nil
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(io.LimitReader(resp.Body, maxAnswer))
	if err != nil {
		return answer{kind: temporary, detail: "answer cut short", status: resp.StatusCode, failure: betting.FailureUnreadableAnswer}, nil
	}
	a := classify(resp.StatusCode, raw)
	a.status = resp.StatusCode
	return a, nil
}

// attempt describes one call for the record of the bet's transaction of
// kind with id and amount.
func (a answer) attempt(b betting.Bet, kind, id string, amount money.Amount) betting.WalletAttempt {
	w := betting.WalletAttempt{BetID: b.ID, Kind: kind, TransactionID: id, Amount: amount, Currency: b.Currency, StartedAt: a.started,
		Duration: a.took, Result: betting.AttemptUnknown, HTTPStatus: a.status, Error: a.failure}
	switch a.kind {
	case done:
		w.Result = betting.AttemptDone
	case final:
		w.Result, w.Code = betting.AttemptRefused, string(a.code)
	}
	return w
}

// Withdraw debits the bet's stake: a Player/Balance first (its answer does
// not stop the bet), then Round/BetWin with the bet, resent while the
// answers are temporary (BetAttempts, backoff). A 200 without round_id or
// balance is a failure whose debit is reversed (wallet_rolled_back); no
// definite answer is wallet_provider_unavailable with a rollback.
func (c *Client) Withdraw(ctx context.Context, op betting.Operator, b betting.Bet) (betting.WalletAnswer, error) {
	if _, err := c.Balance(ctx, op, b.BettorID, b.Currency, b.SessionID); errors.Is(err, ErrConfig) {
		return betting.WalletAnswer{}, err
	}
	body, err := json.Marshal(betWinRequest{AccountID: b.BettorID, Currency: b.Currency, GameID: aggregator.GameID, RoundID: b.ID,
		SessionID: b.SessionID, Transactions: []transaction{{IDProvider: b.WithdrawalTxID, Type: "bet", Amount: b.Stake.String()}}})
	if err != nil {
		return betting.WalletAnswer{}, err
	}
	backoff := FirstBackoff
	var last answer
	var attempts []betting.WalletAttempt
	for attempt := 1; ; attempt++ {
		last, err = c.call(ctx, op, PathBetWin, body)
		if err != nil {
			return betting.WalletAnswer{Attempts: attempts}, err
		}
		attempts = append(attempts, last.attempt(b, betting.TxWithdrawal, b.WithdrawalTxID, b.Stake))
		if last.kind != temporary || attempt == BetAttempts {
			break
		}
		select {
		case <-ctx.Done():
			return betting.WalletAnswer{Attempts: attempts}, ctx.Err()
		case <-time.After(backoff):
		}
		backoff = min(2*backoff, MaxBackoff)
	}
	switch last.kind {
	case final:
		return betting.WalletAnswer{Status: betting.WalletRefused, Code: last.code, Detail: last.detail, Attempts: attempts}, nil
	case done:
		balance, ok := amount(last.body.Balance)
		if !ok || last.body.RoundID == nil || *last.body.RoundID == "" {
			// Not the answer the protocol requires: the debit is reversed.
			attempts[len(attempts)-1].Result, attempts[len(attempts)-1].Error = betting.AttemptUnknown, betting.FailureUnreadableAnswer
			return betting.WalletAnswer{Status: betting.WalletUnknown, Code: betting.RejectWalletRolledBack,
				Detail: "Round/BetWin answered 200 without round_id or balance", Attempts: attempts}, nil
		}
		var txID string
		if len(last.body.Transactions) > 0 {
			txID = last.body.Transactions[0].ID
		}
		return betting.WalletAnswer{Status: betting.WalletDone, OperatorTxID: txID, Balance: &balance, Attempts: attempts}, nil
	}
	if ctx.Err() != nil {
		return betting.WalletAnswer{Attempts: attempts}, ctx.Err()
	}
	return betting.WalletAnswer{Status: betting.WalletUnknown, Code: betting.RejectWalletUnavailable, Detail: last.detail, Attempts: attempts}, nil
}

func amount(s *string) (money.Amount, bool) {
	if s == nil {
		return money.Amount{}, false
	}
	a, err := money.ParseAmount(*s)
	return a, err == nil
}

// Rollback reverses the bet's stake (Round/Rollback naming the stake's
// id_provider), one attempt; Done only on a 200 without an api_code and
// with a decimal-string balance (anything else is sent again).
func (c *Client) Rollback(ctx context.Context, op betting.Operator, b betting.Bet) (betting.WalletCredit, error) {
	body, err := json.Marshal(rollbackRequest{AccountID: b.BettorID, Currency: b.Currency, GameID: aggregator.GameID, RoundIDProvider: b.ID,
		SessionID: b.SessionID, Transactions: []transaction{{IDProvider: rollbackID(b), Type: "rollback", OriginalIDProvider: b.WithdrawalTxID}}})
	if err != nil {
		return betting.WalletCredit{}, err
	}
	return c.credit(ctx, op, PathRollback, body, b, betting.TxRollback, rollbackID(b), b.Stake)
}

// Deposit closes a settled or voided bet's round, one attempt: a win
// (payout rounded to 12 decimals, trailing zeros removed) or a void (the
// stake) is a Round/BetWin win with finished true; a loss is Round/Finish.
// Done only on a 200 without an api_code and with a decimal-string
// balance: a 200 without one is not the protocol's answer, and is sent
// again.
func (c *Client) Deposit(ctx context.Context, op betting.Operator, b betting.Bet) (betting.WalletCredit, error) {
	if b.PayoutAmount == nil {
		return betting.WalletCredit{}, fmt.Errorf("bet %s has no payout", b.ID)
	}
	var path string
	var body []byte
	var err error
	paid := *b.PayoutAmount
	switch {
	case b.Status == betting.BetVoided || b.PayoutAmount.IsPositive():
		pay := b.PayoutAmount.StringTrimmed()
		if b.Status == betting.BetVoided {
			pay, paid = b.Stake.String(), b.Stake
		}
		path = PathBetWin
		body, err = json.Marshal(betWinRequest{AccountID: b.BettorID, Currency: b.Currency, GameID: aggregator.GameID, RoundID: b.ID,
			Finished: true, SessionID: b.SessionID, Transactions: []transaction{{IDProvider: creditID(b), Type: "win", Amount: pay}}})
	default:
		path = PathFinish
		body, err = json.Marshal(finishRequest{AccountID: b.BettorID, Currency: b.Currency, RoundID: b.ID, SessionID: b.SessionID})
	}
	if err != nil {
		return betting.WalletCredit{}, err
	}
	return c.credit(ctx, op, path, body, b, betting.TxDeposit, creditID(b), paid)
}

// credit sends a deposit's or a rollback's body once; the attempt is
// recorded as the bet's transaction of kind with id and amount sum.
func (c *Client) credit(ctx context.Context, op betting.Operator, path string, body []byte, b betting.Bet, kind, id string,
	sum money.Amount) (betting.WalletCredit, error) {
	a, err := c.call(ctx, op, path, body)
	if err != nil {
		return betting.WalletCredit{}, err
	}
	balance, ok := amount(a.body.Balance)
	if a.kind == done && !ok {
		// A 200 without the balance every answer of the protocol carries
		// is not the aggregator's answer (a proxy's, a stub's): the credit
		// may not have been applied, so it is sent again, idempotently.
		a.kind, a.failure = temporary, betting.FailureUnreadableAnswer
	}
	attempts := []betting.WalletAttempt{a.attempt(b, kind, id, sum)}
	if a.kind != done {
		return betting.WalletCredit{Attempts: attempts}, nil
	}
	return betting.WalletCredit{Done: true, Balance: &balance, Attempts: attempts}, nil
}

// Balance reads a player's balance (Player/Balance), one attempt.
func (c *Client) Balance(ctx context.Context, op betting.Operator, accountID, currency, sessionID string) (money.Amount, error) {
	body, err := json.Marshal(balanceRequest{AccountID: accountID, Currency: currency, GameID: aggregator.GameID, SessionID: sessionID})
	if err != nil {
		return money.Amount{}, err
	}
	a, err := c.call(ctx, op, PathBalance, body)
	if err != nil {
		return money.Amount{}, err
	}
	if a.kind != done {
		return money.Amount{}, fmt.Errorf("Player/Balance: %s", a.detail)
	}
	balance, ok := amount(a.body.Balance)
	if !ok {
		return money.Amount{}, errors.New("Player/Balance: no readable balance")
	}
	return balance, nil
}
