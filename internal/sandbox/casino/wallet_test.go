package casino_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"

	"github.com/foresight-dev/foresight/internal/sandbox/casino"
	"github.com/foresight-dev/foresight/internal/sandbox/sandboxledger"
	"github.com/foresight-dev/foresight/internal/sandbox/sandboxtest"
)

func TestNew(t *testing.T) {
	t.Parallel()
	for name, cfg := range map[string]casino.Config{
		"no secret":               {},
		"bad starting balance":    {SigningSecret: "s", StartingBalance: "-1"},
		"exponent starting":       {SigningSecret: "s", StartingBalance: "1e3"},
		"lower-case decimals key": {SigningSecret: "s", Decimals: map[string]int32{"btc": 8}},
		"too many decimals":       {SigningSecret: "s", Decimals: map[string]int32{"BTC": 13}},
		"negative decimals":       {SigningSecret: "s", Decimals: map[string]int32{"BTC": -1}},
		"zero bet limit":          {SigningSecret: "s", BetLimit: "0"},
	} {
		if _, err := casino.New(cfg); err == nil {
			t.Errorf("%s: New accepted %+v", name, cfg)
		}
	}
	if _, err := casino.New(casino.Config{SigningSecret: "s", Decimals: map[string]int32{"USDT": 6, "BTC": 12}}); err != nil {
		t.Errorf("valid config: %v", err)
	}
}

func TestHelpers(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	for name, err := range map[string]error{
		"empty account":   e.c.SetBalance("", "USD", "1"),
		"bad currency":    e.c.SetBalance("a1", "usd", "1"),
		"negative amount": e.c.SetBalance("a1", "USD", "-1"),
		"bad limit":       e.c.SetBetLimit("a1", "0"),
	} {
		if err == nil {
			t.Errorf("%s: no error", name)
		}
	}
	e.setBalance("a1", "USD", "10")
	if err := e.c.SetBalance("a1", "EUR", "10"); err == nil {
		t.Error("SetBalance changed an account's currency")
	}
	e.wantBalance("a1", "USD", "10.00")
	if _, ok := e.c.Balance("a1", "EUR"); ok {
		t.Error("Balance in another currency")
	}
	if _, ok := e.c.Balance("nobody", "USD"); ok {
		t.Error("Balance of an unknown account")
	}
	if _, ok := e.c.Round("r1"); ok {
		t.Error("unknown round found")
	}
	if e.ledgerLen() != 0 {
		t.Error("SetBalance made a ledger entry")
	}
}

func TestBalance(t *testing.T) {
	t.Parallel()
	e := newEnv(t, func(c *casino.Config) {
		c.StartingBalance = "1000"
		c.Decimals = map[string]int32{"BTC": 8, "USDT": 6}
	})
	for _, c := range []struct{ account, currency, want string }{
		{"usd", "USD", "1000.00"},
		{"jpy", "JPY", "1000"},
		{"kwd", "KWD", "1000.000"},
		{"btc", "BTC", "1000.00000000"},
		{"usdt", "USDT", "1000.000000"},
		{"doge", "DOGE", "1000.00"}, // unknown code: 2 decimals
		{"x7", "ABC1234", "1000.00"},
	} {
		status, resp := e.post(casino.PathBalance, balanceBody(t, c.account, c.currency))
		if a := wantOK(t, c.currency, status, resp); str(a.Balance) != c.want {
			t.Errorf("%s: %s, want balance %s", c.currency, resp, c.want)
		}
		if !bytes.Equal(resp, []byte(`{"balance":"`+c.want+`"}`+"\n")) {
			t.Errorf("%s: body %q", c.currency, resp)
		}
	}
	// The account's currency is fixed on first use.
	status, resp := e.post(casino.PathBalance, balanceBody(t, "usd", "EUR"))
	wantErr(t, "other currency", status, resp, http.StatusBadRequest, "154", "")
	// Balance reads of a blocked account go through.
	e.c.Block("usd")
	e.postOK("blocked", casino.PathBalance, balanceBody(t, "usd", "USD"))
	if e.ledgerLen() != 0 {
		t.Error("balance reads made ledger entries")
	}

	// Without StartingBalance, unknown accounts are 404 and not created.
	e2 := newEnv(t)
	status, resp = e2.post(casino.PathBalance, balanceBody(t, "ghost", "USD"))
	wantErr(t, "unknown account", status, resp, http.StatusBadRequest, "404", "")
	if _, ok := e2.c.Balance("ghost", "USD"); ok {
		t.Error("unknown account created")
	}
}

func TestBetAndWin(t *testing.T) {
	t.Parallel()
	e := newFundedEnv(t)

	status, resp := e.post(casino.PathBetWin, betBody(t, "a1", "USD", "r1", "bet-1", "10.50"))
	a := wantOK(t, "bet", status, resp)
	if str(a.Balance) != "89.50" || a.RoundID == nil || !strings.HasPrefix(*a.RoundID, "casino-round-") ||
		len(a.Transactions) != 1 || a.Transactions[0].IDProvider != "bet-1" || !strings.HasPrefix(a.Transactions[0].ID, "casino-tx-") {
		t.Fatalf("bet answer %s", resp)
	}
	// Key order of the answer: round_id, balance, transactions.
	want := fmt.Sprintf(`{"round_id":%q,"balance":"89.50","transactions":[{"id_provider":"bet-1","id":%q}]}`+"\n", *a.RoundID, a.Transactions[0].ID)
	if string(resp) != want {
		t.Errorf("bet body %s, want %s", resp, want)
	}
	e.wantBalance("a1", "USD", "89.50")
	roundID, betTx := *a.RoundID, a.Transactions[0].ID
	if r, ok := e.c.Round("r1"); !ok || r.CasinoRoundID != roundID || r.Finished || r.Account != "a1" || r.Currency != "USD" {
		t.Errorf("round %+v", r)
	}

	// The win of the same round: same casino round, credited, round closed.
	status, resp = e.post(casino.PathBetWin, winBody(t, "a1", "USD", "r1", "win-1", "25.25"))
	a = wantOK(t, "win", status, resp)
	if str(a.Balance) != "114.75" || str(a.RoundID) != roundID || a.Transactions[0].IDProvider != "win-1" || a.Transactions[0].ID == betTx {
		t.Fatalf("win answer %s", resp)
	}
	if r, _ := e.c.Round("r1"); !r.Finished {
		t.Error("finished true did not close the round")
	}

	ledger := e.c.Ledger()
	wantLedger := []casino.Entry{
		{Stamp: sandboxledger.Stamp{Seq: 1, Time: testStart}, Type: casino.EntryBet, Account: "a1", Currency: "USD", Amount: "-10.50", BalanceAfter: "89.50",
			IDProvider: "bet-1", RoundID: "r1", CasinoRoundID: roundID, CasinoTxID: betTx},
		{Stamp: sandboxledger.Stamp{Seq: 2, Time: testStart}, Type: casino.EntryWin, Account: "a1", Currency: "USD", Amount: "25.25", BalanceAfter: "114.75",
			IDProvider: "win-1", RoundID: "r1", CasinoRoundID: roundID, CasinoTxID: a.Transactions[0].ID},
	}
	if len(ledger) != len(wantLedger) {
		t.Fatalf("ledger %+v", ledger)
	}
	for i := range ledger {
		if ledger[i] != wantLedger[i] {
			t.Errorf("ledger[%d] = %+v, want %+v", i, ledger[i], wantLedger[i])
		}
	}

	// The whole balance can be staked.
	if a := e.wantPostedBalance("stake all", casino.PathBetWin, betBody(t, "a1", "USD", "r2", "bet-2", "114.75"), "0.00"); str(a.RoundID) == roundID {
		t.Errorf("stake all: round_id %s again", str(a.RoundID))
	}
}

func TestRounds(t *testing.T) {
	t.Parallel()
	e := newFundedEnv(t)
	e.setBalance("a2", "USD", "100.00")

	// Many open rounds at once.
	ids := map[string]bool{}
	for i := range 5 {
		status, resp := e.post(casino.PathBetWin, betBody(t, "a1", "USD", fmt.Sprintf("r%d", i), fmt.Sprintf("bet-%d", i), "1"))
		ids[str(wantOK(t, "bet", status, resp).RoundID)] = true
	}
	if len(ids) != 5 {
		t.Errorf("casino round ids %v", ids)
	}
	e.wantBalance("a1", "USD", "95.00")

	// A win for a round without a bet is credited (and opens the round).
	if a := e.wantPostedBalance("win without bet", casino.PathBetWin, winBody(t, "a1", "USD", "r-nobet", "win-nobet", "3"), "98.00"); a.RoundID == nil {
		t.Errorf("win without bet: no round_id")
	}

	// A win after the round was finished is accepted; so is a void (a win of
	// the stake) after Finish.
	e.postOK("finish", casino.PathFinish, finishBody(t, "a1", "USD", "r0"))
	e.wantPostedBalance("win after finish", casino.PathBetWin, winBody(t, "a1", "USD", "r0", "void-0", "1"), "99.00")
	// A bet in a finished round too.
	e.postOK("bet in a finished round", casino.PathBetWin, betBody(t, "a1", "USD", "r0", "bet-late", "1"))

	// A round belongs to its account.
	status, resp := e.post(casino.PathBetWin, betBody(t, "a2", "USD", "r1", "bet-a2", "1"))
	wantErr(t, "round of another account", status, resp, http.StatusBadRequest, "400", "")
	status, resp = e.post(casino.PathFinish, finishBody(t, "a2", "USD", "r1"))
	wantErr(t, "finish of another account's round", status, resp, http.StatusBadRequest, "400", "")
	e.wantBalance("a2", "USD", "100.00")
	// That refusal did not consume the id_provider.
	e.postOK("a2 in its own round", casino.PathBetWin, betBody(t, "a2", "USD", "r-a2", "bet-a2", "1"))
}

func TestFinish(t *testing.T) {
	t.Parallel()
	e := newFundedEnv(t)
	status, resp := e.post(casino.PathBetWin, betBody(t, "a1", "USD", "r1", "bet-1", "10"))
	roundID := str(wantOK(t, "bet", status, resp).RoundID)

	body := finishBody(t, "a1", "USD", "r1")
	status, first := e.post(casino.PathFinish, body)
	if a := wantOK(t, "finish", status, first); str(a.Balance) != "90.00" || a.RoundID != nil || a.Transactions != nil {
		t.Fatalf("finish answer %s", first)
	}
	if r, _ := e.c.Round("r1"); !r.Finished {
		t.Error("round not finished")
	}
	n := e.ledgerLen()
	last := e.c.Ledger()[n-1]
	if last.Type != casino.EntryFinish || last.Amount != "0.00" || last.BalanceAfter != "90.00" || last.RoundID != "r1" ||
		last.CasinoRoundID != roundID || last.IDProvider != "" || last.CasinoTxID != "" {
		t.Errorf("finish entry %+v", last)
	}

	// Idempotent by round: the same bytes, even after the balance moved.
	e.setBalance("a1", "USD", "50")
	status, again := e.post(casino.PathFinish, body)
	if status != http.StatusOK || !bytes.Equal(first, again) {
		t.Errorf("second finish: %d %s, want %s", status, again, first)
	}
	// Key order and spacing do not matter.
	status, again = e.post(casino.PathFinish, []byte(`{ "session_id":"sess-a1", "round_id":"r1", "currency":"USD", "account_id":"a1" }`))
	if status != http.StatusOK || !bytes.Equal(first, again) {
		t.Errorf("reordered finish: %d %s", status, again)
	}
	if e.ledgerLen() != n {
		t.Error("a replayed finish made a ledger entry")
	}
	// A different Finish of that round is refused.
	other := []byte(`{"account_id":"a1","currency":"USD","round_id":"r1","session_id":"another"}`)
	status, resp = e.post(casino.PathFinish, other)
	wantErr(t, "different finish", status, resp, http.StatusBadRequest, "400", "")

	// game_id is optional in Finish, but checked when present.
	e.postOK("bet 2", casino.PathBetWin, betBody(t, "a1", "USD", "r2", "bet-2", "10"))
	status, resp = e.post(casino.PathFinish, []byte(`{"account_id":"a1","currency":"USD","round_id":"r2","session_id":"s","game_id":"slots"}`))
	wantErr(t, "finish with a wrong game_id", status, resp, http.StatusBadRequest, "400", "")
	e.postOK("finish with game_id", casino.PathFinish, []byte(`{"account_id":"a1","currency":"USD","round_id":"r2","session_id":"s","game_id":"prediction-markets"}`))

	// Unknown round: 404, not stored (the bet may come later).
	status, resp = e.post(casino.PathFinish, finishBody(t, "a1", "USD", "r-late"))
	wantErr(t, "unknown round", status, resp, http.StatusBadRequest, "404", "")
	e.postOK("late bet", casino.PathBetWin, betBody(t, "a1", "USD", "r-late", "bet-late", "1"))
	status, resp = e.post(casino.PathFinish, finishBody(t, "a1", "USD", "r-late"))
	wantOK(t, "finish after the late bet", status, resp)

	// Finish of a blocked account's round goes through; another currency
	// does not.
	e.c.Block("a1")
	e.postOK("win of a blocked account", casino.PathBetWin, winBody(t, "a1", "USD", "r3", "win-3", "1"))
	status, resp = e.post(casino.PathFinish, finishBody(t, "a1", "EUR", "r3"))
	wantErr(t, "finish in another currency", status, resp, http.StatusBadRequest, "154", "")
	e.postOK("finish of a blocked account", casino.PathFinish, finishBody(t, "a1", "USD", "r3"))
}

func TestBetRefusals(t *testing.T) {
	t.Parallel()
	e := newEnv(t, func(c *casino.Config) { c.BetLimit = "50" })
	e.setBalance("poor", "USD", "5.00")
	e.setBalance("rich", "USD", "1000.00")
	e.setBalance("capped", "USD", "1000.00")
	if err := e.c.SetBetLimit("capped", "20"); err != nil {
		t.Fatal(err)
	}
	e.setBalance("blocked", "USD", "100.00")
	e.c.Block("blocked")

	cases := []struct {
		name, account, amount string
		apiCode, balance      string
	}{
		{"insufficient funds", "poor", "10.00", "100", "5.00"},
		{"just above the balance", "poor", "5.000000000001", "100", "5.00"},
		{"global bet limit", "rich", "50.01", "105", "1000.00"},
		{"account bet limit", "capped", "20.5", "105", "1000.00"},
		{"blocked", "blocked", "1.00", "110", ""},
		{"blocked and unknown", "stranger", "1.00", "110", ""},
		{"unknown account", "nobody", "1.00", "404", ""},
	}
	e.c.Block("stranger")
	for _, c := range cases {
		body := betBody(t, c.account, "USD", "r-"+c.name, "bet-"+c.name, c.amount)
		status, first := e.post(casino.PathBetWin, body)
		wantErr(t, c.name, status, first, http.StatusBadRequest, c.apiCode, c.balance)
		// Stored: the same request gets the same bytes.
		status, again := e.post(casino.PathBetWin, body)
		if status != http.StatusBadRequest || !bytes.Equal(first, again) {
			t.Errorf("%s replay: %d %s, want %s", c.name, status, again, first)
		}
	}
	if e.ledgerLen() != 0 {
		t.Errorf("refusals made ledger entries: %+v", e.c.Ledger())
	}
	e.wantBalance("poor", "USD", "5.00")
	e.wantBalance("rich", "USD", "1000.00")
	if _, ok := e.c.Balance("stranger", "USD"); ok {
		t.Error("a refused bet created an account")
	}

	// The limits are inclusive; the whole balance can be staked.
	for _, c := range []struct{ account, amount string }{{"rich", "50"}, {"capped", "20.00"}, {"poor", "5"}} {
		status, resp := e.post(casino.PathBetWin, betBody(t, c.account, "USD", "r-ok-"+c.account, "ok-"+c.account, c.amount))
		wantOK(t, "at the limit "+c.account, status, resp)
	}
	// Clearing the account's limit falls back to the global one.
	if err := e.c.SetBetLimit("capped", ""); err != nil {
		t.Fatal(err)
	}
	e.postOK("capped after clearing", casino.PathBetWin, betBody(t, "capped", "USD", "r-c2", "bet-c2", "40"))

	// A refused bet stays refused for its id_provider, even once the money
	// is there; a new id_provider goes through.
	e.setBalance("poor", "USD", "50")
	status, resp := e.post(casino.PathBetWin, betBody(t, "poor", "USD", "r-insufficient funds", "bet-insufficient funds", "10.00"))
	wantErr(t, "refusal replay after a deposit", status, resp, http.StatusBadRequest, "100", "5.00")
	e.wantBalance("poor", "USD", "50.00")
	e.c.Unblock("blocked")
	e.postOK("unblocked", casino.PathBetWin, betBody(t, "blocked", "USD", "r-unblocked", "bet-unblocked", "1"))

	// A blocked account still gets its wins.
	e.c.Block("rich")
	e.wantPostedBalance("win of a blocked account", casino.PathBetWin, winBody(t, "rich", "USD", "r-ok-rich", "win-rich", "100"), "1050.00")
}

func TestCurrencyFixed(t *testing.T) {
	t.Parallel()
	e := newEnv(t, func(c *casino.Config) { c.StartingBalance = "100" })
	e.postOK("first bet fixes EUR", casino.PathBetWin, betBody(t, "a1", "EUR", "r1", "bet-1", "1"))
	for name, body := range map[string][]byte{
		"bet":      betBody(t, "a1", "USD", "r2", "bet-2", "1"),
		"win":      winBody(t, "a1", "USD", "r1", "win-1", "1"),
		"rollback": rollbackBody(t, "a1", "USD", "r1", "rb-1", "bet-1"),
	} {
		path := casino.PathBetWin
		if name == "rollback" {
			path = casino.PathRollback
		}
		status, resp := e.post(path, body)
		w := wantErr(t, name, status, resp, http.StatusBadRequest, "154", "")
		if w.Meta.APIMessage != "Currency is not allowed for the player" {
			t.Errorf("api_message %q", w.Meta.APIMessage)
		}
	}
	e.wantBalance("a1", "EUR", "99.00")
	// 154 is not stored: the id_provider can still be used.
	e.postOK("bet-2 in EUR", casino.PathBetWin, betBody(t, "a1", "EUR", "r2", "bet-2", "1"))
}

func TestDecimals(t *testing.T) {
	t.Parallel()
	e := newEnv(t, func(c *casino.Config) { c.Decimals = map[string]int32{"BTC": 8} })
	e.setBalance("usd", "USD", "100")
	e.setBalance("jpy", "JPY", "1000")
	e.setBalance("btc", "BTC", "1")
	steps := []struct {
		account, currency, typ, amount, balance string
	}{
		{"usd", "USD", "bet", "0.123456789012", "99.876543210988"}, // 12 decimals kept
		{"usd", "USD", "win", "0.123456789012", "100.00"},          // back to the currency's decimals
		{"usd", "USD", "bet", "007.5", "92.50"},                    // leading zeros allowed by the grammar
		{"jpy", "JPY", "bet", "0.5", "999.5"},
		{"jpy", "JPY", "bet", "0.5", "999"},
		{"btc", "BTC", "bet", "0.00000001", "0.99999999"},
		{"btc", "BTC", "bet", "0.000000000001", "0.999999989999"},
		{"usd", "USD", "win", "999999999999999.999999999999", "1000000000000092.499999999999"},
	}
	for i, s := range steps {
		body := betWinBody(t, s.account, s.currency, "r-"+s.account, fmt.Sprintf("tx-%d", i), s.typ, s.amount, false)
		status, resp := e.post(casino.PathBetWin, body)
		if a := wantOK(t, s.amount, status, resp); str(a.Balance) != s.balance {
			t.Errorf("%s %s %s: balance %s, want %s", s.typ, s.amount, s.currency, str(a.Balance), s.balance)
		}
	}
	ledger := e.c.Ledger()
	if got := ledger[0].Amount; got != "-0.123456789012" {
		t.Errorf("ledger amount %s", got)
	}
	if got := ledger[3].Amount; got != "-0.5" {
		t.Errorf("JPY ledger amount %s", got)
	}
}

func TestIdempotentReplay(t *testing.T) {
	t.Parallel()
	e := newFundedEnv(t)
	body := betBody(t, "a1", "USD", "r1", "bet-1", "10.00")

	status, first := e.post(casino.PathBetWin, body)
	wantOK(t, "first", status, first)
	e.setBalance("a1", "USD", "70.00") // the replay must not show the new balance
	n := e.ledgerLen()
	status, second := e.post(casino.PathBetWin, body)
	if status != http.StatusOK || !bytes.Equal(first, second) {
		t.Fatalf("replay: %d %s, want %s", status, second, first)
	}
	// The same JSON value in another key order and spacing.
	reordered := []byte(`{ "transactions": [ {"amount":"10.00", "type":"bet", "id_provider":"bet-1"} ], "session_id":"sess-a1",
		"finished":false, "round_id":"r1", "game_id":"prediction-markets", "currency":"USD", "account_id":"a1" }`)
	status, third := e.post(casino.PathBetWin, reordered)
	if status != http.StatusOK || !bytes.Equal(first, third) {
		t.Fatalf("reordered replay: %d %s", status, third)
	}
	e.wantBalance("a1", "USD", "70.00")
	if e.ledgerLen() != n {
		t.Error("replays made ledger entries")
	}

	// The same id_provider in a different request: 400, nothing changes,
	// and the stored answer stays.
	for name, other := range map[string][]byte{
		"amount":     betBody(t, "a1", "USD", "r1", "bet-1", "20.00"),
		"scale":      betBody(t, "a1", "USD", "r1", "bet-1", "10.0"),
		"round":      betBody(t, "a1", "USD", "r2", "bet-1", "10.00"),
		"type":       betWinBody(t, "a1", "USD", "r1", "bet-1", "win", "10.00", false),
		"finished":   betWinBody(t, "a1", "USD", "r1", "bet-1", "bet", "10.00", true),
		"account":    betBody(t, "a2", "USD", "r1", "bet-1", "10.00"),
		"session_id": bytes.Replace(body, []byte("sess-a1"), []byte("sess-2"), 1),
		"extra":      bytes.Replace(body, []byte(`{`), []byte(`{"extra":1,`), 1),
	} {
		status, resp := e.post(casino.PathBetWin, other)
		w := wantErr(t, "conflict "+name, status, resp, http.StatusBadRequest, "400", "")
		if !strings.Contains(w.Msg, "bet-1") {
			t.Errorf("conflict %s: msg %q", name, w.Msg)
		}
	}
	// A rollback may not reuse a bet's id_provider either.
	status, resp := e.post(casino.PathRollback, rollbackBody(t, "a1", "USD", "r1", "bet-1", "bet-0"))
	wantErr(t, "rollback reusing a bet id", status, resp, http.StatusBadRequest, "400", "")
	e.wantBalance("a1", "USD", "70.00")
	if e.ledgerLen() != n {
		t.Error("conflicts made ledger entries")
	}
	if _, again := e.post(casino.PathBetWin, body); !bytes.Equal(first, again) {
		t.Errorf("after conflicts: %s", again)
	}
}

func TestValidation(t *testing.T) {
	t.Parallel()
	e := newEnv(t, func(c *casino.Config) { c.StartingBalance = "100" })
	bet := func(amount string) string {
		return `{"account_id":"a1","currency":"USD","game_id":"prediction-markets","round_id":"r1","finished":false,"session_id":"s",` +
			`"transactions":[{"id_provider":"tx-bad","type":"bet","amount":` + amount + `}]}`
	}
	good := bet(`"1.00"`)
	// withField replaces a top-level field of good, or removes it when value
	// is "".
	withField := func(field, value string) string {
		m := map[string]json.RawMessage{}
		if err := json.Unmarshal([]byte(good), &m); err != nil {
			t.Fatal(err)
		}
		if value == "" {
			delete(m, field)
		} else {
			m[field] = json.RawMessage(value)
		}
		return string(sandboxtest.JSON(t, m))
	}
	cases := []struct {
		name, path, body string
	}{
		{"amount zero", casino.PathBetWin, bet(`"0"`)},
		{"amount 0.00", casino.PathBetWin, bet(`"0.00"`)},
		{"amount exponent", casino.PathBetWin, bet(`"1e3"`)},
		{"amount JSON number", casino.PathBetWin, bet(`10`)},
		{"amount JSON float", casino.PathBetWin, bet(`10.5`)},
		{"amount 13 decimals", casino.PathBetWin, bet(`"1.0000000000001"`)},
		{"amount 19 digits", casino.PathBetWin, bet(`"1000000000000000000"`)},
		{"amount negative", casino.PathBetWin, bet(`"-1.00"`)},
		{"amount plus", casino.PathBetWin, bet(`"+1"`)},
		{"amount point only", casino.PathBetWin, bet(`"1."`)},
		{"amount leading point", casino.PathBetWin, bet(`".5"`)},
		{"amount spaces", casino.PathBetWin, bet(`" 1"`)},
		{"amount trailing newline", casino.PathBetWin, bet(`"1\n"`)},
		{"amount comma", casino.PathBetWin, bet(`"1,5"`)},
		{"amount empty", casino.PathBetWin, bet(`""`)},
		{"amount null", casino.PathBetWin, bet(`null`)},
		{"amount missing", casino.PathBetWin, strings.Replace(good, `,"amount":"1.00"`, ``, 1)},
		{"currency lower-case", casino.PathBetWin, withField("currency", `"usd"`)},
		{"currency too short", casino.PathBetWin, withField("currency", `"US"`)},
		{"currency too long", casino.PathBetWin, withField("currency", `"USDOLLAR"`)},
		{"currency missing", casino.PathBetWin, withField("currency", "")},
		{"game_id wrong", casino.PathBetWin, withField("game_id", `"slots"`)},
		{"game_id missing", casino.PathBetWin, withField("game_id", "")},
		{"account_id missing", casino.PathBetWin, withField("account_id", "")},
		{"account_id number", casino.PathBetWin, withField("account_id", `7`)},
		{"account_id control", casino.PathBetWin, withField("account_id", `"a\u0001"`)},
		{"account_id too long", casino.PathBetWin, withField("account_id", `"`+strings.Repeat("a", 256)+`"`)},
		{"round_id missing", casino.PathBetWin, withField("round_id", "")},
		{"session_id missing", casino.PathBetWin, withField("session_id", "")},
		{"finished missing", casino.PathBetWin, withField("finished", "")},
		{"finished string", casino.PathBetWin, withField("finished", `"false"`)},
		{"finished null", casino.PathBetWin, withField("finished", `null`)},
		{"type unknown", casino.PathBetWin, strings.Replace(good, `"bet"`, `"refund"`, 1)},
		{"type rollback", casino.PathBetWin, strings.Replace(good, `"bet"`, `"rollback"`, 1)},
		{"type upper-case", casino.PathBetWin, strings.Replace(good, `"bet"`, `"BET"`, 1)},
		{"id_provider missing", casino.PathBetWin, strings.Replace(good, `"id_provider":"tx-bad",`, ``, 1)},
		{"transactions empty", casino.PathBetWin, withField("transactions", `[]`)},
		{"transactions missing", casino.PathBetWin, withField("transactions", "")},
		{"transactions object", casino.PathBetWin, withField("transactions", `{"id_provider":"tx-bad","type":"bet","amount":"1"}`)},
		{"two transactions", casino.PathBetWin, withField("transactions",
			`[{"id_provider":"tx-bad","type":"bet","amount":"1"},{"id_provider":"tx-bad2","type":"bet","amount":"1"}]`)},
		{"not JSON", casino.PathBetWin, `account_id=a1`},
		{"array", casino.PathBetWin, `[` + good + `]`},
		{"trailing data", casino.PathBetWin, good + ` {}`},
		{"empty body", casino.PathBetWin, ``},
		{"balance currency lower-case", casino.PathBalance, `{"account_id":"a1","currency":"usd","game_id":"prediction-markets","session_id":"s"}`},
		{"balance game_id missing", casino.PathBalance, `{"account_id":"a1","currency":"USD","session_id":"s"}`},
		{"balance account missing", casino.PathBalance, `{"currency":"USD","game_id":"prediction-markets","session_id":"s"}`},
		{"finish round missing", casino.PathFinish, `{"account_id":"a1","currency":"USD","session_id":"s"}`},
		{"finish currency", casino.PathFinish, `{"account_id":"a1","currency":"usd","round_id":"r1","session_id":"s"}`},
		{"rollback finished true", casino.PathRollback, `{"account_id":"a1","currency":"USD","game_id":"prediction-markets","round_id_provider":"r1","finished":true,"session_id":"s","transactions":[{"id_provider":"rb-bad","type":"rollback","original_id_provider":"tx-bad"}]}`},
		{"rollback finished missing", casino.PathRollback, `{"account_id":"a1","currency":"USD","game_id":"prediction-markets","round_id_provider":"r1","session_id":"s","transactions":[{"id_provider":"rb-bad","type":"rollback","original_id_provider":"tx-bad"}]}`},
		{"rollback round missing", casino.PathRollback, `{"account_id":"a1","currency":"USD","game_id":"prediction-markets","finished":false,"session_id":"s","transactions":[{"id_provider":"rb-bad","type":"rollback","original_id_provider":"tx-bad"}]}`},
		{"rollback uses round_id", casino.PathRollback, `{"account_id":"a1","currency":"USD","game_id":"prediction-markets","round_id":"r1","finished":false,"session_id":"s","transactions":[{"id_provider":"rb-bad","type":"rollback","original_id_provider":"tx-bad"}]}`},
		{"rollback type bet", casino.PathRollback, `{"account_id":"a1","currency":"USD","game_id":"prediction-markets","round_id_provider":"r1","finished":false,"session_id":"s","transactions":[{"id_provider":"rb-bad","type":"bet","original_id_provider":"tx-bad"}]}`},
		{"rollback original missing", casino.PathRollback, `{"account_id":"a1","currency":"USD","game_id":"prediction-markets","round_id_provider":"r1","finished":false,"session_id":"s","transactions":[{"id_provider":"rb-bad","type":"rollback"}]}`},
		{"rollback of itself", casino.PathRollback, `{"account_id":"a1","currency":"USD","game_id":"prediction-markets","round_id_provider":"r1","finished":false,"session_id":"s","transactions":[{"id_provider":"rb-bad","type":"rollback","original_id_provider":"rb-bad"}]}`},
		{"rollback game_id wrong", casino.PathRollback, `{"account_id":"a1","currency":"USD","game_id":"slots","round_id_provider":"r1","finished":false,"session_id":"s","transactions":[{"id_provider":"rb-bad","type":"rollback","original_id_provider":"tx-bad"}]}`},
	}
	for _, c := range cases {
		status, resp := e.post(c.path, []byte(c.body))
		w := wantErr(t, c.name, status, resp, http.StatusBadRequest, "400", "")
		if w.Meta.APIMessage != "Bad request" {
			t.Errorf("%s: api_message %q", c.name, w.Meta.APIMessage)
		}
	}
	if e.ledgerLen() != 0 {
		t.Errorf("invalid requests made ledger entries: %+v", e.c.Ledger())
	}
	if _, ok := e.c.Balance("a1", "USD"); ok {
		t.Error("invalid requests created the account")
	}
	// Invalid requests consume nothing: the ids are still free, and no
	// tombstone was recorded by the invalid rollbacks.
	e.wantPostedBalance("valid after the invalid ones", casino.PathBetWin, []byte(good), "99.00")
	// Unknown fields are tolerated; 7-character codes with digits are
	// currencies.
	status, resp := e.post(casino.PathBetWin, []byte(`{"account_id":"a2","currency":"USDT123","game_id":"prediction-markets","round_id":"r2","finished":false,"session_id":"s","sm_result":"x",`+
		`"transactions":[{"id_provider":"tx-2","type":"bet","amount":"1","bet_type":"single"}]}`))
	wantOK(t, "unknown fields and a long currency", status, resp)
}

func TestConcurrentBets(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.setBalance("a1", "USD", "10.00")
	e.setBalance("a2", "USD", "5.00")
	const n = 20
	var wg sync.WaitGroup
	statuses := make([]int, n)
	send := func(body []byte) (int, error) {
		resp, err := e.client.Do(e.request(casino.PathBetWin, body, nil))
		if err != nil {
			return 0, err
		}
		resp.Body.Close()
		return resp.StatusCode, nil
	}
	for i := range n {
		wg.Go(func() {
			status, err := send(betBody(t, "a1", "USD", fmt.Sprintf("r%d", i), fmt.Sprintf("bet-%d", i), "1.00"))
			if err != nil {
				t.Error(err)
			}
			statuses[i] = status
		})
	}
	// The same transaction many times at once debits once.
	same := betBody(t, "a2", "USD", "r-same", "bet-same", "1.00")
	for range n {
		wg.Go(func() {
			status, err := send(same)
			if err != nil {
				t.Error(err)
			} else if status != http.StatusOK {
				t.Errorf("same transaction: %d", status)
			}
		})
	}
	wg.Wait()
	sandboxtest.WantSplit(t, statuses, http.StatusBadRequest, 10, 10)
	e.wantBalance("a1", "USD", "0.00")
	e.wantBalance("a2", "USD", "4.00")
}
