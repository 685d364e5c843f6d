package betting

import (
	"context"
	"crypto/tls"
	"errors"
	"io"
	"log/slog"
	"net"
	"os"
	"syscall"
	"time"

	"github.com/foresight-dev/foresight/internal/money"
)

// Kinds of a bet's transactions in its operator's wallet.
const (
	TxWithdrawal = "withdrawal"
	TxDeposit    = "deposit"
	TxRollback   = "rollback"
)

// AttemptResult is what one wallet attempt came to (WalletAttempt.Result).
type AttemptResult string

// Results of one wallet attempt.
const (
	// AttemptDone: the operator answered that the money moved (or had
	// already moved).
	AttemptDone AttemptResult = "done"
	// AttemptRefused: the operator definitely refused this request; Code
	// says why.
	AttemptRefused AttemptResult = "refused"
	// AttemptUnknown: no definite answer (a 5xx, an unreadable answer, no
	// answer at all).
	AttemptUnknown AttemptResult = "unknown"
)

// Failures of an attempt that got no usable answer (WalletAttempt.Error).
const (
	FailureTimeout           = "timeout"
	FailureConnectionRefused = "connection_refused"
	FailureConnectionReset   = "connection_reset"
	// FailureConnectionClosed: the connection closed before an answer.
	FailureConnectionClosed = "connection_closed"
	FailureDNS              = "dns_failure"
	FailureTLS              = "tls_failure"
	// FailureCancelled: the platform stopped waiting (it was shutting
	// down).
	FailureCancelled = "cancelled"
	// FailureTransport: any other failure to get an answer.
	FailureTransport = "transport_error"
	// FailureUnreadableAnswer: an answer arrived but its body could not be
	// read or lacked what the protocol requires.
	FailureUnreadableAnswer = "unreadable_answer"
)

// WalletAttempt is one request sent to an operator's wallet for one of a
// bet's transactions: what support staff see of it. It never holds the
// signing secret, a signature, a token or a body.
type WalletAttempt struct {
	BetID string
	// Kind is TxWithdrawal, TxDeposit or TxRollback.
	Kind string
	// TransactionID is the platform's id of the transaction, the same on
	// every attempt ("wd-", "dp-" or "rb-" and the bet id).
	TransactionID string
	Amount        money.Amount
	Currency      string
	StartedAt     time.Time
	Duration      time.Duration
	// Result is AttemptDone, AttemptRefused or AttemptUnknown.
	Result AttemptResult
	// Code says why a refused attempt was refused: the bet's rejection
	// code for a withdrawal, the wallet's own error code for a credit
	// when it sent one. Empty otherwise.
	Code string
	// HTTPStatus is the answer's status; 0 when none arrived.
	HTTPStatus int
	// Error is a Failure* value for an attempt without a usable answer;
	// empty otherwise.
	Error string
}

// OutcomeUnknown reports whether any of attempts got no definite answer
// although its request may have reached the wallet, and so may have moved
// money: a time-out, a connection reset or closed after the request was
// written, a cancelled wait, a 5xx, a redirect, an answer that could not be
// read or is not the protocol's (a 2xx included). A connection refused or
// a name that did not resolve sent nothing and does not count; a TLS
// failure does, as the handshake's end cannot always be told apart.
func OutcomeUnknown(attempts []WalletAttempt) bool {
	for _, a := range attempts {
		if a.Result == AttemptUnknown && a.Error != FailureConnectionRefused && a.Error != FailureDNS {
			return true
		}
	}
	return false
}

// MalformedSuccess reports whether an attempt got a 2xx whose body is not
// the protocol's answer (FailureUnreadableAnswer): something answered
// "done" without saying what was done, perhaps without the wallet acting.
// Such an attempt counts as unknown: a withdrawal is resent, a deposit or a
// rollback retried with the same transaction id.
func (a WalletAttempt) MalformedSuccess() bool {
	return a.HTTPStatus >= 200 && a.HTTPStatus < 300 && a.Result == AttemptUnknown && a.Error == FailureUnreadableAnswer
}

// ObserveWalletAttempts has f called with every wallet attempt sent, as
// the wallet's answer arrives (before it is recorded), for metrics. Call it
// before bets are placed; f must be safe for concurrent use.
func (p *Placement) ObserveWalletAttempts(f func(WalletAttempt)) { p.observer = f }

// SetLog sets where the placement logs wallet answers that need an
// operator's attention (a 2xx that is not the protocol's answer, at
// ERROR); nil discards them. Call it before bets are placed.
func (p *Placement) SetLog(log *slog.Logger) { p.log = log }

// observe hands attempts to the observer and logs the malformed 2xx
// answers among them, with ids only: never a body, a URL or a secret.
func (p *Placement) observe(attempts []WalletAttempt) {
	for _, a := range attempts {
		if p.observer != nil {
			p.observer(a)
		}
		if a.MalformedSuccess() && p.log != nil {
			p.log.Error("the operator's wallet answered 2xx with a body that is not the protocol's answer; the transaction is treated as unknown and sent again",
				"bet_id", a.BetID, "kind", a.Kind, "transaction_id", a.TransactionID, "http_status", a.HTTPStatus)
		}
	}
}

// TransportFailure names the failure of a request that got no answer, for
// WalletAttempt.Error: FailureTimeout, FailureConnectionRefused, and so on;
// "" for a nil err. It never returns the error's text, which may hold
// addresses.
func TransportFailure(err error) string {
	var netErr net.Error
	var dnsErr *net.DNSError
	var alert tls.AlertError
	var record tls.RecordHeaderError
	var verify *tls.CertificateVerificationError
	switch {
	case err == nil:
		return ""
	case errors.Is(err, context.Canceled):
		return FailureCancelled
	case errors.Is(err, context.DeadlineExceeded), errors.Is(err, os.ErrDeadlineExceeded), errors.As(err, &netErr) && netErr.Timeout():
		return FailureTimeout
	case errors.As(err, &dnsErr):
		return FailureDNS
	case errors.Is(err, syscall.ECONNREFUSED):
		return FailureConnectionRefused
	case errors.Is(err, syscall.ECONNRESET):
		return FailureConnectionReset
	case errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF):
		return FailureConnectionClosed
	case errors.As(err, &alert), errors.As(err, &record), errors.As(err, &verify):
		return FailureTLS
	}
	return FailureTransport
}

// WalletTransaction is one of a bet's transactions in its operator's
// wallet with every attempt recorded for it, oldest first.
type WalletTransaction struct {
	TransactionID string
	// Kind is TxWithdrawal, TxDeposit or TxRollback.
	Kind     string
	Amount   money.Amount
	Currency string
	// ConfirmedAt is when the operator confirmed the transaction: the
	// bet's recorded confirmation of a deposit or rollback, the end of a
	// withdrawal's done attempt; nil until then.
	ConfirmedAt *time.Time
	Attempts    []WalletAttempt
}

// WalletTransactions returns a bet's transactions in its operator's wallet
// with their recorded attempts, in the order of their first attempts. A
// transaction appears once an attempt of it is recorded: the attempts of
// a call are recorded with the outcome they led to, so a crash between the
// call and that write loses them (the call is sent again, with the same
// bytes, and recorded then). ErrNotFound for an unknown bet.
func (p *Placement) WalletTransactions(ctx context.Context, betID string) ([]WalletTransaction, error) {
	b, err := p.bets.GetBet(ctx, "", "", betID)
	if err != nil {
		return nil, err
	}
	attempts, err := p.bets.WalletAttempts(ctx, b.ID)
	if err != nil {
		return nil, err
	}
	out := []WalletTransaction{}
	index := map[[2]string]int{}
	for _, a := range attempts {
		k := [2]string{a.Kind, a.TransactionID}
		i, ok := index[k]
		if !ok {
			i = len(out)
			index[k] = i
			out = append(out, WalletTransaction{TransactionID: a.TransactionID, Kind: a.Kind, Amount: a.Amount, Currency: a.Currency})
		}
		tx := &out[i]
		tx.Attempts = append(tx.Attempts, a)
		if a.Kind == TxWithdrawal && a.Result == AttemptDone && tx.ConfirmedAt == nil {
			end := a.StartedAt.Add(a.Duration)
			tx.ConfirmedAt = &end
		}
	}
	for i := range out {
		switch out[i].Kind {
		case TxDeposit:
			out[i].ConfirmedAt = b.DepositConfirmedAt
		case TxRollback:
			out[i].ConfirmedAt = b.RollbackConfirmedAt
		}
	}
	return out, nil
}

// record stores attempts that no outcome write carries, even while ctx
// is being cancelled: the requests were sent.
func (p *Placement) record(ctx context.Context, attempts []WalletAttempt) error {
	if len(attempts) == 0 {
		return nil
	}
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
	defer cancel()
	return p.bets.AppendWalletAttempts(ctx, attempts)
}
