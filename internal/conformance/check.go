package conformance

import (
	"context"
	"fmt"
	"runtime"
	"sync"

	"github.com/shopspring/decimal"
)

// Status is the verdict of a check, or the weight of a finding.
type Status int

// The verdicts, from best to worst.
const (
	// Pass: every rule of the check held.
	Pass Status = iota
	// Warn: the rules held, but the wallet did something the spec leaves
	// open that a careful partner would change. A warning does not fail
	// the run.
	Warn
	// Skip: the check could not be made (the test account holds too
	// little, an earlier step the check needs did not work, the run was
	// interrupted). A skip fails the run: the rule was not verified.
	Skip
	// Fail: the wallet broke a rule of the spec.
	Fail
)

// String returns "PASS", "WARN", "SKIP" or "FAIL".
func (s Status) String() string {
	switch s {
	case Pass:
		return "PASS"
	case Warn:
		return "WARN"
	case Skip:
		return "SKIP"
	case Fail:
		return "FAIL"
	}
	return fmt.Sprintf("Status(%d)", int(s))
}

// Finding is one observation of a check: a failure, a skip or a warning.
type Finding struct {
	// Status is Fail, Skip or Warn.
	Status Status
	// Message is one line saying what happened and what the spec wants.
	Message string
	// Exchange is the request and answer that showed it; nil when no
	// single exchange did.
	Exchange *Exchange
}

// Check is one rule of a protocol and the function that tests a wallet
// against it.
type Check struct {
	// Name identifies the check in reports and tests ("wrong-signature").
	Name string
	// Rule says in one line what the wallet must do.
	Rule string
	// Spec points at the text the rule comes from ("bettor-and-operator-api.md
	// › Authentication").
	Spec string
	// Run performs the check. It reports through t and returns; Fatalf and
	// Skipf end it early.
	Run func(ctx context.Context, t *T)
}

// Result is what one check found.
type Result struct {
	// Name, Rule and Spec are copied from the Check.
	Name, Rule, Spec string
	// Status is the worst status among the findings, Pass when there are
	// none.
	Status Status
	// Findings are the warnings and at most one failure or skip, in the
	// order they were made (warnings of the cleanup come last).
	Findings []Finding
	// Exchanges are every request the check sent (its cleanup included), in
	// order.
	Exchanges []Exchange
}

// Reason returns the message of the finding that decided the status, or ""
// for a pass.
func (r Result) Reason() string {
	for i := len(r.Findings) - 1; i >= 0; i-- {
		if r.Findings[i].Status == r.Status {
			return r.Findings[i].Message
		}
	}
	return ""
}

// T is a check's handle on the run: it sends requests and takes the
// check's findings. A T is used by its check's goroutine only.
type T struct {
	runner    *Runner
	check     string
	findings  []Finding
	exchanges []Exchange
	cleanups  []func(ctx context.Context) error
}

// Do sends req and records the exchange under step, a few words saying
// what the request is for.
func (t *T) Do(ctx context.Context, step string, req Request) Exchange {
	ex := Exchange{Check: t.check, Step: step, Request: req}
	ex.Response = t.runner.client.Send(ctx, req)
	ex.Seq = t.runner.record(ex)
	t.exchanges = append(t.exchanges, ex)
	return ex
}

// Fatalf records a failure, shown by ex (nil when no single exchange shows
// it), and ends the check; cleanups still run.
func (t *T) Fatalf(ex *Exchange, format string, args ...any) {
	t.add(Fail, ex, format, args)
	runtime.Goexit()
}

// Skipf records that the check could not be made, and ends it; cleanups
// still run.
func (t *T) Skipf(format string, args ...any) {
	t.add(Skip, nil, format, args)
	runtime.Goexit()
}

// Warnf records a warning, shown by ex (nil when none), and goes on.
func (t *T) Warnf(ex *Exchange, format string, args ...any) {
	t.add(Warn, ex, format, args)
}

func (t *T) add(s Status, ex *Exchange, format string, args []any) {
	f := Finding{Status: s, Message: fmt.Sprintf(format, args...)}
	if ex != nil {
		c := *ex
		f.Exchange = &c
	}
	t.findings = append(t.findings, f)
}

// Cleanup registers f to run when the check ends, however it ends (last
// registered, first run). f undoes what the check did to the partner's
// ledger; an error it returns is reported as a warning (something stayed in
// the ledger), never as a failure. f runs with a context that the run's
// cancellation does not end, so an interrupted run still undoes its money;
// each request is still bounded by the client's time-out. f must not call
// Fatalf or Skipf.
func (t *T) Cleanup(f func(ctx context.Context) error) {
	t.cleanups = append(t.cleanups, f)
}

// History returns every exchange of the run so far, this check's included,
// oldest first.
func (t *T) History() []Exchange { return t.runner.History() }

// Runner runs checks against one wallet, one at a time, and keeps every
// exchange of the run.
type Runner struct {
	client *Client

	mu      sync.Mutex
	history []Exchange
}

// NewRunner returns a Runner sending through client.
func NewRunner(client *Client) *Runner { return &Runner{client: client} }

// record appends ex to the history and returns its Seq.
func (r *Runner) record(ex Exchange) int {
	r.mu.Lock()
	defer r.mu.Unlock()
	ex.Seq = len(r.history) + 1
	r.history = append(r.history, ex)
	return ex.Seq
}

// History returns every exchange of the run so far, oldest first.
func (r *Runner) History() []Exchange {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]Exchange(nil), r.history...)
}

// Run performs c and returns its result. A check that panics fails with the
// panic's value. When ctx has ended before the check starts or while it
// runs, the check is skipped (its cleanups still run).
func (r *Runner) Run(ctx context.Context, c Check) Result {
	t := &T{runner: r, check: c.Name}
	if err := ctx.Err(); err != nil {
		t.findings = append(t.findings, Finding{Status: Skip, Message: "not run: " + context.Cause(ctx).Error()})
	} else {
		done := make(chan struct{})
		go func() {
			defer close(done)
			defer t.runCleanups(ctx)
			defer func() {
				if v := recover(); v != nil {
					t.findings = append(t.findings, Finding{Status: Fail, Message: fmt.Sprintf("the check stopped on an internal error: %v", v)})
				}
			}()
			c.Run(ctx, t)
		}()
		<-done
	}
	res := Result{Name: c.Name, Rule: c.Rule, Spec: c.Spec, Findings: t.findings, Exchanges: t.exchanges}
	for _, f := range t.findings {
		res.Status = max(res.Status, f.Status)
	}
	if err := ctx.Err(); err != nil && res.Status != Skip {
		// Requests cut short by the interruption say nothing about the
		// wallet.
		res.Findings = append(res.Findings, Finding{Status: Skip, Message: "interrupted: " + context.Cause(ctx).Error()})
		res.Status = Skip
	}
	return res
}

// runCleanups runs the registered cleanups, newest first, each protected
// from the others' panics.
func (t *T) runCleanups(ctx context.Context) {
	ctx = context.WithoutCancel(ctx)
	for i := len(t.cleanups) - 1; i >= 0; i-- {
		func() {
			defer func() {
				if v := recover(); v != nil {
					t.findings = append(t.findings, Finding{Status: Warn, Message: fmt.Sprintf("cleanup stopped on an internal error: %v", v)})
				}
			}()
			if err := t.cleanups[i](ctx); err != nil {
				t.findings = append(t.findings, Finding{Status: Warn, Message: "cleanup: " + err.Error()})
			}
		}()
	}
}

// Listing returns checks with a Run that does nothing: a checker's list of
// its checks, for documentation and listings.
func Listing(checks []Check) []Check {
	for i := range checks {
		checks[i].Run = func(context.Context, *T) {}
	}
	return checks
}

// Balance is how a run reads the test account's balance and writes it in
// its report.
type Balance struct {
	// Read reads the balance within the check t (why says when, for the
	// steps' names); it skips t when it cannot.
	Read func(ctx context.Context, t *T, why string) decimal.Decimal
	// Whose names the account in the report ("test bettor").
	Whose string
	// Currency is the account's currency.
	Currency string
	// Format writes an amount for the report.
	Format func(decimal.Decimal) string
}

// Plan is one checker's configured run against one wallet: the report's
// heading, the checks, how the test account's balance is read, and what
// the checks leave in the partner's ledger.
type Plan struct {
	// Title, Target and Settings head the report (see Report).
	Title, Target string
	Settings      []string
	// Checks run in order.
	Checks []Check
	// Balance reads the test account's balance before the first check and
	// after the last.
	Balance Balance
	// Left says what the checks leave in the partner's ledger: the
	// report's last note.
	Left string
}

// Run runs p's checks one at a time through client and returns the
// report. It reads the test account's balance with p.Balance before the
// first check and after the last, outside any check, and notes the two,
// then p.Left.
func (p Plan) Run(ctx context.Context, client *Client) *Report {
	r := NewRunner(client)
	rep := &Report{Title: p.Title, Target: p.Target, Settings: p.Settings}
	outside := func(when string) *decimal.Decimal {
		var out *decimal.Decimal
		r.Run(ctx, Check{Name: when, Run: func(ctx context.Context, t *T) {
			b := p.Balance.Read(ctx, t, "at the "+when+" of the run")
			out = &b
		}})
		return out
	}
	before := outside("start")
	for _, c := range p.Checks {
		rep.Results = append(rep.Results, r.Run(ctx, c))
	}
	rep.Notes = append(rep.Notes, p.Balance.note(before, outside("end")), p.Left)
	return rep
}

// Tally counts the answers of a run a check finds at fault, keeping the
// first as the finding's exchange with its reason.
type Tally struct {
	first *Exchange
	why   string
	n     int
}

// Add counts ex, at fault for why (kept when ex is the first).
func (tl *Tally) Add(ex Exchange, why string) {
	if tl.n == 0 {
		tl.first, tl.why = &ex, why
	}
	tl.n++
}

// Warn records, when the tally counted any answer, a warning shown by the
// first: its reason, how many answers, then advice (if any).
func (tl *Tally) Warn(t *T, advice string) {
	if tl.n > 0 {
		t.Warnf(tl.first, "%s", tl.message(advice))
	}
}

// Fail is Warn as a failure, which ends the check.
func (tl *Tally) Fail(t *T, advice string) {
	if tl.n > 0 {
		t.Fatalf(tl.first, "%s", tl.message(advice))
	}
}

func (tl *Tally) message(advice string) string {
	m := fmt.Sprintf("%s (%d answers like this)", tl.why, tl.n)
	if advice != "" {
		m += "; " + advice
	}
	return m
}

// RequireSameAnswer fails t unless replay, a request sent again, got the
// answer first got (the same JSON); rule says why it must.
func RequireSameAnswer(t *T, first, replay Exchange, what, rule string) {
	if !SameJSON(first.Response.Body, replay.Response.Body) {
		t.Fatalf(&replay, "the replayed %s was answered %s; the first answer (#%d) was %s: %s",
			what, Snippet(replay.Response.Body), first.Seq, Snippet(first.Response.Body), rule)
	}
}
