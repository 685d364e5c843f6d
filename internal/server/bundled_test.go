package server_test

import (
	"fmt"
	"net/url"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/shopspring/decimal"

	"github.com/foresight-dev/foresight/internal/openapitest"
	"github.com/foresight-dev/foresight/internal/server"
	"github.com/foresight-dev/foresight/internal/waitfor"
)

// bundledWorld is a running Foresight (placement and settlement workers
// included) with a bundled operator, an operator credential of it, and
// two markets.
type bundledWorld struct {
	*world
	bettorSpec *openapitest.Validator
	// key is the operator's credential: its server's calls use it.
	key     string
	markets [2]string
	// outcomes are the two outcomes of each market.
	outcomes [2][2]string
}

const playhouse = `{"id":"playhouse","name":"Playhouse","integration":"bundled","currencies":[{"code":"EUR"}],
	"margin":{"method":"odds_ratio","value":"0.05"},"odds_tolerance":"0.05",
	"limits":{"EUR":{"min_stake":"1","max_stake":"100","max_payout":"100000","outcome_exposure":"1000000"}}}`

func newBundledWorld(t *testing.T, db string, configure ...func(*server.Config)) *bundledWorld {
	t.Helper()
	opts := worldOptions{config: func(c *server.Config) {
		for _, f := range configure {
			f(c)
		}
	}}
	bw := &bundledWorld{world: newWorld(t, db, opts), bettorSpec: openapitest.Load(t, "bettor.yaml")}
	if r := bw.adminCall(t, "POST", "/admin/v1/operators", adminToken, playhouse); r.status != 201 {
		t.Fatalf("create the bundled operator = %d %s", r.status, r.body)
	}
	cred := bw.adminCall(t, "POST", "/admin/v1/operators/playhouse/credentials", adminToken, `{"name":"playhouse server"}`)
	if cred.status != 201 {
		t.Fatalf("issue a credential = %d %s", cred.status, cred.body)
	}
	bw.key = cred.json(t)["key"].(string)
	for i := range bw.markets {
		ev := bw.adminCall(t, "POST", "/admin/v1/events", adminToken, fmt.Sprintf(`{"category":"sports","title":{"en":"Match %d"},
			"markets":[{"question":{"en":"Who wins?"},"outcomes":[{"name":{"en":"Home"},"probability":"0.4"},{"name":{"en":"Away"},"probability":"0.6"}]}]}`, i))
		if ev.status != 201 {
			t.Fatalf("create an event = %d %s", ev.status, ev.body)
		}
		m := ev.json(t)["markets"].([]any)[0].(map[string]any)
		bw.markets[i] = m["id"].(string)
		for j, o := range m["outcomes"].([]any) {
			bw.outcomes[i][j] = o.(map[string]any)["id"].(string)
		}
	}
	return bw
}

// adminCall sends an admin request with token and checks the exchange
// against api/admin.yaml.
func (bw *bundledWorld) adminCall(t *testing.T, method, path, token, body string, header ...string) response {
	t.Helper()
	return checkedTrip(t, bw.adminSpec, method, bw.url+path, token, body, header...)
}

// bettorCall sends a bettor API request and checks it against
// api/bettor.yaml.
func (bw *bundledWorld) bettorCall(t *testing.T, method, path, token, body string, header ...string) response {
	t.Helper()
	return checkedTrip(t, bw.bettorSpec, method, bw.url+path, token, body, header...)
}

// cashier credits (deposits) or debits (withdrawals) a bettor with the
// operator's credential.
func (bw *bundledWorld) cashier(t *testing.T, kind, bettor, key, amount string) response {
	t.Helper()
	return bw.adminCall(t, "POST", "/admin/v1/operators/playhouse/bettors/"+bettor+"/"+kind, bw.key,
		`{"currency":"EUR","amount":"`+amount+`"}`, "Idempotency-Key", key)
}

// deposit credits a bettor with amount under the idempotency key key, and
// fails the test unless the cashier answers a new movement (201).
func (bw *bundledWorld) deposit(t *testing.T, bettor, key, amount string) {
	t.Helper()
	if r := bw.cashier(t, "deposits", bettor, key, amount); r.status != 201 {
		t.Fatalf("deposit of %s to %s = %d %s", amount, bettor, r.status, r.body)
	}
}

// session opens a bettor's session as the operator's server does and
// exchanges its widget URL's session_request_id as the widget does; it
// returns the session token and the exchange's answer.
func (bw *bundledWorld) session(t *testing.T, bettor string) (string, map[string]any) {
	t.Helper()
	opened := bw.adminCall(t, "POST", "/admin/v1/operators/playhouse/sessions", bw.key, `{"bettor_id":"`+bettor+`","currency":"EUR","locale":"de"}`)
	if opened.status != 201 {
		t.Fatalf("open a session = %d %s", opened.status, opened.body)
	}
	s := opened.json(t)
	u, err := url.Parse(s["widget_url"].(string))
	if err != nil || !strings.HasPrefix(s["widget_url"].(string), bw.url+"/widget/") || u.Query().Get("operator") != "playhouse" ||
		u.Query().Get("integration") != "bundled" || u.Query().Get("session_request_id") != s["session_request_id"] || u.Query().Get("locale") != "de" {
		t.Fatalf("widget_url = %v", s["widget_url"])
	}
	cfg := bw.bettorCall(t, "GET", "/api/v1/widget/operators/playhouse", "", "")
	if cfg.json(t)["session_url"] != bw.url+"/api/v1/sessions" {
		t.Fatalf("widget configuration = %s, want the platform's session endpoint", cfg.body)
	}
	// The widget's exchange (api/aggregator.yaml documents it).
	_, ex := bw.exchange("POST", "/api/v1/sessions", "", []byte(`{"session_request_id":"`+u.Query().Get("session_request_id")+`"}`))
	if ex.status != 200 {
		t.Fatalf("exchange the session_request_id = %d %s", ex.status, ex.body)
	}
	if _, again := bw.exchange("POST", "/api/v1/sessions", "", []byte(`{"session_request_id":"`+u.Query().Get("session_request_id")+`"}`)); again.status != 401 {
		t.Errorf("a second exchange = %d %s, want 401 (single use)", again.status, again.body)
	}
	got := ex.json(t)
	if !dec(t, got["balance"]).Equal(dec(t, s["balance"])) {
		t.Errorf("the exchange's balance %v, the opening's %v", got["balance"], s["balance"])
	}
	return got["auth_token"].(string), s
}

// balance is the balance the bettor's profile shows.
func (bw *bundledWorld) balance(t *testing.T, token string) any {
	t.Helper()
	return bw.bettorCall(t, "GET", "/api/v1/auth/me", token, "").json(t)["balance"]
}

func (bw *bundledWorld) place(t *testing.T, token, key, market, outcome, stake string) string {
	t.Helper()
	r := bw.bettorCall(t, "POST", "/api/v1/bettor/bets", token, fmt.Sprintf(`{"market_id":%q,"outcome_id":%q,"stake":%q}`, market, outcome, stake),
		"Idempotency-Key", key)
	if r.status != 202 {
		t.Fatalf("place = %d %s", r.status, r.body)
	}
	return r.json(t)["id"].(string)
}

// bet polls a bet until its status is one of want.
func (bw *bundledWorld) bet(t *testing.T, token, id string, want ...string) map[string]any {
	t.Helper()
	var b map[string]any
	waitfor.Check(t, func() error {
		_, r := bw.exchange("GET", "/api/v1/bettor/bets/"+id, token, nil)
		b = r.json(t)
		if slices.Contains(want, fmt.Sprint(b["status"])) {
			return nil
		}
		return fmt.Errorf("bet %s = %v, want status %v", id, b, want)
	})
	return b
}

// statement returns the bettor's whole EUR statement.
func (bw *bundledWorld) statement(t *testing.T, bettor string) map[string]any {
	t.Helper()
	r := bw.adminCall(t, "GET", "/admin/v1/operators/playhouse/bettors/"+bettor+"/statement?currency=EUR&limit=100", bw.key, "")
	if r.status != 200 || r.json(t)["next_cursor"] != nil {
		t.Fatalf("statement = %d %s", r.status, r.body)
	}
	return r.json(t)
}

func (bw *bundledWorld) verify(t *testing.T) {
	t.Helper()
	r := bw.adminCall(t, "GET", "/admin/v1/ledger/verify", adminToken, "")
	if r.status != 200 || r.json(t)["ok"] != true {
		t.Fatalf("ledger verify = %d %s", r.status, r.body)
	}
}

func dec(t *testing.T, v any) decimal.Decimal {
	t.Helper()
	s, _ := v.(string)
	d, err := decimal.NewFromString(s)
	if err != nil {
		t.Fatalf("%v is not a decimal string", v)
	}
	return d
}

// TestBundledBets plays a bundled operator's bettor from a cashier
// deposit through a won bet paid from the house, a voided bet whose stake
// comes back and a bet refused for want of funds, each seen at once in
// the profile's balance, and checks the statement against the bets and
// the ledger's invariants.
func TestBundledBets(t *testing.T) {
	t.Parallel()
	forEachDatabase(t, func(t *testing.T, db string) {
		bw := newBundledWorld(t, db)
		bw.deposit(t, "ann", "psp-1", "100")
		token, opened := bw.session(t, "ann")
		if opened["balance"] != "100.00" || bw.balance(t, token) != "100" {
			t.Fatalf("session balance %v, profile %v; want 100.00", opened["balance"], bw.balance(t, token))
		}

		winKey := uuid.NewString()
		win := bw.bet(t, token, bw.place(t, token, winKey, bw.markets[0], bw.outcomes[0][0], "10"), "confirmed", "rejected")
		if win["status"] != "confirmed" {
			t.Fatalf("bet = %v, want confirmed", win)
		}
		if b := bw.balance(t, token); b != "90" {
			t.Errorf("balance after a 10.00 stake = %v, want 90", b)
		}
		void := bw.bet(t, token, bw.place(t, token, uuid.NewString(), bw.markets[1], bw.outcomes[1][1], "20.5"), "confirmed", "rejected")
		if void["status"] != "confirmed" || bw.balance(t, token) != "69.5" {
			t.Fatalf("second bet = %v, balance %v; want confirmed and 69.5", void, bw.balance(t, token))
		}
		short := bw.bet(t, token, bw.place(t, token, uuid.NewString(), bw.markets[0], bw.outcomes[0][1], "70"), "confirmed", "rejected")
		if short["status"] != "rejected" || short["rejection_code"] != "insufficient_funds" {
			t.Errorf("a stake beyond the balance = %v, want rejected insufficient_funds", short)
		}
		// A replayed placement is the first bet and moves nothing.
		if id := bw.place(t, token, winKey, bw.markets[0], bw.outcomes[0][0], "10"); id != win["id"] {
			t.Errorf("replay = bet %s, want %s", id, win["id"])
		}
		if b := bw.balance(t, token); b != "69.5" {
			t.Errorf("balance after the refusal and the replay = %v, want 69.5", b)
		}

		if r := bw.adminCall(t, "POST", "/admin/v1/markets/"+bw.markets[0]+"/resolve", adminToken, `{"winning_outcome_id":"`+bw.outcomes[0][0]+`"}`); r.status != 200 {
			t.Fatalf("resolve = %d %s", r.status, r.body)
		}
		if r := bw.adminCall(t, "POST", "/admin/v1/markets/"+bw.markets[1]+"/cancel", adminToken, ""); r.status != 200 {
			t.Fatalf("cancel = %d %s", r.status, r.body)
		}
		won := bw.bet(t, token, win["id"].(string), "settled")
		voided := bw.bet(t, token, void["id"].(string), "voided")
		payout := dec(t, won["payout_amount"])
		if want := dec(t, "10").Mul(dec(t, win["entry_odds"])).RoundBank(2); !payout.Equal(want) {
			t.Errorf("payout %s, want 10 × %v = %s", payout, win["entry_odds"], want)
		}
		final := dec(t, "69.50").Add(payout).Add(dec(t, "20.50"))
		waitfor.True(t, "the payout and the refund in the balance", func() bool { return dec(t, bw.balance(t, token)).Equal(final) })
		for _, id := range []string{won["id"].(string), voided["id"].(string)} {
			waitfor.True(t, "the deposit's confirmation on bet "+id, func() bool {
				r := bw.adminCall(t, "GET", "/admin/v1/bets?operator_id=playhouse", bw.key, "")
				for _, b := range r.json(t)["items"].([]any) {
					if b := b.(map[string]any); b["id"] == id {
						return b["deposit_confirmed_at"] != nil
					}
				}
				return false
			})
		}

		// The statement is the bets, in order, with their bet ids.
		st := bw.statement(t, "ann")
		type line struct{ kind, reference, amount, after string }
		want := []line{
			{"deposit", "", "100.00", "100.00"},
			{"stake", win["id"].(string), "-10.00", "90.00"},
			{"stake", void["id"].(string), "-20.50", "69.50"},
		}
		got := map[string]line{}
		var lines []line
		for _, it := range st["items"].([]any) {
			it := it.(map[string]any)
			l := line{it["kind"].(string), it["reference"].(string), it["amount"].(string), it["balance_after"].(string)}
			lines = append(lines, l)
			got[l.kind] = l
		}
		if len(lines) != 5 || fmt.Sprint(lines[:3]) != fmt.Sprint(want) {
			t.Fatalf("statement = %v, want %v then a payout and a refund", lines, want)
		}
		if p := got["payout"]; p.reference != won["id"] || p.amount != payout.StringFixed(2) {
			t.Errorf("payout line = %v, want %s for bet %s", p, payout.StringFixed(2), won["id"])
		}
		if r := got["refund"]; r.reference != voided["id"] || r.amount != "20.50" {
			t.Errorf("refund line = %v, want 20.50 for bet %s", r, voided["id"])
		}
		if st["balance"] != final.StringFixed(2) || lines[4].after != final.StringFixed(2) || st["held"] != "0.00" {
			t.Errorf("statement balance %v (last line %v, held %v), want %s", st["balance"], lines[4].after, st["held"], final.StringFixed(2))
		}
		// The house paid the win and kept nothing of the void.
		house := bw.adminCall(t, "GET", "/admin/v1/ledger/house?operator_id=playhouse", adminToken, "")
		eur := house.json(t)["items"].([]any)[0].(map[string]any)
		if result := dec(t, "10").Sub(payout); !dec(t, eur["result"]).Equal(result) {
			t.Errorf("house result %v, want the stake less the payout: %s", eur["result"], result)
		}
		bw.verify(t)

		// The bets' totals, read with the operator's credential (its own
		// operator) and for one market with the admin token.
		type total struct {
			status, currency string
			bets             float64
			stake, payout    string
			confirmed        float64
			last             bool
		}
		totals := func(path, token string) []total {
			t.Helper()
			r := bw.adminCall(t, "GET", path, token, "")
			if r.status != 200 {
				t.Fatalf("%s = %d %s", path, r.status, r.body)
			}
			var out []total
			for _, it := range r.json(t)["items"].([]any) {
				it := it.(map[string]any)
				out = append(out, total{it["status"].(string), it["currency"].(string), it["bets"].(float64), dec(t, it["stake"]).String(),
					dec(t, it["payout"]).String(), it["payouts_confirmed"].(float64), it["last_payout_confirmed_at"] != nil})
			}
			return out
		}
		wantTotals := []total{{"rejected", "EUR", 1, "70", "0", 0, false}, {"settled", "EUR", 1, "10", payout.String(), 1, true},
			{"voided", "EUR", 1, "20.5", "20.5", 1, true}}
		if got := totals("/admin/v1/bets/totals", bw.key); fmt.Sprint(got) != fmt.Sprint(wantTotals) {
			t.Errorf("bet totals = %v, want %v", got, wantTotals)
		}
		if got := totals("/admin/v1/bets/totals?operator_id=playhouse&market_id="+bw.markets[1], adminToken); fmt.Sprint(got) != fmt.Sprint(wantTotals[2:]) {
			t.Errorf("bet totals of the cancelled market = %v, want %v", got, wantTotals[2:])
		}
		for _, c := range []struct {
			path, token string
			status      int
		}{
			{"/admin/v1/bets/totals", adminToken, 400},
			{"/admin/v1/bets/totals?operator_id=playhouse&market_id=nope", adminToken, 400},
			{"/admin/v1/bets/totals?operator_id=other", bw.key, 404},
		} {
			if r := bw.adminCall(t, "GET", c.path, c.token, ""); r.status != c.status {
				t.Errorf("%s = %d %s, want %d", c.path, r.status, r.body, c.status)
			}
		}

		// Sessions are the operator's own: another operator's credential,
		// a walleted operator and bad requests are refused.
		for _, c := range []struct {
			name, path, body string
			status           int
		}{
			{"unknown currency", "/admin/v1/operators/playhouse/sessions", `{"bettor_id":"ann","currency":"USD"}`, 400},
			{"no bettor", "/admin/v1/operators/playhouse/sessions", `{"currency":"EUR"}`, 400},
			{"a control character", "/admin/v1/operators/playhouse/sessions", `{"bettor_id":"a\u0000b","currency":"EUR"}`, 400},
			{"another operator", "/admin/v1/operators/other/sessions", `{"bettor_id":"ann","currency":"EUR"}`, 404},
		} {
			if r := bw.adminCall(t, "POST", c.path, bw.key, c.body); r.status != c.status {
				t.Errorf("%s = %d %s, want %d", c.name, r.status, r.body, c.status)
			}
		}
	})
}

// TestBundledBalanceNeverNegative sends 100 bets and 100 cashier
// withdrawals of 5.00 at once against a bettor holding 100.00: exactly 20
// of them pass, the rest are refused for want of funds, no entry of the
// statement leaves the balance below zero, and the ledger verifies. The
// placements may take 30 s, not the spec's 3: 200 requests at once under
// the race detector on a busy machine passed 3 s, and the test is about
// the balance, not the time.
func TestBundledBalanceNeverNegative(t *testing.T) {
	t.Parallel()
	forEachDatabase(t, func(t *testing.T, db string) {
		bw := newBundledWorld(t, db, func(c *server.Config) { c.PlacementTimeLimit = 30 * time.Second })
		bw.deposit(t, "bob", "bob-in", "100")
		token, _ := bw.session(t, "bob")
		const each = 100
		var (
			wg        sync.WaitGroup
			mu        sync.Mutex
			bets      []string
			withdrawn int
			failures  []string
		)
		start := make(chan struct{})
		for i := range 2 * each {
			wg.Go(func() {
				<-start
				if i%2 == 0 {
					body := fmt.Sprintf(`{"market_id":%q,"outcome_id":%q,"stake":"5"}`, bw.markets[0], bw.outcomes[0][i%4/2])
					_, r := bw.exchange("POST", "/api/v1/bettor/bets", token, []byte(body), "Idempotency-Key", uuid.NewString())
					mu.Lock()
					defer mu.Unlock()
					if r.status != 202 {
						failures = append(failures, fmt.Sprintf("bet %d: %d %s", i, r.status, r.body))
						return
					}
					bets = append(bets, r.json(t)["id"].(string))
					return
				}
				_, r := bw.exchange("POST", "/admin/v1/operators/playhouse/bettors/bob/withdrawals", bw.key,
					[]byte(`{"currency":"EUR","amount":"5"}`), "Idempotency-Key", fmt.Sprintf("out-%d", i))
				mu.Lock()
				defer mu.Unlock()
				switch {
				case r.status == 201:
					withdrawn++
				case r.status != 409 || r.json(t)["code"] != "insufficient_funds":
					failures = append(failures, fmt.Sprintf("withdrawal %d: %d %s", i, r.status, r.body))
				}
			})
		}
		close(start)
		wg.Wait()
		if len(failures) > 0 {
			t.Fatalf("%d unexpected answers, the first: %s", len(failures), failures[0])
		}
		confirmed := 0
		for _, id := range bets {
			b := bw.bet(t, token, id, "confirmed", "rejected")
			switch {
			case b["status"] == "confirmed":
				confirmed++
			case b["rejection_code"] != "insufficient_funds":
				t.Errorf("bet %s = %v, want confirmed or rejected insufficient_funds", id, b)
			}
		}
		if confirmed+withdrawn != 20 {
			t.Errorf("%d bets and %d withdrawals of 5.00 passed against 100.00, want 20 in all", confirmed, withdrawn)
		}
		st := bw.statement(t, "bob")
		for _, it := range st["items"].([]any) {
			if after := dec(t, it.(map[string]any)["balance_after"]); after.IsNegative() {
				t.Errorf("statement line %v leaves the balance below zero", it)
			}
		}
		if st["balance"] != "0.00" || bw.balance(t, token) != "0" || len(st["items"].([]any)) != 1+20 {
			t.Errorf("balance %v (profile %v) with %d statement lines, want 0.00 and 21 lines", st["balance"], bw.balance(t, token), len(st["items"].([]any)))
		}
		bw.verify(t)
	})
}
