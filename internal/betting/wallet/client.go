// Package wallet is the platform's client of a standalone operator's wallet
// (bettor-and-operator-api.md, "Operator-hosted endpoints"): withdrawals at
// bet placement, deposits at settlement and rollbacks of failed bets, each
// a JSON request signed with the operator's signing secret (Sign, Verify).
//
// The caller builds a request's bytes once (WithdrawalBody, DepositBody,
// RollbackBody), stores them with the bet, and hands the same bytes to every
// call, so a retry, even after a crash, repeats the request exactly and the
// operator's idempotency by transaction_id holds. Withdraw retries by
// itself (GUIDE §2); Deposit and Rollback make one attempt each and leave
// retrying to the caller's durable outbox.
//
// Outcomes are values (WithdrawalResult, Outcome), not errors: an error from
// a call means the call could not be made at all (a bad or insecure URL, an
// empty secret, a body that is not JSON, a wallet host that resolves to a
// forbidden address) and always wraps ErrConfig or ErrForbiddenAddress.
// Neither errors nor outcomes ever contain the signing secret.
package wallet

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/google/uuid"

	"github.com/foresight-dev/foresight/internal/betting"
	"github.com/foresight-dev/foresight/internal/money"
	"github.com/foresight-dev/foresight/internal/netguard"
)

// Limits and schedule of the calls.
const (
	// DefaultTimeout bounds one attempt (connect, send, answer and body)
	// when Options.Timeout is zero.
	DefaultTimeout = 5 * time.Second
	// WithdrawalAttempts is how many requests Withdraw sends at most when
	// the answers are unknown (5xx, time-outs, connection errors, unreadable
	// 2xx bodies).
	WithdrawalAttempts = 3
	// FirstBackoff is the wait before Withdraw's second request; each
	// further wait doubles, up to MaxBackoff.
	FirstBackoff = 200 * time.Millisecond
	// MaxBackoff caps the wait between two of Withdraw's requests.
	MaxBackoff = 2 * time.Second
	// MaxResponseBody is how much of an answer's body is read (64 KiB); a
	// 2xx withdrawal answer longer than that counts as unreadable.
	MaxResponseBody = 64 << 10
)

// ErrConfig is wrapped by the errors of Withdraw, Deposit and Rollback when
// a call cannot be made as asked: the wallet URL is not an absolute http(s)
// URL, uses http:// without Options.AllowInsecure, carries credentials, a
// query or a fragment; the secret is empty; the body is not JSON; a
// rollback's withdrawal id is unusable. No request was sent.
var ErrConfig = errors.New("wallet: invalid call")

// ErrForbiddenAddress is wrapped by the error of a call whose first
// connection was refused because the wallet host resolved to a loopback,
// private, link-local or otherwise non-public address (only with the
// default HTTP client and without Options.AllowInsecure). No request was
// sent.
var ErrForbiddenAddress = netguard.ErrForbiddenAddress

// Options configure a Client.
type Options struct {
	// HTTPClient sends the requests. Nil means a client of the package's
	// own whose dialer refuses non-public addresses unless AllowInsecure.
	// A given client is used as is (its transport, its TLS settings, its
	// dialer), except that redirects are never followed.
	HTTPClient *http.Client
	// AllowInsecure permits http:// wallet URLs and non-public addresses
	// (local development and tests only).
	AllowInsecure bool
	// Timeout bounds each attempt; zero means DefaultTimeout.
	Timeout time.Duration
	// Now returns the time put in X-Timestamp; nil means time.Now.
	Now func() time.Time
}

// Client calls operators' wallets. It is safe for concurrent use.
type Client struct {
	hc       *http.Client
	insecure bool
	timeout  time.Duration
	now      func() time.Time
}

// New returns a Client.
func New(opts Options) *Client {
	var hc http.Client
	if opts.HTTPClient != nil {
		hc = *opts.HTTPClient
	} else {
		tr := http.DefaultTransport.(*http.Transport).Clone()
		if !opts.AllowInsecure {
			tr.Proxy = nil // a proxy would hide the address the guard checks
			d := &net.Dialer{Timeout: 10 * time.Second, KeepAlive: 30 * time.Second, Control: netguard.Control}
			tr.DialContext = d.DialContext
		}
		hc.Transport = tr
	}
	// A redirect is an answer like any other non-2xx: the operator did
	// not process the request at this URL.
	hc.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	c := &Client{hc: &hc, insecure: opts.AllowInsecure, timeout: opts.Timeout, now: opts.Now}
	if c.timeout <= 0 {
		c.timeout = DefaultTimeout
	}
	if c.now == nil {
		c.now = time.Now
	}
	return c
}

// Status is the outcome of a withdrawal. The zero value is StatusUnknown,
// so a result that was never filled in claims nothing.
type Status int

// The outcomes of a withdrawal.
const (
	// StatusUnknown: no definite answer after every attempt (5xx, time-out,
	// connection error, unreadable 2xx body, redirect, or the context ended).
	// The stake may or may not have been debited: reject the bet with a null
	// rejection_code and roll the withdrawal back.
	StatusUnknown Status = iota
	// StatusSuccess: the operator debited the stake (2xx with its
	// transaction_id and the balance).
	StatusSuccess
	// StatusRejected: the operator refused the debit (4xx); nothing was
	// debited and no rollback is needed. Code says why.
	StatusRejected
)

// String returns "unknown", "success" or "rejected".
func (s Status) String() string {
	switch s {
	case StatusSuccess:
		return "success"
	case StatusRejected:
		return "rejected"
	case StatusUnknown:
		return "unknown"
	}
	return fmt.Sprintf("Status(%d)", int(s))
}

// RejectionCode is the bet's rejection_code for a refused withdrawal
// (bettor-and-operator-api.md, "Errors"): one of betting's rejection
// codes, the platform's one set.
type RejectionCode = betting.RejectionCode

// The rejection codes a withdrawal can produce, named for the answers
// that produce them.
const (
	// CodeInsufficientFunds: {"error":"insufficient_funds"}, or 409 with no
	// body.
	CodeInsufficientFunds = betting.RejectInsufficientFund
	// CodeBettorBlocked: {"error":"bettor_blocked"} or
	// {"error":"bettor_not_found"} (the spec's rejection code covers a
	// bettor who is blocked or unknown).
	CodeBettorBlocked = betting.RejectBettorBlocked
	// CodeBetLimitReached: {"error":"bet_limit_reached"}.
	CodeBetLimitReached = betting.RejectBetLimitReached
	// CodeBetRejectedOther: any other 4xx.
	CodeBetRejectedOther = betting.RejectOther
)

// WithdrawalResult is what Withdraw learnt.
type WithdrawalResult struct {
	// Status is success, rejected or unknown.
	Status Status
	// OperatorTransactionID is the operator's own id of the debit
	// (StatusSuccess only).
	OperatorTransactionID string
	// Balance is the bettor's balance after the debit, as the operator
	// reported it (StatusSuccess only).
	Balance money.Amount
	// Code is the bet's rejection_code (StatusRejected only).
	Code RejectionCode
	// WalletError is the "error" value of the operator's 4xx body as sent
	// (for example "bettor_not_found"), shortened to 128 bytes; empty when
	// the body had none.
	WalletError string
	// HTTPStatus is the status of the last answer; 0 when the last attempt
	// got none.
	HTTPStatus int
	// Attempts is how many requests were sent (0 when the context had ended
	// before the first).
	Attempts int
	// Detail describes the last attempt for logs and the backoffice; never
	// show it to bettors.
	Detail string
	// Log holds every request sent, in order.
	Log []Attempt
}

// Attempt is what one request established, for the record of a bet's
// wallet transactions: never a body, a signature or the secret.
type Attempt struct {
	StartedAt time.Time
	Duration  time.Duration
	// Status is this request's outcome: for a withdrawal as
	// WithdrawalResult.Status; for a deposit or a rollback StatusSuccess
	// for a 2xx, StatusRejected for another 4xx, StatusUnknown otherwise.
	Status Status
	// Code is the rejection code of a refused withdrawal, or the "error"
	// value of a refused deposit's or rollback's body when it looks like a
	// code (1 to 64 ASCII letters, digits, '_', '.' or '-'); empty
	// otherwise.
	Code string
	// HTTPStatus is the answer's status; 0 when none arrived.
	HTTPStatus int
	// Err is why no answer arrived, or why its body could not be read;
	// nil otherwise. A URL in its text is shortened to scheme://host
	// (netguard.RedactURL); classify it, do not show it to bettors.
	Err error
	// Unreadable is true for a 2xx withdrawal answer without a
	// transaction_id and a balance, a 2xx deposit or rollback answer whose
	// body is neither empty nor JSON, or a 2xx body that could not be
	// read.
	Unreadable bool
}

// Outcome is what a single deposit or rollback attempt learnt.
type Outcome struct {
	// Done is true for a 2xx answer whose body is empty or JSON: the
	// operator has applied (or had already applied) the transaction.
	// Otherwise (a 2xx with another body included) the caller tries again
	// later with the same bytes.
	Done bool
	// Balance is the bettor's balance a 2xx answer reported as a JSON
	// object with a decimal-string "balance"; nil otherwise (answers to
	// deposits and rollbacks need not carry one).
	Balance *money.Amount
	// HTTPStatus is the answer's status; 0 when there was none.
	HTTPStatus int
	// Detail describes the attempt for logs; never show it to bettors.
	Detail string
	// Attempt is the request sent.
	Attempt Attempt
}

// Withdraw debits a stake: POST {walletURL}/v1/withdrawals with body (from
// WithdrawalBody). Unknown answers are retried with the identical body (a
// fresh nonce and timestamp each time), at most WithdrawalAttempts requests
// in all, waiting FirstBackoff, then twice as long each time up to
// MaxBackoff. When ctx ends, Withdraw stops at once and returns
// StatusUnknown. The error is non-nil only when no request could be sent
// (ErrConfig, ErrForbiddenAddress).
func (c *Client) Withdraw(ctx context.Context, walletURL, secret string, body []byte) (WithdrawalResult, error) {
	endpoint, err := c.prepare(walletURL, secret, body, "/v1/withdrawals")
	if err != nil {
		return WithdrawalResult{}, err
	}
	res := WithdrawalResult{Detail: "not attempted"}
	wait := FirstBackoff
	for attempt := 1; attempt <= WithdrawalAttempts; attempt++ {
		if attempt > 1 {
			t := time.NewTimer(wait)
			select {
			case <-ctx.Done():
				t.Stop()
				res.Detail += "; retries stopped: " + context.Cause(ctx).Error()
				return res, nil
			case <-t.C:
			}
			wait = min(2*wait, MaxBackoff)
		}
		if ctx.Err() != nil {
			res.Detail += "; retries stopped: " + context.Cause(ctx).Error()
			return res, nil
		}
		a := c.send(ctx, http.MethodPost, endpoint, secret, body)
		if attempt == 1 && errors.Is(a.err, ErrForbiddenAddress) {
			return WithdrawalResult{}, fmt.Errorf("%w: %s", ErrForbiddenAddress, endpoint)
		}
		log := res.Log
		res = classifyWithdrawal(a)
		res.Attempts = attempt
		res.Detail = fmt.Sprintf("attempt %d: %s", attempt, res.Detail)
		res.Log = append(log, Attempt{StartedAt: a.started, Duration: a.took, Status: res.Status, Code: string(res.Code),
			HTTPStatus: a.status, Err: a.err, Unreadable: a.status >= 200 && a.status < 300 && res.Status == StatusUnknown})
		if res.Status != StatusUnknown {
			return res, nil
		}
	}
	return res, nil
}

// Deposit credits a settled bet: POST {walletURL}/v1/deposits with body
// (from DepositBody), one attempt. Outcome.Done is true for a 2xx answer
// with an empty or JSON body;
// anything else means "not yet": the caller retries later with the same
// bytes. The error is non-nil only when no request could be sent.
func (c *Client) Deposit(ctx context.Context, walletURL, secret string, body []byte) (Outcome, error) {
	endpoint, err := c.prepare(walletURL, secret, body, "/v1/deposits")
	if err != nil {
		return Outcome{}, err
	}
	return c.once(ctx, http.MethodPost, endpoint, secret, body)
}

// Rollback reverses a withdrawal: DELETE
// {walletURL}/v1/rollbacks/{withdrawalTxID} with body (from RollbackBody,
// carrying the rollback's own transaction_id), one attempt.
// withdrawalTxID is the transaction_id the platform sent in the withdrawal
// (not the operator's id, which may never have arrived). Outcome.Done is
// true for a 2xx answer with an empty or JSON body; anything else means
// "not yet": the caller retries until it gets one. The error is non-nil only when no request could be
// sent.
func (c *Client) Rollback(ctx context.Context, walletURL, secret, withdrawalTxID string, body []byte) (Outcome, error) {
	if err := checkID("withdrawal transaction id", withdrawalTxID); err != nil || withdrawalTxID == "." || withdrawalTxID == ".." {
		return Outcome{}, fmt.Errorf("%w: the withdrawal transaction id must be 1 to %d bytes of UTF-8 without control characters, and neither %q nor %q", ErrConfig, maxIDLength, ".", "..")
	}
	endpoint, err := c.prepare(walletURL, secret, body, "/v1/rollbacks/"+url.PathEscape(withdrawalTxID))
	if err != nil {
		return Outcome{}, err
	}
	return c.once(ctx, http.MethodDelete, endpoint, secret, body)
}

func (c *Client) once(ctx context.Context, method, endpoint, secret string, body []byte) (Outcome, error) {
	a := c.send(ctx, method, endpoint, secret, body)
	if errors.Is(a.err, ErrForbiddenAddress) {
		return Outcome{}, fmt.Errorf("%w: %s", ErrForbiddenAddress, endpoint)
	}
	success := a.status >= 200 && a.status < 300
	o := Outcome{HTTPStatus: a.status, Done: success && creditAnswer(a)}
	o.Attempt = Attempt{StartedAt: a.started, Duration: a.took, HTTPStatus: a.status, Err: a.err, Unreadable: success && !o.Done}
	switch {
	case o.Done:
		o.Attempt.Status = StatusSuccess
	case a.status >= 400 && a.status < 500:
		o.Attempt.Status, o.Attempt.Code = StatusRejected, walletError(a)
	}
	switch {
	case a.status == 0:
		o.Detail = "no answer: " + a.err.Error()
	case success && !o.Done:
		o.Detail = fmt.Sprintf("HTTP %d with a body that is not JSON%s", a.status, snippet(a.body))
	case o.Done:
		o.Detail = fmt.Sprintf("HTTP %d", a.status)
		var ok struct {
			Balance *money.Amount `json:"balance"`
		}
		if a.err == nil && !a.tooLarge && json.Unmarshal(a.body, &ok) == nil {
			o.Balance = ok.Balance
		}
	default:
		o.Detail = fmt.Sprintf("HTTP %d%s", a.status, snippet(a.body))
	}
	return o, nil
}

// creditAnswer reports whether a 2xx answer to a deposit or a rollback is
// the protocol's: an empty body (the spec's bare 200) or a whole JSON
// value read within MaxResponseBody. Anything else (an HTML page, garbage,
// JSON cut short) came from something that is not the wallet, or was
// damaged on its way: the credit may not have been applied, and is sent
// again (it is idempotent by transaction_id).
func creditAnswer(a answer) bool {
	if a.err != nil || a.tooLarge {
		return false
	}
	b := bytes.TrimSpace(a.body)
	return len(b) == 0 || json.Valid(b)
}

// prepare checks a call's inputs and returns the endpoint URL: the wallet
// URL (without a trailing slash) followed by path.
func (c *Client) prepare(walletURL, secret string, body []byte, path string) (string, error) {
	u, err := url.Parse(walletURL)
	switch {
	case err != nil || u.Host == "" || u.Opaque != "" || (u.Scheme != "https" && u.Scheme != "http"):
		return "", fmt.Errorf("%w: the wallet URL must be an absolute https URL", ErrConfig)
	case u.Scheme == "http" && !c.insecure:
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

// answer is what one attempt got.
type answer struct {
	status   int    // 0: no answer
	body     []byte // at most MaxResponseBody bytes
	tooLarge bool   // the body was longer than MaxResponseBody
	err      error  // transport error (status 0) or body read error
	started  time.Time
	took     time.Duration // until the body was read or the attempt failed
}

// send makes one signed request, bounded by the per-attempt timeout.
func (c *Client) send(ctx context.Context, method, endpoint, secret string, body []byte) answer {
	start := time.Now()
	a := c.exchange(ctx, method, endpoint, secret, body)
	a.started, a.took = start.UTC(), time.Since(start)
	return a
}

// walletError is the "error" value of a 4xx answer's JSON body when it
// looks like a code (see Attempt.Code); empty otherwise.
func walletError(a answer) string {
	var e struct {
		Error string `json:"error"`
	}
	if a.err != nil || a.tooLarge || json.Unmarshal(a.body, &e) != nil || len(e.Error) > 64 {
		return ""
	}
	for _, ch := range e.Error {
		if !(ch >= 'a' && ch <= 'z' || ch >= 'A' && ch <= 'Z' || ch >= '0' && ch <= '9' || ch == '_' || ch == '.' || ch == '-') {
			return ""
		}
	}
	return e.Error
}

func (c *Client) exchange(ctx context.Context, method, endpoint, secret string, body []byte) answer {
	ctx, cancel := context.WithTimeout(ctx, c.timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, method, endpoint, bytes.NewReader(body))
	if err != nil {
		return answer{err: err}
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json")
	req.Header.Set("User-Agent", "Foresight-Wallet/1")
	req.Header.Set(HeaderSignature, Sign(secret, body))
	req.Header.Set(HeaderTimestamp, timestamp(c.now()))
	req.Header.Set(HeaderNonce, uuid.NewString())
	resp, err := c.hc.Do(req)
	if err != nil {
		// The error names the URL, which may hold a token: it goes into
		// attempt records and logs without its path and query.
		return answer{err: netguard.RedactErrorURL(err)}
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(io.LimitReader(resp.Body, MaxResponseBody+1))
	a := answer{status: resp.StatusCode, body: b, err: err}
	if len(b) > MaxResponseBody {
		a.body, a.tooLarge = b[:MaxResponseBody], true
	}
	return a
}

// classifyWithdrawal maps one answer to an outcome (GUIDE §2, "Standalone
// wallet answers").
func classifyWithdrawal(a answer) WithdrawalResult {
	r := WithdrawalResult{HTTPStatus: a.status}
	switch {
	case a.status == 0:
		r.Detail = "no answer: " + a.err.Error()
	case a.status >= 200 && a.status < 300:
		if a.err != nil || a.tooLarge {
			r.Detail = fmt.Sprintf("HTTP %d with an unreadable or oversized body", a.status)
			return r
		}
		var ok struct {
			TransactionID string        `json:"transaction_id"`
			Balance       *money.Amount `json:"balance"`
		}
		if err := json.Unmarshal(a.body, &ok); err != nil || ok.TransactionID == "" || ok.Balance == nil {
			r.Detail = fmt.Sprintf("HTTP %d without a transaction_id and a decimal-string balance%s", a.status, snippet(a.body))
			return r
		}
		r.Status, r.OperatorTransactionID, r.Balance = StatusSuccess, ok.TransactionID, *ok.Balance
		r.Detail = fmt.Sprintf("HTTP %d", a.status)
	case a.status >= 400 && a.status < 500:
		r.Status, r.Code = StatusRejected, CodeBetRejectedOther
		r.Detail = fmt.Sprintf("HTTP %d%s", a.status, snippet(a.body))
		var e struct {
			Error string `json:"error"`
		}
		if a.err == nil && !a.tooLarge && json.Unmarshal(a.body, &e) == nil {
			r.WalletError = truncate(e.Error, 128)
		}
		switch e.Error {
		case "insufficient_funds":
			r.Code = CodeInsufficientFunds
		case "bettor_blocked", "bettor_not_found":
			r.Code = CodeBettorBlocked
		case "bet_limit_reached":
			r.Code = CodeBetLimitReached
		default:
			if a.status == http.StatusConflict && a.err == nil && len(bytes.TrimSpace(a.body)) == 0 {
				r.Code = CodeInsufficientFunds
			}
		}
	default: // 5xx, 3xx (redirects are not followed), anything else
		r.Detail = fmt.Sprintf("HTTP %d%s", a.status, snippet(a.body))
	}
	return r
}

// snippet renders the start of an answer body for a Detail: printable
// ASCII only, at most 200 bytes.
func snippet(b []byte) string {
	b = bytes.TrimSpace(b)
	if len(b) == 0 {
		return ""
	}
	var sb strings.Builder
	sb.WriteString(": ")
	for i, ch := range b {
		if i == 200 {
			sb.WriteString("…")
			break
		}
		if ch < 0x20 || ch > 0x7e {
			ch = '?'
		}
		sb.WriteByte(ch)
	}
	return sb.String()
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n]
}
