// Package walletcall is what every wallet protocol client of the platform
// shares: the guarded HTTP client (internal/netguard), the per-attempt
// time-out, the body size limit, the redaction of URLs from transport
// errors, the signature of a body, the retry schedule with its one
// cancellation rule, and the recording of each request as a
// betting.WalletAttempt.
//
// What differs between protocols stays in each protocol's package
// (internal/betting/wallet for standalone operators, internal/aggregator/wallet
// for aggregators): the paths, the bodies, the headers and the
// classification of an answer as done, refused or unknown.
//
// The cancellation rule: a context that ends before a definite answer
// stops the call at once and Retry returns ctx.Err(), with the attempts
// made so far recorded by the caller. An attempt cut short by the context
// may have reached the wallet and moved money: its outcome is unknown, and
// the caller (the placement) keeps the bet reserved and resolves it on its
// next run, as after any unknown outcome (retry with the same bytes, then
// roll back). A cancelled call is never reported as a refusal, nor as an
// unknown outcome with a nil error, which a caller could mistake for a
// finished call and record while it is shutting down.
package walletcall

import (
	"bytes"
	"cmp"
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"io"
	"net/http"
	"time"

	"github.com/foresight-dev/foresight/internal/betting"
	"github.com/foresight-dev/foresight/internal/money"
	"github.com/foresight-dev/foresight/internal/netguard"
)

// Limits of a call.
const (
	// DefaultTimeout bounds one attempt (connect, send, answer and body)
	// when Options.Timeout is zero.
	DefaultTimeout = 5 * time.Second
	// MaxAnswer is how much of an answer's body is read (64 KiB); the rest
	// is dropped and Answer.TooLarge set.
	MaxAnswer = 64 << 10
	// dialTimeout bounds a connection's dial within an attempt.
	dialTimeout = 10 * time.Second
)

// Options configure a Client.
type Options struct {
	// HTTPClient sends the requests. Nil means a client of the package's
	// own on netguard.Transport: no proxy, and a dialer that refuses
	// non-public addresses unless AllowInsecure.
	// A given client is used as is (its transport, its TLS settings, its
	// dialer), except that redirects are never followed.
	HTTPClient *http.Client
	// AllowInsecure permits non-public addresses (local development and
	// tests only); protocol packages also allow http:// URLs with it.
	AllowInsecure bool
	// Timeout bounds each attempt; zero means DefaultTimeout.
	Timeout time.Duration
	// MaxIdleConnsPerHost sets the own client's idle connections per
	// wallet host; zero means IdleConnsPerHost.
	MaxIdleConnsPerHost int
	// Now returns the time a protocol stamps its requests with (the
	// standalone protocol's X-Timestamp); nil means time.Now.
	Now func() time.Time
}

// IdleConnsPerHost is how many idle connections the package's own client
// keeps to one wallet host by default: as many as the deposits a process
// sends at once to one operator (betting.DepositCallsPerOperator), which
// the placement's withdrawals reuse too. net/http's default of 2 closed
// nearly every connection after its call under load, and the next call
// dialled a new one.
const IdleConnsPerHost = betting.DepositCallsPerOperator

// Client sends wallet requests, one attempt at a time. It is safe for
// concurrent use.
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
		tr := netguard.Transport(dialTimeout, opts.AllowInsecure)
		tr.MaxIdleConnsPerHost = cmp.Or(opts.MaxIdleConnsPerHost, IdleConnsPerHost)
		hc.Transport = tr
	}
	// A redirect is an answer like any other: the wallet did not process
	// the request at this URL.
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

// AllowsInsecure reports whether the Client was built with
// Options.AllowInsecure.
func (c *Client) AllowsInsecure() bool { return c.insecure }

// Now returns the current time by Options.Now.
func (c *Client) Now() time.Time { return c.now() }

// Answer is what one attempt got.
type Answer struct {
	// Status is the answer's HTTP status; 0 when none arrived.
	Status int
	// Body is the answer's body, at most MaxAnswer bytes of it.
	Body []byte
	// TooLarge is true when the body was longer than MaxAnswer.
	TooLarge bool
	// Err is why no answer arrived (Status 0) or why its body could not
	// be read; nil otherwise. A URL in its text is shortened to
	// scheme://host (netguard.RedactErrorURL). It wraps
	// netguard.ErrForbiddenAddress when the guard refused the address.
	Err error
	// Started is when the attempt began (UTC); Took is how long it lasted,
	// until the body was read or the attempt failed.
	Started time.Time
	Took    time.Duration
}

// Success reports whether the answer is a 2xx.
func (a Answer) Success() bool { return a.Status >= 200 && a.Status < 300 }

// Readable reports whether the whole body was read.
func (a Answer) Readable() bool { return a.Err == nil && !a.TooLarge }

// Send makes one request of method to url with body and header, bounded by
// the per-attempt time-out, and reads at most MaxAnswer bytes of the
// answer. It never fails otherwise: what went wrong is in Answer.Err.
func (c *Client) Send(ctx context.Context, method, url string, body []byte, header http.Header) Answer {
	start := time.Now()
	a := c.exchange(ctx, method, url, body, header)
	a.Started, a.Took = start.UTC(), time.Since(start)
	return a
}

func (c *Client) exchange(ctx context.Context, method, url string, body []byte, header http.Header) Answer {
	ctx, cancel := context.WithTimeout(ctx, c.timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, method, url, bytes.NewReader(body))
	if err != nil {
		return Answer{Err: netguard.RedactErrorURL(err)}
	}
	for k, v := range header {
		req.Header[k] = v
	}
	resp, err := c.hc.Do(req)
	if err != nil {
		// The error names the URL, which may hold a token: it goes into
		// attempt records and logs without its path and query.
		return Answer{Err: netguard.RedactErrorURL(err)}
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(io.LimitReader(resp.Body, MaxAnswer+1))
	a := Answer{Status: resp.StatusCode, Body: b, Err: err}
	if len(b) > MaxAnswer {
		a.Body, a.TooLarge = b[:MaxAnswer], true
	}
	return a
}

// Sign returns the signature of a body both protocols use: the lowercase
// hex HMAC-SHA256 of the raw body bytes, keyed with secret.
func Sign(secret string, body []byte) string {
	return hex.EncodeToString(MAC(secret, body))
}

// MAC returns the HMAC-SHA256 of body keyed with secret.
func MAC(secret string, body []byte) []byte {
	m := hmac.New(sha256.New, []byte(secret))
	m.Write(body)
	return m.Sum(nil)
}

// The retry schedule of a stake's debit, the same for every protocol
// (DebitRetries).
const (
	// DebitAttempts is how many requests a debit sends at most while its
	// outcome is unknown.
	DebitAttempts = 3
	// FirstBackoff is the wait before a debit's second request; each
	// further wait doubles, up to MaxBackoff.
	FirstBackoff = 200 * time.Millisecond
	// MaxBackoff caps the wait between two of a debit's requests.
	MaxBackoff = 2 * time.Second
)

// DebitRetries is the retry schedule of a stake's debit.
var DebitRetries = Schedule{Attempts: DebitAttempts, FirstBackoff: FirstBackoff, MaxBackoff: MaxBackoff}

// CreditOnce is the schedule of a credit (a deposit, a rollback): one
// request per call, retried by the caller's durable outbox. Its Retry
// applies the cancellation rule as DebitRetries' does: a credit whose
// context ends before a definite answer returns ctx.Err().
var CreditOnce = Schedule{Attempts: 1}

// Schedule is how an unknown outcome is retried.
type Schedule struct {
	// Attempts is how many requests are sent at most.
	Attempts int
	// FirstBackoff is the wait before the second request; each further
	// wait doubles, up to MaxBackoff.
	FirstBackoff time.Duration
	MaxBackoff   time.Duration
}

// Retry calls attempt with n = 1, 2, … until it reports a definite answer
// or an error, or s.Attempts calls were made, waiting s.FirstBackoff
// before the second call and twice as long before each further one, up to
// s.MaxBackoff. It returns attempt's error, or ctx.Err() when ctx ended
// before a definite answer: before the first call, during a wait, or
// during a call that got no definite answer (see the package comment);
// nil otherwise.
func (s Schedule) Retry(ctx context.Context, attempt func(n int) (definite bool, err error)) error {
	wait := s.FirstBackoff
	for n := 1; ; n++ {
		if err := ctx.Err(); err != nil {
			return err
		}
		if definite, err := attempt(n); err != nil || definite {
			return err
		}
		if n >= s.Attempts {
			return ctx.Err()
		}
		t := time.NewTimer(wait)
		select {
		case <-ctx.Done():
			t.Stop()
			return ctx.Err()
		case <-t.C:
		}
		wait = min(2*wait, s.MaxBackoff)
	}
}

// Transaction is one of a bet's transactions in its operator's wallet,
// the subject of the attempts recorded for it.
type Transaction struct {
	Bet betting.Bet
	// Kind is betting.TxWithdrawal, TxDeposit or TxRollback.
	Kind string
	// ID is the platform's transaction id, the same on every attempt.
	ID     string
	Amount money.Amount
}

// Attempt records one request of tx that got a: result is
// betting.AttemptDone, AttemptRefused or AttemptUnknown, code the refusal's
// code. An unknown attempt's Error is the transport failure when no answer
// arrived, and betting.FailureUnreadableAnswer when its body could not be
// read or, with malformed, is not the protocol's answer (a 5xx or a
// temporary code leaves it empty).
func (tx Transaction) Attempt(a Answer, result betting.AttemptResult, code string, malformed bool) betting.WalletAttempt {
	w := betting.WalletAttempt{BetID: tx.Bet.ID, Kind: tx.Kind, TransactionID: tx.ID, Amount: tx.Amount, Currency: tx.Bet.Currency,
		StartedAt: a.Started, Duration: a.Took, Result: result, Code: code, HTTPStatus: a.Status}
	if result == betting.AttemptUnknown {
		switch {
		case a.Status == 0:
			w.Error = betting.TransportFailure(a.Err)
		case malformed || a.Err != nil:
			w.Error = betting.FailureUnreadableAnswer
		}
	}
	return w
}
