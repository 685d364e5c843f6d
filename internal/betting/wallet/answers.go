package wallet

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"

	"github.com/foresight-dev/foresight/internal/betting"
	"github.com/foresight-dev/foresight/internal/betting/walletcall"
	"github.com/foresight-dev/foresight/internal/money"
)

// creditOutcome is what one answer to a deposit or a rollback
// established.
type creditOutcome struct {
	// result is done for a 2xx answer whose body is empty or JSON (the
	// operator has applied, or had already applied, the transaction),
	// refused for a 4xx, unknown otherwise.
	result betting.AttemptResult
	// code is the "error" value of a refusal's body when it looks like a
	// code (1 to 64 ASCII letters, digits, '_', '.' or '-'); empty
	// otherwise.
	code string
	// balance is the bettor's balance a done answer reported as a JSON
	// object with a decimal-string "balance"; nil otherwise (answers to
	// deposits and rollbacks need not carry one).
	balance *money.Amount
}

// classifyCredit maps the answer to a deposit or a rollback to its
// outcome.
func classifyCredit(a walletcall.Answer) creditOutcome {
	switch {
	case a.Success() && creditAnswer(a):
		o := creditOutcome{result: betting.AttemptDone}
		var ok struct {
			Balance *money.Amount `json:"balance"`
		}
		if json.Unmarshal(a.Body, &ok) == nil {
			o.balance = ok.Balance
		}
		return o
	case a.Status >= 400 && a.Status < 500:
		return creditOutcome{result: betting.AttemptRefused, code: walletError(a)}
	}
	return creditOutcome{result: betting.AttemptUnknown}
}

// creditAnswer reports whether a 2xx answer to a deposit or a rollback is
// the protocol's: an empty body (the spec's bare 200) or a whole JSON
// value read within walletcall.MaxAnswer bytes. Anything else (an HTML page, garbage,
// JSON cut short) came from something that is not the wallet, or was
// damaged on its way: the credit may not have been applied, and is sent
// again (it is idempotent by transaction_id).
func creditAnswer(a walletcall.Answer) bool {
	if !a.Readable() {
		return false
	}
	b := bytes.TrimSpace(a.Body)
	return len(b) == 0 || json.Valid(b)
}

// walletError is the "error" value of a 4xx answer's JSON body when it
// looks like a code (see Attempt.Code); empty otherwise.
func walletError(a walletcall.Answer) string {
	var e struct {
		Error string `json:"error"`
	}
	if !a.Readable() || json.Unmarshal(a.Body, &e) != nil || len(e.Error) > 64 {
		return ""
	}
	for _, ch := range e.Error {
		if !(ch >= 'a' && ch <= 'z' || ch >= 'A' && ch <= 'Z' || ch >= '0' && ch <= '9' || ch == '_' || ch == '.' || ch == '-') {
			return ""
		}
	}
	return e.Error
}

// withdrawalOutcome is what one answer to a withdrawal established.
type withdrawalOutcome struct {
	// result is done when the operator debited the stake (2xx with its
	// transaction_id and the balance), refused when it refused the debit
	// (4xx: nothing was debited), unknown otherwise (5xx, redirect,
	// unreadable 2xx body, no answer: the stake may or may not have been
	// debited).
	result betting.AttemptResult
	// operatorTxID is the operator's own id of the debit, and balance the
	// bettor's balance after it, as the operator reported them (done
	// only).
	operatorTxID string
	balance      money.Amount
	// code is the bet's rejection_code (refused only).
	code betting.RejectionCode
	// detail describes the answer for logs and the backoffice; never show
	// it to bettors.
	detail string
}

// classifyWithdrawal maps one answer to an outcome (docs/decisions.md,
// "Contract details": standalone wallet answers). A refusal's code is
// insufficient_funds for {"error":"insufficient_funds"} or a 409 with no
// body, bettor_blocked for {"error":"bettor_blocked"} or
// {"error":"bettor_not_found"} (the spec's code covers a bettor who is
// blocked or unknown), bet_limit_reached for
// {"error":"bet_limit_reached"}, and bet_rejected_other for any other 4xx.
func classifyWithdrawal(a walletcall.Answer) withdrawalOutcome {
	var r withdrawalOutcome
	switch {
	case a.Status == 0:
		r.result, r.detail = betting.AttemptUnknown, "no answer: "+a.Err.Error()
	case a.Success():
		r.result = betting.AttemptUnknown
		if !a.Readable() {
			r.detail = fmt.Sprintf("HTTP %d with an unreadable or oversized body", a.Status)
			return r
		}
		var ok struct {
			TransactionID string        `json:"transaction_id"`
			Balance       *money.Amount `json:"balance"`
		}
		if err := json.Unmarshal(a.Body, &ok); err != nil || ok.TransactionID == "" || ok.Balance == nil {
			r.detail = fmt.Sprintf("HTTP %d without a transaction_id and a decimal-string balance%s", a.Status, snippet(a.Body))
			return r
		}
		r.result, r.operatorTxID, r.balance = betting.AttemptDone, ok.TransactionID, *ok.Balance
		r.detail = fmt.Sprintf("HTTP %d", a.Status)
	case a.Status >= 400 && a.Status < 500:
		r.result, r.code = betting.AttemptRefused, betting.RejectOther
		r.detail = fmt.Sprintf("HTTP %d%s", a.Status, snippet(a.Body))
		var e struct {
			Error string `json:"error"`
		}
		if a.Readable() && json.Unmarshal(a.Body, &e) != nil {
			e.Error = "" // not JSON, or an "error" that is not a string
		}
		switch e.Error {
		case "insufficient_funds":
			r.code = betting.RejectInsufficientFund
		case "bettor_blocked", "bettor_not_found":
			r.code = betting.RejectBettorBlocked
		case "bet_limit_reached":
			r.code = betting.RejectBetLimitReached
		default:
			if a.Status == http.StatusConflict && a.Err == nil && len(bytes.TrimSpace(a.Body)) == 0 {
				r.code = betting.RejectInsufficientFund
			}
		}
	default: // 5xx, 3xx (redirects are not followed), anything else
		r.result, r.detail = betting.AttemptUnknown, fmt.Sprintf("HTTP %d%s", a.Status, snippet(a.Body))
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
