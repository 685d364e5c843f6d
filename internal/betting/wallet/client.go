// Package wallet is the platform's client of a standalone operator's wallet
// (bettor-and-operator-api.md, "Operator-hosted endpoints"): withdrawals at
// bet placement, deposits at settlement and rollbacks of failed bets, each
// a JSON request signed with the operator's signing secret (Sign, Verify).
//
// Client is the platform's betting.Wallet for operators of integration
// "standalone", as the aggregator wallet client is for operators of
// integration "aggregator". Withdraw, Deposit and Rollback build a bet's
// request bytes (WithdrawalBody, DepositBody, RollbackBody) from the bet
// alone, with the operator's currency decimals, so a retry, even after a
// crash, repeats the request exactly and the operator's idempotency by
// transaction_id holds. A withdrawal retries by itself (docs/decisions.md,
// "Contract details"); a deposit and a rollback make one attempt each and
// leave retrying to the caller's durable outbox. Each answer lists the
// requests sent as betting.WalletAttempts.
//
// Outcomes are values (betting.WalletAnswer, betting.WalletCredit), not
// errors: an error from a call means the call could not be made at all (a
// bad or insecure URL, an empty secret, an operator without the bet's
// currency, a wallet host that resolves to a forbidden address) and wraps
// ErrConfig or ErrForbiddenAddress, or that the call's context ended
// before a definite answer (ctx.Err(), with the requests sent so far,
// whose outcome is unknown: walletcall's cancellation rule). Neither
// errors nor outcomes ever contain the signing secret.
//
// The transport (the guarded HTTP client, time-outs, body limit, retry
// schedule, attempt records) is internal/betting/walletcall's, shared with
// the aggregator wallet client; this package holds the protocol: paths,
// bodies, signature headers and what each answer means.
package wallet

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"

	"github.com/google/uuid"

	"github.com/foresight-dev/foresight/internal/betting"
	"github.com/foresight-dev/foresight/internal/betting/walletcall"
	"github.com/foresight-dev/foresight/internal/netguard"
)

// ErrConfig is wrapped by the errors of the calls when a call cannot be
// made as asked: the operator's wallet URL is not an absolute http(s) URL,
// uses http:// without Options.AllowInsecure, carries credentials, a query
// or a fragment; the signing secret is empty; a rollback's withdrawal id
// is unusable. No request was sent.
var ErrConfig = errors.New("wallet: invalid call")

// ErrForbiddenAddress is wrapped by the error of a call whose connection
// was refused because the wallet host resolved to a loopback, private,
// link-local or otherwise non-public address (only with the default HTTP
// client and without Options.AllowInsecure). That request was not sent;
// the attempts sent before it are returned with the error.
var ErrForbiddenAddress = netguard.ErrForbiddenAddress

// Options configure a Client, as walletcall.Options describes them:
// AllowInsecure also permits http:// wallet URLs, and Now stamps
// X-Timestamp.
type Options = walletcall.Options

// Client calls operators' wallets. It is safe for concurrent use.
type Client struct {
	calls *walletcall.Client
}

var _ betting.Wallet = (*Client)(nil)

// New returns a Client.
func New(opts Options) *Client {
	return &Client{calls: walletcall.New(opts)}
}

// withdraw debits a stake: POST {walletURL}/v1/withdrawals with body,
// recorded as attempts of tx. Unknown answers are retried with the
// identical body (a fresh nonce and timestamp each time) on
// walletcall.DebitRetries' schedule. When ctx ends before a definite
// answer, withdraw stops at once and returns ctx.Err() with the attempts
// sent (walletcall's cancellation rule: their outcome is unknown).
// Otherwise the error is non-nil only when a request could not be sent
// (ErrConfig, ErrForbiddenAddress), again with the attempts sent before.
func (c *Client) withdraw(ctx context.Context, walletURL, secret string, body []byte, tx walletcall.Transaction) (betting.WalletAnswer, error) {
	endpoint, err := c.prepare(walletURL, secret, body, "/v1/withdrawals")
	if err != nil {
		return betting.WalletAnswer{}, err
	}
	var last withdrawalOutcome
	var attempts []betting.WalletAttempt
	err = walletcall.DebitRetries.Retry(ctx, func(n int) (bool, error) {
		a := c.send(ctx, http.MethodPost, endpoint, secret, body)
		if errors.Is(a.Err, ErrForbiddenAddress) {
			return false, fmt.Errorf("%w: %s", ErrForbiddenAddress, netguard.RedactURL(endpoint))
		}
		last = classifyWithdrawal(a)
		last.detail = fmt.Sprintf("attempt %d: %s", n, last.detail)
		attempts = append(attempts, tx.Attempt(a, last.result, string(last.code), a.Success() && last.result == betting.AttemptUnknown))
		return last.result != betting.AttemptUnknown, nil
	})
	if err != nil {
		// Nothing sent, or stopped by ctx (walletcall's cancellation rule):
		// the placement runs again with the same bytes.
		return betting.WalletAnswer{Attempts: attempts}, err
	}
	switch last.result {
	case betting.AttemptDone:
		return betting.WalletAnswer{Status: betting.WalletDone, OperatorTxID: last.operatorTxID, Balance: &last.balance, Attempts: attempts}, nil
	case betting.AttemptRefused:
		return betting.WalletAnswer{Status: betting.WalletRefused, Code: last.code, Detail: last.detail, Attempts: attempts}, nil
	case betting.AttemptUnknown:
	}
	return betting.WalletAnswer{Status: betting.WalletUnknown, Detail: last.detail, Attempts: attempts}, nil
}

// deposit credits a settled bet: POST {walletURL}/v1/deposits with body,
// one attempt, recorded as one of tx. The credit is done on a 2xx answer
// with an empty or JSON body; anything else means "not yet": the caller
// retries later with the same bytes. The error is non-nil when no request
// could be sent, or when ctx ended before a definite answer (ctx.Err(),
// with the attempt sent: walletcall's cancellation rule).
func (c *Client) deposit(ctx context.Context, walletURL, secret string, body []byte, tx walletcall.Transaction) (betting.WalletCredit, error) {
	endpoint, err := c.prepare(walletURL, secret, body, "/v1/deposits")
	if err != nil {
		return betting.WalletCredit{}, err
	}
	return c.credit(ctx, http.MethodPost, endpoint, secret, body, tx)
}

// rollback reverses a withdrawal: DELETE
// {walletURL}/v1/rollbacks/{withdrawalTxID} with body (carrying the
// rollback's own transaction_id), one attempt, recorded as one of tx.
// withdrawalTxID is the transaction_id the platform sent in the withdrawal
// (not the operator's id, which may never have arrived). The rollback is
// done on a 2xx answer with an empty or JSON body; anything else means
// "not yet": the caller retries until it gets one. The error is as
// deposit's.
func (c *Client) rollback(ctx context.Context, walletURL, secret, withdrawalTxID string, body []byte, tx walletcall.Transaction) (betting.WalletCredit, error) {
	if err := checkID("withdrawal transaction id", withdrawalTxID); err != nil || withdrawalTxID == "." || withdrawalTxID == ".." {
		return betting.WalletCredit{}, fmt.Errorf("%w: the withdrawal transaction id must be 1 to %d bytes of UTF-8 without control characters, and neither %q nor %q", ErrConfig, maxIDLength, ".", "..")
	}
	endpoint, err := c.prepare(walletURL, secret, body, "/v1/rollbacks/"+url.PathEscape(withdrawalTxID))
	if err != nil {
		return betting.WalletCredit{}, err
	}
	return c.credit(ctx, http.MethodDelete, endpoint, secret, body, tx)
}

// credit sends a deposit's or a rollback's body once (walletcall.CreditOnce);
// the attempt is recorded as one of tx.
func (c *Client) credit(ctx context.Context, method, endpoint, secret string, body []byte, tx walletcall.Transaction) (betting.WalletCredit, error) {
	var out betting.WalletCredit
	err := walletcall.CreditOnce.Retry(ctx, func(int) (bool, error) {
		a := c.send(ctx, method, endpoint, secret, body)
		if errors.Is(a.Err, ErrForbiddenAddress) {
			return false, fmt.Errorf("%w: %s", ErrForbiddenAddress, netguard.RedactURL(endpoint))
		}
		o := classifyCredit(a)
		out = betting.WalletCredit{Done: o.result == betting.AttemptDone, Balance: o.balance,
			Attempts: []betting.WalletAttempt{tx.Attempt(a, o.result, o.code, a.Success() && o.result != betting.AttemptDone)}}
		return o.result != betting.AttemptUnknown, nil
	})
	return out, err
}

// send makes one signed request: the body's signature, a fresh
// timestamp and a fresh nonce.
func (c *Client) send(ctx context.Context, method, endpoint, secret string, body []byte) walletcall.Answer {
	h := http.Header{}
	h.Set("Content-Type", "application/json")
	h.Set("Accept", "application/json")
	h.Set("User-Agent", "Foresight-Wallet/1")
	h.Set(HeaderSignature, Sign(secret, body))
	h.Set(HeaderTimestamp, timestamp(c.calls.Now()))
	h.Set(HeaderNonce, uuid.NewString())
	return c.calls.Send(ctx, method, endpoint, body, h)
}
