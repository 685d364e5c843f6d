package wallet

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"

	"github.com/foresight-dev/foresight/internal/betting/walletcall"
	"github.com/foresight-dev/foresight/internal/money"
)

// classifyCredit maps the answer to a deposit or a rollback to its
// outcome.
func classifyCredit(a walletcall.Answer) Outcome {
	success := a.Success()
	o := Outcome{HTTPStatus: a.Status, Done: success && creditAnswer(a)}
	o.Attempt = Attempt{StartedAt: a.Started, Duration: a.Took, HTTPStatus: a.Status, Err: a.Err, Unreadable: success && !o.Done}
	switch {
	case o.Done:
		o.Attempt.Status = StatusSuccess
	case a.Status >= 400 && a.Status < 500:
		o.Attempt.Status, o.Attempt.Code = StatusRejected, walletError(a)
	}
	switch {
	case a.Status == 0:
		o.Detail = "no answer: " + a.Err.Error()
	case success && !o.Done:
		o.Detail = fmt.Sprintf("HTTP %d with a body that is not JSON%s", a.Status, snippet(a.Body))
	case o.Done:
		o.Detail = fmt.Sprintf("HTTP %d", a.Status)
		var ok struct {
			Balance *money.Amount `json:"balance"`
		}
		if a.Readable() && json.Unmarshal(a.Body, &ok) == nil {
			o.Balance = ok.Balance
		}
	default:
		o.Detail = fmt.Sprintf("HTTP %d%s", a.Status, snippet(a.Body))
	}
	return o
}

// creditAnswer reports whether a 2xx answer to a deposit or a rollback is
// the protocol's: an empty body (the spec's bare 200) or a whole JSON
// value read within MaxResponseBody. Anything else (an HTML page, garbage,
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

// classifyWithdrawal maps one answer to an outcome (docs/decisions.md,
// "Contract details": standalone wallet answers).
func classifyWithdrawal(a walletcall.Answer) WithdrawalResult {
	r := WithdrawalResult{HTTPStatus: a.Status}
	switch {
	case a.Status == 0:
		r.Detail = "no answer: " + a.Err.Error()
	case a.Success():
		if !a.Readable() {
			r.Detail = fmt.Sprintf("HTTP %d with an unreadable or oversized body", a.Status)
			return r
		}
		var ok struct {
			TransactionID string        `json:"transaction_id"`
			Balance       *money.Amount `json:"balance"`
		}
		if err := json.Unmarshal(a.Body, &ok); err != nil || ok.TransactionID == "" || ok.Balance == nil {
			r.Detail = fmt.Sprintf("HTTP %d without a transaction_id and a decimal-string balance%s", a.Status, snippet(a.Body))
			return r
		}
		r.Status, r.OperatorTransactionID, r.Balance = StatusSuccess, ok.TransactionID, *ok.Balance
		r.Detail = fmt.Sprintf("HTTP %d", a.Status)
	case a.Status >= 400 && a.Status < 500:
		r.Status, r.Code = StatusRejected, CodeBetRejectedOther
		r.Detail = fmt.Sprintf("HTTP %d%s", a.Status, snippet(a.Body))
		var e struct {
			Error string `json:"error"`
		}
		if a.Readable() && json.Unmarshal(a.Body, &e) == nil {
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
			if a.Status == http.StatusConflict && a.Err == nil && len(bytes.TrimSpace(a.Body)) == 0 {
				r.Code = CodeInsufficientFunds
			}
		}
	default: // 5xx, 3xx (redirects are not followed), anything else
		r.Detail = fmt.Sprintf("HTTP %d%s", a.Status, snippet(a.Body))
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
