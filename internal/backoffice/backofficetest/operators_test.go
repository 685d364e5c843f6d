package backofficetest

import (
	"fmt"
	"testing"

	"github.com/foresight-dev/foresight/internal/browsertest"
)

// operatorJSON is an operator as the admin API answers it.
type operatorJSON struct {
	ID          string `json:"id"`
	Name        string `json:"name"`
	Integration string `json:"integration"`
	WalletURL   string `json:"wallet_url"`
	JWKSURL     string `json:"jwks_url"`
	Currencies  []struct {
		Code     string `json:"code"`
		Decimals int    `json:"decimals"`
	} `json:"currencies"`
	Margin struct {
		Method, Value string
	} `json:"margin"`
	Limits        map[string]map[string]string `json:"limits"`
	OddsTolerance string                       `json:"odds_tolerance"`
}

// TestOperators creates the sandbox operator in the backoffice, checks
// what the API stored (and that the secret typed signs the wallet calls:
// a bet goes through), refuses a short secret and a duplicate id with the
// API's problem, then edits the margin and the currencies with the secret
// field left empty: the stored secret still works.
func TestOperators(t *testing.T) {
	w := newWorld(t)
	ev := w.createEvent("sports", "Cup final", "Who wins?")
	tb := w.openScreen("operators")
	tb.WaitText("#view [role=status]", "0 operators.")
	tb.Click("[data-new-operator]")
	tb.WaitFor("the new operator form", "document.querySelector('form[data-operator-form=new]')")

	fill := func(secret string) {
		tb.TypeIn("input[name=id]", "sandbox")
		tb.TypeIn("input[name=name]", "Sandbox Bets")
		tb.TypeIn("input[name=wallet_url]", w.Partner)
		tb.TypeIn("input[name=jwks_url]", w.Partner+"/.well-known/jwks.json")
		tb.TypeIn("input[name=signing_secret]", secret)
		tb.TypeIn("input[name=margin_value]", "0.05")
		for col, v := range map[string]string{"code": "USD", "decimals": "2", "min_stake": "1", "max_stake": "100", "max_payout": "1000", "outcome_exposure": "150"} {
			tb.TypeIn(fmt.Sprintf("tr[data-currency-row] [data-col=%s]", col), v)
		}
	}
	fill("too-short")
	tb.Click("form[data-operator-form] button[type=submit]")
	tb.WaitText("[data-form-error]", "at least 16 characters")
	var page struct{ Items []operatorJSON }
	w.call("GET", "/admin/v1/operators", nil, &page)
	if len(page.Items) != 0 {
		t.Fatalf("a refused form created %+v", page.Items)
	}
	tb.TypeIn("input[name=signing_secret]", browsertest.SandboxSigningSecret)
	tb.screenshot("operator")
	tb.Click("form[data-operator-form] button[type=submit]")
	tb.WaitText("[data-form-status]", "Operator sandbox created.")

	var op operatorJSON
	w.call("GET", "/admin/v1/operators/sandbox", nil, &op)
	if op.Name != "Sandbox Bets" || op.Integration != "standalone" || op.WalletURL != w.Partner || op.JWKSURL != w.Partner+"/.well-known/jwks.json" ||
		len(op.Currencies) != 1 || op.Currencies[0].Code != "USD" || op.Currencies[0].Decimals != 2 ||
		op.Margin.Method != "odds_ratio" || op.Margin.Value != "0.05" || op.Limits["USD"]["outcome_exposure"] != "150" || op.Limits["USD"]["max_payout"] != "1000" {
		t.Fatalf("stored operator %+v", op)
	}
	w.placeBet("alice", ev.Markets[0].ID, ev.Markets[0].Outcomes[0].ID, "5.00")

	// The same id again: the API's conflict is shown.
	tb.Navigate(w.URL + "/backoffice/#/operators/new")
	tb.WaitFor("the new operator form", "document.querySelector('form[data-operator-form=new]')")
	fill(browsertest.SandboxSigningSecret)
	tb.Click("form[data-operator-form] button[type=submit]")
	tb.WaitText("[data-form-error]", "(conflict, HTTP 409)")

	// Edit with the secret left empty.
	tb.Navigate(w.URL + "/backoffice/#/operators")
	tb.WaitFor("the operator listed", "document.querySelector('tr[data-operator=sandbox] a')")
	tb.Click("tr[data-operator=sandbox] a")
	tb.WaitFor("the operator's form", "document.querySelector('form[data-operator-form=sandbox]')")
	var secret string
	tb.Eval("document.querySelector('input[name=signing_secret]').value", &secret)
	if secret != "" {
		t.Fatalf("the edit form shows a secret %q", secret)
	}
	tb.choose("select[name=margin_method]", "shin")
	tb.TypeIn("input[name=margin_value]", "0.04")
	tb.Click("[data-add-currency]")
	for col, v := range map[string]string{"code": "EUR", "decimals": "2", "min_stake": "1", "max_stake": "50", "max_payout": "500", "outcome_exposure": "100"} {
		tb.TypeIn(fmt.Sprintf("tr[data-currency-row]:last-child [data-col=%s]", col), v)
	}
	tb.Click("form[data-operator-form] button[type=submit]")
	tb.WaitText("[data-form-status]", "Changes saved.")
	w.call("GET", "/admin/v1/operators/sandbox", nil, &op)
	if op.Margin.Method != "shin" || op.Margin.Value != "0.04" || len(op.Currencies) != 2 || op.Currencies[1].Code != "EUR" ||
		op.Limits["EUR"]["max_stake"] != "50" || op.Limits["USD"]["max_stake"] != "100" {
		t.Fatalf("edited operator %+v", op)
	}
	w.placeBet("bob", ev.Markets[0].ID, ev.Markets[0].Outcomes[1].ID, "5.00")
}

// TestBundledOperatorForm creates a bundled operator in the backoffice:
// the wallet settings are hidden and none are sent, and an edit keeps it
// bundled.
func TestBundledOperatorForm(t *testing.T) {
	w := newWorld(t)
	tb := w.openScreen("operators/new")
	tb.WaitFor("the new operator form", "document.querySelector('form[data-operator-form=new]')")
	for name, v := range map[string]string{"id": "playhouse", "name": "Playhouse"} {
		tb.TypeIn(fmt.Sprintf("input[name=%s]", name), v)
	}
	tb.choose("select[name=integration]", "bundled")
	var hidden bool
	tb.Eval("document.querySelector('[data-wallet-settings]').hidden && !document.querySelector('[data-bundled-note]').hidden", &hidden)
	if !hidden {
		t.Fatal("the wallet settings show for a bundled operator")
	}
	for col, v := range map[string]string{"code": "EUR", "decimals": "2", "min_stake": "1", "max_stake": "100", "max_payout": "1000", "outcome_exposure": "5000"} {
		tb.TypeIn(fmt.Sprintf("tr[data-currency-row] [data-col=%s]", col), v)
	}
	tb.Click("form[data-operator-form] button[type=submit]")
	tb.WaitText("[data-form-status]", "Operator playhouse created.")
	var op operatorJSON
	w.call("GET", "/admin/v1/operators/playhouse", nil, &op)
	if op.Integration != "bundled" || op.WalletURL != "" || op.JWKSURL != "" || op.Limits["EUR"]["outcome_exposure"] != "5000" {
		t.Fatalf("stored operator %+v", op)
	}

	tb.TypeIn("input[name=margin_value]", "0.07")
	tb.Click("form[data-operator-form] button[type=submit]")
	tb.WaitText("[data-form-status]", "Changes saved.")
	w.call("GET", "/admin/v1/operators/playhouse", nil, &op)
	if op.Integration != "bundled" || op.Margin.Value != "0.07" {
		t.Fatalf("edited operator %+v", op)
	}
}
