package backofficetest

import (
	"io"
	"net/http"
	"strings"
	"testing"
)

// ticketCall calls the ticket API's job list with key and returns the
// status and body.
func (w *world) ticketCall(key string) (int, string) {
	w.t.Helper()
	req, _ := http.NewRequest("GET", w.url+"/tickets/v1/jobs", nil)
	req.Header.Set("Authorization", "Bearer "+key)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		w.t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

// TestTicketClients creates a ticket client in the backoffice (its
// webhook secret shown once), issues a key with two scopes and an expiry
// (the key is shown once and works against the ticket API; a reload no
// longer shows it), suspends and resumes the client and disables and
// enables its tickets (the ticket API answers client_suspended and
// feature_disabled meanwhile), and revokes the key (key_revoked).
func TestTicketClients(t *testing.T) {
	w := newWorld(t)
	tb := w.signIn()
	tb.viewport(1200, 900)
	tb.navigate(w.url + "/backoffice/#/tickets")
	tb.waitFor("the clients", "document.body.dataset.view === 'tickets'")
	tb.click("form[data-new-client] button[type=submit]")
	tb.waitText("#view .error", "Enter the client's name.")
	tb.typeIn("input[name=client_name]", "Growth")
	tb.click("form[data-new-client] button[type=submit]")
	tb.waitFor("the webhook secret", "document.querySelector('[data-secret]')")
	if s := tb.text("[data-secret]"); len(s) < 16 {
		t.Fatalf("webhook secret shown %q", s)
	}
	tb.waitFor("the client listed", "document.querySelector('tr[data-client] a')?.textContent === 'Growth'")
	clients, err := w.admin.ListTicketClients(t.Context())
	if err != nil || len(clients) != 1 || clients[0].Name != "Growth" {
		t.Fatalf("clients %+v, %v", clients, err)
	}
	id := clients[0].ID

	tb.click("tr[data-client] a")
	tb.waitFor("the client's page", "document.querySelector('form[data-issue-key]')")
	// Submit and read are ticked at first: unticked, no key is asked for.
	tb.click(`[data-scope="tickets:submit"]`)
	tb.click(`[data-scope="tickets:read"]`)
	tb.click("form[data-issue-key] button[type=submit]")
	tb.waitText("form[data-issue-key] .error", "Pick at least one scope.")
	tb.click(`[data-scope="tickets:submit"]`)
	tb.click(`[data-scope="tickets:read"]`)
	var done bool
	tb.eval("(() => { const e = document.querySelector('input[name=expires_at]'); e.value = '2000-01-01T00:00'; return true; })()", &done)
	tb.click("form[data-issue-key] button[type=submit]")
	tb.waitText("form[data-issue-key] .error", "The expiry must be a time in the future.")
	tb.eval("(() => { const e = document.querySelector('input[name=expires_at]'); e.value = '2099-01-01T12:00'; return true; })()", &done)
	tb.click("form[data-issue-key] button[type=submit]")
	tb.waitFor("the new key", "document.querySelector('[data-secret]')")
	key := tb.text("[data-secret]")
	tb.screenshot("ticket-key")
	if st, body := w.ticketCall(key); st != 200 {
		t.Fatalf("the key shown does not work: %d %s", st, body)
	}
	keys, err := w.admin.ListTicketKeys(t.Context(), id)
	if err != nil || len(keys) != 1 || strings.Join(keys[0].Scopes, ",") != "tickets:read,tickets:submit" || keys[0].ExpiresAt == nil || keys[0].ExpiresAt.Year() != 2099 {
		t.Fatalf("keys %+v, %v; want one with submit and read scopes expiring in 2099", keys, err)
	}

	// Shown once: a new visit of the page does not show it.
	tb.navigate(w.url + "/backoffice/#/tickets")
	tb.navigate(w.url + "/backoffice/#/tickets/" + id)
	tb.waitFor("the key listed", "document.querySelector('tr[data-key][data-state=live]')")
	var page string
	tb.eval("document.body.textContent", &page)
	if strings.Contains(page, key) || tb.text("[data-secret]") != "" {
		t.Fatal("the key is shown again after leaving the page")
	}

	for _, step := range []struct {
		action, want, confirm string
		status                int
		code                  string
	}{
		{"suspend", "Client suspended.", "yes", 403, "client_suspended"},
		{"resume", "Client resumed.", "", 200, ""},
		{"disable-tickets", "Tickets disabled.", "yes", 403, "feature_disabled"},
		{"enable-tickets", "Tickets enabled.", "", 200, ""},
	} {
		tb.click("[data-action=" + step.action + "]")
		if step.confirm != "" {
			tb.click("dialog[open] [data-confirm]")
		}
		tb.waitText("[data-client-status]", step.want)
		if st, body := w.ticketCall(key); st != step.status || !strings.Contains(body, step.code) {
			t.Errorf("after %s the key gets %d %s, want %d %s", step.action, st, body, step.status, step.code)
		}
	}

	tb.click("[data-revoke]")
	tb.click("dialog[open] [data-confirm]")
	tb.waitFor("the key revoked", "document.querySelector('tr[data-key][data-state=revoked]')")
	tb.waitText("[data-client-status]", "revoked.")
	if st, body := w.ticketCall(key); st != 401 || !strings.Contains(body, "key_revoked") {
		t.Errorf("a revoked key gets %d %s, want 401 key_revoked", st, body)
	}
}
