package server_test

import (
	"context"
	"database/sql"
	"encoding/csv"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/foresight-dev/foresight/internal/ledger"
)

const bundledOperator = `{"id":"house-of-play","name":"House of Play","integration":"bundled",
	"currencies":[{"code":"EUR","decimals":2},{"code":"JPY"}],
	"limits":{"EUR":{"min_stake":"1","max_stake":"50","max_payout":"500","outcome_exposure":"5000"},
		"JPY":{"min_stake":"100","max_stake":"5000","max_payout":"50000","outcome_exposure":"500000"}}}`

// ledgerWorld is a server with a bundled operator and a way to change the
// database behind the server's back.
type ledgerWorld struct {
	*world
	exec func(t *testing.T, query string)
}

func newLedgerWorld(t *testing.T, db string) *ledgerWorld {
	t.Helper()
	lw := &ledgerWorld{world: newWorld(t, db, worldOptions{noWorkers: true})}
	lw.exec = func(t *testing.T, query string) {
		t.Helper()
		var err error
		if path, ok := strings.CutPrefix(db, "sqlite:"); ok {
			var raw *sql.DB
			if raw, err = sql.Open("sqlite", "file:"+path+"?_pragma=busy_timeout(10000)"); err == nil {
				_, err = raw.Exec(query)
				raw.Close()
			}
		} else {
			var conn *pgx.Conn
			if conn, err = pgx.Connect(context.Background(), db); err == nil {
				_, err = conn.Exec(context.Background(), query)
				conn.Close(context.Background())
			}
		}
		if err != nil {
			t.Fatalf("%s: %v", query, err)
		}
	}
	if r := lw.admin(t, "POST", "/admin/v1/operators", adminToken, bundledOperator); r.status != 201 {
		t.Fatalf("create a bundled operator = %d %s", r.status, r.body)
	}
	return lw
}

// admin sends an admin request with token and header pairs and checks the
// exchange against api/admin.yaml.
func (lw *ledgerWorld) admin(t *testing.T, method, path, token, body string, header ...string) response {
	t.Helper()
	return checkedTrip(t, lw.adminSpec, method, lw.url+path, token, body, header...)
}

func (lw *ledgerWorld) move(t *testing.T, kind, bettor, key, body string) response {
	t.Helper()
	return lw.admin(t, "POST", "/admin/v1/operators/house-of-play/bettors/"+bettor+"/"+kind, adminToken, body, "Idempotency-Key", key)
}

func TestLedgerCashier(t *testing.T) {
	t.Parallel()
	forEachDatabase(t, testLedgerCashier)
}

func testLedgerCashier(t *testing.T, db string) {
	lw := newLedgerWorld(t, db)
	if r := lw.admin(t, "GET", "/admin/v1/operators/house-of-play", adminToken, ""); r.json(t)["integration"] != "bundled" ||
		r.json(t)["wallet_url"] != nil || r.json(t)["jwks_url"] != nil {
		t.Fatalf("bundled operator = %d %s", r.status, r.body)
	}

	first := lw.move(t, "deposits", "ann", "psp-1", `{"currency":"EUR","amount":"100.5","reference":"card 4242"}`)
	dep := first.json(t)
	if first.status != 201 || dep["amount"] != "100.50" || dep["balance"] != "100.50" || dep["available"] != "100.50" ||
		dep["kind"] != "deposit" || dep["idempotency_key"] != "psp-1" || dep["reference"] != "card 4242" {
		t.Fatalf("deposit = %d %s", first.status, first.body)
	}
	// A replay answers 200 with the first deposit and moves nothing.
	again := lw.move(t, "deposits", "ann", "psp-1", `{"currency":"EUR","amount":"100.5","reference":"card 4242"}`)
	if again.status != 200 || again.json(t)["id"] != dep["id"] || again.json(t)["balance"] != "100.50" {
		t.Errorf("replay = %d %s", again.status, again.body)
	}
	for _, c := range []struct {
		name, kind, key, body string
		status                int
		code                  string
	}{
		{"same key, other amount", "deposits", "psp-1", `{"currency":"EUR","amount":"100"}`, 409, "conflict"},
		{"same key, a withdrawal", "withdrawals", "psp-1", `{"currency":"EUR","amount":"100.5","reference":"card 4242"}`, 409, "conflict"},
		{"beyond the balance", "withdrawals", "psp-2", `{"currency":"EUR","amount":"100.51"}`, 409, "insufficient_funds"},
		{"too many decimals", "deposits", "psp-3", `{"currency":"EUR","amount":"1.005"}`, 400, "invalid_request"},
		{"JPY has no decimals", "deposits", "psp-3", `{"currency":"JPY","amount":"1.5"}`, 400, "invalid_request"},
		{"zero", "deposits", "psp-3", `{"currency":"EUR","amount":"0"}`, 400, "invalid_request"},
		{"a currency the operator lacks", "deposits", "psp-3", `{"currency":"USD","amount":"1"}`, 400, "invalid_request"},
		{"no amount", "deposits", "psp-3", `{"currency":"EUR"}`, 400, "invalid_request"},
		{"a number", "deposits", "psp-3", `{"currency":"EUR","amount":1}`, 400, "invalid_request"},
	} {
		if r := lw.move(t, c.kind, "ann", c.key, c.body); r.status != c.status || r.json(t)["code"] != c.code {
			t.Errorf("%s = %d %s, want %d %s", c.name, r.status, r.body, c.status, c.code)
		}
	}
	if r := lw.admin(t, "POST", "/admin/v1/operators/house-of-play/bettors/ann/deposits", adminToken, `{"currency":"EUR","amount":"1"}`); r.status != 400 {
		t.Errorf("no Idempotency-Key = %d %s", r.status, r.body)
	}
	if r := lw.admin(t, "POST", "/admin/v1/operators/nobody/bettors/ann/deposits", adminToken, `{"currency":"EUR","amount":"1"}`, "Idempotency-Key", "k"); r.status != 404 {
		t.Errorf("unknown operator = %d %s", r.status, r.body)
	}
	if r := lw.move(t, "withdrawals", "ann", "psp-4", `{"currency":"EUR","amount":"40.25","reference":"bank"}`); r.status != 201 ||
		r.json(t)["balance"] != "60.25" {
		t.Errorf("withdrawal = %d %s", r.status, r.body)
	}
	if r := lw.move(t, "deposits", "ann", "psp-5", `{"currency":"JPY","amount":"1000"}`); r.status != 201 || r.json(t)["amount"] != "1000" {
		t.Errorf("JPY deposit = %d %s", r.status, r.body)
	}

	// The statement, in pages and as CSV.
	page := lw.admin(t, "GET", "/admin/v1/operators/house-of-play/bettors/ann/statement?currency=EUR&limit=1", adminToken, "")
	st := page.json(t)
	items, _ := st["items"].([]any)
	if page.status != 200 || st["balance"] != "60.25" || st["available"] != "60.25" || st["held"] != "0.00" || len(items) != 1 || st["next_cursor"] == nil {
		t.Fatalf("statement page 1 = %d %s", page.status, page.body)
	}
	page = lw.admin(t, "GET", "/admin/v1/operators/house-of-play/bettors/ann/statement?currency=EUR&cursor="+st["next_cursor"].(string), adminToken, "")
	items, _ = page.json(t)["items"].([]any)
	if len(items) != 1 || page.json(t)["next_cursor"] != nil {
		t.Fatalf("statement page 2 = %s", page.body)
	}
	if l := items[0].(map[string]any); l["amount"] != "-40.25" || l["balance_after"] != "60.25" || l["kind"] != "withdrawal" || l["idempotency_key"] != "psp-4" {
		t.Errorf("statement line = %v", l)
	}
	csvAnswer := lw.admin(t, "GET", "/admin/v1/operators/house-of-play/bettors/ann/statement?currency=EUR&format=csv", adminToken, "")
	records, err := csv.NewReader(strings.NewReader(string(csvAnswer.body))).ReadAll()
	if err != nil || csvAnswer.status != 200 || !strings.HasPrefix(csvAnswer.header.Get("Content-Type"), "text/csv") || len(records) != 3 ||
		strings.Join(records[1][2:4], ",") != "deposit,card 4242" || records[1][6] != "100.50" || records[2][6] != "-40.25" || records[2][7] != "60.25" {
		t.Errorf("CSV statement = %d %v %q", csvAnswer.status, err, csvAnswer.body)
	}
	if r := lw.admin(t, "GET", "/admin/v1/operators/house-of-play/bettors/nobody/statement?currency=EUR", adminToken, ""); r.status != 200 ||
		r.json(t)["balance"] != "0.00" || len(r.json(t)["items"].([]any)) != 0 {
		t.Errorf("statement of a bettor without movements = %d %s", r.status, r.body)
	}

	// 60 withdrawals of 1 at once against a balance of 20: 20 pass.
	if r := lw.move(t, "deposits", "bob", "bob-1", `{"currency":"EUR","amount":"20"}`); r.status != 201 {
		t.Fatalf("deposit = %d %s", r.status, r.body)
	}
	var wg sync.WaitGroup
	statuses := make(chan int, 60)
	for i := range 60 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, r := lw.exchange("POST", "/admin/v1/operators/house-of-play/bettors/bob/withdrawals", adminToken,
				[]byte(`{"currency":"EUR","amount":"1"}`), "Idempotency-Key", fmt.Sprintf("bob-w%d", i))
			statuses <- r.status
		}()
	}
	wg.Wait()
	close(statuses)
	count := map[int]int{}
	for s := range statuses {
		count[s]++
	}
	if count[201] != 20 || count[409] != 40 {
		t.Errorf("concurrent withdrawals: %v, want 20 × 201 and 40 × 409", count)
	}

	house := lw.admin(t, "GET", "/admin/v1/ledger/house?operator_id=house-of-play", adminToken, "")
	results, _ := house.json(t)["items"].([]any)
	if house.status != 200 || len(results) != 2 {
		t.Fatalf("house result = %d %s", house.status, house.body)
	}
	if eur := results[0].(map[string]any); eur["currency"] != "EUR" || eur["bettor_balances"] != "60.25" || eur["net_deposits"] != "60.25" ||
		eur["result"] != "0.00" || eur["stakes_in"] != "0.00" {
		t.Errorf("house result in EUR = %v", eur)
	}

	// A standalone operator's balances are not in the ledger.
	if r := lw.admin(t, "POST", "/admin/v1/operators", adminToken, `{"id":"walleted","name":"W","integration":"standalone",
		"wallet_url":"https://wallet.example","signing_secret":"walleted-signing-secret","jwks_url":"https://wallet.example/jwks.json",
		"currencies":[{"code":"EUR"}],"limits":{"EUR":{"min_stake":"1","max_stake":"50","max_payout":"500","outcome_exposure":"5000"}}}`); r.status != 201 {
		t.Fatalf("create standalone = %d %s", r.status, r.body)
	}
	if r := lw.admin(t, "POST", "/admin/v1/operators/walleted/bettors/ann/deposits", adminToken, `{"currency":"EUR","amount":"1"}`,
		"Idempotency-Key", "k"); r.status != 409 || r.json(t)["code"] != "conflict" {
		t.Errorf("deposit at a standalone operator = %d %s", r.status, r.body)
	}

	// The operator's own credential may use its cashier; another's may
	// not see it; neither reads the house result or verifies.
	own, err := lw.world.admin.IssueOperatorCredential(context.Background(), "house-of-play", "Cashier desk", nil)
	if err != nil {
		t.Fatal(err)
	}
	other, err := lw.world.admin.IssueOperatorCredential(context.Background(), "walleted", "Rival", nil)
	if err != nil {
		t.Fatal(err)
	}
	if r := lw.admin(t, "POST", "/admin/v1/operators/house-of-play/bettors/cy/deposits", own.Key, `{"currency":"EUR","amount":"5"}`,
		"Idempotency-Key", "desk-1"); r.status != 201 {
		t.Errorf("deposit with the operator's credential = %d %s", r.status, r.body)
	}
	for _, c := range []struct {
		method, path, key string
		want              int
	}{
		{"POST", "/admin/v1/operators/house-of-play/bettors/cy/deposits", other.Key, 404},
		{"GET", "/admin/v1/operators/house-of-play/bettors/cy/statement?currency=EUR", other.Key, 404},
		{"GET", "/admin/v1/operators/house-of-play/bettors/cy/statement?currency=EUR", own.Key, 200},
		{"GET", "/admin/v1/ledger/house", own.Key, 403},
		{"GET", "/admin/v1/ledger/verify", own.Key, 403},
	} {
		body := ""
		if c.method == "POST" {
			body = `{"currency":"EUR","amount":"5"}`
		}
		if r := lw.admin(t, c.method, c.path, c.key, body, "Idempotency-Key", "desk-2"); r.status != c.want {
			t.Errorf("%s %s = %d %s, want %d", c.method, c.path, r.status, r.body, c.want)
		}
	}

	// Verify passes, then reports a balance row changed behind the
	// ledger's back.
	rep, err := lw.world.admin.VerifyLedger(context.Background())
	if err != nil || !rep.OK || rep.Transfers != 25 || len(rep.Currencies) != 2 {
		t.Fatalf("verify = %+v %v", rep, err)
	}
	bob := ledger.AccountID("house-of-play", "EUR", ledger.Bettor("bob"))
	lw.exec(t, "UPDATE ledger_accounts SET balance = '25' WHERE id = '"+bob+"'")
	r := lw.admin(t, "GET", "/admin/v1/ledger/verify", adminToken, "")
	rep2 := r.json(t)
	found, _ := rep2["discrepancies"].([]any)
	if r.status != 200 || rep2["ok"] != false || len(found) != 1 || found[0].(map[string]any)["account_id"] != bob ||
		found[0].(map[string]any)["check"] != "balance" {
		t.Errorf("verify after tampering = %d %s", r.status, r.body)
	}
}
