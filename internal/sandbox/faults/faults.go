// Package faults is the failure injection both sandbox partners share: a
// table of faults armed per endpoint, for every subject (a bettor, an
// account) or for one, that the next requests use up; the control API's
// form that arms them; and what a fault does to a request on the wire
// (hold it, drop its connection). What a refusal looks like and which
// endpoints there are belong to each sandbox's protocol, and are described
// by its Protocol.
package faults

import (
	"cmp"
	"fmt"
	"net/http"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/foresight-dev/foresight/internal/sandbox/malformed"
	"github.com/foresight-dev/foresight/internal/sandbox/sandboxweb"
)

// The kinds of fault every sandbox offers.
const (
	KindFail        = "fail"
	KindReject      = "reject"
	KindRefuseRetry = "refuse_retry"
	KindMalformed   = "malformed"
	KindDelay       = "delay"
	KindStall       = "stall"
	KindDrop        = "drop"
)

// Protocol is what one sandbox's faults differ by.
type Protocol struct {
	// Sandbox names the sandbox in panics ("operator").
	Sandbox string
	// Subject is the noun of a scope ("bettor"); SubjectField the control
	// API's field naming one ("bettor_id").
	Subject, SubjectField string
	// CodeField is the control API's field of a refusal code ("code");
	// DefaultCode the code it arms when the field is empty.
	CodeField, DefaultCode string
	// Endpoints are the endpoints faults can be armed on, in the order
	// messages list them.
	Endpoints []string
	// Unrefusable are the endpoints that take no refusals (only FailNext
	// and the faults that do not answer).
	Unrefusable []string
	// MinFailStatus is the lowest status FailNext accepts (up to 599).
	MinFailStatus int
	// DescribeRefusal says what a request refused with code is answered,
	// for the control API's messages ("answer 409 insufficient_funds").
	DescribeRefusal func(code string) string
	// Extras are the sandbox's own kinds of fault, counters the sandbox
	// takes itself with Table.TakeExtra.
	Extras []Extra

	// The controls page's form: the kinds of fault it offers first, in
	// order, with their labels (an empty label: the usual one), before
	// delay, stall, drop and the extras; the label of a refusal code and
	// the codes offered; the endpoint selected first.
	Kinds     []sandboxweb.Option
	CodeLabel string
	Codes     []sandboxweb.Option
	Endpoint  string
}

// Extra is a sandbox's own kind of fault: a counter armed on one endpoint.
type Extra struct {
	// Kind names it in the control API and the list of armed faults.
	Kind string
	// Endpoint is the only endpoint it applies to.
	Endpoint string
	// Describe says what it does to a request, for the control API's
	// messages ("be answered without round_id when they succeed"); Label
	// names it on the controls page.
	Describe, Label string
}

// usualLabels are the controls page's labels of the kinds whose effect
// does not depend on the protocol.
var usualLabels = map[string]string{
	KindMalformed: "malformed: a 200 that is not the wallet's answer, unprocessed",
	KindDelay:     "delay: answer late (latency)",
	KindStall:     "stall: never answer, do nothing (time-out)",
	KindDrop:      "drop: do it, lose the answer (time-out)",
}

// Fault is what to do to one request.
type Fault struct {
	// Fail is the status to answer at once, without processing; 0 for
	// none.
	Fail int
	// Reject is the refusal code to answer without processing ("" for
	// none): an armed RejectNext or RefuseRetryNext.
	Reject string
	// Malformed is the shape of a malformed 200 to answer without
	// processing; "" for none.
	Malformed string
	// Delay is how long to wait before processing.
	Delay time.Duration
	// Stall: hang unprocessed until the client gives up.
	Stall bool
	// Drop: process, then close the connection without an answer.
	Drop bool
}

type key struct {
	subject  string
	endpoint string
}

// state is the failure injection armed for one scope.
type state struct {
	failN, failStatus int
	rejectN           int
	rejectCode        string
	refuseRetryN      int
	refuseRetryCode   string
	malformedN        int
	malformedShape    string
	delayN            int
	delay             time.Duration
	stallN, dropN     int
	extraN            map[string]int
}

// Table is the faults armed in one sandbox. Its methods are safe for
// concurrent use; its lock is taken last, so a sandbox may call it while
// it holds its own.
type Table struct {
	p       Protocol
	closing chan struct{}
	closed  sync.Once
	mu      sync.Mutex
	armed   map[key]*state
}

// NewTable returns an empty table for protocol p.
func NewTable(p Protocol) *Table {
	return &Table{p: p, closing: make(chan struct{}), armed: make(map[key]*state)}
}

// Every returns the switches that arm faults for requests of every
// subject.
func (t *Table) Every() *Scope { return &Scope{t: t} }

// Only returns the switches that arm faults for requests of subject
// only. It panics on an empty subject, naming method, the caller's.
func (t *Table) Only(method, subject string) *Scope {
	if subject == "" {
		panic(fmt.Sprintf("%s: %s: empty %s id (use the %s's own methods for every %s)",
			t.p.Sandbox, method, t.p.Subject, t.p.Sandbox, t.p.Subject))
	}
	return &Scope{t: t, subject: subject}
}

// Clear disarms every fault, of every scope and endpoint.
func (t *Table) Clear() {
	t.mu.Lock()
	defer t.mu.Unlock()
	clear(t.armed)
}

// Empty says whether no fault was ever armed since the last Clear, so
// that a request need not be read for its subject.
func (t *Table) Empty() bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	return len(t.armed) == 0
}

// Scope arms faults for one subject, or for every subject. A request
// takes each kind of fault from its subject's scope when one is armed
// there, and from the every-subject scope otherwise; the two counters are
// separate. Every method replaces an earlier one of the same kind, scope
// and endpoint; n ≤ 0 disarms it. Every method panics on an endpoint
// that is not the protocol's.
type Scope struct {
	t       *Table
	subject string
}

// FailNext makes the next n requests to endpoint answer status (from the
// protocol's lowest to 599) with {"error":"injected_failure"}, without
// being processed: nothing changes and the transaction stays unused. It
// panics on a status out of range.
func (s *Scope) FailNext(endpoint string, n, status int) {
	s.t.checkEndpoint(endpoint)
	if status < s.t.p.MinFailStatus || status > 599 {
		panic(fmt.Sprintf("%s: FailNext: status %d is not an HTTP status from %d to 599", s.t.p.Sandbox, status, s.t.p.MinFailStatus))
	}
	s.arm(endpoint, func(st *state) { st.failN, st.failStatus = max(n, 0), status })
}

// RejectNext makes the next n new requests to endpoint (requests whose
// transaction has no answer yet) answer the refusal code without being
// processed: nothing changes and the transaction stays unused, so the
// same request is processed once the rejections are used up. A retried
// request gets its stored answer and does not use a rejection up, as a
// conforming wallet does. It panics on an endpoint that takes no
// refusals or an empty code.
func (s *Scope) RejectNext(endpoint string, n int, code string) {
	s.t.checkRefusal("RejectNext", endpoint, code)
	s.arm(endpoint, func(st *state) { st.rejectN, st.rejectCode = max(n, 0), code })
}

// RefuseRetryNext is the non-conforming wallet: it makes the next n
// retried requests to endpoint (whose transaction already has an answer)
// answer the refusal code afresh instead of their stored answer, as a
// wallet that checks funds or limits before its de-duplication does. A
// debit whose answer was lost (DropResponseNext) is then refused on its
// retry while it stands; the platform must roll it back. New requests do
// not use it up. It panics as RejectNext does.
func (s *Scope) RefuseRetryNext(endpoint string, n int, code string) {
	s.t.checkRefusal("RefuseRetryNext", endpoint, code)
	s.arm(endpoint, func(st *state) { st.refuseRetryN, st.refuseRetryCode = max(n, 0), code })
}

// MalformedNext makes the next n requests to endpoint get a 200 whose body
// is not the protocol's answer, of shape (malformed.Garbage, HTML,
// Truncated, Empty or Foreign), without being processed: what a proxy, a
// gateway or a stub in front of a wallet answers. It panics on an unknown
// shape.
func (s *Scope) MalformedNext(endpoint string, n int, shape string) {
	s.t.checkEndpoint(endpoint)
	if err := malformed.Check(shape); err != nil {
		panic(s.t.p.Sandbox + ": MalformedNext: " + err.Error())
	}
	s.arm(endpoint, func(st *state) { st.malformedN, st.malformedShape = max(n, 0), shape })
}

// DelayNext makes the next n requests to endpoint wait d before they are
// processed. The request is processed after the delay even if the client
// has given up by then (the slow-wallet case); closing the sandbox cuts
// the wait short, and the request then ends unprocessed and unanswered.
func (s *Scope) DelayNext(endpoint string, n int, d time.Duration) {
	s.t.checkEndpoint(endpoint)
	s.arm(endpoint, func(st *state) { st.delayN, st.delay = max(n, 0), d })
}

// StallNext makes the next n requests to endpoint hang unprocessed until
// the client gives up (closes the connection) or the sandbox closes; they
// are never answered and nothing changes: the time-out with no effect,
// where DropResponseNext is the time-out after the effect.
func (s *Scope) StallNext(endpoint string, n int) {
	s.t.checkEndpoint(endpoint)
	s.arm(endpoint, func(st *state) { st.stallN = max(n, 0) })
}

// DropResponseNext makes the next n requests to endpoint be processed as
// usual and then have their connection closed without an answer: the
// answer-lost case.
func (s *Scope) DropResponseNext(endpoint string, n int) {
	s.t.checkEndpoint(endpoint)
	s.arm(endpoint, func(st *state) { st.dropN = max(n, 0) })
}

// ArmExtra arms the next n requests to the endpoint of the protocol's
// extra kind. It panics on a kind the protocol does not name.
func (s *Scope) ArmExtra(kind string, n int) {
	e, ok := s.t.extra(kind)
	if !ok {
		panic(fmt.Sprintf("%s: no fault of kind %q", s.t.p.Sandbox, kind))
	}
	s.arm(e.Endpoint, func(st *state) {
		if st.extraN == nil {
			st.extraN = make(map[string]int)
		}
		st.extraN[kind] = max(n, 0)
	})
}

func (s *Scope) arm(endpoint string, set func(*state)) {
	s.t.mu.Lock()
	defer s.t.mu.Unlock()
	k := key{subject: s.subject, endpoint: endpoint}
	st := s.t.armed[k]
	if st == nil {
		st = &state{}
		s.t.armed[k] = st
	}
	set(st)
}

func (t *Table) checkEndpoint(endpoint string) {
	if !slices.Contains(t.p.Endpoints, endpoint) {
		panic(fmt.Sprintf("%s: unknown endpoint %q (want %s)", t.p.Sandbox, endpoint, orList(t.p.Endpoints)))
	}
}

func (t *Table) checkRefusal(method, endpoint, code string) {
	t.checkEndpoint(endpoint)
	if slices.Contains(t.p.Unrefusable, endpoint) {
		panic(fmt.Sprintf("%s: %s: the %s endpoint has no refusals to inject (use FailNext)", t.p.Sandbox, method, endpoint))
	}
	if code == "" {
		panic(fmt.Sprintf("%s: %s: empty %s", t.p.Sandbox, method, t.p.CodeField))
	}
}

func (t *Table) extra(kind string) (Extra, bool) {
	for _, e := range t.p.Extras {
		if e.Kind == kind {
			return e, true
		}
	}
	return Extra{}, false
}

// scopesLocked returns the armed states that apply to a request of
// subject to endpoint, the subject's own first.
func (t *Table) scopesLocked(subject, endpoint string) []*state {
	var out []*state
	if subject != "" {
		if st := t.armed[key{subject: subject, endpoint: endpoint}]; st != nil {
			out = append(out, st)
		}
	}
	if st := t.armed[key{endpoint: endpoint}]; st != nil {
		out = append(out, st)
	}
	return out
}

// takeCounter decrements the first armed counter of scopes and returns its
// state, or nil when none is armed.
func takeCounter(scopes []*state, counter func(*state) *int) *state {
	for _, st := range scopes {
		if n := counter(st); *n > 0 {
			*n--
			return st
		}
	}
	return nil
}

// Take consumes the armed faults for one request of subject ("" when the
// request does not say) to endpoint; retry is true when its transaction
// already has an answer, which decides between RejectNext and
// RefuseRetryNext. An injected failure, malformed answer, refusal or
// stall consumes nothing else.
func (t *Table) Take(endpoint, subject string, retry bool) Fault {
	t.mu.Lock()
	defer t.mu.Unlock()
	scopes := t.scopesLocked(subject, endpoint)
	if len(scopes) == 0 {
		return Fault{}
	}
	if st := takeCounter(scopes, func(st *state) *int { return &st.failN }); st != nil {
		return Fault{Fail: st.failStatus}
	}
	if st := takeCounter(scopes, func(st *state) *int { return &st.malformedN }); st != nil {
		return Fault{Malformed: st.malformedShape}
	}
	if !retry {
		if st := takeCounter(scopes, func(st *state) *int { return &st.rejectN }); st != nil {
			return Fault{Reject: st.rejectCode}
		}
	} else if st := takeCounter(scopes, func(st *state) *int { return &st.refuseRetryN }); st != nil {
		return Fault{Reject: st.refuseRetryCode}
	}
	if takeCounter(scopes, func(st *state) *int { return &st.stallN }) != nil {
		return Fault{Stall: true}
	}
	var out Fault
	if st := takeCounter(scopes, func(st *state) *int { return &st.delayN }); st != nil {
		out.Delay = st.delay
	}
	out.Drop = takeCounter(scopes, func(st *state) *int { return &st.dropN }) != nil
	return out
}

// TakeExtra consumes one armed fault of the protocol's extra kind for a
// request of subject, and says whether there was one.
func (t *Table) TakeExtra(kind, subject string) bool {
	e, ok := t.extra(kind)
	if !ok {
		return false
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	for _, st := range t.scopesLocked(subject, e.Endpoint) {
		if st.extraN[kind] > 0 {
			st.extraN[kind]--
			return true
		}
	}
	return false
}

// Armed is one armed fault, as the control API and pages show it.
type Armed struct {
	// Scope is a subject id, or "" for every subject.
	Scope    string
	Endpoint string
	// Kind is fail, reject, refuse_retry, malformed, delay, stall, drop
	// or one of the protocol's extra kinds.
	Kind      string
	Remaining int
	Status    int
	Code      string
	Shape     string
	Delay     string

	// subjectField and codeField name Scope and Code in JSON.
	subjectField, codeField string
}

// MarshalJSON writes the fault with the protocol's field names for its
// scope and code, leaving out the empty details.
func (a Armed) MarshalJSON() ([]byte, error) {
	m := map[string]any{a.subjectField: a.Scope, "endpoint": a.Endpoint, "kind": a.Kind, "remaining": a.Remaining}
	if a.Status != 0 {
		m["status"] = a.Status
	}
	for k, v := range map[string]string{a.codeField: a.Code, "shape": a.Shape, "delay": a.Delay} {
		if v != "" {
			m[k] = v
		}
	}
	return jsonMarshal(m)
}

// Armed lists the armed faults, every-subject scope first, then by
// subject, endpoint and kind; never nil.
func (t *Table) Armed() []Armed {
	t.mu.Lock()
	defer t.mu.Unlock()
	out := []Armed{}
	for k, st := range t.armed {
		add := func(kind string, n int, a Armed) {
			if n > 0 {
				a.Scope, a.Endpoint, a.Kind, a.Remaining = k.subject, k.endpoint, kind, n
				a.subjectField, a.codeField = t.p.SubjectField, t.p.CodeField
				out = append(out, a)
			}
		}
		add(KindFail, st.failN, Armed{Status: st.failStatus})
		add(KindReject, st.rejectN, Armed{Code: st.rejectCode})
		add(KindRefuseRetry, st.refuseRetryN, Armed{Code: st.refuseRetryCode})
		add(KindMalformed, st.malformedN, Armed{Shape: st.malformedShape})
		add(KindDelay, st.delayN, Armed{Delay: st.delay.String()})
		add(KindStall, st.stallN, Armed{})
		add(KindDrop, st.dropN, Armed{})
		for _, e := range t.p.Extras {
			add(e.Kind, st.extraN[e.Kind], Armed{})
		}
	}
	sort.Slice(out, func(i, j int) bool {
		a, b := out[i], out[j]
		if a.Scope != b.Scope {
			return a.Scope < b.Scope
		}
		if a.Endpoint != b.Endpoint {
			return a.Endpoint < b.Endpoint
		}
		return a.Kind < b.Kind
	})
	return out
}

// orList joins words as "a, b or c".
func orList(words []string) string {
	if len(words) < 2 {
		return strings.Join(words, "")
	}
	return strings.Join(words[:len(words)-1], ", ") + " or " + words[len(words)-1]
}

// Close ends the waits of requests held by DelayNext or StallNext, now and
// later: such a request then ends unprocessed and unanswered.
func (t *Table) Close() {
	t.closed.Do(func() { close(t.closing) })
}

// Hold applies the fault's stall and delay to a request about to be
// processed: a stall waits for the client to give up or the table to be
// closed, a delay waits f.Delay (not cut short by the client: a slow
// wallet finishes its work after the caller gave up) unless the table is
// closed first. It returns false, with the connection dropped, when the
// request must end unprocessed and unanswered.
func (t *Table) Hold(w http.ResponseWriter, r *http.Request, f Fault) bool {
	if f.Stall {
		select {
		case <-r.Context().Done():
		case <-t.closing:
		}
		DropConnection(w)
		return false
	}
	if f.Delay > 0 {
		timer := time.NewTimer(f.Delay)
		defer timer.Stop()
		select {
		case <-timer.C:
		case <-t.closing:
			DropConnection(w)
			return false
		}
	}
	return true
}

// Form is the controls page's faults section, starting with the scope
// subject ("" for every subject).
func (t *Table) Form(subject string) sandboxweb.FaultsForm {
	p := t.p
	return sandboxweb.FaultsForm{
		Subject: p.Subject, SubjectTitle: strings.ToUpper(p.Subject[:1]) + p.Subject[1:], SubjectField: p.SubjectField,
		Scope:     subject,
		Endpoints: p.Endpoints, Endpoint: p.Endpoint,
		Kinds:     t.offered(),
		CodeField: p.CodeField, CodeLabel: p.CodeLabel, Codes: labelled(p.Codes),
		MinStatus: p.MinFailStatus,
		Shapes:    []string{malformed.HTML, malformed.Garbage, malformed.Truncated, malformed.Empty, malformed.Foreign},
		Armed:     t.Armed(),
	}
}

// offered is the kinds of fault the controls page offers, in order.
func (t *Table) offered() []sandboxweb.Option {
	var out []sandboxweb.Option
	for _, k := range t.p.Kinds {
		out = append(out, sandboxweb.Option{Value: k.Value, Label: cmp.Or(k.Label, usualLabels[k.Value])})
	}
	for _, k := range []string{KindDelay, KindStall, KindDrop} {
		out = append(out, sandboxweb.Option{Value: k, Label: usualLabels[k]})
	}
	for _, e := range t.p.Extras {
		out = append(out, sandboxweb.Option{Value: e.Kind, Label: e.Label})
	}
	return out
}

// labelled is codes with each empty label set to its value.
func labelled(codes []sandboxweb.Option) []sandboxweb.Option {
	out := make([]sandboxweb.Option, len(codes))
	for i, c := range codes {
		out[i] = sandboxweb.Option{Value: c.Value, Label: cmp.Or(c.Label, c.Value)}
	}
	return out
}
