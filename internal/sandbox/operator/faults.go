package operator

import (
	"encoding/json"
	"fmt"
	"net/http"
	"sort"
	"time"

	"github.com/foresight-dev/foresight/internal/sandbox/malformed"
)

// faultKey scopes armed faults: one endpoint, for every bettor (bettor "")
// or for one bettor.
type faultKey struct {
	bettor   string
	endpoint string
}

// faultState is the failure injection armed for one scope.
type faultState struct {
	failN      int
	failStatus int
	rejectN    int
	rejectCode string
	delayN     int
	delay      time.Duration
	stallN     int
	dropN      int
	// refuseRetryN and refuseRetryCode: the non-conforming refusal of
	// retries (RefuseRetryNext).
	refuseRetryN    int
	refuseRetryCode string
	malformedN      int
	malformedShape  string
}

// fault is what to do to one request.
type fault struct {
	fail int // status to answer at once; 0 for none
	// reject is the refusal code to answer after authentication ("" for
	// none): an injected RejectNext or RefuseRetryNext.
	reject    string
	malformed string // the shape of a malformed 200; "" for none
	delay     time.Duration
	stall     bool
	drop      bool
}

// Faults arms failure injection for one bettor. Get it with ForBettor; the
// same methods on Operator arm faults for every bettor. A request takes
// each kind of fault from its bettor's scope when one is armed there, and
// from the every-bettor scope otherwise; the two counters are separate.
// The bettor of a wallet request is its body's bettor_id; that of a
// session exchange is the bettor of its session_request_id.
type Faults struct {
	o      *Operator
	bettor string // "" for every bettor
}

// ForBettor returns the fault switches that apply only to requests of
// bettorID. It panics on an empty bettorID.
func (o *Operator) ForBettor(bettorID string) *Faults {
	if bettorID == "" {
		panic("operator: ForBettor: empty bettor id (use the Operator's own methods for every bettor)")
	}
	return &Faults{o: o, bettor: bettorID}
}

func (o *Operator) everyBettor() *Faults { return &Faults{o: o} }

// FailNext makes the next n requests to endpoint ("withdrawals", "deposits",
// "rollbacks" or "session"), of every bettor, answer status; see
// Faults.FailNext.
func (o *Operator) FailNext(endpoint string, n int, status int) {
	o.everyBettor().FailNext(endpoint, n, status)
}

// RejectNext makes the next n requests to a wallet endpoint, of every
// bettor, answer the refusal code; see Faults.RejectNext.
func (o *Operator) RejectNext(endpoint string, n int, code string) {
	o.everyBettor().RejectNext(endpoint, n, code)
}

// RefuseRetryNext makes the next n retried requests to a wallet endpoint,
// of every bettor, answer the refusal code afresh; see
// Faults.RefuseRetryNext.
func (o *Operator) RefuseRetryNext(endpoint string, n int, code string) {
	o.everyBettor().RefuseRetryNext(endpoint, n, code)
}

// MalformedNext makes the next n requests to endpoint, of every bettor,
// get a 200 of shape without being processed; see Faults.MalformedNext.
func (o *Operator) MalformedNext(endpoint string, n int, shape string) {
	o.everyBettor().MalformedNext(endpoint, n, shape)
}

// DelayNext makes the next n requests to endpoint, of every bettor, wait d
// before they are processed; see Faults.DelayNext.
func (o *Operator) DelayNext(endpoint string, n int, d time.Duration) {
	o.everyBettor().DelayNext(endpoint, n, d)
}

// StallNext makes the next n requests to endpoint, of every bettor, hang
// unprocessed until the client gives up; see Faults.StallNext.
func (o *Operator) StallNext(endpoint string, n int) {
	o.everyBettor().StallNext(endpoint, n)
}

// DropResponseNext makes the next n requests to endpoint, of every bettor,
// be processed and then get no answer; see Faults.DropResponseNext.
func (o *Operator) DropResponseNext(endpoint string, n int) {
	o.everyBettor().DropResponseNext(endpoint, n)
}

// ClearFaults disarms every fault, of every scope and endpoint.
func (o *Operator) ClearFaults() {
	o.mu.Lock()
	defer o.mu.Unlock()
	clear(o.faults)
}

// FailNext makes the next n requests to endpoint ("withdrawals",
// "deposits", "rollbacks" or "session") answer status (100 to 599) with
// {"error":"injected_failure"} before any verification or processing, so
// nothing changes and the transaction_id stays unused. It replaces an
// earlier FailNext of the scope and endpoint; n ≤ 0 disarms it. It panics
// on an unknown endpoint or status.
func (f *Faults) FailNext(endpoint string, n int, status int) {
	checkEndpoint(endpoint)
	if status < 100 || status > 599 {
		panic(fmt.Sprintf("operator: FailNext: status %d is not an HTTP status", status))
	}
	f.o.mu.Lock()
	defer f.o.mu.Unlock()
	s := f.o.faultLocked(f.bettor, endpoint)
	s.failN, s.failStatus = max(n, 0), status
}

// RejectNext makes the next n new requests to a wallet endpoint
// ("withdrawals", "deposits" or "rollbacks") that pass authentication
// answer the refusal {"error": code} without being processed: nothing
// changes and the transaction_id stays unused (the same request is
// processed once the rejections are used up). It keeps idempotency, as a
// conforming wallet does: a request whose transaction_id already has an
// answer gets that answer and does not use a rejection up. The status is
// the one the operator uses for that code: 409 insufficient_funds, 403
// bettor_blocked, 404 bettor_not_found, 409 for any other code
// (bet_limit_reached, or a code the platform maps to bet_rejected_other).
// It replaces an earlier RejectNext of the scope and endpoint; n ≤ 0
// disarms it. It panics on another endpoint or an empty code.
func (f *Faults) RejectNext(endpoint string, n int, code string) {
	checkRefusal("RejectNext", endpoint, code)
	f.o.mu.Lock()
	defer f.o.mu.Unlock()
	s := f.o.faultLocked(f.bettor, endpoint)
	s.rejectN, s.rejectCode = max(n, 0), code
}

// RefuseRetryNext is the non-conforming wallet: it makes the next n
// retried requests to a wallet endpoint (requests whose transaction_id
// already has an answer) that pass authentication answer the refusal
// {"error": code} afresh instead of their stored answer, as a wallet that
// checks funds or limits before its de-duplication does. A withdrawal that
// debited and whose answer was lost (DropResponseNext) is then refused on
// its retry while the debit stands; the platform must roll it back. New
// requests do not use it up. Statuses as RejectNext's. It replaces an
// earlier RefuseRetryNext of the scope and endpoint; n ≤ 0 disarms it. It
// panics on another endpoint or an empty code.
func (f *Faults) RefuseRetryNext(endpoint string, n int, code string) {
	checkRefusal("RefuseRetryNext", endpoint, code)
	f.o.mu.Lock()
	defer f.o.mu.Unlock()
	s := f.o.faultLocked(f.bettor, endpoint)
	s.refuseRetryN, s.refuseRetryCode = max(n, 0), code
}

func checkRefusal(method, endpoint, code string) {
	checkEndpoint(endpoint)
	if endpoint == endpointSession {
		panic("operator: " + method + ": the session endpoint has no refusals to inject (use FailNext)")
	}
	if code == "" {
		panic("operator: " + method + ": empty code")
	}
}

// MalformedNext makes the next n requests to endpoint get, before any
// verification or processing, a 200 whose body is not the protocol's
// answer, of shape (malformed.Garbage, HTML, Truncated, Empty or Foreign):
// what a proxy, a gateway or a stub in front of a wallet answers. Nothing
// changes and the transaction_id stays unused. On a withdrawal the
// platform resends; on a deposit or a rollback it sends again a 200 that
// is not JSON, but takes an empty or foreign JSON 200 as done (the
// protocol names no body for them): the credit is then lost, which the
// ledger shows. It replaces an earlier MalformedNext of the scope and
// endpoint; n ≤ 0 disarms it. It panics on an unknown endpoint or shape.
func (f *Faults) MalformedNext(endpoint string, n int, shape string) {
	checkEndpoint(endpoint)
	if err := malformed.Check(shape); err != nil {
		panic("operator: MalformedNext: " + err.Error())
	}
	f.o.mu.Lock()
	defer f.o.mu.Unlock()
	s := f.o.faultLocked(f.bettor, endpoint)
	s.malformedN, s.malformedShape = max(n, 0), shape
}

// DelayNext makes the next n requests to endpoint wait d after their body
// is read and before they are verified and processed. The request is
// processed after the delay even if the client has given up by then (the
// slow-wallet case); Close cuts the wait short, and the request then ends
// unprocessed and unanswered. It replaces an earlier DelayNext of the
// scope and endpoint; n ≤ 0 disarms it. It panics on an unknown endpoint.
func (f *Faults) DelayNext(endpoint string, n int, d time.Duration) {
	checkEndpoint(endpoint)
	f.o.mu.Lock()
	defer f.o.mu.Unlock()
	s := f.o.faultLocked(f.bettor, endpoint)
	s.delayN, s.delay = max(n, 0), d
}

// StallNext makes the next n requests to endpoint hang without being
// verified or processed until the client gives up (closes the connection)
// or Close is called; they are never answered and nothing changes: the
// time-out with no effect, where DropResponseNext is the time-out after
// the effect. It replaces an earlier StallNext of the scope and endpoint;
// n ≤ 0 disarms it. It panics on an unknown endpoint.
func (f *Faults) StallNext(endpoint string, n int) {
	checkEndpoint(endpoint)
	f.o.mu.Lock()
	defer f.o.mu.Unlock()
	f.o.faultLocked(f.bettor, endpoint).stallN = max(n, 0)
}

// DropResponseNext makes the next n requests to endpoint be processed as
// usual (a withdrawal debits, a session request is used up) and then have
// their connection closed without an answer: the "answer lost" case. It
// replaces an earlier DropResponseNext of the scope and endpoint; n ≤ 0
// disarms it. It panics on an unknown endpoint.
func (f *Faults) DropResponseNext(endpoint string, n int) {
	checkEndpoint(endpoint)
	f.o.mu.Lock()
	defer f.o.mu.Unlock()
	f.o.faultLocked(f.bettor, endpoint).dropN = max(n, 0)
}

func checkEndpoint(endpoint string) {
	switch endpoint {
	case endpointWithdrawals, endpointDeposits, endpointRollbacks, endpointSession:
	default:
		panic(fmt.Sprintf("operator: unknown endpoint %q (want withdrawals, deposits, rollbacks or session)", endpoint))
	}
}

func (o *Operator) faultLocked(bettorID, endpoint string) *faultState {
	k := faultKey{bettor: bettorID, endpoint: endpoint}
	f := o.faults[k]
	if f == nil {
		f = &faultState{}
		o.faults[k] = f
	}
	return f
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

// faultFor consumes the armed faults for one request to endpoint. The body
// is read only when a fault is armed, so an operator without faults does
// no extra work.
func (o *Operator) faultFor(endpoint string, body []byte) fault {
	o.mu.Lock()
	none := len(o.faults) == 0
	o.mu.Unlock()
	if none {
		return fault{}
	}
	subject, retry := o.faultSubject(endpoint, body)
	return o.takeFault(endpoint, subject, retry)
}

// takeCounter decrements the first armed counter of scopes and returns its
// state, or nil when none is armed.
func takeCounter(scopes []*faultState, counter func(*faultState) *int) *faultState {
	for _, s := range scopes {
		if n := counter(s); *n > 0 {
			*n--
			return s
		}
	}
	return nil
}

// takeFault consumes the armed faults for one request of bettorID to
// endpoint; retry is true when its transaction_id already has an answer.
// An injected failure, malformed answer, refusal or stall consumes nothing
// else.
func (o *Operator) takeFault(endpoint, bettorID string, retry bool) fault {
	o.mu.Lock()
	defer o.mu.Unlock()
	var scopes []*faultState
	if bettorID != "" {
		if s := o.faults[faultKey{bettor: bettorID, endpoint: endpoint}]; s != nil {
			scopes = append(scopes, s)
		}
	}
	if s := o.faults[faultKey{endpoint: endpoint}]; s != nil {
		scopes = append(scopes, s)
	}
	if s := takeCounter(scopes, func(s *faultState) *int { return &s.failN }); s != nil {
		return fault{fail: s.failStatus}
	}
	if s := takeCounter(scopes, func(s *faultState) *int { return &s.malformedN }); s != nil {
		return fault{malformed: s.malformedShape}
	}
	if !retry {
		if s := takeCounter(scopes, func(s *faultState) *int { return &s.rejectN }); s != nil {
			return fault{reject: s.rejectCode}
		}
	} else if s := takeCounter(scopes, func(s *faultState) *int { return &s.refuseRetryN }); s != nil {
		return fault{reject: s.refuseRetryCode}
	}
	if takeCounter(scopes, func(s *faultState) *int { return &s.stallN }) != nil {
		return fault{stall: true}
	}
	var out fault
	if s := takeCounter(scopes, func(s *faultState) *int { return &s.delayN }); s != nil {
		out.delay = s.delay
	}
	if takeCounter(scopes, func(s *faultState) *int { return &s.dropN }) != nil {
		out.drop = true
	}
	return out
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

// armedFault is one armed fault, as the control API and pages show it.
type armedFault struct {
	// Bettor is the scope: a bettor id, or "" for every bettor.
	Bettor   string `json:"bettor_id"`
	Endpoint string `json:"endpoint"`
	// Kind is fail, reject, refuse_retry, malformed, delay, stall or
	// drop.
	Kind      string `json:"kind"`
	Remaining int    `json:"remaining"`
	Status    int    `json:"status,omitempty"`
	Code      string `json:"code,omitempty"`
	Shape     string `json:"shape,omitempty"`
	Delay     string `json:"delay,omitempty"`
}

// armedFaults lists the armed faults, every-bettor scope first, then by
// bettor, endpoint and kind.
func (o *Operator) armedFaults() []armedFault {
	o.mu.Lock()
	defer o.mu.Unlock()
	var out []armedFault
	for k, s := range o.faults {
		add := func(kind string, n int, f armedFault) {
			if n > 0 {
				f.Bettor, f.Endpoint, f.Kind, f.Remaining = k.bettor, k.endpoint, kind, n
				out = append(out, f)
			}
		}
		add("fail", s.failN, armedFault{Status: s.failStatus})
		add("reject", s.rejectN, armedFault{Code: s.rejectCode})
		add("refuse_retry", s.refuseRetryN, armedFault{Code: s.refuseRetryCode})
		add("malformed", s.malformedN, armedFault{Shape: s.malformedShape})
		add("delay", s.delayN, armedFault{Delay: s.delay.String()})
		add("stall", s.stallN, armedFault{})
		add("drop", s.dropN, armedFault{})
	}
	sort.Slice(out, func(i, j int) bool {
		a, b := out[i], out[j]
		if a.Bettor != b.Bettor {
			return a.Bettor < b.Bettor
		}
		if a.Endpoint != b.Endpoint {
			return a.Endpoint < b.Endpoint
		}
		return a.Kind < b.Kind
	})
	return out
}
