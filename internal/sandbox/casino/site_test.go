package casino_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"html"
	"io"
	"net/http"
	"net/url"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/foresight-dev/foresight/internal/sandbox/casino"
	"github.com/foresight-dev/foresight/internal/sandbox/sandboxtest"
	"github.com/foresight-dev/foresight/internal/sandbox/sandboxweb"
	"github.com/foresight-dev/foresight/internal/waitfor"
)

// site is a casino Site served on loopback.
type site struct {
	*sandboxtest.Served
	t *testing.T
	s *casino.Site
}

func newSite(t *testing.T, platformURL string, mutate ...func(*casino.SiteConfig)) *site {
	t.Helper()
	cfg := casino.SiteConfig{
		AggregatorID: "sandbox-agg",
		SiteSettings: sandboxweb.SiteSettings{PlatformURL: platformURL, DatabasePath: filepath.Join(t.TempDir(), "casino.db")},
	}
	s, served := sandboxtest.OpenSite(t, casino.OpenSite, &cfg, mutate...)
	return &site{Served: served, t: t, s: s}
}

// wallet sends a wallet request signed with the site's secret; status 0
// means no answer.
func (s *site) wallet(ctx context.Context, path string, body []byte) (int, []byte) {
	req, _ := http.NewRequestWithContext(ctx, "POST", s.Srv.URL+path, bytes.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("X-REQUEST-SIGN", sandboxtest.HMACHex(s.s.Casino().SigningSecret(), body))
	resp, err := s.Srv.Client().Do(req)
	if err != nil {
		return 0, nil
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, b
}

var gameFrame = regexp.MustCompile(`<iframe id="game"[^>]* src="([^"]+)"[^>]* data-origin="([^"]+)"`)

func TestLobbyLaunchesThroughThePlatform(t *testing.T) {
	t.Parallel()
	platform := sandboxtest.StartPlatform(t)
	s := newSite(t, platform.URL)
	if status, body := platform.Admin(t, "POST", "/admin/v1/operators", s.s.Registration(s.Srv.URL)); status != http.StatusCreated {
		t.Fatalf("registering the aggregator: %d %s", status, body)
	}
	if status, body, _ := s.Get("/sandbox/lobby"); status != http.StatusOK || !strings.Contains(body, "prediction-markets") || strings.Contains(body, "<iframe") {
		t.Fatalf("lobby: %d\n%s", status, body)
	}

	launch := func(mode string) *url.URL {
		t.Helper()
		status, body, h := s.Form("/sandbox/lobby", url.Values{"account_id": {"alice"}, "currency": {"USD"}, "locale": {"de"}, "mode": {mode}})
		m := gameFrame.FindStringSubmatch(body)
		if status != http.StatusOK || m == nil {
			t.Fatalf("%s launch: %d\n%s", mode, status, body)
		}
		if m[2] != platform.URL || !strings.Contains(h.Get("Content-Security-Policy"), "frame-src "+platform.URL+";") {
			t.Errorf("game origin %q, CSP %q", m[2], h.Get("Content-Security-Policy"))
		}
		u, err := url.Parse(html.UnescapeString(m[1]))
		if err != nil || u.Scheme+"://"+u.Host != platform.URL || u.Path != "/widget/" {
			t.Fatalf("launch URL %s (%v)", u, err)
		}
		return u
	}
	real := launch("real").Query()
	if real.Get("operator") != "sandbox-agg" || real.Get("locale") != "de" || real.Get("integration") != "aggregator" || real.Get("session_request_id") == "" {
		t.Errorf("real launch URL %v", real)
	}
	// The game's frontend exchanges the launch token; the platform reads
	// the balance from this casino's wallet, which creates the account.
	req, _ := http.NewRequest("POST", platform.URL+"/api/v1/sessions", strings.NewReader(fmt.Sprintf(`{"session_request_id":%q}`, real.Get("session_request_id"))))
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	answer, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK || !bytes.Contains(answer, []byte(`"auth_token"`)) {
		t.Fatalf("session exchange: %d %s", resp.StatusCode, answer)
	}
	if got, ok := s.s.Casino().Balance("alice", "USD"); !ok || got != "1000.00" {
		t.Errorf("alice's balance after the session start: %q %v", got, ok)
	}
	if status, body, _ := s.Get("/sandbox/lobby/balance?account_id=alice"); status != 200 || !strings.Contains(body, `"balance":"1000.00"`) {
		t.Errorf("lobby balance: %d %s", status, body)
	}
	if demo := launch("demo").Query(); demo.Get("demo") != "true" || demo.Get("operator") != "sandbox-agg" {
		t.Errorf("demo launch URL %v", demo)
	}

	// A launch from another site's page is refused.
	if status, body, _ := s.Form("/sandbox/lobby", url.Values{"mode": {"demo"}}, "Origin", "https://evil.example"); status != http.StatusForbidden || strings.Contains(body, "<iframe") {
		t.Errorf("foreign launch: %d", status)
	}
}

func TestLobbyShowsThePlatformsRefusal(t *testing.T) {
	t.Parallel()
	platform := sandboxtest.StartPlatform(t)
	// Not registered: the platform knows no aggregator with this secret.
	s := newSite(t, platform.URL)
	status, body, _ := s.Form("/sandbox/lobby", url.Values{"account_id": {"alice"}, "mode": {"real"}})
	if status != http.StatusOK || strings.Contains(body, "<iframe") || !strings.Contains(body, "answered 403") || !strings.Contains(body, "Is aggregator sandbox-agg registered") {
		t.Errorf("unregistered launch: %d\n%s", status, body)
	}
	// No platform at all.
	gone := newSite(t, "http://127.0.0.1:1")
	if _, body, _ := gone.Form("/sandbox/lobby", url.Values{"mode": {"demo"}}); !strings.Contains(body, "did not answer") {
		t.Errorf("launch without a platform:\n%s", body)
	}
}

func TestCasinoLedgerPage(t *testing.T) {
	t.Parallel()
	s := newSite(t, "http://platform.test")
	ctx := context.Background()
	for _, c := range []struct {
		path string
		body []byte
	}{
		{casino.PathBetWin, betBody(t, "alice", "USD", "round-a", "bet-a", "12.5")},
		{casino.PathBetWin, betBody(t, "alice", "USD", "round-b", "bet-b", "5000")},
		{casino.PathFinish, finishBody(t, "alice", "USD", "round-a")},
	} {
		if status, body := s.wallet(ctx, c.path, c.body); status == 0 {
			t.Fatalf("%s: no answer %s", c.path, body)
		}
	}
	status, body, _ := s.Get("/sandbox/ledger")
	for _, want := range []string{
		`<a href="/sandbox/ledger?account_id=alice">alice</a></th><td class="num">987.50</td>`,
		`<td><code>round-a</code></td><td><code>casino-round-1</code></td><td>alice</td><td>USD</td><td>finished</td>`,
		`<td>bet</td><td>alice</td><td class="num">-12.50 USD</td><td class="num">987.50</td><td><code>bet-a</code></td>`,
		`<td>finish</td>`,
		`<td><code>bet-b</code></td><td>alice</td><td class="num">400</td>`,
	} {
		if status != 200 || !strings.Contains(body, want) {
			t.Errorf("ledger page (%d) lacks %s", status, want)
		}
	}
	if i, j := strings.Index(body, "<td>finish</td>"), strings.Index(body, "<td>bet</td>"); i < 0 || j < 0 || i > j {
		t.Error("the ledger is not newest first")
	}
	for _, page := range []string{"/sandbox/controls", "/sandbox/ledger?account_id=bob", "/sandbox/lobby?account_id=alice"} {
		if status, body, _ := s.Get(page); status != 200 || !strings.Contains(body, `<main id="main">`) {
			t.Errorf("%s = %d", page, status)
		}
	}
}

func TestCasinoControlAPIAuthentication(t *testing.T) {
	t.Parallel()
	s := newSite(t, "http://platform.test", func(c *casino.SiteConfig) { c.AdminToken = "casino-admin" })
	s.WantGuarded("casino-admin", "POST", "/sandbox/api/block", map[string]string{"account_id": "alice"})
	status, m := s.Control("GET", "/sandbox/api/state", nil, "Authorization", "Bearer casino-admin")
	if status != 200 || fmt.Sprint(m["blocked"]) != "[alice]" {
		t.Errorf("state = %d %v", status, m)
	}
}

func TestCasinoControlAPIHelpers(t *testing.T) {
	t.Parallel()
	s := newSite(t, "http://platform.test")
	ctx := context.Background()
	tests := []struct {
		path   string
		body   map[string]string
		status int
		// then: a bet of amount by the account, and its api_code ("" for a 200)
		bet, apiCode string
	}{
		{"/sandbox/api/balance", map[string]string{"account_id": "alice", "amount": "20"}, 200, "", ""},
		{"/sandbox/api/credit", map[string]string{"account_id": "alice", "amount": "0.000000000001"}, 200, "", ""},
		{"/sandbox/api/bet-limit", map[string]string{"account_id": "alice", "limit": "5"}, 200, "5.01", "105"},
		{"/sandbox/api/bet-limit", map[string]string{"account_id": "alice", "limit": ""}, 200, "5.01", ""},
		{"/sandbox/api/block", map[string]string{"account_id": "alice"}, 200, "1", "110"},
		{"/sandbox/api/unblock", map[string]string{"account_id": "alice"}, 200, "1", ""},
		{"/sandbox/api/balance", map[string]string{"account_id": "alice", "amount": "1", "currency": "EUR"}, 400, "", ""},
		{"/sandbox/api/bet-limit", map[string]string{"account_id": "alice", "limit": "-1"}, 400, "", ""},
	}
	for i, tt := range tests {
		status, m := s.Control("POST", tt.path, tt.body)
		if status != tt.status {
			t.Fatalf("%s %v = %d %v", tt.path, tt.body, status, m)
		}
		if tt.bet == "" {
			continue
		}
		status, body := s.wallet(ctx, casino.PathBetWin, betBody(t, "alice", "USD", fmt.Sprintf("r%d", i), fmt.Sprintf("b%d", i), tt.bet))
		if tt.apiCode == "" && status != 200 || tt.apiCode != "" && !strings.Contains(string(body), `"api_code":"`+tt.apiCode+`"`) {
			t.Errorf("after %s %v, a bet of %s: %d %s", tt.path, tt.body, tt.bet, status, body)
		}
	}
	if got, _ := s.s.Casino().Balance("alice", "USD"); got != "13.990000000001" {
		t.Errorf("balance %s", got)
	}
}

// TestCasinoControlAPIFaults arms each fault through the API, for one
// account or for every account, and watches the wallet.
func TestCasinoControlAPIFaults(t *testing.T) {
	t.Parallel()
	// answered is what a wallet's request gets: its HTTP status (0: no
	// answer), its api_code ("" for none to check), and for a 200 whether
	// it lacks round_id.
	type answered struct {
		status  int
		code    string
		noRound bool
	}
	tests := []sandboxtest.ControlFault[answered]{
		{Name: "insufficient funds for one account", Body: map[string]string{"account_id": "victim", "kind": "reject", "api_code": "100"}, Victim: answered{400, "100", false}, Bystander: answered{200, "", false}},
		{Name: "bet limit for every account", Body: map[string]string{"kind": "reject", "api_code": "105", "count": "2"}, Victim: answered{400, "105", false}, Bystander: answered{400, "105", false}},
		{Name: "503 for one account", Body: map[string]string{"account_id": "victim", "kind": "reject", "api_code": "503"}, Victim: answered{500, "503", false}, Bystander: answered{200, "", false}},
		{Name: "non-numeric for every account", Body: map[string]string{"kind": "reject", "api_code": "not-a-number", "count": "2"}, Victim: answered{400, "not-a-number", false}, Bystander: answered{400, "not-a-number", false}},
		{Name: "5xx without a wallet body", Body: map[string]string{"account_id": "victim", "kind": "fail", "status": "502"}, Victim: answered{502, "", false}, Bystander: answered{200, "", false}},
		{Name: "answer lost for one account", Body: map[string]string{"account_id": "victim", "kind": "drop"}, Victim: answered{0, "", false}, Bystander: answered{200, "", false}},
		{Name: "missing round_id for one account", Body: map[string]string{"account_id": "victim", "kind": "omit_round_id"}, Victim: answered{200, "", true}, Bystander: answered{200, "", false}},
		{Name: "latency for every account", Body: map[string]string{"kind": "delay", "delay": "1ms", "count": "2"}, Victim: answered{200, "", false}, Bystander: answered{200, "", false}},
		{Name: "a proxy's page for one account", Body: map[string]string{"account_id": "victim", "kind": "malformed"}, Victim: answered{200, "", true}, Bystander: answered{200, "", false}},
		{Name: "foreign JSON for one account", Body: map[string]string{"account_id": "victim", "kind": "malformed", "shape": "foreign"}, Victim: answered{200, "", true}, Bystander: answered{200, "", false}},
	}
	sandboxtest.ControlFaults[*site, answered]{
		Endpoint: "betwin",
		NewSite:  func(t *testing.T) *site { return newSite(t, "http://platform.test") },
		Request: func(t *testing.T, s *site, who string, want answered) {
			status, answer := s.wallet(context.Background(), casino.PathBetWin, betBody(t, who, "USD", "r-"+who, "bet-"+who, "10"))
			if status != want.status || (want.code != "" && !strings.Contains(string(answer), `"api_code":"`+want.code+`"`)) ||
				(status == 200 && want.noRound != !bytes.Contains(answer, []byte(`"round_id"`))) {
				t.Errorf("%s: %d %s, want %+v", who, status, answer, want)
			}
		},
	}.Run(t, tests)
}

// TestCasinoControlAPIRefuseRetry arms the non-conforming wallet through
// the API: the bet's answer is lost, its retry refused afresh with
// api_code 100, the next retry gets the stored answer.
func TestCasinoControlAPIRefuseRetry(t *testing.T) {
	t.Parallel()
	s := newSite(t, "http://platform.test")
	for _, body := range []map[string]string{
		{"account_id": "victim", "endpoint": "betwin", "kind": "drop"},
		{"account_id": "victim", "endpoint": "betwin", "kind": "refuse_retry", "api_code": "100"},
	} {
		s.ArmFault(body)
	}
	bet := betBody(t, "victim", "USD", "r1", "bet-1", "10")
	for _, want := range []int{0, http.StatusBadRequest, http.StatusOK} {
		if status, answer := s.wallet(context.Background(), casino.PathBetWin, bet); status != want {
			t.Errorf("bet: %d %s, want %d", status, answer, want)
		}
	}
}

func TestCasinoControlAPIStall(t *testing.T) {
	t.Parallel()
	s := newSite(t, "http://platform.test")
	s.ArmFault(map[string]string{"endpoint": "betwin", "kind": "stall"})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan int, 1)
	go func() {
		status, _ := s.wallet(ctx, casino.PathBetWin, betBody(t, "alice", "USD", "r1", "bet-1", "10"))
		done <- status
	}()
	waitfor.True(t, "the stall taking the bet", func() bool {
		return len(s.ArmedFaults()) == 0
	})
	cancel()
	if status := <-done; status != 0 {
		t.Fatalf("the stalled bet got an answer: %d", status)
	}
	if _, ok := s.s.Casino().Round("r1"); ok {
		t.Error("the stalled bet made its round")
	}
	if status, body := s.wallet(context.Background(), casino.PathBetWin, betBody(t, "alice", "USD", "r1", "bet-1", "10")); status != 200 {
		t.Errorf("retry: %d %s", status, body)
	}
}

func TestCasinoControlAPIRefusesBadFaults(t *testing.T) {
	t.Parallel()
	s := newSite(t, "http://platform.test")
	for _, body := range []map[string]string{
		{"endpoint": "withdrawals", "kind": "fail"},
		{"endpoint": "betwin", "kind": "explode"},
		{"endpoint": "betwin", "kind": "fail", "status": "100"},
		{"endpoint": "finish", "kind": "omit_round_id"},
		{"endpoint": "betwin", "kind": "delay", "delay": "soon"},
		{"endpoint": "betwin", "kind": "malformed", "shape": "xml"},
	} {
		s.WantInvalidFault(body)
	}
}

func TestCasinoSiteRestartAndRegistration(t *testing.T) {
	t.Parallel()
	cfg := casino.SiteConfig{AggregatorID: "agg", CasinoID: "c-1", SiteSettings: sandboxweb.SiteSettings{PlatformURL: "http://platform.test", DatabasePath: filepath.Join(t.TempDir(), "c.db"), Currency: "EUR"}}
	var secret string
	second := sandboxtest.Restart(t, casino.OpenSite, cfg, func(first *casino.Site) {
		if err := first.Casino().SetBalance("alice", "EUR", "7.5"); err != nil {
			t.Fatal(err)
		}
		secret = first.Casino().SigningSecret()
	})
	if got, _ := second.Casino().Balance("alice", "EUR"); got != "7.50" || second.Casino().SigningSecret() != secret {
		t.Errorf("after a restart: balance %s, same secret %v", got, second.Casino().SigningSecret() == secret)
	}
	var reg map[string]any
	if err := json.Unmarshal(second.Registration("http://127.0.0.1:9/"), &reg); err != nil {
		t.Fatal(err)
	}
	if reg["wallet_url"] != "http://127.0.0.1:9" || reg["signing_secret"] != secret || reg["integration"] != "aggregator" ||
		fmt.Sprint(reg["casino_ids"]) != "[c-1]" || fmt.Sprint(reg["currencies"]) != "[map[code:EUR decimals:2]]" {
		t.Errorf("registration %v", reg)
	}
	sandboxtest.WantOpenRefused(t, casino.OpenSite,
		casino.SiteConfig{AggregatorID: "Agg", SiteSettings: sandboxweb.SiteSettings{PlatformURL: "http://p"}},
		casino.SiteConfig{AggregatorID: "agg", SiteSettings: sandboxweb.SiteSettings{PlatformURL: "p"}},
		casino.SiteConfig{AggregatorID: "agg", SiteSettings: sandboxweb.SiteSettings{PlatformURL: "http://p", Currency: "eur"}},
		casino.SiteConfig{AggregatorID: "agg", SiteSettings: sandboxweb.SiteSettings{PlatformURL: "http://p", StartingBalance: "x"}},
	)
}
