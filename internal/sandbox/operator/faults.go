package operator

import (
	"encoding/json"
	"fmt"
	"net/http"

	"github.com/foresight-dev/foresight/internal/sandbox/faults"
	"github.com/foresight-dev/foresight/internal/sandbox/sandboxweb"
)

// protocol is what the operator's faults differ by from the casino's: its
// endpoints, its refusal codes and their statuses.
var protocol = faults.Protocol{
	Sandbox:       "operator",
	Subject:       "bettor",
	SubjectField:  "bettor_id",
	CodeField:     "code",
	DefaultCode:   "insufficient_funds",
	Endpoints:     []string{endpointWithdrawals, endpointDeposits, endpointRollbacks, endpointSession},
	Unrefusable:   []string{endpointSession},
	MinFailStatus: 100,
	DescribeRefusal: func(code string) string {
		return fmt.Sprintf("answer %d %s", rejection(code).status, code)
	},
	Kinds: []sandboxweb.Option{
		{Value: faults.KindFail, Label: "fail: answer an HTTP status (5xx)"},
		{Value: faults.KindReject, Label: "reject: a refusal such as insufficient_funds (a retry gets its first answer)"},
		{Value: faults.KindRefuseRetry, Label: "refuse_retry: refuse a retry afresh, ignoring its first answer (non-conforming wallet)"},
		{Value: faults.KindMalformed},
	},
	CodeLabel: "Refusal",
	Codes: []sandboxweb.Option{
		{Value: "insufficient_funds"}, {Value: "bettor_blocked"}, {Value: "bettor_not_found"}, {Value: "bet_limit_reached"},
	},
}

// Faults arms failure injection for one bettor. Get it with ForBettor; the
// same methods on Operator arm faults for every bettor. A request takes
// each kind of fault from its bettor's scope when one is armed there, and
// from the every-bettor scope otherwise; the two counters are separate.
// The bettor of a wallet request is its body's bettor_id; that of a
// session exchange is the bettor of its session_request_id.
//
// The endpoints are "withdrawals", "deposits", "rollbacks" and "session"
// (which takes no refusals). FailNext takes a status from 100 to 599 and
// acts before any verification. RejectNext and RefuseRetryNext act after
// authentication and answer {"error": code} with the status the operator
// uses for that code: 409 insufficient_funds, 403 bettor_blocked, 404
// bettor_not_found, 409 for any other code (bet_limit_reached, or a code
// the platform maps to bet_rejected_other). MalformedNext, DelayNext and
// StallNext act after the body is read and before verification; on a
// malformed deposit or rollback the platform sends again a 200 that is
// not JSON, but takes an empty or foreign JSON 200 as done (the protocol
// names no body for them): the credit is then lost, which the ledger
// shows. DropResponseNext drops the answer after a withdrawal debited or
// a session request was used up.
type Faults struct{ *faults.Scope }

// ForBettor returns the fault switches that apply only to requests of
// bettorID. It panics on an empty bettorID.
func (o *Operator) ForBettor(bettorID string) *Faults {
	return &Faults{o.Faults.Only("ForBettor", bettorID)}
}

// everyBettor is the every-bettor scope, whose switches the Operator
// carries as its own methods (FailNext, RejectNext, …; see Faults).
type everyBettor = faults.Scope

// faultFor consumes the armed faults for one request to endpoint. The body
// is read only when a fault is armed, so an operator without faults does
// no extra work.
func (o *Operator) faultFor(endpoint string, body []byte) faults.Fault {
	if o.Faults.Empty() {
		return faults.Fault{}
	}
	subject, retry := o.faultSubject(endpoint, body)
	return o.Faults.Take(endpoint, subject, retry)
}

// faultSubject is the bettor a request names, read leniently: the body's
// bettor_id, or for a session exchange the bettor of the session request;
// "" when the body does not say. retry is true for a wallet request whose
// transaction_id already has an answer.
func (o *Operator) faultSubject(endpoint string, body []byte) (subject string, retry bool) {
	var v struct {
		BettorID         string `json:"bettor_id"`
		TransactionID    string `json:"transaction_id"`
		SessionRequestID string `json:"session_request_id"`
	}
	if json.Unmarshal(body, &v) != nil {
		return "", false
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	if endpoint != endpointSession {
		return v.BettorID, v.TransactionID != "" && o.txs[v.TransactionID] != nil
	}
	if s := o.sessions[v.SessionRequestID]; s != nil {
		return s.bettorID, false
	}
	return "", false
}

// rejectStatus is the status of an injected refusal code; others are 409.
var rejectStatus = map[string]int{
	"insufficient_funds": http.StatusConflict,
	"bettor_blocked":     http.StatusForbidden,
	"bettor_not_found":   http.StatusNotFound,
}

// rejection is the answer of an armed RejectNext.
func rejection(code string) response {
	status, ok := rejectStatus[code]
	if !ok {
		status = http.StatusConflict
	}
	return refusal(status, code)
}
