package server_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/foresight-dev/foresight/internal/betting/bettingtest"
)

// credentialWorld is a betting world (operator "sandbox" with a confirmed
// bet) with a second operator "rival" and credentials of both: a live one
// each, a revoked and an expired one of sandbox.
type credentialWorld struct {
	*bettingWorld
	bet                          string // sandbox's bet
	own, other, revoked, expired string // keys
	ownID, revokedID, expiredID  string // credential ids
}

func newCredentialWorld(t *testing.T, db string) *credentialWorld {
	t.Helper()
	cw := &credentialWorld{bettingWorld: newBettingWorld(t, db)}
	ctx := context.Background()
	cw.call(t, "POST", "/admin/v1/operators", adminToken, `{"id":"rival","name":"Rival Bets","integration":"standalone",
		"wallet_url":"https://wallet.rival.example","signing_secret":"rival-signing-secret-0123","jwks_url":"https://wallet.rival.example/jwks.json",
		"currencies":[{"code":"EUR","decimals":2}],"margin":{"method":"shin","value":"0.08"},
		"limits":{"EUR":{"min_stake":"1","max_stake":"50","max_payout":"500","outcome_exposure":"5000"}},"odds_tolerance":"0.02"}`, 201)
	issue := func(op, name string) (string, string) {
		t.Helper()
		c, err := cw.world.admin.IssueOperatorCredential(ctx, op, name, nil)
		if err != nil {
			t.Fatalf("issue a credential of %s: %v", op, err)
		}
		return c.ID, c.Key
	}
	cw.ownID, cw.own = issue("sandbox", "Ana (trading)")
	_, cw.other = issue("rival", "Rival staff")
	cw.revokedID, cw.revoked = issue("sandbox", "Former employee")
	if err := cw.world.admin.RevokeOperatorCredential(ctx, "sandbox", cw.revokedID); err != nil {
		t.Fatal(err)
	}
	expired, key := bettingtest.NewCredential("sandbox", "Contractor", time.Now().Add(-48*time.Hour))
	until := time.Now().Add(-time.Hour)
	expired.ExpiresAt = &until
	if err := cw.srv.Credentials().Store().CreateCredential(ctx, expired); err != nil {
		t.Fatal(err)
	}
	cw.expiredID, cw.expired = expired.ID, key

	token := cw.bettor("b1", "100.00")
	placed := cw.place(token, uuid.NewString(), cw.outcome[0], "10.00")
	if placed.status != 202 && placed.status != 201 {
		t.Fatalf("place = %d %s", placed.status, placed.body)
	}
	cw.bet = placed.json(t)["id"].(string)
	if got := cw.settled(token, cw.bet); got["status"] != "confirmed" {
		t.Fatalf("bet %v, want confirmed", got)
	}
	return cw
}

// call sends an admin request with token, checks it against api/admin.yaml
// and the status want (unless 0), and returns the answer.
func (cw *credentialWorld) call(t *testing.T, method, path, token, body string, want int) (int, map[string]any) {
	t.Helper()
	var b any
	if body != "" {
		b = body
	}
	st, m := cw.world.adminDo(t, method, path, token, b)
	if want != 0 && st != want {
		t.Errorf("%s %s = %d %v, want %d", method, path, st, m, want)
	}
	return st, m
}

// TestOperatorCredentialAccess calls every admin route with the admin
// token, an operator credential of the operator the route names, another
// operator's credential, a revoked and an expired credential.
func TestOperatorCredentialAccess(t *testing.T) {
	t.Parallel()
	forEachDatabase(t, func(t *testing.T, db string) {
		cw := newCredentialWorld(t, db)
		unknown := uuid.NewString()
		clients := "/admin/v1/ticket-clients/" + cw.client.ID
		market := "/admin/v1/markets/" + cw.market
		st, ev := cw.world.asAdmin(t, "GET", "/admin/v1/events?limit=1", nil)
		if st != 200 {
			t.Fatalf("events = %d", st)
		}
		event := ev["items"].([]any)[0].(map[string]any)["id"].(string)
		prices := fmt.Sprintf(`{"outcomes":[{"id":%q,"probability":"0.2"},{"id":%q,"probability":"0.8"}]}`, cw.outcome[0], cw.outcome[1])

		// Each route in the order of the table in internal/admin/access.go,
		// then the closed ones. admin, own and other are the statuses of
		// the admin token, a credential of sandbox and one of rival;
		// writes the admin token makes are harmless (a no-op or refused).
		routes := []struct {
			method, path, body string
			admin, own, other  int
		}{
			{"GET", "/admin/v1/whoami", "", 200, 200, 200},
			{"GET", "/admin/v1/events", "", 200, 200, 200},
			{"GET", "/admin/v1/events/" + event, "", 200, 200, 200},
			{"GET", "/admin/v1/events/" + unknown, "", 404, 404, 404},
			{"GET", market + "/price-history?operator_id=sandbox", "", 200, 200, 404},
			{"GET", market + "/price-history", "", 200, 200, 200},
			{"GET", "/admin/v1/operators", "", 200, 200, 200},
			{"GET", "/admin/v1/operators/sandbox", "", 200, 200, 404},
			{"GET", "/admin/v1/operators/nobody", "", 404, 404, 404},
			{"PATCH", "/admin/v1/operators/sandbox", `{"odds_tolerance":"0.05"}`, 200, 200, 404},
			{"PATCH", "/admin/v1/operators/sandbox", `{"name":"Sandbox"}`, 200, 403, 404},
			{"GET", "/admin/v1/exposure?operator_id=sandbox&market_id=" + cw.market, "", 200, 200, 404},
			{"GET", "/admin/v1/exposure?market_id=" + cw.market, "", 400, 200, 200},
			{"GET", "/admin/v1/bettors?operator_id=sandbox", "", 200, 200, 404},
			{"GET", "/admin/v1/bettors", "", 400, 200, 200},
			{"GET", "/admin/v1/bets?operator_id=sandbox", "", 200, 200, 404},
			{"GET", "/admin/v1/bets?operator_id=nobody", "", 200, 404, 404},
			{"GET", "/admin/v1/bets", "", 400, 200, 200},
			{"GET", "/admin/v1/bets/totals?operator_id=sandbox", "", 200, 200, 404},
			{"GET", "/admin/v1/bets/totals", "", 400, 200, 200},
			{"GET", "/admin/v1/bets/" + cw.bet + "/wallet-transactions", "", 200, 200, 404},
			{"GET", "/admin/v1/bets/" + unknown + "/wallet-transactions", "", 404, 404, 404},
			{"GET", "/admin/v1/bets/not-a-uuid/wallet-transactions", "", 404, 404, 404},
			// The cashier answers 400 without an Idempotency-Key, and 409
			// for a standalone operator such as sandbox.
			{"POST", "/admin/v1/operators/sandbox/bettors/b1/deposits", `{"currency":"USD","amount":"1"}`, 400, 400, 404},
			{"POST", "/admin/v1/operators/sandbox/bettors/b1/withdrawals", `{"currency":"USD","amount":"1"}`, 400, 400, 404},
			{"GET", "/admin/v1/operators/sandbox/bettors/b1/statement?currency=USD", "", 409, 409, 404},

			{"POST", "/admin/v1/events", `{}`, 400, 403, 403},
			{"PATCH", "/admin/v1/events/" + event, `{"title":{"en":"Final"}}`, 200, 403, 403},
			{"POST", market + "/prices", prices, 200, 403, 403},
			{"POST", market + "/suspend", "", 200, 403, 403},
			{"POST", market + "/open", "", 200, 403, 403},
			{"POST", "/admin/v1/markets/" + unknown + "/resolve", `{"winning_outcome_id":"` + unknown + `"}`, 404, 403, 403},
			{"POST", "/admin/v1/markets/" + unknown + "/cancel", "", 404, 403, 403},
			{"POST", "/admin/v1/operators", `{}`, 400, 403, 403},
			{"POST", "/admin/v1/operators/sandbox/credentials", `{}`, 400, 403, 403},
			{"GET", "/admin/v1/operators/sandbox/credentials", "", 200, 403, 403},
			{"DELETE", "/admin/v1/operators/sandbox/credentials/" + unknown, "", 404, 403, 403},
			{"POST", "/admin/v1/ticket-clients", `{}`, 400, 403, 403},
			{"GET", "/admin/v1/ticket-clients", "", 200, 403, 403},
			{"GET", clients, "", 200, 403, 403},
			{"PATCH", clients, `{}`, 200, 403, 403},
			{"POST", clients + "/keys", `{}`, 400, 403, 403},
			{"GET", clients + "/keys", "", 200, 403, 403},
			{"DELETE", clients + "/keys/" + unknown, "", 404, 403, 403},
			{"GET", "/admin/v1/ticket-jobs", "", 200, 403, 403},
			{"GET", "/admin/v1/ticket-jobs/" + unknown, "", 404, 403, 403},
			{"GET", "/admin/v1/ledger/house", "", 200, 403, 403},
			{"GET", "/admin/v1/ledger/verify", "", 200, 403, 403},
		}
		// A path with no route is 404 to every valid token (the mux's answer,
		// outside the API's document).
		for _, key := range []string{adminToken, cw.own, cw.other} {
			if r := cw.world.send("GET", "/admin/v1/nowhere", key, nil); r.status != 404 {
				t.Errorf("GET /admin/v1/nowhere = %d %s", r.status, r.body)
			}
		}
		_, wrong := cw.call(t, "GET", "/admin/v1/whoami", "fso_"+strings.Repeat("0", 32)+"_wrong", "", 401)
		for _, r := range routes {
			t.Run(r.method+" "+r.path, func(t *testing.T) {
				for _, who := range []struct {
					name, key string
					want      int
				}{{"admin", adminToken, r.admin}, {"own", cw.own, r.own}, {"other", cw.other, r.other}, {"revoked", cw.revoked, 401}, {"expired", cw.expired, 401}} {
					st, got := cw.call(t, r.method, r.path, who.key, r.body, who.want)
					if st == 403 && got["code"] != "forbidden" {
						t.Errorf("%s: %v, want code forbidden", who.name, got)
					}
					if st == 401 && (got["code"] != wrong["code"] || got["detail"] != wrong["detail"]) {
						t.Errorf("%s: %v; want the same answer as a wrong key: %v", who.name, got, wrong)
					}
				}
			})
		}
	})
}

// TestOperatorCredentials: issuing, listing and revoking credentials, who
// a credential is, what it sees of its operator's data, and which of its
// operator's settings it may change.
func TestOperatorCredentials(t *testing.T) {
	t.Parallel()
	forEachDatabase(t, func(t *testing.T, db string) {
		cw := newCredentialWorld(t, db)
		creds := "/admin/v1/operators/sandbox/credentials"
		future := time.Now().Add(24 * time.Hour).UTC().Truncate(time.Second).Format(time.RFC3339)

		for _, bad := range []string{`{}`, `{"name":""}`, `{"name":"   "}`, `{"name":"` + strings.Repeat("n", 201) + `"}`, `{"name":"x","colour":1}`,
			`{"name":"x","expires_at":"2001-01-01T00:00:00Z"}`, `{"name":"x","expires_at":"tomorrow"}`, `{"name":`} {
			if _, p := cw.call(t, "POST", creds, adminToken, bad, 400); p["code"] != "invalid_request" {
				t.Errorf("issue %s: %v", bad, p)
			}
		}
		cw.call(t, "POST", "/admin/v1/operators/nobody/credentials", adminToken, `{"name":"x"}`, 404)
		cw.call(t, "GET", "/admin/v1/operators/nobody/credentials", adminToken, "", 404)

		_, issued := cw.call(t, "POST", creds, adminToken, `{"name":"Reporting","expires_at":"`+future+`"}`, 201)
		key, _ := issued["key"].(string)
		if !strings.HasPrefix(key, "fso_") || issued["name"] != "Reporting" || issued["expires_at"] != future || issued["operator_id"] != "sandbox" {
			t.Fatalf("issued %v", issued)
		}
		_, who := cw.call(t, "GET", "/admin/v1/whoami", key, "", 200)
		if who["kind"] != "operator" || who["operator_id"] != "sandbox" || who["name"] != "Reporting" || who["credential_id"] != issued["id"] || who["expires_at"] != future {
			t.Errorf("whoami of the new key = %v", who)
		}
		if _, who := cw.call(t, "GET", "/admin/v1/whoami", adminToken, "", 200); who["kind"] != "admin" || who["operator_id"] != nil {
			t.Errorf("whoami of the admin token = %v", who)
		}

		_, list := cw.call(t, "GET", creds, adminToken, "", 200)
		items := list["items"].([]any)
		names := []string{}
		for _, it := range items {
			c := it.(map[string]any)
			if c["key"] != nil {
				t.Errorf("a listed credential shows its key: %v", c)
			}
			names = append(names, fmt.Sprint(c["name"], " revoked=", c["revoked_at"] != nil))
		}
		// Oldest first: the expired one was created two days ago.
		if want := []string{"Contractor revoked=false", "Ana (trading) revoked=false", "Former employee revoked=true", "Reporting revoked=false"}; fmt.Sprint(names) != fmt.Sprint(want) {
			t.Errorf("credentials of sandbox: %v, want %v", names, want)
		}
		if _, page := cw.call(t, "GET", creds+"?limit=1", adminToken, "", 200); page["next_cursor"] == nil || len(page["items"].([]any)) != 1 {
			t.Errorf("first page of one: %v", page)
		}

		// What a credential sees: its own operator only.
		if _, ops := cw.call(t, "GET", "/admin/v1/operators", cw.own, "", 200); len(ops["items"].([]any)) != 1 || ops["items"].([]any)[0].(map[string]any)["id"] != "sandbox" {
			t.Errorf("operators of sandbox's credential: %v", ops)
		}
		if _, ops := cw.call(t, "GET", "/admin/v1/operators", cw.other, "", 200); len(ops["items"].([]any)) != 1 || ops["items"].([]any)[0].(map[string]any)["id"] != "rival" {
			t.Errorf("operators of rival's credential: %v", ops)
		}
		if _, ops := cw.call(t, "GET", "/admin/v1/operators", adminToken, "", 200); len(ops["items"].([]any)) != 2 {
			t.Errorf("operators of the admin token: %v", ops)
		}
		_, bets := cw.call(t, "GET", "/admin/v1/bets", cw.own, "", 200)
		if items := bets["items"].([]any); len(items) != 1 || items[0].(map[string]any)["id"] != cw.bet {
			t.Errorf("bets of sandbox's credential: %v", bets)
		}
		if _, bets := cw.call(t, "GET", "/admin/v1/bets", cw.other, "", 200); len(bets["items"].([]any)) != 0 {
			t.Errorf("bets of rival's credential: %v", bets)
		}
		if _, bettors := cw.call(t, "GET", "/admin/v1/bettors", cw.own, "", 200); len(bettors["items"].([]any)) != 1 {
			t.Errorf("bettors of sandbox's credential: %v", bettors)
		}
		_, exposure := cw.call(t, "GET", "/admin/v1/exposure?market_id="+cw.market, cw.own, "", 200)
		if items := exposure["items"].([]any); len(items) == 0 || items[0].(map[string]any)["potential_payout"] == "0" {
			t.Errorf("exposure of sandbox's credential: %v", exposure)
		}
		// Another operator is exactly an unknown one.
		_, rival := cw.call(t, "GET", "/admin/v1/operators/rival", cw.own, "", 404)
		_, nobody := cw.call(t, "GET", "/admin/v1/operators/nobody", cw.own, "", 404)
		if strings.ReplaceAll(fmt.Sprint(rival), "rival", "X") != strings.ReplaceAll(fmt.Sprint(nobody), "nobody", "X") {
			t.Errorf("another operator %v differs from an unknown one %v", rival, nobody)
		}
		_, rival = cw.call(t, "GET", "/admin/v1/bets?operator_id=rival", cw.own, "", 404)
		_, nobody = cw.call(t, "GET", "/admin/v1/bets?operator_id=nobody", cw.own, "", 404)
		if strings.ReplaceAll(fmt.Sprint(rival), "rival", "X") != strings.ReplaceAll(fmt.Sprint(nobody), "nobody", "X") {
			t.Errorf("another operator's bets %v differ from an unknown one's %v", rival, nobody)
		}

		if _, txs := cw.call(t, "GET", "/admin/v1/bets/"+cw.bet+"/wallet-transactions", cw.own, "", 200); len(txs["items"].([]any)) == 0 {
			t.Errorf("wallet transactions of sandbox's bet for its credential: %v", txs)
		}
		unknownBet := uuid.NewString()
		_, rival = cw.call(t, "GET", "/admin/v1/bets/"+cw.bet+"/wallet-transactions", cw.other, "", 404)
		_, nobody = cw.call(t, "GET", "/admin/v1/bets/"+unknownBet+"/wallet-transactions", cw.other, "", 404)
		if strings.ReplaceAll(fmt.Sprint(rival), cw.bet, "X") != strings.ReplaceAll(fmt.Sprint(nobody), unknownBet, "X") {
			t.Errorf("another operator's bet %v differs from an unknown one %v", rival, nobody)
		}

		// Its commercial settings, and nothing else.
		_, changed := cw.call(t, "PATCH", "/admin/v1/operators/sandbox", cw.own, `{"margin":{"method":"power","value":"0.07"},"odds_tolerance":"0.1",
			"limits":{"USD":{"min_stake":"2","max_stake":"80","max_payout":"900","outcome_exposure":"140"}}}`, 200)
		if changed["margin"].(map[string]any)["method"] != "power" || changed["odds_tolerance"] != "0.1" ||
			changed["limits"].(map[string]any)["USD"].(map[string]any)["max_stake"] != "80" {
			t.Errorf("commercial change = %v", changed)
		}
		_, before := cw.call(t, "GET", "/admin/v1/operators/sandbox", adminToken, "", 200)
		for _, field := range []string{`"name":"Mine now"`, `"integration":"aggregator"`, `"wallet_url":"https://evil.example"`,
			`"signing_secret":"0123456789abcdef-new"`, `"jwks_url":"https://evil.example/jwks"`, `"session_url":"https://evil.example/s"`,
			`"casino_ids":["c1"]`, `"currencies":[{"code":"USD","decimals":2},{"code":"EUR","decimals":2}]`, `"id":"sandbox"`} {
			_, p := cw.call(t, "PATCH", "/admin/v1/operators/sandbox", cw.own, `{"odds_tolerance":"0.2",`+field+`}`, 403)
			if p["code"] != "forbidden" || !strings.Contains(fmt.Sprint(p["detail"]), strings.Split(field, `"`)[1]) {
				t.Errorf("PATCH with %s: %v", field, p)
			}
		}
		if _, after := cw.call(t, "GET", "/admin/v1/operators/sandbox", adminToken, "", 200); fmt.Sprint(after) != fmt.Sprint(before) {
			t.Errorf("refused changes changed the operator: %v, was %v", after, before)
		}

		// Revocation takes effect at once; revoking again is harmless.
		cw.call(t, "GET", "/admin/v1/bets", key, "", 200)
		for range 2 {
			cw.call(t, "DELETE", creds+"/"+issued["id"].(string), adminToken, "", 204)
		}
		cw.call(t, "GET", "/admin/v1/bets", key, "", 401)
		cw.call(t, "DELETE", "/admin/v1/operators/rival/credentials/"+cw.ownID, adminToken, "", 404)
		cw.call(t, "DELETE", creds+"/not-a-uuid", adminToken, "", 404)
		cw.call(t, "GET", "/admin/v1/whoami", cw.own, "", 200)
	})
}
