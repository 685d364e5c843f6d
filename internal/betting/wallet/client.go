// Package wallet is the platform's client of a standalone operator's wallet
// (bettor-and-operator-api.md, "Operator-hosted endpoints"): withdrawals at
// bet placement, deposits at settlement and rollbacks of failed bets, each
// a JSON request signed with the operator's signing secret (Sign, Verify).
//
// The caller builds a request's bytes once (WithdrawalBody, DepositBody,
// RollbackBody), stores them with the bet, and hands the same bytes to every
// call, so a retry, even after a crash, repeats the request exactly and the
// operator's idempotency by transaction_id holds. SendWithdrawal retries
// by itself (docs/decisions.md, "Contract details"); SendDeposit and SendRollback make one attempt each
// and leave retrying to the caller's durable outbox.
//
// Client is the platform's betting.Wallet for operators of integration
// "standalone" (Withdraw, Deposit, Rollback build a bet's bodies with the
// operator's currency decimals and send them), as the aggregator wallet
// client is for operators of integration "aggregator".
//
// Outcomes are values (WithdrawalResult, Outcome), not errors: an error from
// a call means the call could not be made at all (a bad or insecure URL, an
// empty secret, a body that is not JSON, a wallet host that resolves to a
// forbidden address) and wraps ErrConfig or ErrForbiddenAddress, or that
// SendWithdrawal's context ended before a definite answer (ctx.Err(), with the
// requests sent so far, whose outcome is unknown: walletcall's cancellation
// rule). Neither errors nor outcomes ever contain the signing secret.
//
// The transport (the guarded HTTP client, time-outs, body limit, retry
// schedule) is internal/betting/walletcall's, shared with the aggregator
// wallet client; this package holds the protocol: paths, bodies, signature
// headers and what each answer means.
package wallet

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"time"

	"github.com/google/uuid"

	"github.com/foresight-dev/foresight/internal/betting"
	"github.com/foresight-dev/foresight/internal/betting/walletcall"
	"github.com/foresight-dev/foresight/internal/money"
	"github.com/foresight-dev/foresight/internal/netguard"
)

// Limits and schedule of the calls: walletcall's, the same for every
// wallet protocol.
const (
	// DefaultTimeout bounds one attempt (connect, send, answer and body)
	// when Options.Timeout is zero.
	DefaultTimeout = walletcall.DefaultTimeout
	// WithdrawalAttempts is how many requests SendWithdrawal sends at most when
	// the answers are unknown (5xx, time-outs, connection errors, unreadable
	// 2xx bodies).
	WithdrawalAttempts = walletcall.DebitAttempts
	// FirstBackoff is the wait before SendWithdrawal's second request; each
	// further wait doubles, up to MaxBackoff.
	FirstBackoff = walletcall.FirstBackoff
	// MaxBackoff caps the wait between two of SendWithdrawal's requests.
	MaxBackoff = walletcall.MaxBackoff
	// MaxResponseBody is how much of an answer's body is read (64 KiB); a
	// 2xx withdrawal answer longer than that counts as unreadable.
	MaxResponseBody = walletcall.MaxAnswer
)

// ErrConfig is wrapped by the errors of the calls when
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
	// HTTPClient, AllowInsecure and Timeout are walletcall.Options': the
	// guarded client of the package's own when nil, non-public addresses
	// (and here http:// wallet URLs) only with AllowInsecure, and the
	// per-attempt limit (zero means DefaultTimeout).
	HTTPClient    *http.Client
	AllowInsecure bool
	Timeout       time.Duration
	// Now returns the time put in X-Timestamp; nil means time.Now.
	Now func() time.Time
}

// idleConnsPerWallet is how many idle connections the package's own
// client keeps to one wallet host: as many as the deposits a process sends
// at once to one operator (betting.DepositCallsPerOperator), which the
// placement's withdrawals reuse too. net/http's default of 2 closed
// nearly every connection after its call under load, and the next call
// dialled a new one.
const idleConnsPerWallet = betting.DepositCallsPerOperator

// Client calls operators' wallets. It is safe for concurrent use.
type Client struct {
	calls *walletcall.Client
	now   func() time.Time
}

// New returns a Client.
func New(opts Options) *Client {
	c := &Client{calls: walletcall.New(walletcall.Options{HTTPClient: opts.HTTPClient, AllowInsecure: opts.AllowInsecure, Timeout: opts.Timeout,
		MaxIdleConnsPerHost: idleConnsPerWallet}), now: opts.Now}
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

// WithdrawalResult is what SendWithdrawal learnt.
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

// SendWithdrawal debits a stake: POST {walletURL}/v1/withdrawals with body (from
// WithdrawalBody). Unknown answers are retried with the identical body (a
// fresh nonce and timestamp each time), at most WithdrawalAttempts requests
// in all, waiting FirstBackoff, then twice as long each time up to
// MaxBackoff. When ctx ends before a definite answer, SendWithdrawal stops at
// once and returns ctx.Err() with a StatusUnknown result listing the
// requests sent (the walletcall cancellation rule: their outcome is
// unknown). Otherwise the error is non-nil only when no request could be
// sent (ErrConfig, ErrForbiddenAddress).
func (c *Client) SendWithdrawal(ctx context.Context, walletURL, secret string, body []byte) (WithdrawalResult, error) {
	endpoint, err := c.prepare(walletURL, secret, body, "/v1/withdrawals")
	if err != nil {
		return WithdrawalResult{}, err
	}
	res := WithdrawalResult{Detail: "not attempted"}
	err = walletcall.DebitRetries.Retry(ctx, func(attempt int) (bool, error) {
		a := c.send(ctx, http.MethodPost, endpoint, secret, body)
		if attempt == 1 && errors.Is(a.Err, ErrForbiddenAddress) {
			return false, fmt.Errorf("%w: %s", ErrForbiddenAddress, endpoint)
		}
		log := res.Log
		res = classifyWithdrawal(a)
		res.Attempts = attempt
		res.Detail = fmt.Sprintf("attempt %d: %s", attempt, res.Detail)
		res.Log = append(log, Attempt{StartedAt: a.Started, Duration: a.Took, Status: res.Status, Code: string(res.Code),
			HTTPStatus: a.Status, Err: a.Err, Unreadable: a.Success() && res.Status == StatusUnknown})
		return res.Status != StatusUnknown, nil
	})
	switch {
	case errors.Is(err, ErrForbiddenAddress):
		return WithdrawalResult{}, err
	case err != nil:
		res.Detail += "; retries stopped: " + context.Cause(ctx).Error()
	}
	return res, err
}

// SendDeposit credits a settled bet: POST {walletURL}/v1/deposits with body
// (from DepositBody), one attempt. Outcome.Done is true for a 2xx answer
// with an empty or JSON body;
// anything else means "not yet": the caller retries later with the same
// bytes. The error is non-nil only when no request could be sent.
func (c *Client) SendDeposit(ctx context.Context, walletURL, secret string, body []byte) (Outcome, error) {
	endpoint, err := c.prepare(walletURL, secret, body, "/v1/deposits")
	if err != nil {
		return Outcome{}, err
	}
	return c.once(ctx, http.MethodPost, endpoint, secret, body)
}

// SendRollback reverses a withdrawal: DELETE
// {walletURL}/v1/rollbacks/{withdrawalTxID} with body (from RollbackBody,
// carrying the rollback's own transaction_id), one attempt.
// withdrawalTxID is the transaction_id the platform sent in the withdrawal
// (not the operator's id, which may never have arrived). Outcome.Done is
// true for a 2xx answer with an empty or JSON body; anything else means
// "not yet": the caller retries until it gets one. The error is non-nil only when no request could be
// sent.
func (c *Client) SendRollback(ctx context.Context, walletURL, secret, withdrawalTxID string, body []byte) (Outcome, error) {
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
	if errors.Is(a.Err, ErrForbiddenAddress) {
		return Outcome{}, fmt.Errorf("%w: %s", ErrForbiddenAddress, endpoint)
	}
	return classifyCredit(a), nil
}

// send makes one signed request: the body's signature, a fresh
// timestamp and a fresh nonce.
func (c *Client) send(ctx context.Context, method, endpoint, secret string, body []byte) walletcall.Answer {
	h := http.Header{}
	h.Set("Content-Type", "application/json")
	h.Set("Accept", "application/json")
	h.Set("User-Agent", "Foresight-Wallet/1")
	h.Set(HeaderSignature, Sign(secret, body))
	h.Set(HeaderTimestamp, timestamp(c.now()))
	h.Set(HeaderNonce, uuid.NewString())
	return c.calls.Send(ctx, method, endpoint, body, h)
}
