package server_test

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
)

// auditItem is an entry of GET /admin/v1/audit.
type auditItem struct {
	ID    string    `json:"id"`
	At    time.Time `json:"at"`
	Actor struct {
		Kind         string `json:"kind"`
		Name         string `json:"name"`
		CredentialID string `json:"credential_id"`
		OperatorID   string `json:"operator_id"`
	} `json:"actor"`
	Action        string         `json:"action"`
	TargetKind    string         `json:"target_kind"`
	TargetID      string         `json:"target_id"`
	OperatorID    string         `json:"operator_id"`
	ClientAddress string         `json:"client_address"`
	RequestID     string         `json:"request_id"`
	Before        map[string]any `json:"before"`
	After         map[string]any `json:"after"`
}

// auditTrail reads every entry query selects, a page of three at a time,
// newest first, checking each exchange against api/admin.yaml.
func (lw *ledgerWorld) auditTrail(t *testing.T, token, query string) []auditItem {
	t.Helper()
	var all []auditItem
	cursor := ""
	for range 100 {
		q, _ := url.ParseQuery(query)
		q.Set("limit", "3")
		if cursor != "" {
			q.Set("cursor", cursor)
		}
		r := lw.admin(t, "GET", "/admin/v1/audit?"+q.Encode(), token, "")
		if r.status != 200 {
			t.Fatalf("GET /admin/v1/audit?%s = %d %s", q.Encode(), r.status, r.body)
		}
		var page struct {
			Items      []auditItem `json:"items"`
			NextCursor *string     `json:"next_cursor"`
		}
		if err := json.Unmarshal(r.body, &page); err != nil {
			t.Fatal(err)
		}
		all = append(all, page.Items...)
		if page.NextCursor == nil {
			return all
		}
		cursor = *page.NextCursor
	}
	t.Fatal("the audit trail does not end")
	return nil
}

// auditRows returns every column of every row of audit_entries as text,
// read behind the server's back.
func auditRows(t *testing.T, db string) []string {
	t.Helper()
	const q = `SELECT id, actor_kind, actor_name, actor_credential_id, actor_operator_id, action, target_kind, target_id, operator_id,
		client_address, request_id, COALESCE(CAST(before_state AS TEXT), ''), COALESCE(CAST(after_state AS TEXT), ''), COALESCE(entry_key, '')
		FROM audit_entries`
	var out []string
	scan := func(next func() bool, scan func(...any) error) {
		for next() {
			cols := make([]string, 14)
			ptrs := make([]any, len(cols))
			for i := range cols {
				ptrs[i] = &cols[i]
			}
			if err := scan(ptrs...); err != nil {
				t.Fatal(err)
			}
			out = append(out, strings.Join(cols, " | "))
		}
	}
	if path, ok := strings.CutPrefix(db, "sqlite:"); ok {
		raw, err := sql.Open("sqlite", "file:"+path+"?_pragma=busy_timeout(10000)")
		if err != nil {
			t.Fatal(err)
		}
		defer raw.Close()
		rows, err := raw.Query(q)
		if err != nil {
			t.Fatal(err)
		}
		defer rows.Close()
		scan(rows.Next, rows.Scan)
		return out
	}
	conn, err := pgx.Connect(context.Background(), db)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(context.Background())
	rows, err := conn.Query(context.Background(), q)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	scan(rows.Next, rows.Scan)
	return out
}

// TestAuditTrail: every staff action the admin API offers is in the audit
// trail once, with its actor, time, address, request id and the states
// before and after; a replay and a refused request add nothing; no secret
// is in any row; an operator credential reads its own operator's entries
// only.
func TestAuditTrail(t *testing.T) {
	t.Parallel()
	forEachDatabase(t, testAuditTrail)
}

func testAuditTrail(t *testing.T, db string) {
	lw := newLedgerWorld(t, db)
	start := time.Now().Add(-time.Minute)
	const (
		firstSecret  = "acme-signing-secret-AUDIT-0001"
		secondSecret = "acme-signing-secret-AUDIT-0002"
	)
	want := func(t *testing.T, r response, status int) response {
		t.Helper()
		if r.status != status {
			t.Fatalf("%d %s, want %d", r.status, r.body, status)
		}
		return r
	}
	obj := func(t *testing.T, r response) map[string]any {
		t.Helper()
		var m map[string]any
		if err := json.Unmarshal(r.body, &m); err != nil {
			t.Fatal(err)
		}
		return m
	}

	// Operators: created, changed by platform staff (margin, limits, secret).
	want(t, lw.admin(t, "POST", "/admin/v1/operators", adminToken, `{"id":"acme","name":"Acme Bets","integration":"standalone",
		"wallet_url":"https://wallet.acme.example","signing_secret":"`+firstSecret+`","jwks_url":"https://wallet.acme.example/jwks.json",
		"currencies":[{"code":"EUR","decimals":2}],"margin":{"method":"shin","value":"0.05"},
		"limits":{"EUR":{"min_stake":"1","max_stake":"50","max_payout":"500","outcome_exposure":"5000"}}}`), 201)
	want(t, lw.admin(t, "PATCH", "/admin/v1/operators/acme", adminToken, `{"margin":{"method":"shin","value":"0.07"},
		"limits":{"EUR":{"min_stake":"2","max_stake":"60","max_payout":"600","outcome_exposure":"6000"}},"signing_secret":"`+secondSecret+`"}`), 200)
	want(t, lw.admin(t, "PATCH", "/admin/v1/operators/acme", adminToken, `{"margin":{"method":"nope","value":"0.07"}}`), 400)

	// A credential of the bundled operator: issued, then used.
	cred := obj(t, want(t, lw.admin(t, "POST", "/admin/v1/operators/house-of-play/credentials", adminToken, `{"name":"Cashier desk"}`), 201))
	credID, credKey := cred["id"].(string), cred["key"].(string)
	want(t, lw.admin(t, "PATCH", "/admin/v1/operators/house-of-play", credKey, `{"margin":{"method":"additive","value":"0.04"}}`), 200)
	want(t, lw.admin(t, "PATCH", "/admin/v1/operators/house-of-play", credKey, `{"name":"Renamed"}`), 403)
	want(t, lw.admin(t, "PATCH", "/admin/v1/operators/acme", credKey, `{"margin":{"method":"additive","value":"0.04"}}`), 404)

	// The cashier: a deposit by the credential (replayed once), a
	// withdrawal by staff, a withdrawal beyond the balance.
	deposit := `{"currency":"EUR","amount":"25.00","reference":"psp-1"}`
	want(t, lw.admin(t, "POST", "/admin/v1/operators/house-of-play/bettors/ann/deposits", credKey, deposit, "Idempotency-Key", "dep-1",
		"X-Request-Id", "audit-test-deposit"), 201)
	want(t, lw.admin(t, "POST", "/admin/v1/operators/house-of-play/bettors/ann/deposits", credKey, deposit, "Idempotency-Key", "dep-1"), 200)
	want(t, lw.admin(t, "POST", "/admin/v1/operators/house-of-play/bettors/ann/deposits", credKey, `{"currency":"EUR","amount":"26.00"}`,
		"Idempotency-Key", "dep-1"), 409)
	want(t, lw.move(t, "withdrawals", "ann", "wd-1", `{"currency":"EUR","amount":"10.00"}`), 201)
	want(t, lw.move(t, "withdrawals", "ann", "wd-2", `{"currency":"EUR","amount":"100.00"}`), 409)

	// Markets: repriced (the same prices again change nothing), suspended,
	// opened, resolved (again: nothing), cancelled.
	event := obj(t, want(t, lw.admin(t, "POST", "/admin/v1/events", adminToken, `{"category":"sports","title":{"en":"Final"},"markets":[
		{"question":{"en":"Who wins?"},"outcomes":[{"name":{"en":"Home"},"probability":"0.6"},{"name":{"en":"Away"},"probability":"0.4"}]},
		{"question":{"en":"Extra time?"},"outcomes":[{"name":{"en":"Yes"},"probability":"0.3"},{"name":{"en":"No"},"probability":"0.7"}]}]}`), 201))
	markets := event["markets"].([]any)
	m1, m2 := markets[0].(map[string]any), markets[1].(map[string]any)
	m1ID, m2ID := m1["id"].(string), m2["id"].(string)
	home, away := m1["outcomes"].([]any)[0].(map[string]any)["id"].(string), m1["outcomes"].([]any)[1].(map[string]any)["id"].(string)
	prices := fmt.Sprintf(`{"outcomes":[{"id":%q,"probability":"0.55"},{"id":%q,"probability":"0.45"}]}`, home, away)
	want(t, lw.admin(t, "POST", "/admin/v1/markets/"+m1ID+"/prices", adminToken, prices), 200)
	want(t, lw.admin(t, "POST", "/admin/v1/markets/"+m1ID+"/prices", adminToken, prices), 200)
	want(t, lw.admin(t, "POST", "/admin/v1/markets/"+m1ID+"/prices", adminToken, fmt.Sprintf(`{"outcomes":[{"id":%q,"probability":"0.55"}]}`, home)), 400)
	want(t, lw.admin(t, "POST", "/admin/v1/markets/"+m1ID+"/suspend", adminToken, ""), 200)
	want(t, lw.admin(t, "POST", "/admin/v1/markets/"+m1ID+"/open", adminToken, ""), 200)
	resolve := fmt.Sprintf(`{"winning_outcome_id":%q}`, home)
	want(t, lw.admin(t, "POST", "/admin/v1/markets/"+m1ID+"/resolve", adminToken, resolve), 200)
	want(t, lw.admin(t, "POST", "/admin/v1/markets/"+m1ID+"/resolve", adminToken, resolve), 200)
	want(t, lw.admin(t, "POST", "/admin/v1/markets/"+m1ID+"/cancel", adminToken, ""), 409)
	want(t, lw.admin(t, "POST", "/admin/v1/markets/"+m2ID+"/cancel", adminToken, ""), 200)
	want(t, lw.admin(t, "POST", "/admin/v1/markets/"+m2ID+"/cancel", adminToken, ""), 200)

	// The ticket service: a client created and changed, a key created and
	// revoked (twice).
	client := obj(t, want(t, lw.admin(t, "POST", "/admin/v1/ticket-clients", adminToken, `{"name":"Auditors"}`), 201))
	clientID, webhookSecret := client["id"].(string), client["webhook_secret"].(string)
	want(t, lw.admin(t, "PATCH", "/admin/v1/ticket-clients/"+clientID, adminToken, `{"suspended":true}`), 200)
	want(t, lw.admin(t, "POST", "/admin/v1/ticket-clients/"+clientID+"/keys", adminToken, `{"scopes":["nope"]}`), 400)
	key := obj(t, want(t, lw.admin(t, "POST", "/admin/v1/ticket-clients/"+clientID+"/keys", adminToken, `{"scopes":["tickets:read"]}`), 201))
	keyID, keyText := key["id"].(string), key["key"].(string)
	want(t, lw.admin(t, "DELETE", "/admin/v1/ticket-clients/"+clientID+"/keys/"+keyID, adminToken, ""), 204)
	want(t, lw.admin(t, "DELETE", "/admin/v1/ticket-clients/"+clientID+"/keys/"+keyID, adminToken, ""), 204)

	// The credential reads its own operator's entries only.
	own := lw.auditTrail(t, credKey, "")
	if len(own) == 0 {
		t.Fatal("the credential reads no entry")
	}
	for _, e := range own {
		if e.OperatorID != "house-of-play" {
			t.Errorf("the credential reads an entry of %q: %+v", e.OperatorID, e)
		}
	}
	want(t, lw.admin(t, "GET", "/admin/v1/audit?operator_id=acme", credKey, ""), 404)
	want(t, lw.admin(t, "DELETE", "/admin/v1/operators/house-of-play/credentials/"+credID, adminToken, ""), 204)
	want(t, lw.admin(t, "DELETE", "/admin/v1/operators/house-of-play/credentials/"+credID, adminToken, ""), 204)

	// Every action once.
	entries := lw.auditTrail(t, adminToken, "")
	count := map[string]int{}
	byAction := map[string]auditItem{}
	for _, e := range entries {
		count[e.Action+" "+e.TargetID]++
		byAction[e.Action+" "+e.TargetID] = e
		if e.ID == "" || e.At.Before(start) || e.At.After(time.Now().Add(time.Minute)) || e.ClientAddress != "127.0.0.1" || e.RequestID == "" {
			t.Errorf("entry without id, time, address or request id: %+v", e)
		}
		if e.After == nil {
			t.Errorf("entry without an after state: %+v", e)
		}
		if strings.HasSuffix(e.Action, ".created") || strings.HasSuffix(e.Action, ".issued") {
			if e.Before != nil {
				t.Errorf("a creation with a before state: %+v", e)
			}
		} else if e.Before == nil {
			t.Errorf("entry without a before state: %+v", e)
		}
	}
	expected := []string{
		"operator.created house-of-play", "operator.created acme", "operator.updated acme", "operator.updated house-of-play",
		"operator_credential.issued " + credID, "operator_credential.revoked " + credID,
		"bettor.credited ann", "bettor.debited ann",
		"market.repriced " + m1ID, "market.suspended " + m1ID, "market.opened " + m1ID, "market.resolved " + m1ID, "market.cancelled " + m2ID,
		"ticket_client.created " + clientID, "ticket_client.updated " + clientID, "ticket_key.created " + keyID, "ticket_key.revoked " + keyID,
	}
	for _, k := range expected {
		if count[k] != 1 {
			t.Errorf("%s: %d entries, want 1", k, count[k])
		}
	}
	// newWorld's own ticket client and key are the only other entries.
	if len(entries) != len(expected)+2 {
		t.Errorf("%d entries, want %d: %v", len(entries), len(expected)+2, count)
	}
	for i := 1; i < len(entries); i++ {
		if entries[i].At.After(entries[i-1].At) {
			t.Errorf("entries not newest first at %d: %v after %v", i, entries[i].At, entries[i-1].At)
		}
	}

	// Who, and the states.
	staff := func(k string) {
		t.Helper()
		if e := byAction[k]; e.Actor.Kind != "admin" || e.Actor.CredentialID != "" {
			t.Errorf("%s: actor %+v, want the admin token", k, e.Actor)
		}
	}
	for _, k := range []string{"operator.created acme", "operator.updated acme", "bettor.debited ann", "market.resolved " + m1ID, "ticket_key.revoked " + keyID} {
		staff(k)
	}
	for _, k := range []string{"operator.updated house-of-play", "bettor.credited ann"} {
		e := byAction[k]
		if e.Actor.Kind != "operator_credential" || e.Actor.CredentialID != credID || e.Actor.OperatorID != "house-of-play" || e.Actor.Name != "Cashier desk" {
			t.Errorf("%s: actor %+v, want the credential %s", k, e.Actor, credID)
		}
	}
	field := func(state map[string]any, path ...string) any {
		var v any = state
		for _, p := range path {
			m, _ := v.(map[string]any)
			v = m[p]
		}
		return v
	}
	checks := []struct {
		entry, side string
		path        []string
		want        any
	}{
		{"operator.created acme", "after", []string{"signing_secret"}, "set"},
		{"operator.updated acme", "before", []string{"margin", "value"}, "0.05"},
		{"operator.updated acme", "after", []string{"margin", "value"}, "0.07"},
		{"operator.updated acme", "before", []string{"limits", "EUR", "max_stake"}, "50"},
		{"operator.updated acme", "after", []string{"limits", "EUR", "max_stake"}, "60"},
		{"operator.updated acme", "after", []string{"signing_secret"}, "changed"},
		{"operator.updated acme", "before", []string{"signing_secret"}, nil},
		{"operator.updated house-of-play", "after", []string{"margin", "method"}, "additive"},
		{"operator.updated house-of-play", "after", []string{"signing_secret"}, nil},
		{"bettor.credited ann", "before", []string{"balance"}, "0.00"},
		{"bettor.credited ann", "after", []string{"balance"}, "25.00"},
		{"bettor.credited ann", "after", []string{"amount"}, "25.00"},
		{"bettor.credited ann", "after", []string{"idempotency_key"}, "dep-1"},
		{"bettor.credited ann", "after", []string{"reference"}, "psp-1"},
		{"bettor.debited ann", "before", []string{"balance"}, "25.00"},
		{"bettor.debited ann", "after", []string{"balance"}, "15.00"},
		{"market.repriced " + m1ID, "before", []string{"outcomes"}, []any{map[string]any{"id": home, "probability": "0.6"}, map[string]any{"id": away, "probability": "0.4"}}},
		{"market.repriced " + m1ID, "after", []string{"outcomes"}, []any{map[string]any{"id": home, "probability": "0.55"}, map[string]any{"id": away, "probability": "0.45"}}},
		{"market.suspended " + m1ID, "before", []string{"status"}, "open"},
		{"market.suspended " + m1ID, "after", []string{"status"}, "suspended"},
		{"market.opened " + m1ID, "after", []string{"status"}, "open"},
		{"market.resolved " + m1ID, "after", []string{"status"}, "resolved"},
		{"market.resolved " + m1ID, "after", []string{"winning_outcome_id"}, home},
		{"market.cancelled " + m2ID, "after", []string{"status"}, "cancelled"},
		{"ticket_client.created " + clientID, "after", []string{"webhook_secret"}, "set"},
		{"ticket_client.updated " + clientID, "before", []string{"suspended"}, false},
		{"ticket_client.updated " + clientID, "after", []string{"suspended"}, true},
		{"ticket_key.revoked " + keyID, "before", []string{"revoked_at"}, nil},
		{"operator_credential.revoked " + credID, "before", []string{"revoked_at"}, nil},
	}
	for _, c := range checks {
		e := byAction[c.entry]
		state := e.After
		if c.side == "before" {
			state = e.Before
		}
		got, _ := json.Marshal(field(state, c.path...))
		wantJSON, _ := json.Marshal(c.want)
		if string(got) != string(wantJSON) {
			t.Errorf("%s %s.%s = %s, want %s", c.entry, c.side, strings.Join(c.path, "."), got, wantJSON)
		}
	}
	for _, k := range []string{"ticket_key.revoked " + keyID, "operator_credential.revoked " + credID} {
		if field(byAction[k].After, "revoked_at") == nil {
			t.Errorf("%s: no revoked_at after", k)
		}
	}
	if e := byAction["bettor.credited ann"]; e.RequestID != "audit-test-deposit" || e.OperatorID != "house-of-play" || e.TargetKind != "bettor" {
		t.Errorf("deposit entry = %+v", e)
	}

	// Filters.
	for _, f := range []struct {
		query string
		want  int
	}{
		{"action=bettor.credited", 1},
		{"actor=" + credID, 2},
		{"actor=admin&operator_id=house-of-play", 4},
		{"operator_id=acme", 2},
		{"target_kind=market&target_id=" + m1ID, 4},
		{"target_kind=market", 5},
		{"since=" + url.QueryEscape(time.Now().Add(time.Hour).Format(time.RFC3339)), 0},
		{"until=" + url.QueryEscape(start.Format(time.RFC3339)), 0},
		{"since=" + url.QueryEscape(start.Format(time.RFC3339Nano)) + "&action=market.opened", 1},
	} {
		q, _ := url.ParseQuery(f.query)
		if got := lw.auditTrail(t, adminToken, q.Encode()); len(got) != f.want {
			t.Errorf("%s: %d entries, want %d", f.query, len(got), f.want)
		}
	}
	for _, bad := range []string{"action=market.exploded", "actor=someone", "since=yesterday", "cursor=x", "limit=0"} {
		want(t, lw.admin(t, "GET", "/admin/v1/audit?"+bad, adminToken, ""), 400)
	}

	// No secret anywhere: not in a row, not in the API's answer.
	rows := auditRows(t, db)
	if len(rows) != len(entries) {
		t.Errorf("%d rows, %d entries listed", len(rows), len(entries))
	}
	listed, _ := json.Marshal(entries)
	for _, secret := range []string{firstSecret, secondSecret, credKey, webhookSecret, keyText, lw.key, adminToken} {
		for _, row := range rows {
			if strings.Contains(row, secret) {
				t.Errorf("a secret is in an audit row: %s", row)
			}
		}
		if strings.Contains(string(listed), secret) {
			t.Errorf("a secret is in the listed entries")
		}
	}
}
