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
	w.T.Helper()
	req, _ := http.NewRequest("GET", w.URL+"/tickets/v1/jobs", nil)
	req.Header.Set("Authorization", "Bearer "+key)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		w.T.Fatal(err)
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
	tb := w.openScreen("tickets")
	tb.WaitFor("the clients", "document.body.dataset.view === 'tickets'")
	tb.Click("form[data-new-client] button[type=submit]")
	tb.WaitText("#view .error", "Enter the client's name.")
	tb.TypeIn("input[name=client_name]", "Growth")
	tb.Click("form[data-new-client] button[type=submit]")
	tb.WaitFor("the webhook secret", "document.querySelector('[data-secret]')")
	if s := tb.Text("[data-secret]"); len(s) < 16 {
		t.Fatalf("webhook secret shown %q", s)
	}
	tb.WaitFor("the client listed", "document.querySelector('tr[data-client] a')?.textContent === 'Growth'")
	clients, err := w.admin.ListTicketClients(t.Context())
	if err != nil || len(clients) != 1 || clients[0].Name != "Growth" {
		t.Fatalf("clients %+v, %v", clients, err)
	}
	id := clients[0].ID

	tb.Click("tr[data-client] a")
	tb.WaitFor("the client's page", "document.querySelector('form[data-issue-key]')")
	// Submit and read are ticked at first: unticked, no key is asked for.
	tb.Click(`[data-scope="tickets:submit"]`)
	tb.Click(`[data-scope="tickets:read"]`)
	tb.Click("form[data-issue-key] button[type=submit]")
	tb.WaitText("form[data-issue-key] .error", "Pick at least one scope.")
	tb.Click(`[data-scope="tickets:submit"]`)
	tb.Click(`[data-scope="tickets:read"]`)
	var done bool
	tb.Eval("(() => { const e = document.querySelector('input[name=expires_at]'); e.value = '2000-01-01T00:00'; return true; })()", &done)
	tb.Click("form[data-issue-key] button[type=submit]")
	tb.WaitText("form[data-issue-key] .error", "The expiry must be a time in the future.")
	tb.Eval("(() => { const e = document.querySelector('input[name=expires_at]'); e.value = '2099-01-01T12:00'; return true; })()", &done)
	tb.Click("form[data-issue-key] button[type=submit]")
	tb.WaitFor("the new key", "document.querySelector('[data-secret]')")
	key := tb.Text("[data-secret]")
	tb.screenshot("ticket-key")
	if st, body := w.ticketCall(key); st != 200 {
		t.Fatalf("the key shown does not work: %d %s", st, body)
	}
	keys, err := w.admin.ListTicketKeys(t.Context(), id)
	if err != nil || len(keys) != 1 || strings.Join(keys[0].Scopes, ",") != "tickets:read,tickets:submit" || keys[0].ExpiresAt == nil || keys[0].ExpiresAt.Year() != 2099 {
		t.Fatalf("keys %+v, %v; want one with submit and read scopes expiring in 2099", keys, err)
	}

	// Shown once: a new visit of the page does not show it.
	tb.Navigate(w.URL + "/backoffice/#/tickets")
	tb.Navigate(w.URL + "/backoffice/#/tickets/" + id)
	tb.WaitFor("the key listed", "document.querySelector('tr[data-key][data-state=live]')")
	var page string
	tb.Eval("document.body.textContent", &page)
	if strings.Contains(page, key) || tb.Text("[data-secret]") != "" {
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
		tb.Click("[data-action=" + step.action + "]")
		if step.confirm != "" {
			tb.Click("dialog[open] [data-confirm]")
		}
		tb.WaitText("[data-client-status]", step.want)
		if st, body := w.ticketCall(key); st != step.status || !strings.Contains(body, step.code) {
			t.Errorf("after %s the key gets %d %s, want %d %s", step.action, st, body, step.status, step.code)
		}
	}

	tb.Click("[data-revoke]")
	tb.Click("dialog[open] [data-confirm]")
	tb.WaitFor("the key revoked", "document.querySelector('tr[data-key][data-state=revoked]')")
	tb.WaitText("[data-client-status]", "revoked.")
	if st, body := w.ticketCall(key); st != 401 || !strings.Contains(body, "key_revoked") {
		t.Errorf("a revoked key gets %d %s, want 401 key_revoked", st, body)
	}
}
