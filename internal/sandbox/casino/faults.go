package casino

import (
	"fmt"
	"sort"
	"time"

	"github.com/foresight-dev/foresight/internal/sandbox/malformed"
)

// faultKey scopes armed faults: one endpoint, for every account (account
// "") or for one account.
type faultKey struct {
	account  string
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
	omitN      int // BetWin only
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
	// reject is the api_code to answer at once ("" for none): an injected
	// RejectNext or RefuseRetryNext.
	reject    string
	malformed string // the shape of a malformed 200; "" for none
	delay     time.Duration
	stall     bool
	drop      bool
}

// Faults arms failure injection for one account. Get it with ForAccount;
// the same methods on Casino arm faults for every account. A request takes
// each kind of fault from its account's scope when one is armed there, and
// from the every-account scope otherwise; the two counters are separate.
type Faults struct {
	c       *Casino
	account string // "" for every account
}

// ForAccount returns the fault switches that apply only to requests whose
// account_id is accountID. It panics on an empty accountID.
func (c *Casino) ForAccount(accountID string) *Faults {
	if accountID == "" {
		panic("casino: ForAccount: empty account id (use the Casino's own methods for every account)")
	}
	return &Faults{c: c, account: accountID}
}

func (c *Casino) everyAccount() *Faults { return &Faults{c: c} }

// FailNext makes the next n requests to endpoint (EndpointBalance,
// EndpointBetWin, EndpointFinish or EndpointRollback), from every account,
// answer status; see Faults.FailNext.
func (c *Casino) FailNext(endpoint string, n, status int) {
	c.everyAccount().FailNext(endpoint, n, status)
}

// RejectNext makes the next n requests to endpoint, from every account,
// answer a wallet error carrying apiCode; see Faults.RejectNext.
func (c *Casino) RejectNext(endpoint string, n int, apiCode string) {
	c.everyAccount().RejectNext(endpoint, n, apiCode)
}

// RefuseRetryNext makes the next n retried requests to endpoint, from
// every account, answer a wallet error carrying apiCode afresh; see
// Faults.RefuseRetryNext.
func (c *Casino) RefuseRetryNext(endpoint string, n int, apiCode string) {
	c.everyAccount().RefuseRetryNext(endpoint, n, apiCode)
}

// MalformedNext makes the next n requests to endpoint, from every account,
// get a 200 of shape without being processed; see Faults.MalformedNext.
func (c *Casino) MalformedNext(endpoint string, n int, shape string) {
	c.everyAccount().MalformedNext(endpoint, n, shape)
}

// DelayNext makes the next n requests to endpoint, from every account,
// wait d before they are processed; see Faults.DelayNext.
func (c *Casino) DelayNext(endpoint string, n int, d time.Duration) {
	c.everyAccount().DelayNext(endpoint, n, d)
}

// StallNext makes the next n requests to endpoint, from every account,
// hang unprocessed until the client gives up; see Faults.StallNext.
func (c *Casino) StallNext(endpoint string, n int) {
	c.everyAccount().StallNext(endpoint, n)
}

// ClearFaults disarms every fault, of every scope and endpoint.
func (c *Casino) ClearFaults() {
	c.mu.Lock()
	defer c.mu.Unlock()
	clear(c.faults)
}

// DropResponseNext makes the next n requests to endpoint, from every
// account, be processed and then get no answer; see
// Faults.DropResponseNext.
func (c *Casino) DropResponseNext(endpoint string, n int) {
	c.everyAccount().DropResponseNext(endpoint, n)
}

// OmitRoundIDNext makes the next n Round/BetWin answers of 200, for every
// account, leave out round_id; see Faults.OmitRoundIDNext.
func (c *Casino) OmitRoundIDNext(n int) {
	c.everyAccount().OmitRoundIDNext(n)
}

// FailNext makes the next n requests to endpoint answer HTTP status (200 to
// 599) with the body {"error":"injected_failure"}, which is not a wallet
// error body (no api_code): the case of a proxy or crashed server in front
// of the wallet. Nothing is processed and nothing changes; the
// id_provider stays unused. It replaces an earlier FailNext of the scope
// and endpoint; n ≤ 0 disarms it. It panics on an unknown endpoint or
// status.
func (f *Faults) FailNext(endpoint string, n, status int) {
	checkEndpoint(endpoint)
	if status < 200 || status > 599 {
		panic(fmt.Sprintf("casino: FailNext: status %d is not a final HTTP status (200 to 599)", status))
	}
	f.c.mu.Lock()
	defer f.c.mu.Unlock()
	s := f.c.faultLocked(f.account, endpoint)
	s.failN, s.failStatus = max(n, 0), status
}

// RejectNext makes the next n new requests to endpoint answer the wallet
// error body with meta.api_code apiCode, before they are processed:
// nothing changes and the id_provider stays unused (the same request is
// processed once the rejections are used up). It keeps idempotency, as a
// conforming wallet does: a request whose id_provider (a Round/Finish: its
// round) already has an answer gets that answer and does not use a
// rejection up. The status and code are those the
// casino uses for that api_code: 403 permission_denied for "403", 500
// internal for "500" to "599" (503: the retryable "service unavailable"),
// 400 invalid_argument for anything else, including a non-numeric apiCode
// such as "oops" (which the platform must treat as a temporary error).
// For "100", "105" and "106" meta.balance carries the account's balance
// when the account exists in the request's currency. It replaces an earlier
// RejectNext of the scope and endpoint; n ≤ 0 disarms it. It panics on an
// unknown endpoint or an empty apiCode.
func (f *Faults) RejectNext(endpoint string, n int, apiCode string) {
	checkEndpoint(endpoint)
	if apiCode == "" {
		panic("casino: RejectNext: empty api_code")
	}
	f.c.mu.Lock()
	defer f.c.mu.Unlock()
	s := f.c.faultLocked(f.account, endpoint)
	s.rejectN, s.rejectCode = max(n, 0), apiCode
}

// RefuseRetryNext is the non-conforming wallet: it makes the next n
// retried requests to endpoint (whose id_provider, or a Round/Finish's
// round, already has an answer) answer the wallet error with apiCode
// afresh instead of their stored answer, as a wallet that checks the
// balance or limits before its de-duplication does. A bet that debited and
// whose answer was lost (DropResponseNext) is then refused on its retry
// while the debit stands; the platform must roll it back. New requests do
// not use it up. Statuses as RejectNext's. It replaces an earlier
// RefuseRetryNext of the scope and endpoint; n ≤ 0 disarms it. It panics
// on an unknown endpoint or an empty apiCode.
func (f *Faults) RefuseRetryNext(endpoint string, n int, apiCode string) {
	checkEndpoint(endpoint)
	if apiCode == "" {
		panic("casino: RefuseRetryNext: empty api_code")
	}
	f.c.mu.Lock()
	defer f.c.mu.Unlock()
	s := f.c.faultLocked(f.account, endpoint)
	s.refuseRetryN, s.refuseRetryCode = max(n, 0), apiCode
}

// MalformedNext makes the next n requests to endpoint get, after
// authentication and before processing, a 200 whose body is not the
// protocol's answer, of shape (malformed.Garbage, HTML, Truncated, Empty or
// Foreign): what a proxy, a gateway or a stub in front of a wallet
// answers. Nothing changes and the id_provider stays unused; the platform
// sends the same request again. It replaces an earlier MalformedNext of
// the scope and endpoint; n ≤ 0 disarms it. It panics on an unknown
// endpoint or shape.
func (f *Faults) MalformedNext(endpoint string, n int, shape string) {
	checkEndpoint(endpoint)
	if err := malformed.Check(shape); err != nil {
		panic("casino: MalformedNext: " + err.Error())
	}
	f.c.mu.Lock()
	defer f.c.mu.Unlock()
	s := f.c.faultLocked(f.account, endpoint)
	s.malformedN, s.malformedShape = max(n, 0), shape
}

// DelayNext makes the next n requests to endpoint wait d after they are
// authenticated and before they are processed. The request is processed
// after the delay even if the client has given up by then (the slow-wallet
// case); Close cuts the wait short, and the request then ends unprocessed
// and unanswered. It replaces an earlier DelayNext of the scope and
// endpoint; n ≤ 0 disarms it. It panics on an unknown endpoint.
func (f *Faults) DelayNext(endpoint string, n int, d time.Duration) {
	checkEndpoint(endpoint)
	f.c.mu.Lock()
	defer f.c.mu.Unlock()
	s := f.c.faultLocked(f.account, endpoint)
	s.delayN, s.delay = max(n, 0), d
}

// StallNext makes the next n requests to endpoint hang, after
// authentication and without being processed, until the client gives up
// (closes the connection) or Close is called; they are never answered and
// nothing changes: the time-out with no effect, where DropResponseNext is
// the time-out after the effect. It replaces an earlier StallNext of the
// scope and endpoint; n ≤ 0 disarms it. It panics on an unknown endpoint.
func (f *Faults) StallNext(endpoint string, n int) {
	checkEndpoint(endpoint)
	f.c.mu.Lock()
	defer f.c.mu.Unlock()
	f.c.faultLocked(f.account, endpoint).stallN = max(n, 0)
}

// DropResponseNext makes the next n requests to endpoint be processed as
// usual (a bet debits, its answer is stored for the id_provider) and then
// have their connection closed without an answer: the answer-lost case. It
// replaces an earlier DropResponseNext of the scope and endpoint; n ≤ 0
// disarms it. It panics on an unknown endpoint.
func (f *Faults) DropResponseNext(endpoint string, n int) {
	checkEndpoint(endpoint)
	f.c.mu.Lock()
	defer f.c.mu.Unlock()
	f.c.faultLocked(f.account, endpoint).dropN = max(n, 0)
}

// OmitRoundIDNext makes the next n Round/BetWin requests that are
// processed with a 200 (money moved) be answered without round_id. Replays,
// refusals and invalid requests do not use it up. The answer stored for the
// id_provider is the one sent, so a replay lacks round_id too; the
// platform is expected to roll the transaction back instead. It replaces an
// earlier OmitRoundIDNext of the scope; n ≤ 0 disarms it.
func (f *Faults) OmitRoundIDNext(n int) {
	f.c.mu.Lock()
	defer f.c.mu.Unlock()
	f.c.faultLocked(f.account, EndpointBetWin).omitN = max(n, 0)
}

func checkEndpoint(endpoint string) {
	switch endpoint {
	case EndpointBalance, EndpointBetWin, EndpointFinish, EndpointRollback:
	default:
		panic(fmt.Sprintf("casino: unknown endpoint %q (want balance, betwin, finish or rollback)", endpoint))
	}
}

func (c *Casino) faultLocked(accountID, endpoint string) *faultState {
	k := faultKey{account: accountID, endpoint: endpoint}
	s := c.faults[k]
	if s == nil {
		s = &faultState{}
		c.faults[k] = s
	}
	return s
}

// scopesLocked returns the armed fault states that apply to a request of
// accountID to endpoint, the account's own first.
func (c *Casino) scopesLocked(accountID, endpoint string) []*faultState {
	var out []*faultState
	if accountID != "" {
		if s := c.faults[faultKey{account: accountID, endpoint: endpoint}]; s != nil {
			out = append(out, s)
		}
	}
	if s := c.faults[faultKey{endpoint: endpoint}]; s != nil {
		out = append(out, s)
	}
	return out
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

// takeFault consumes the armed faults for one request, whose body is
// peeked at: whether its id_provider (a Round/Finish: its round) already
// has an answer decides between RejectNext and RefuseRetryNext. An
// injected failure, malformed answer, refusal or stall consumes nothing
// else.
func (c *Casino) takeFault(endpoint string, w who) fault {
	c.mu.Lock()
	defer c.mu.Unlock()
	scopes := c.scopesLocked(w.AccountID, endpoint)
	if len(scopes) == 0 {
		return fault{}
	}
	if s := takeCounter(scopes, func(s *faultState) *int { return &s.failN }); s != nil {
		return fault{fail: s.failStatus}
	}
	if s := takeCounter(scopes, func(s *faultState) *int { return &s.malformedN }); s != nil {
		return fault{malformed: s.malformedShape}
	}
	if !c.answeredLocked(endpoint, w) {
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
	if s := takeCounter(scopes, func(s *faultState) *int { return &s.dropN }); s != nil {
		out.drop = true
	}
	return out
}

// answeredLocked says whether the request w peeked at is a retry: its
// id_provider (a Round/Finish: its round) already has a stored answer.
func (c *Casino) answeredLocked(endpoint string, w who) bool {
	switch endpoint {
	case EndpointFinish:
		return w.RoundID != "" && c.finishes[w.RoundID] != nil
	case EndpointBetWin, EndpointRollback:
		return len(w.Transactions) == 1 && w.Transactions[0].IDProvider != "" && c.txs[w.Transactions[0].IDProvider] != nil
	}
	return false
}

// omitRoundIDLocked says whether the 200 of a BetWin of accountID leaves
// round_id out: live, it consumes an armed OmitRoundIDNext (and notes it in
// x, for the journal); replayed, it is what the record says.
func (c *Casino) omitRoundIDLocked(x *walletOp, accountID string) bool {
	if x.replay {
		return x.omitRoundID
	}
	scopes := c.scopesLocked(accountID, EndpointBetWin)
	x.omitRoundID = takeCounter(scopes, func(s *faultState) *int { return &s.omitN }) != nil
	return x.omitRoundID
}

// injectedRejection is the answer of an armed RejectNext.
func (c *Casino) injectedRejection(apiCode string, w who) response {
	var balance string
	switch apiCode {
	case "100", "105", "106":
		c.mu.Lock()
		if acct := c.accounts[w.AccountID]; acct != nil && acct.currency == w.Currency {
			balance = c.format(acct.balance, acct.currency)
		}
		c.mu.Unlock()
	}
	return walletError(apiCode, "injected rejection", balance)
}

// armedFault is one armed fault, as the control API and pages show it.
type armedFault struct {
	// Account is the scope: an account id, or "" for every account.
	Account  string `json:"account_id"`
	Endpoint string `json:"endpoint"`
	// Kind is fail, reject, refuse_retry, malformed, delay, stall, drop or
	// omit_round_id.
	Kind      string `json:"kind"`
	Remaining int    `json:"remaining"`
	Status    int    `json:"status,omitempty"`
	APICode   string `json:"api_code,omitempty"`
	Shape     string `json:"shape,omitempty"`
	Delay     string `json:"delay,omitempty"`
}

// armedFaults lists the armed faults, every-account scope first, then by
// account, endpoint and kind.
func (c *Casino) armedFaults() []armedFault {
	c.mu.Lock()
	defer c.mu.Unlock()
	var out []armedFault
	for k, s := range c.faults {
		add := func(kind string, n int, f armedFault) {
			if n > 0 {
				f.Account, f.Endpoint, f.Kind, f.Remaining = k.account, k.endpoint, kind, n
				out = append(out, f)
			}
		}
		add("fail", s.failN, armedFault{Status: s.failStatus})
		add("reject", s.rejectN, armedFault{APICode: s.rejectCode})
		add("refuse_retry", s.refuseRetryN, armedFault{APICode: s.refuseRetryCode})
		add("malformed", s.malformedN, armedFault{Shape: s.malformedShape})
		add("delay", s.delayN, armedFault{Delay: s.delay.String()})
		add("stall", s.stallN, armedFault{})
		add("drop", s.dropN, armedFault{})
		add("omit_round_id", s.omitN, armedFault{})
	}
	sort.Slice(out, func(i, j int) bool {
		a, b := out[i], out[j]
		if a.Account != b.Account {
			return a.Account < b.Account
		}
		if a.Endpoint != b.Endpoint {
			return a.Endpoint < b.Endpoint
		}
		return a.Kind < b.Kind
	})
	return out
}
