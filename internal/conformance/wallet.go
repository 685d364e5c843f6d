package conformance

import (
	"context"
	"errors"
	"fmt"
	"mime"
	"net/url"
	"strings"

	"github.com/shopspring/decimal"
)

// What both checkers share beyond the protocol: the wallet URL they are
// given and the content-type check.

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
	var odd []Exchange
	seen := 0
	for _, ex := range t.History() {
		if !ex.Answered() || len(ex.Response.Body) == 0 {
			continue
		}
		seen++
		if mt, _, err := mime.ParseMediaType(ex.Response.Header.Get("Content-Type")); err != nil || mt != "application/json" {
			odd = append(odd, ex)
		}
	}
	if seen == 0 {
		t.Skipf("no answer of the run had a body")
	}
	if len(odd) > 0 {
		t.Warnf(&odd[0], "the answer's Content-Type is %q (%d answers like this); JSON answers should say application/json",
			odd[0].Response.Header.Get("Content-Type"), len(odd))
	}
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
