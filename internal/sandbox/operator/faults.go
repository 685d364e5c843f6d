package operator

import (
	"fmt"
	"time"
)

// faultState is the failure injection armed for one endpoint.
type faultState struct {
	failN      int
	failStatus int
	delayN     int
	delay      time.Duration
	dropN      int
}

// fault is what to do to one request.
type fault struct {
	fail  int // status to answer at once; 0 for none
	delay time.Duration
	drop  bool
}

func checkEndpoint(endpoint string) {
	switch endpoint {
	case endpointWithdrawals, endpointDeposits, endpointRollbacks, endpointSession:
	default:
		panic(fmt.Sprintf("operator: unknown endpoint %q (want withdrawals, deposits, rollbacks or session)", endpoint))
	}
}

func (o *Operator) faultLocked(endpoint string) *faultState {
	f := o.faults[endpoint]
	if f == nil {
		f = &faultState{}
		o.faults[endpoint] = f
	}
	return f
}

// FailNext makes the next n requests to endpoint ("withdrawals", "deposits",
// "rollbacks" or "session") answer status (100 to 599) with
// {"error":"injected_failure"} before any verification or processing, so
// nothing changes and the transaction_id stays unused. It replaces an
// earlier FailNext of that endpoint; n ≤ 0 disarms it. It panics on an
// unknown endpoint or status.
func (o *Operator) FailNext(endpoint string, n int, status int) {
	checkEndpoint(endpoint)
	if status < 100 || status > 599 {
		panic(fmt.Sprintf("operator: FailNext: status %d is not an HTTP status", status))
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	f := o.faultLocked(endpoint)
	f.failN, f.failStatus = max(n, 0), status
}

// DelayNext makes the next n requests to endpoint wait d after their body
// is read and before they are verified and processed. The request is
// processed after the delay even if the client has given up by then. It
// replaces an earlier DelayNext of that endpoint; n ≤ 0 disarms it. It
// panics on an unknown endpoint.
func (o *Operator) DelayNext(endpoint string, n int, d time.Duration) {
	checkEndpoint(endpoint)
	o.mu.Lock()
	defer o.mu.Unlock()
	f := o.faultLocked(endpoint)
	f.delayN, f.delay = max(n, 0), d
}

// DropResponseNext makes the next n requests to endpoint be processed as
// usual (a withdrawal debits, a session request is used up) and then have
// their connection closed without an answer: the "answer lost" case. It
// replaces an earlier DropResponseNext of that endpoint; n ≤ 0 disarms it.
// It panics on an unknown endpoint.
func (o *Operator) DropResponseNext(endpoint string, n int) {
	checkEndpoint(endpoint)
	o.mu.Lock()
	defer o.mu.Unlock()
	o.faultLocked(endpoint).dropN = max(n, 0)
}

// takeFault consumes the armed faults for one request to endpoint. An
// injected failure consumes nothing else.
func (o *Operator) takeFault(endpoint string) fault {
	o.mu.Lock()
	defer o.mu.Unlock()
	f := o.faults[endpoint]
	if f == nil {
		return fault{}
	}
	if f.failN > 0 {
		f.failN--
		return fault{fail: f.failStatus}
	}
	var out fault
	if f.delayN > 0 {
		f.delayN--
		out.delay = f.delay
	}
	if f.dropN > 0 {
		f.dropN--
		out.drop = true
	}
	return out
}
