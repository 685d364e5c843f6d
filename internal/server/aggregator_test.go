package server_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"

	"github.com/google/uuid"

	"github.com/foresight-dev/foresight/internal/openapitest"
	"github.com/foresight-dev/foresight/internal/postgres/pgtest"
	"github.com/foresight-dev/foresight/internal/sandbox/casino"
	"github.com/foresight-dev/foresight/internal/server"
	"github.com/foresight-dev/foresight/internal/waitfor"
)

const casinoSecret = "casino-signing-secret-0123"

// aggWorld is a betting world with an aggregator operator "agg" whose
// wallet is the sandbox casino, for casino "casino-1", in EUR.
type aggWorld struct {
	*bettingWorld
	casino *casino.Casino
	// doc validates every exchange of the aggregator API.
	doc *openapitest.Validator
}

func newAggWorld(t testing.TB, db string, config func(*server.Config)) *aggWorld {
	t.Helper()
	return newAggWorldWith(t, db, worldOptions{config: config})
}

// newAggWorldWith is newAggWorld with opts.
func newAggWorldWith(t testing.TB, db string, opts worldOptions) *aggWorld {
	t.Helper()
	c, err := casino.New(casino.Config{SigningSecret: casinoSecret, StartingBalance: "100.00"})
	if err != nil {
		t.Fatal(err)
	}
	h := c.Handler()
	if opts.casino != nil {
		h = opts.casino(h)
	}
	wallet := httptest.NewServer(h)
	t.Cleanup(wallet.Close)
	bw := newBettingWorldWith(t, db, opts)
	st, p := bw.admin("POST", "/admin/v1/operators", fmt.Sprintf(`{"id":"agg","name":"Aggregator","integration":"aggregator",
		"wallet_url":%q,"signing_secret":%q,"casino_ids":["casino-1","casino-2"],
		"currencies":[{"code":"EUR","decimals":2},{"code":"USDT","decimals":6}],"margin":{"method":"odds_ratio","value":"0.05"},
		"limits":{"EUR":{"min_stake":"1","max_stake":"100","max_payout":"1000","outcome_exposure":"5000"},
		"USDT":{"min_stake":"1","max_stake":"100","max_payout":"1000","outcome_exposure":"5000"}},"odds_tolerance":"0.05"}`,
		wallet.URL, casinoSecret))
	if st != 201 {
		t.Fatalf("create aggregator = %d %v", st, p)
	}
	return &aggWorld{bettingWorld: bw, casino: c, doc: openapitest.Load(t, "aggregator.yaml")}
}

// signed posts body to path, signed with secret, and returns the answer.
func (aw *aggWorld) signed(path, secret, body string, header ...string) response {
	aw.t.Helper()
	return aw.signedAs(aw.t, path, secret, body, header...)
}

// signedAs is signed reporting to t: the fuzz targets' own tests.
func (aw *aggWorld) signedAs(t testing.TB, path, secret, body string, header ...string) response {
	t.Helper()
	if secret != "" {
		header = append([]string{"X-REQUEST-SIGN", casino.Sign([]byte(secret), []byte(body))}, header...)
	}
	req, r := roundTrip(t, "POST", aw.url+path, "", []byte(body), header...)
	aw.doc.Check(t, req, []byte(body), r.status, r.header, r.body)
	return r
}

func realLaunch(account, currency, session string) string {
	return fmt.Sprintf(`{"casino_id":"casino-1","game":"prediction-markets","locale":"de_AT","ip":"203.0.113.7","client_type":"desktop",
		"session_id":%q,"urls":{"return_url":"https://casino.example/lobby"},"account":{"id":%q,"currency":%q,"nickname":"p"},"jurisdiction":"MT"}`,
		session, account, currency)
}

// session launches a real session and exchanges its token; it returns the
// session token.
func (aw *aggWorld) session(account, currency, session string) string {
	aw.t.Helper()
	a := aw.signed("/v2/agg_provider.Launcher/Real", casinoSecret, realLaunch(account, currency, session))
	if a.status != 200 {
		aw.t.Fatalf("Launcher/Real = %d %s", a.status, a.body)
	}
	return aw.exchange(a)
}

func (aw *aggWorld) exchange(launched response) string {
	aw.t.Helper()
	u, err := url.Parse(launched.json(aw.t)["launch_url"].(string))
	if err != nil || !u.IsAbs() || !strings.HasPrefix(u.String(), aw.url+"/widget/") {
		aw.t.Fatalf("launch_url %v is not an absolute URL of the widget", u)
	}
	got := aw.post("/api/v1/sessions", fmt.Sprintf(`{"session_request_id":%q}`, u.Query().Get("session_request_id")))
	if got.status != 200 {
		aw.t.Fatalf("POST /api/v1/sessions = %d %s", got.status, got.body)
	}
	return got.json(aw.t)["auth_token"].(string)
}

func (aw *aggWorld) post(path, body string) response {
	aw.t.Helper()
	req, r := roundTrip(aw.t, "POST", aw.url+path, "", []byte(body))
	aw.doc.Check(aw.t, req, []byte(body), r.status, r.header, r.body)
	return r
}

// launchDemo asks Launcher/Demo, signed, for a demo of casino-1 with the
// header pairs given.
func (aw *aggWorld) launchDemo(header ...string) response {
	aw.t.Helper()
	return aw.signed("/v2/agg_provider.Launcher/Demo", casinoSecret, `{"casino_id":"casino-1","game":"prediction-markets"}`, header...)
}

// limitedStatuses sends three requests with send, past a rate limit of
// one, and returns their statuses as "[a b c]"; each 429 among them must
// be wellFormed (the limiter's own body and Retry-After), else the test
// fails with its header and body.
func limitedStatuses(t *testing.T, send func() response, wellFormed func(response) bool) string {
	t.Helper()
	var statuses []int
	for range 3 {
		a := send()
		statuses = append(statuses, a.status)
		if a.status == 429 && !wellFormed(a) {
			t.Errorf("429 = %v %s", a.header, a.body)
		}
	}
	return fmt.Sprint(statuses)
}

func (aw *aggWorld) details(roundID, locale string, header ...string) response {
	return aw.signed("/v2/agg_provider.Round/Details", casinoSecret, fmt.Sprintf(`{"casino_id":"casino-1","round_id":%q,"locale":%q}`, roundID, locale), header...)
}

// TestAggregatorRounds plays the whole path: launch, session, bets debited
// with Round/BetWin, the market resolved, the win credited with
// Round/BetWin and the loss closed with Round/Finish, and Round/Details of
// each state.
func TestAggregatorRounds(t *testing.T) {
	t.Parallel()
	forEachDatabase(t, func(t *testing.T, db string) {
		aw := newAggWorld(t, db, nil)
		session := uuid.NewString()
		token := aw.session("player-1", "EUR", session)
		if me := aw.api("GET", "/api/v1/auth/me", token, "").json(t); me["bettor_id"] != "player-1" || me["balance"] != "100" {
			t.Errorf("auth/me = %v, want player-1 with the casino's balance 100", me)
		}

		var ids [2]string
		for i := range 2 {
			acc := aw.place(token, uuid.NewString(), aw.outcome[i], "10.00")
			if acc.status != 202 {
				t.Fatalf("place = %d %s", acc.status, acc.body)
			}
			ids[i] = acc.json(t)["id"].(string)
			if bet := aw.settled(token, ids[i]); bet["status"] != "confirmed" {
				t.Fatalf("bet %d = %v", i, bet)
			}
		}
		bets := map[string]casino.Entry{}
		for _, e := range aw.casino.Ledger() {
			if e.Type == casino.EntryBet {
				bets[e.RoundID] = e
			}
		}
		for _, id := range ids {
			if e := bets[id]; e.IDProvider != "wd-"+id || e.Amount != "-10.00" || e.Account != "player-1" || e.Currency != "EUR" {
				t.Errorf("BetWin of round %s = %+v", id, e)
			}
		}
		d := aw.details(ids[0], "")
		if d.status != 200 {
			t.Fatalf("Round/Details = %d %s", d.status, d.body)
		}
		type round struct {
			RoundID string `json:"round_id"`
			Details struct {
				AccountID string `json:"account_id"`
				BetType   string `json:"bet_type"`
				Status    string `json:"status"`
				Stake     string `json:"stake"`
				Currency  string `json:"currency"`
				Odds      string `json:"odds"`
				Event     struct {
					Title map[string]string `json:"title"`
				} `json:"event"`
				Market struct {
					Question map[string]string `json:"question"`
				} `json:"market"`
				Selection struct {
					Name map[string]string `json:"name"`
				} `json:"selection"`
				Payout        *string `json:"payout"`
				SettledAt     *string `json:"settled_at"`
				RejectionCode *string `json:"rejection_code"`
			} `json:"round_details"`
		}
		var got round
		decodeDetails := func(a response) {
			t.Helper()
			got = round{}
			if err := json.Unmarshal(a.body, &got); err != nil || a.status != 200 {
				t.Fatalf("Round/Details = %d %s", a.status, a.body)
			}
			for _, field := range []string{`"payout":`, `"settled_at":`, `"rejection_code":`, `"placed_at":`} {
				if !bytes.Contains(a.body, []byte(field)) {
					t.Errorf("Round/Details lacks %s: %s", field, a.body)
				}
			}
		}
		decodeDetails(d)
		// 0.2/0.8 with odds-ratio 5 %: 4.4214 → "4.42"; a win of 10 pays
		// 44.214 (12 decimals on the aggregator path, zeros trimmed).
		if got.RoundID != ids[0] || got.Details.Status != "pending" || got.Details.Odds != "4.42" || got.Details.Stake != "10" ||
			got.Details.BetType != "single" || got.Details.AccountID != "player-1" || got.Details.Event.Title["en"] != "Final" ||
			got.Details.Market.Question["en"] != "Who wins?" || got.Details.Selection.Name["en"] != "Home" || got.Details.Payout != nil {
			t.Errorf("pending round = %s", d.body)
		}

		aw.resolve(aw.market, aw.outcome[0])
		waitfor.Check(t, func() error {
			var win, finish int
			for _, e := range aw.casino.Ledger() {
				switch {
				case e.Type == casino.EntryWin && e.RoundID == ids[0] && e.IDProvider == "dp-"+ids[0] && e.Amount == "44.214":
					win++
				case e.Type == casino.EntryFinish && e.RoundID == ids[1]:
					finish++
				}
			}
			if win == 1 && finish == 1 {
				return nil
			}
			return fmt.Errorf("after the resolve: %d wins of 44.214, %d finishes; ledger %+v", win, finish, aw.casino.Ledger())
		})
		// Round/Details shows the new states once the casino's 200s are
		// recorded, a moment after the casino applied the credits.
		for _, id := range ids {
			waitfor.True(t, "the credits' confirmations", func() bool {
				return !bytes.Contains(aw.details(id, "").body, []byte(`"status":"pending"`))
			})
		}
		decodeDetails(aw.details(ids[0], "es"))
		if got.Details.Status != "won" || got.Details.Payout == nil || *got.Details.Payout != "44.214" || got.Details.SettledAt == nil ||
			got.Details.Event.Title["es"] == "" {
			t.Errorf("won round: %+v", got.Details)
		}
		decodeDetails(aw.details(ids[1], "", "Accept-Language", "pt-BR,pt;q=0.9"))
		if got.Details.Status != "lost" || got.Details.Payout == nil || *got.Details.Payout != "0.00" || got.Details.Event.Title["pt"] == "" {
			t.Errorf("lost round: %+v", got.Details)
		}
	})
}

// TestAggregatorWalletAnswers covers the api_code table on the bet's
// Round/BetWin: each final code rejects with its rejection code, temporary
// answers are resent identically, and a debit of unknown outcome or a 200
// without round_id is rolled back.
func TestAggregatorWalletAnswers(t *testing.T) {
	t.Parallel()
	forEachDatabase(t, func(t *testing.T, db string) {
		aw := newAggWorld(t, db, nil)
		token := aw.session("player-2", "EUR", uuid.NewString())
		cases := []struct {
			name     string
			arm      func()
			status   string
			code     any
			rollback bool
		}{
			{"api_code 100", func() { aw.casino.RejectNext("betwin", 1, "100") }, "rejected", "insufficient_funds", false},
			{"api_code 105", func() { aw.casino.RejectNext("betwin", 1, "105") }, "rejected", "bet_limit_reached", false},
			{"api_code 110", func() { aw.casino.RejectNext("betwin", 1, "110") }, "rejected", "bettor_blocked", false},
			{"api_code 404", func() { aw.casino.RejectNext("betwin", 1, "404") }, "rejected", "bet_rejected_other", true},
			{"non-numeric once", func() { aw.casino.RejectNext("betwin", 1, "oops") }, "confirmed", nil, false},
			{"503 once", func() { aw.casino.RejectNext("betwin", 1, "503") }, "confirmed", nil, false},
			{"503 always", func() { aw.casino.RejectNext("betwin", 3, "503") }, "rejected", "wallet_provider_unavailable", true},
			{"200 without round_id", func() { aw.casino.OmitRoundIDNext(1) }, "rejected", "wallet_rolled_back", true},
			// Debited three times over (the same id_provider), never answered:
			// the rollback gives the stake back.
			{"answers lost", func() { aw.casino.DropResponseNext("betwin", 3) }, "rejected", "wallet_provider_unavailable", true},
		}
		var refused string
		for _, c := range cases {
			c.arm()
			acc := aw.place(token, uuid.NewString(), aw.outcome[0], "1.00")
			if acc.status != 202 {
				t.Fatalf("%s: place = %d %s", c.name, acc.status, acc.body)
			}
			id := acc.json(t)["id"].(string)
			bet := aw.settled(token, id)
			if bet["status"] != c.status || bet["rejection_code"] != c.code {
				t.Errorf("%s: bet = %v, want %s %v", c.name, bet, c.status, c.code)
			}
			if c.code == "insufficient_funds" {
				refused = id
			}
			if c.rollback {
				waitfor.True(t, c.name+": Round/Rollback", func() bool {
					for _, e := range aw.casino.Ledger() {
						if e.Type == casino.EntryRollback && e.IDProvider == "rb-"+id && e.OriginalIDProvider == "wd-"+id {
							return true
						}
					}
					return false
				})
			}
		}
		// The admin API lists every one of these rejections as its
		// document says (wallet_provider_unavailable included).
		if st, _ := aw.world.asAdmin(t, "GET", "/admin/v1/bets?operator_id=agg&status=rejected&limit=100", nil); st != 200 {
			t.Errorf("admin list of the rejected bets = %d", st)
		}
		if b, _ := aw.casino.Balance("player-2", "EUR"); b != "98.00" {
			t.Errorf("balance after 2 confirmed bets of 1.00 and every rollback = %s, want 98.00", b)
		}
		d := aw.details(refused, "").json(t)["round_details"].(map[string]any)
		if d["status"] != "rejected" || d["rejection_code"] != "insufficient_funds" || d["payout"] != nil || d["settled_at"] != nil || d["stake"] != "1" {
			t.Errorf("rejected round = %v", d)
		}
	})
}

// TestLauncherRules checks every field rule and error body of the launcher
// and of Round/Details, the single use of launch tokens and demo sessions.
func TestLauncherRules(t *testing.T) {
	t.Parallel()
	aw := newAggWorld(t, "sqlite:"+t.TempDir()+"/f.db", func(c *server.Config) { c.LauncherRateLimit = 0 })
	session := uuid.NewString()
	good := realLaunch("player-3", "EUR", session)
	cases := []struct {
		name, secret, body string
		status             int
		error              string
	}{
		{"no signature", "", good, 403, "forbidden"},
		{"another secret", "another-secret-0123456789", good, 403, "forbidden"},
		{"not JSON", casinoSecret, `{"casino_id":`, 400, "invalid_request"},
		{"trailing data", casinoSecret, good + `{}`, 400, "invalid_request"},
		{"no session_id", casinoSecret, strings.Replace(good, `"session_id":"`+session+`",`, "", 1), 400, "invalid_request"},
		{"blank session_id", casinoSecret, realLaunch("player-3", "EUR", "  "), 400, "invalid_request"},
		{"session_id not a UUID", casinoSecret, realLaunch("player-3", "EUR", "abc"), 400, "invalid_request"},
		{"no urls", casinoSecret, strings.Replace(good, `"urls":{"return_url":"https://casino.example/lobby"},`, "", 1), 400, "invalid_request"},
		{"urls not an object", casinoSecret, strings.Replace(good, `"urls":{"return_url":"https://casino.example/lobby"}`, `"urls":"x"`, 1), 400, "invalid_request"},
		{"no account", casinoSecret, `{"casino_id":"casino-1","game":"prediction-markets","session_id":"` + session + `","urls":{}}`, 400, "invalid_request"},
		{"no account id", casinoSecret, realLaunch("", "EUR", session), 400, "invalid_request"},
		{"account id a number", casinoSecret, strings.Replace(good, `"id":"player-3"`, `"id":3`, 1), 400, "invalid_request"},
		{"lower-case currency", casinoSecret, realLaunch("player-3", "eur", session), 400, "invalid_request"},
		{"8-character currency", casinoSecret, realLaunch("player-3", "EURUSDTX", session), 400, "invalid_request"},
		{"currency not offered", casinoSecret, realLaunch("player-3", "GBP", session), 400, "invalid_request"},
		{"another game", casinoSecret, strings.Replace(good, `"prediction-markets"`, `"slots"`, 1), 400, "invalid_request"},
		{"unknown casino", casinoSecret, strings.Replace(good, `"casino-1"`, `"casino-9"`, 1), 403, "forbidden"},
		{"huge body", casinoSecret, `{"casino_id":"` + strings.Repeat("x", 70<<10) + `"}`, 400, "invalid_request"},
	}
	for _, c := range cases {
		a := aw.signed("/v2/agg_provider.Launcher/Real", c.secret, c.body)
		var body map[string]any
		if err := json.Unmarshal(a.body, &body); err != nil || a.status != c.status || len(body) != 1 || body["error"] != c.error {
			t.Errorf("%s: %d %s, want %d {\"error\":%q}", c.name, a.status, a.body, c.status, c.error)
		}
	}

	// A seven-character crypto code with an empty urls object is fine.
	launched := aw.signed("/v2/agg_provider.Launcher/Real", casinoSecret, strings.Replace(realLaunch("player-4", "USDT", session), `{"return_url":"https://casino.example/lobby"}`, `{}`, 1))
	if launched.status != 200 {
		t.Fatalf("Launcher/Real = %d %s", launched.status, launched.body)
	}
	u, _ := url.Parse(launched.json(t)["launch_url"].(string))
	if u.Query().Get("locale") != "de" {
		t.Errorf("launch_url %s: locale de_AT should map to de", u)
	}
	token := aw.exchange(launched)
	if again := aw.post("/api/v1/sessions", fmt.Sprintf(`{"session_request_id":%q}`, u.Query().Get("session_request_id"))); again.status != 401 || len(again.body) != 0 {
		t.Errorf("second exchange = %d %q, want 401 with no body", again.status, again.body)
	}
	if me := aw.api("GET", "/api/v1/auth/me", token, "").json(t); me["currency"] != "USDT" {
		t.Errorf("auth/me = %v", me)
	}
	if a := aw.post("/api/v1/sessions", `{"session_request_id":"never-issued"}`); a.status != 401 {
		t.Errorf("unknown token = %d", a.status)
	}
	if a := aw.post("/api/v1/sessions", `{"session_request_id":5}`); a.status != 400 {
		t.Errorf("malformed exchange = %d", a.status)
	}

	// Demo: no account, a token that reads the catalog and places no bet.
	demo := aw.signed("/v2/agg_provider.Launcher/Demo", casinoSecret, `{"casino_id":"casino-2","game":"prediction-markets","locale":"xx"}`)
	if demo.status != 200 {
		t.Fatalf("Launcher/Demo = %d %s", demo.status, demo.body)
	}
	demoToken := aw.exchange(demo)
	if a := aw.api("GET", "/api/v1/events", demoToken, ""); a.status != 200 {
		t.Errorf("demo events = %d", a.status)
	}
	if a := aw.place(demoToken, uuid.NewString(), aw.outcome[0], "1.00"); a.status != 403 {
		t.Errorf("demo bet = %d %s, want 403", a.status, a.body)
	}
	for _, e := range aw.casino.Ledger() {
		if e.Account == "demo" || e.Account == "" {
			t.Errorf("a demo session reached the wallet: %+v", e)
		}
	}

	// Round/Details errors.
	details := []struct {
		name, secret, body string
		status             int
		apiCode            string
	}{
		{"unknown round", casinoSecret, `{"casino_id":"casino-1","round_id":"` + uuid.NewString() + `"}`, 400, "404"},
		{"round id not a UUID", casinoSecret, `{"casino_id":"casino-1","round_id":"r-1"}`, 400, "404"},
		{"no round id", casinoSecret, `{"casino_id":"casino-1"}`, 400, "400"},
		{"not JSON", casinoSecret, `round`, 400, "400"},
		{"round id a number", casinoSecret, `{"round_id":7}`, 400, "400"},
	}
	for _, c := range details {
		a := aw.signed("/v2/agg_provider.Round/Details", c.secret, c.body)
		var body struct {
			Code string `json:"code"`
			Msg  string `json:"msg"`
			Meta struct {
				APICode    string `json:"api_code"`
				APIMessage string `json:"api_message"`
			} `json:"meta"`
		}
		if err := json.Unmarshal(a.body, &body); err != nil || a.status != c.status || body.Code != "invalid_argument" || body.Meta.APICode != c.apiCode || body.Msg == "" {
			t.Errorf("%s: %d %s, want %d invalid_argument api_code %s", c.name, a.status, a.body, c.status, c.apiCode)
		}
	}
	if a := aw.signed("/v2/agg_provider.Round/Details", "wrong-secret-0123456789", `{"round_id":"x"}`); a.status != 403 || string(bytes.TrimSpace(a.body)) != `{"error":"forbidden"}` {
		t.Errorf("Round/Details with a bad signature = %d %s", a.status, a.body)
	}
	// A standalone operator's bet is not a round of the aggregator.
	alice := aw.bettor("alice", "100.00")
	acc := aw.place(alice, uuid.NewString(), aw.outcome[0], "1.00")
	if a := aw.details(acc.json(t)["id"].(string), ""); a.status != 400 || !bytes.Contains(a.body, []byte(`"api_code":"404"`)) {
		t.Errorf("another operator's bet = %d %s", a.status, a.body)
	}

	var jwks struct {
		Keys []struct{ Kty, Kid, Alg string } `json:"keys"`
	}
	resp, err := http.Get(aw.url + "/.well-known/jwks.json")
	if err != nil {
		t.Fatal(err)
	}
	json.Unmarshal(aw.doc.CheckResponse(t, resp, nil), &jwks)
	if len(jwks.Keys) != 1 || jwks.Keys[0].Kty != "RSA" || jwks.Keys[0].Alg != "RS256" || jwks.Keys[0].Kid == "" {
		t.Errorf("JWKS = %+v", jwks)
	}
}

// TestLauncherRateLimit: past the launcher's per-address rate the gateway
// answers 429 with its own body and Retry-After; Round/Details is not
// limited. The rate is set so low (one request per 100 s) that the test
// does not depend on how fast the machine is; the default of 5 a second is
// the same limiter.
func TestLauncherRateLimit(t *testing.T) {
	t.Parallel()
	aw := newAggWorld(t, "sqlite:"+t.TempDir()+"/f.db", func(c *server.Config) { c.LauncherRateLimit = 0.01 })
	statuses := limitedStatuses(t, func() response { return aw.launchDemo() }, func(a response) bool {
		var body map[string]any
		return json.Unmarshal(a.body, &body) == nil && body["message"] != nil && body["error"] == nil && a.header.Get("Retry-After") != ""
	})
	if statuses != "[200 429 429]" {
		t.Errorf("launcher statuses = %v, want [200 429 429]", statuses)
	}
	for range 10 {
		if a := aw.details(uuid.NewString(), ""); a.status == 429 {
			t.Fatal("Round/Details is rate limited")
		}
	}
}

// TestRoundDetailsRateLimit: past its per-address rate Round/Details
// gets the gateway's 429 with Retry-After, before its body is read; the
// launcher's requests from the same address are counted apart.
func TestRoundDetailsRateLimit(t *testing.T) {
	t.Parallel()
	aw := newAggWorld(t, "sqlite:"+t.TempDir()+"/f.db", func(c *server.Config) { c.RoundDetailsRateLimit = 0.01 })
	statuses := limitedStatuses(t, func() response { return aw.details(uuid.NewString(), "") }, func(a response) bool {
		var body map[string]any
		return json.Unmarshal(a.body, &body) == nil && body["message"] != nil && len(body) == 1 && a.header.Get("Retry-After") != ""
	})
	if statuses != "[400 429 429]" {
		t.Errorf("Round/Details statuses = %v, want [400 429 429]", statuses)
	}
	if a := aw.launchDemo(); a.status != 200 {
		t.Errorf("launcher after Round/Details' limit = %d %s, want 200: counted apart", a.status, a.body)
	}
}

// TestTrustedProxies: behind a trusted proxy the launcher's limit counts,
// and the audit trail records, the address X-Forwarded-For names (its
// rightmost untrusted entry, whatever the client put left of it); from a
// peer that is not trusted the header is ignored and the peer's address
// is counted.
func TestTrustedProxies(t *testing.T) {
	t.Parallel()
	launch := func(aw *aggWorld, forwardedFor string) int {
		return aw.launchDemo("X-Forwarded-For", forwardedFor).status
	}
	t.Run("trusted peer", func(t *testing.T) {
		t.Parallel()
		aw := newAggWorld(t, "sqlite:"+t.TempDir()+"/f.db", func(c *server.Config) {
			c.LauncherRateLimit = 0.01
			c.TrustedProxies = "127.0.0.1, 192.0.2.0/24"
		})
		statuses := []int{launch(aw, "203.0.113.1"), launch(aw, "203.0.113.1"), launch(aw, "203.0.113.2"),
			launch(aw, "203.0.113.3, 203.0.113.2, 192.0.2.9")}
		if fmt.Sprint(statuses) != "[200 429 200 429]" {
			t.Errorf("launcher statuses = %v, want [200 429 200 429]: one bucket per forwarded client", statuses)
		}

		_, created := roundTrip(t, "POST", aw.url+"/admin/v1/ticket-clients", adminToken, []byte(`{"name":"Behind the proxy"}`),
			"X-Forwarded-For", "198.51.100.66, 203.0.113.9")
		if created.status != 201 {
			t.Fatalf("POST /admin/v1/ticket-clients = %d %s", created.status, created.body)
		}
		_, trail := roundTrip(t, "GET", aw.url+"/admin/v1/audit?target_kind=ticket_client", adminToken, nil)
		var page struct {
			Items []auditItem `json:"items"`
		}
		clientID, _ := created.json(t)["id"].(string)
		if err := json.Unmarshal(trail.body, &page); err != nil || len(page.Items) == 0 ||
			page.Items[0].TargetID != clientID || page.Items[0].ClientAddress != "203.0.113.9" {
			t.Errorf("audit trail = %d %s; want the newest entry, of %s, from 203.0.113.9", trail.status, trail.body, clientID)
		}
	})
	t.Run("IPv6 clients by their /64", func(t *testing.T) {
		t.Parallel()
		aw := newAggWorld(t, "sqlite:"+t.TempDir()+"/f.db", func(c *server.Config) {
			c.LauncherRateLimit = 0.01
			c.TrustedProxies = "127.0.0.1"
		})
		statuses := []int{launch(aw, "2001:db8:1:2::1"), launch(aw, "2001:db8:1:2::2"), launch(aw, "2001:db8:1:2:ffff::3"),
			launch(aw, "2001:db8:1:3::1")}
		if fmt.Sprint(statuses) != "[200 429 429 200]" {
			t.Errorf("launcher statuses = %v, want [200 429 429 200]: one bucket per /64", statuses)
		}
	})
	t.Run("untrusted peer", func(t *testing.T) {
		t.Parallel()
		aw := newAggWorld(t, "sqlite:"+t.TempDir()+"/f.db", func(c *server.Config) {
			c.LauncherRateLimit = 0.01
			c.TrustedProxies = "192.0.2.0/24"
		})
		statuses := []int{launch(aw, "203.0.113.1"), launch(aw, "203.0.113.2")}
		if fmt.Sprint(statuses) != "[200 429]" {
			t.Errorf("launcher statuses = %v, want [200 429]: the untrusted peer's header must be ignored", statuses)
		}
	})
}

// TestSessionExchangeRateLimit: past the per-address rate the session
// exchange answers 429 problem details with Retry-After before reading
// the database; the launcher's requests from the same address are counted
// apart.
func TestSessionExchangeRateLimit(t *testing.T) {
	t.Parallel()
	aw := newAggWorld(t, "sqlite:"+t.TempDir()+"/f.db", func(c *server.Config) { c.LauncherRateLimit = 0.01 })
	statuses := limitedStatuses(t, func() response { return aw.post("/api/v1/sessions", `{"session_request_id":"never-issued"}`) }, func(a response) bool {
		var body map[string]any
		return a.header.Get("Content-Type") == "application/problem+json" && json.Unmarshal(a.body, &body) == nil && body["status"] == 429.0 &&
			a.header.Get("Retry-After") != ""
	})
	if statuses != "[401 429 429]" {
		t.Errorf("session exchange statuses = %v, want [401 429 429]", statuses)
	}
	if a := aw.launchDemo(); a.status != 200 {
		t.Errorf("a launch after the exchanges were limited = %d %s", a.status, a.body)
	}
}

// TestAggregatorSessionsAndCredits: a session does not start when the
// casino's Player/Balance fails, and a failing profile read hides the
// balance; a win whose answer is lost is resent and paid once; a cancelled
// market refunds the stake as a win.
func TestAggregatorSessionsAndCredits(t *testing.T) {
	t.Parallel()
	forEachDatabase(t, func(t *testing.T, db string) {
		aw := newAggWorld(t, db, nil)
		launched := aw.signed("/v2/agg_provider.Launcher/Real", casinoSecret, realLaunch("player-5", "EUR", uuid.NewString()))
		u, _ := url.Parse(launched.json(t)["launch_url"].(string))
		aw.casino.FailNext("balance", 1, 500)
		if a := aw.post("/api/v1/sessions", fmt.Sprintf(`{"session_request_id":%q}`, u.Query().Get("session_request_id"))); a.status != 502 {
			t.Fatalf("session with a failing Player/Balance = %d %s, want 502", a.status, a.body)
		}
		token := aw.session("player-5", "EUR", uuid.NewString())
		aw.casino.FailNext("balance", 1, 500)
		if me := aw.api("GET", "/api/v1/auth/me", token, "").json(t); me["balance"] != nil {
			t.Errorf("auth/me with a failing Player/Balance = %v, want a null balance", me)
		}

		acc := aw.place(token, uuid.NewString(), aw.outcome[0], "10.00")
		id := acc.json(t)["id"].(string)
		if bet := aw.settled(token, id); bet["status"] != "confirmed" {
			t.Fatalf("bet = %v", bet)
		}
		// The win is processed and its answer lost: the outbox resends the
		// same request and the casino replays its answer.
		aw.casino.DropResponseNext("betwin", 1)
		aw.resolve(aw.market, aw.outcome[0])
		waitfor.True(t, "the win's confirmation", func() bool {
			st, bets := aw.admin("GET", "/admin/v1/bets?operator_id=agg&status=settled", "")
			if st != 200 {
				return false
			}
			for _, b := range bets["items"].([]any) {
				if m := b.(map[string]any); m["id"] == id && m["deposit_confirmed_at"] != nil {
					return true
				}
			}
			return false
		})
		wins := 0
		for _, e := range aw.casino.Ledger() {
			if e.Type == casino.EntryWin && e.RoundID == id {
				wins++
			}
		}
		if b, _ := aw.casino.Balance("player-5", "EUR"); wins != 1 || b != "134.214" {
			t.Errorf("%d wins, balance %s; want 1 and 134.214 (100 - 10 + 44.214)", wins, b)
		}
	})
}

// TestAggregatorVoid: a cancelled market's bets are refunded with a win of
// the stake that closes the round, and Round/Details shows them voided
// with the stake as payout.
func TestAggregatorVoid(t *testing.T) {
	t.Parallel()
	aw := newAggWorld(t, "sqlite:"+t.TempDir()+"/f.db", nil)
	token := aw.session("player-6", "EUR", uuid.NewString())
	id := aw.placeConfirmed(token, aw.outcome[1], "2.50")
	// Texts are read when the details are asked for: an edit shows at once.
	event := aw.details(id, "").json(t)["round_details"].(map[string]any)["event"].(map[string]any)["id"].(string)
	if st, p := aw.admin("PATCH", "/admin/v1/events/"+event, `{"title":{"en":"The final, renamed","fr":"La finale"}}`); st != 200 {
		t.Fatalf("PATCH event = %d %v", st, p)
	}
	for locale, want := range map[string]string{"en": "The final, renamed", "fr": "La finale"} {
		ev := aw.details(id, locale).json(t)["round_details"].(map[string]any)["event"].(map[string]any)
		if title := ev["title"].(map[string]any); len(title) != 1 || title[locale] != want {
			t.Errorf("details in %s: event title %v, want {%s: %s}", locale, title, locale, want)
		}
	}
	if st, p := aw.admin("POST", "/admin/v1/markets/"+aw.market+"/cancel", ""); st != 200 {
		t.Fatalf("cancel = %d %v", st, p)
	}
	waitfor.True(t, "the refund", func() bool {
		for _, e := range aw.casino.Ledger() {
			if e.Type == casino.EntryWin && e.RoundID == id && e.Amount == "2.50" && e.IDProvider == "dp-"+id {
				return true
			}
		}
		return false
	})
	if r, ok := aw.casino.Round(id); !ok || !r.Finished {
		t.Errorf("round %s = %+v, want finished", id, r)
	}
	waitfor.True(t, "the refund's confirmation", func() bool {
		return !bytes.Contains(aw.details(id, "").body, []byte(`"status":"pending"`))
	})
	d := aw.details(id, "").json(t)["round_details"].(map[string]any)
	if d["status"] != "voided" || d["payout"] != "2.5" || d["settled_at"] == nil {
		t.Errorf("voided round = %v", d)
	}
}

// TestAggregatorAcrossNodes: two servers on one PostgreSQL database share
// the platform's keys and launches: a launch made on one node is exchanged
// on the other, whose session token the first node accepts.
func TestAggregatorAcrossNodes(t *testing.T) {
	t.Parallel()
	db := pgtest.NewDatabase(t)
	aw := newAggWorld(t, db, nil)
	other := anotherNode(t, db, nil)
	launched := aw.signed("/v2/agg_provider.Launcher/Real", casinoSecret, realLaunch("player-7", "EUR", uuid.NewString()))
	u, _ := url.Parse(launched.json(t)["launch_url"].(string))
	resp, err := http.Post(other.url+"/api/v1/sessions", "application/json",
		strings.NewReader(fmt.Sprintf(`{"session_request_id":%q}`, u.Query().Get("session_request_id"))))
	if err != nil {
		t.Fatal(err)
	}
	var s struct {
		AuthToken string `json:"auth_token"`
	}
	json.NewDecoder(resp.Body).Decode(&s)
	resp.Body.Close()
	if resp.StatusCode != 200 || s.AuthToken == "" {
		t.Fatalf("exchange on the other node = %d", resp.StatusCode)
	}
	if me := aw.api("GET", "/api/v1/auth/me", s.AuthToken, "").json(t); me["bettor_id"] != "player-7" {
		t.Errorf("auth/me on the first node with the other node's token = %v", me)
	}
	if again := aw.post("/api/v1/sessions", fmt.Sprintf(`{"session_request_id":%q}`, u.Query().Get("session_request_id"))); again.status != 401 {
		t.Errorf("the same launch exchanged again on the first node = %d", again.status)
	}
}

// TestAggregatorSessionIDRepeatedAsSent: the launch's session_id is
// repeated in every wallet call of the session and of its bets' rounds
// exactly as the aggregator sent it, upper-case letters included
// (docs/aggregator-integration.md: stored with the bet and repeated in
// every call of its round).
func TestAggregatorSessionIDRepeatedAsSent(t *testing.T) {
	t.Parallel()
	forEachDatabase(t, func(t *testing.T, db string) {
		var mu sync.Mutex
		sent := map[string][]string{} // path → session_id of each wallet request
		aw := newAggWorldWith(t, db, worldOptions{casino: func(next http.Handler) http.Handler {
			return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				body, _ := io.ReadAll(r.Body)
				var req struct {
					SessionID string `json:"session_id"`
				}
				_ = json.Unmarshal(body, &req)
				mu.Lock()
				sent[r.URL.Path] = append(sent[r.URL.Path], req.SessionID)
				mu.Unlock()
				r.Body = io.NopCloser(bytes.NewReader(body))
				next.ServeHTTP(w, r)
			})
		}})
		session := strings.ToUpper(uuid.NewString())
		token := aw.session("player-7", "EUR", session)
		acc := aw.place(token, uuid.NewString(), aw.outcome[0], "10.00")
		if acc.status != 202 {
			t.Fatalf("place = %d %s", acc.status, acc.body)
		}
		if bet := aw.settled(token, acc.json(t)["id"].(string)); bet["status"] != "confirmed" {
			t.Fatalf("bet = %v", bet)
		}
		aw.resolve(aw.market, aw.outcome[0])
		waitfor.True(t, "the win's Round/BetWin", func() bool {
			mu.Lock()
			defer mu.Unlock()
			return len(sent["/v2/provider_agg.Round/BetWin"]) >= 2
		})
		mu.Lock()
		defer mu.Unlock()
		if len(sent["/v2/provider_agg.Player/Balance"]) == 0 {
			t.Errorf("no Player/Balance request: %v", sent)
		}
		for path, ids := range sent {
			for _, id := range ids {
				if id != session {
					t.Errorf("%s carried session_id %q, want %q as sent", path, id, session)
				}
			}
		}
	})
}
