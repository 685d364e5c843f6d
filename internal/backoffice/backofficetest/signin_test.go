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
	tb.navigate(w.url + "/backoffice/")
	tb.waitFor("the sign-in form", "document.body.dataset.ready === 'true' && !document.getElementById('signin').hidden")
	tb.screenshot("sign-in")

	tb.click("#signin-submit")
	tb.waitText("#signin-status", "Enter the admin token or your operator key.")

	tb.typeIn("#token", "not-the-token")
	tb.click("#signin-submit")
	tb.waitText("#signin-status", "That is neither the admin token nor a valid operator key.")
	var stored struct{ Session, Local int }
	var signedIn string
	tb.eval("({Session: sessionStorage.length, Local: localStorage.length})", &stored)
	tb.eval("document.body.dataset.signedIn", &signedIn)
	if stored.Session != 0 || stored.Local != 0 || signedIn != "false" {
		t.Fatalf("after a wrong token: storage %+v, signed in %q", stored, signedIn)
	}

	tb.typeIn("#token", adminToken)
	tb.click("#signin-submit")
	tb.waitFor("the signed-in page", "document.body.dataset.signedIn === 'true' && !document.getElementById('nav').hidden")
	var token string
	tb.eval("sessionStorage.getItem('foresight.backoffice.token')", &token)
	tb.eval("({Session: sessionStorage.length, Local: localStorage.length})", &stored)
	if token != adminToken || stored.Local != 0 {
		t.Fatalf("after signing in: session token %q, storage %+v; want the token in sessionStorage only", token, stored)
	}

	tb.navigate(w.url + "/backoffice/")
	tb.waitFor("signed in again after a reload", "document.body.dataset.ready === 'true' && document.body.dataset.signedIn === 'true'")

	tb.click("#sign-out")
	tb.waitText("#signin-status", "Signed out.")
	tb.eval("({Session: sessionStorage.length, Local: localStorage.length})", &stored)
	if stored.Session != 0 || stored.Local != 0 {
		t.Fatalf("after signing out: storage %+v, want empty", stored)
	}
	var focused string
	tb.eval("document.activeElement?.id ?? ''", &focused)
	if focused != "token" {
		t.Errorf("after signing out the focus is on %q, want the token field", focused)
	}
}
