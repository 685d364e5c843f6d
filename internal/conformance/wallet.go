package conformance

import (
	"context"
	"errors"
	"fmt"
	"mime"
	"net/http"
	"net/url"
	"strings"

	"github.com/google/uuid"
	"github.com/shopspring/decimal"
)

// What both checkers share beyond the protocol: the configuration they are
// given, the content-type check, reading and requiring the test account's
// balance, and undoing a check's debits.

// WalletBase checks the wallet URL a checker is given (an absolute http or
// https URL without a query or a fragment) and returns it without a
// trailing slash: the base the protocol's paths are appended to.
func WalletBase(raw string) (string, error) {
	u, err := url.Parse(raw)
	switch {
	case raw == "":
		return "", errors.New("the wallet URL is required")
	case err != nil || u.Host == "" || (u.Scheme != "https" && u.Scheme != "http"):
		return "", fmt.Errorf("the wallet URL %q must be an absolute http or https URL", raw)
	case u.RawQuery != "" || u.Fragment != "":
		return "", fmt.Errorf("the wallet URL %q must not have a query or a fragment", raw)
	}
	return strings.TrimRight(u.String(), "/"), nil
}

// CheckContentType is a check that reads the Content-Type of every answer
// of the run with a body: one that is not application/json is a warning
// (neither spec names the answers' Content-Type). It skips when no answer
// had a body.
func CheckContentType(_ context.Context, t *T) {
	var odd Tally
	seen := 0
	for _, ex := range t.History() {
		if !ex.Answered() || len(ex.Response.Body) == 0 {
			continue
		}
		seen++
		if mt, _, err := mime.ParseMediaType(ex.Response.Header.Get("Content-Type")); err != nil || mt != "application/json" {
			odd.Add(ex, fmt.Sprintf("the answer's Content-Type is %q", ex.Response.Header.Get("Content-Type")))
		}
	}
	if seen == 0 {
		t.Skipf("no answer of the run had a body")
	}
	odd.Warn(t, "JSON answers should say application/json")
}

// note is the report's note on the balance at the start and the end of
// the run (nil: not read).
func (b Balance) note(before, after *decimal.Decimal) string {
	switch {
	case before == nil || after == nil:
		return fmt.Sprintf("The %s's balance could not be read at the start or the end of the run.", b.Whose)
	case before.Equal(*after):
		return fmt.Sprintf("The %s's balance: %s %s at the start of the run, the same at the end.", b.Whose, b.Format(*before), b.Currency)
	}
	diff := b.Format(after.Sub(*before))
	if !strings.HasPrefix(diff, "-") {
		diff = "+" + diff
	}
	return fmt.Sprintf("The %s's balance: %s %s at the start of the run, %s at the end (%s).",
		b.Whose, b.Format(*before), b.Currency, b.Format(*after), diff)
}

// Target checks what every checker needs from its configuration: the
// wallet URL (see WalletBase), the signing secret, and the id of the test
// account, whose noun is subject ("bettor"). It returns the wallet's base.
func Target(rawURL, secret, subject, id string) (string, error) {
	base, err := WalletBase(rawURL)
	switch {
	case err != nil:
		return "", err
	case secret == "":
		return "", errors.New("the signing secret is required")
	case id == "":
		return "", fmt.Errorf("the test %s id is required", subject)
	}
	return base, nil
}

// RequireStakes skips t unless bal, the balance of the test account id,
// holds n stakes: the most the checks debit at one time.
func (b Balance) RequireStakes(t *T, id string, bal, stake decimal.Decimal, n int64) {
	if need := stake.Mul(decimal.NewFromInt(n)); bal.LessThan(need) {
		t.Skipf("the %s %q holds %s %s; the checks need at least %s (%d stakes): credit the test account or lower the stake",
			b.Whose, id, b.Format(bal), b.Currency, b.Format(need), n)
	}
}

// AnswerBalance reads the balance member of an answer leniently (a
// string or a number; its format is a check of its own).
func AnswerBalance(ex Exchange) (decimal.Decimal, error) {
	o, err := ParseObject(ex.Response.Body)
	if err != nil {
		return decimal.Decimal{}, err
	}
	if !o.Has("balance") {
		return decimal.Decimal{}, errors.New("the answer has no balance")
	}
	d, err := ReadDecimal(o["balance"])
	if err != nil {
		return decimal.Decimal{}, fmt.Errorf("balance: %v", err)
	}
	return d, nil
}

// Pending is a debit a check made and has not settled yet: the undo
// registered with UndoLater runs when the check ends, unless Settle was
// called.
type Pending struct{ settled bool }

// Settle marks the debit settled (undone or paid by the check itself):
// its undo will not run.
func (p *Pending) Settle() { p.settled = true }

// UndoLater registers undo as a cleanup of t (see T.Cleanup) that runs
// unless the returned Pending is settled first.
func (t *T) UndoLater(undo func(ctx context.Context) error) *Pending {
	p := &Pending{}
	t.Cleanup(func(ctx context.Context) error {
		if p.settled {
			return nil
		}
		return undo(ctx)
	})
	return p
}

// WrongSecret keys the signature of a wrong-signature check: any secret
// but shared, the one the wallet shares with the platform.
func WrongSecret(shared string) string {
	if shared == "conformance-wrong-secret" {
		return "conformance-other-secret"
	}
	return "conformance-wrong-secret"
}

// Refusal is a request the wallet must refuse because its authentication
// is wrong: the protocol's usual money-moving request (Step names it in
// the report) changed by Alter, checked as Name with Rule.
type Refusal struct {
	Name, Rule, Step string
	Alter            func(h http.Header, body []byte)
	// Optional, when set, says why the spec does not require a refusal:
	// accepting the request, or refusing it otherwise than the protocol
	// does, is then a warning. Only the operator protocol has optional
	// refusals; the aggregator checker's checkRefusal does not read it.
	Optional string
}

// RefusalChecks returns a check of each refusal, pointing at spec, that
// run performs.
func RefusalChecks(spec string, refusals []Refusal, run func(context.Context, *T, Refusal)) []Check {
	checks := make([]Check, 0, len(refusals))
	for _, r := range refusals {
		checks = append(checks, Check{Name: r.Name, Rule: r.Rule, Spec: spec,
			Run: func(ctx context.Context, t *T) { run(ctx, t, r) }})
	}
	return checks
}

// NewID returns a fresh id of kind ("bet", "wd", "round") for a check's
// request: "conformance-<kind>-<UUID>".
func NewID(kind string) string { return "conformance-" + kind + "-" + uuid.NewString() }
