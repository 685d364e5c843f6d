package backofficetest

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
)

// TestOperatorCredential: platform staff issue a credential of the
// sandbox operator in the backoffice (the key shown once, with a copy
// button); signed out, the key signs in as that operator's staff, who see
// its bets and exposure and no control they cannot use (no ticket service,
// no price, status, resolve, cancel or text controls, no other operator),
// and change its odds tolerance; once staff revoke the credential in
// another tab, the operator's next action leads back to the sign-in.
func TestOperatorCredential(t *testing.T) {
	w := newSandboxWorld(t)
	w.call("POST", "/admin/v1/operators", map[string]any{
		"id": "rival", "name": "Rival Bets", "integration": "standalone",
		"wallet_url": "https://wallet.rival.example", "signing_secret": "rival-signing-secret-0123", "jwks_url": "https://wallet.rival.example/jwks.json",
		"currencies": []any{map[string]any{"code": "EUR", "decimals": 2}},
		"limits":     map[string]any{"EUR": map[string]any{"min_stake": "1", "max_stake": "50", "max_payout": "500", "outcome_exposure": "5000"}},
	}, nil)
	ev := w.createEvent("sports", "Cup final", "Who wins?")
	m := ev.Markets[0]
	bet := w.placeBet("alice", m.ID, m.Outcomes[0].ID, "10.00")

	// Platform staff issue the credential.
	tb := w.openScreen("operators/sandbox")
	tb.WaitFor("the credentials panel", "document.querySelector('[data-credentials=sandbox] [data-issue-credential]')")
	tb.WaitText("[data-credentials]", "No credentials yet")
	tb.Click("[data-issue-credential] button[type=submit]")
	tb.WaitText("[data-issue-credential] [role=alert]", "Name the credential.")
	tb.TypeIn("input[name=credential_name]", "Ana (trading desk)")
	tb.Click("[data-issue-credential] button[type=submit]")
	tb.WaitFor("the key shown once", "document.querySelector('[data-credentials] [data-secret]')")
	key := tb.Text("[data-credentials] [data-secret]")
	if !strings.HasPrefix(key, "fso_") {
		t.Fatalf("the key shown is %q", key)
	}
	tb.WaitFor("the credential listed", "document.querySelector('tr[data-credential][data-state=live]')")
	var copyButton bool
	tb.Eval("Array.from(document.querySelectorAll('[data-credentials] .key button')).some(b => b.textContent === 'Copy')", &copyButton)
	if !copyButton {
		t.Error("no copy button beside the key")
	}
	tb.screenshot("credentials")
	creds, err := w.admin.ListOperatorCredentials(context.Background(), "sandbox")
	if err != nil || len(creds) != 1 || creds[0].Name != "Ana (trading desk)" || creds[0].Key != "" {
		t.Fatalf("credentials of sandbox: %+v, %v", creds, err)
	}
	tb.Do(chromedp.Reload())
	tb.WaitFor("the credentials listed again", "document.querySelector('tr[data-credential]')")
	if n := tb.Text("[data-credentials] [data-secret]"); n != "" {
		t.Errorf("the key is shown again after a reload: %q", n)
	}

	// The operator's staff sign in with it.
	tb.Click("#sign-out")
	tb.WaitText("#signin-status", "Signed out.")
	tb.submitToken(key)
	tb.WaitFor("signed in as the operator", "document.body.dataset.signedIn === 'true' && document.body.dataset.kind === 'operator'")
	tb.Navigate(w.URL + "/backoffice/#/markets")
	tb.WaitFor("the markets", fmt.Sprintf("document.querySelector('tr[data-event=%q]')", ev.ID))
	if who := tb.Text("#who"); who != "Ana (trading desk) · sandbox" {
		t.Errorf("the top bar says %q", who)
	}
	nav := tb.texts("#nav a", "a => a.textContent")
	if strings.Join(nav, ",") != "Markets,Bets,Bettors,Operator,Audit" {
		t.Errorf("navigation %v, want Markets, Bets, Bettors, Operator, Audit", nav)
	}
	tb.screenshot("operator-signin")

	tb.Navigate(w.URL + "/backoffice/#/bets")
	tb.WaitText("#view [role=status]", "1 bet.")
	operators := tb.texts("[data-filter=operator] option", "o => o.value")
	if strings.Join(operators, ",") != "sandbox" {
		t.Errorf("the operator filter offers %v, want sandbox only", operators)
	}
	tb.WaitFor("the bet", fmt.Sprintf("document.querySelector('tbody[data-bet=%q]')", bet))
	tb.screenshot("operator-bets")

	tb.Navigate(w.URL + "/backoffice/#/events/" + ev.ID)
	tb.WaitFor("the exposure", fmt.Sprintf("document.querySelector('[data-exposure=%q] tr[data-outcome]')", m.ID))
	var controls int
	tb.Eval("document.querySelectorAll('[data-prices], [data-action], form[data-texts], #view button.danger').length", &controls)
	if controls != 0 {
		t.Errorf("%d market controls shown to an operator's staff", controls)
	}
	tb.screenshot("operator-event")

	tb.Navigate(w.URL + "/backoffice/#/tickets")
	tb.WaitFor("the markets instead of the ticket service", "document.body.dataset.view === 'markets'")

	tb.Navigate(w.URL + "/backoffice/#/operators/rival")
	tb.WaitFor("its own operator's page", "document.querySelector('form[data-commercial]')")
	if h := tb.Text("#view h1"); h != "Sandbox Bets (sandbox)" {
		t.Errorf("the operator page is %q", h)
	}
	fields := tb.texts("form[data-commercial] input:not([type=hidden]), form[data-commercial] select", "e => e.name || e.dataset.col")
	if strings.Join(fields, ",") != "margin_method,margin_value,odds_tolerance,min_stake,max_stake,max_payout,outcome_exposure" {
		t.Errorf("the operator's staff may edit %v", fields)
	}
	tb.TypeIn("input[name=odds_tolerance]", "0.08")
	tb.TypeIn("[data-col=max_stake]", "90")
	tb.Click("form[data-commercial] button[type=submit]")
	tb.WaitText("[data-form-status]", "Changes saved.")
	var op operatorJSON
	w.call("GET", "/admin/v1/operators/sandbox", nil, &op)
	if op.OddsTolerance != "0.08" || op.Limits["USD"]["max_stake"] != "90" || op.WalletURL != w.Partner {
		t.Errorf("after the operator's change: %+v", op)
	}

	// Every screen of the operator's staff fits a phone.
	tb.Viewport(360, 740)
	for _, screen := range []string{"markets", "events/" + ev.ID, "bets", "bettors", "operators"} {
		var done bool
		tb.Eval("(document.body.dataset.view = '', true)", &done)
		tb.Navigate(w.URL + "/backoffice/#/" + screen)
		tb.WaitFor(screen, fmt.Sprintf("document.body.dataset.view === %q", strings.Split(screen, "/")[0]))
		if wide := tb.pageWidth(); wide > 360 {
			t.Errorf("#/%s is %d px wide at a phone's 360", screen, wide)
		}
	}

	// Staff revoke the credential in their own tab; the operator's next
	// action shows the sign-in.
	staff := w.signIn()
	staff.Navigate(w.URL + "/backoffice/#/operators/sandbox")
	staff.WaitFor("the live credential", "document.querySelector('tr[data-credential][data-state=live] [data-revoke-credential]')")
	staff.Click("[data-revoke-credential]")
	staff.WaitFor("the confirmation", "document.querySelector('dialog[open]')")
	staff.Click("dialog [data-confirm]")
	staff.WaitText("[data-credentials-status]", "The credential of Ana (trading desk) is revoked.")
	staff.WaitFor("the credential revoked", "document.querySelector('tr[data-credential][data-state=revoked]')")

	tb.Click("#nav a[data-section=bets]")
	tb.WaitText("#signin-status", "Your operator key was refused (revoked or expired): sign in again.")
	var stored int
	tb.Eval("sessionStorage.length", &stored)
	if stored != 0 {
		t.Error("the revoked key is still stored")
	}
}
