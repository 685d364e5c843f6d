package backofficetest

import (
	"testing"
)

// TestSignIn: a wrong token is refused and not kept; the right one opens
// the backoffice and lives in the tab's sessionStorage (never
// localStorage) until sign-out, surviving a reload.
func TestSignIn(t *testing.T) {
	w := newWorld(t)
	tb := newTab(t)
	tb.openSignIn(w.URL + "/backoffice/")
	tb.screenshot("sign-in")

	tb.submitToken("")
	tb.WaitText("#signin-status", "Enter the admin token or your operator key.")

	tb.submitToken("not-the-token")
	tb.WaitText("#signin-status", "That is neither the admin token nor a valid operator key.")
	var stored struct{ Session, Local int }
	var signedIn string
	tb.Eval("({Session: sessionStorage.length, Local: localStorage.length})", &stored)
	tb.Eval("document.body.dataset.signedIn", &signedIn)
	if stored.Session != 0 || stored.Local != 0 || signedIn != "false" {
		t.Fatalf("after a wrong token: storage %+v, signed in %q", stored, signedIn)
	}

	tb.submitToken(adminToken)
	tb.WaitFor("the signed-in page", "document.body.dataset.signedIn === 'true' && !document.getElementById('nav').hidden")
	var token string
	tb.Eval("sessionStorage.getItem('foresight.backoffice.token')", &token)
	tb.Eval("({Session: sessionStorage.length, Local: localStorage.length})", &stored)
	if token != adminToken || stored.Local != 0 {
		t.Fatalf("after signing in: session token %q, storage %+v; want the token in sessionStorage only", token, stored)
	}

	tb.Navigate(w.URL + "/backoffice/")
	tb.WaitFor("signed in again after a reload", "document.body.dataset.ready === 'true' && document.body.dataset.signedIn === 'true'")

	tb.Click("#sign-out")
	tb.WaitText("#signin-status", "Signed out.")
	tb.Eval("({Session: sessionStorage.length, Local: localStorage.length})", &stored)
	if stored.Session != 0 || stored.Local != 0 {
		t.Fatalf("after signing out: storage %+v, want empty", stored)
	}
	var focused string
	tb.Eval("document.activeElement?.id ?? ''", &focused)
	if focused != "token" {
		t.Errorf("after signing out the focus is on %q, want the token field", focused)
	}
}
