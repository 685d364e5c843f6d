package operator_test

import (
	"context"
	"encoding/json"
	"fmt"
	"html"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"
	"github.com/google/uuid"

	"github.com/foresight-dev/foresight/internal/sandbox/operator"
	"github.com/foresight-dev/foresight/internal/sandbox/sandboxtest"
	"github.com/foresight-dev/foresight/internal/sandbox/sandboxweb"
	"github.com/foresight-dev/foresight/internal/waitfor"
)

const platformURL = "http://platform.test:8080"

// site is a Site served on loopback.
type site struct {
	*sandboxtest.Served
	t        *testing.T
	platform string // the site's platform URL
	s        *operator.Site
}

func newSite(t *testing.T, mutate ...func(*operator.SiteConfig)) *site {
	t.Helper()
	cfg := operator.SiteConfig{
		ID:           "sandbox-op",
		SiteSettings: sandboxweb.SiteSettings{PlatformURL: platformURL, DatabasePath: filepath.Join(t.TempDir(), "operator.db")},
	}
	s, served := sandboxtest.OpenSite(t, operator.OpenSite, &cfg, mutate...)
	return &site{Served: served, t: t, platform: cfg.PlatformURL, s: s}
}

// wallet sends a wallet request signed with the site's secret.
func (s *site) wallet(ctx context.Context, method, path string, body []byte) (int, []byte, error) {
	req, _ := http.NewRequestWithContext(ctx, method, s.Srv.URL+path, strings.NewReader(string(body)))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("X-Payload-Signature", sandboxtest.HMACHex(s.s.Operator().SigningSecret(), body))
	req.Header.Set("X-Timestamp", time.Now().UTC().Format(time.RFC3339))
	req.Header.Set("X-Nonce", uuid.NewString())
	resp, err := s.Srv.Client().Do(req)
	if err != nil {
		return 0, nil, err
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, b, nil
}

func (s *site) withdraw(tx, bettor, amount string) (int, string) {
	s.t.Helper()
	status, b, err := s.wallet(context.Background(), "POST", "/v1/withdrawals", withdrawalBody(s.t, tx, bettor, amount, "USD"))
	if err != nil {
		return 0, err.Error()
	}
	return status, string(b)
}

var iframe = regexp.MustCompile(`<iframe id="game"[^>]* src="([^"]+)"[^>]* data-origin="([^"]+)"`)

// hostPage loads the host page and returns the widget URL it embeds.
func (s *site) hostPage(query string) *url.URL {
	s.t.Helper()
	status, body, h := s.Get("/sandbox/host?" + query)
	if status != http.StatusOK || !strings.HasPrefix(h.Get("Content-Type"), "text/html") {
		s.t.Fatalf("host page: %d %s\n%s", status, h.Get("Content-Type"), body)
	}
	if csp := h.Get("Content-Security-Policy"); !strings.Contains(csp, "frame-src "+s.platform+";") {
		s.t.Errorf("host page CSP %q does not allow framing only the platform", csp)
	}
	m := iframe.FindStringSubmatch(body)
	if m == nil {
		s.t.Fatalf("no widget iframe in the host page:\n%s", body)
	}
	if m[2] != s.platform {
		s.t.Errorf("data-origin %q, want %q", m[2], s.platform)
	}
	u, err := url.Parse(html.UnescapeString(m[1]))
	if err != nil {
		s.t.Fatal(err)
	}
	return u
}

func (s *site) exchange(id string) (int, map[string]any) {
	s.t.Helper()
	return s.Control("POST", "/v1/session", map[string]string{"session_request_id": id})
}

func TestHostPageEmbedsTheWidgetWithAFreshSession(t *testing.T) {
	t.Parallel()
	s := newSite(t)
	// / leads to the host page, keeping the query.
	resp, err := s.NoGo.Get(s.Srv.URL + "/?bettor_id=x")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusFound || resp.Header.Get("Location") != "/sandbox/host?bettor_id=x" {
		t.Errorf("GET / = %d to %q", resp.StatusCode, resp.Header.Get("Location"))
	}

	first := s.hostPage("bettor_id=alice&locale=de&theme=dark")
	second := s.hostPage("bettor_id=alice&locale=de&theme=dark")
	for _, u := range []*url.URL{first, second} {
		q := u.Query()
		if u.Scheme+"://"+u.Host != platformURL || u.Path != "/widget/" || q.Get("operator") != "sandbox-op" ||
			q.Get("locale") != "de" || q.Get("theme") != "dark" || q.Get("session_request_id") == "" {
			t.Errorf("widget URL %s", u)
		}
	}
	a, b := first.Query().Get("session_request_id"), second.Query().Get("session_request_id")
	if a == b {
		t.Fatalf("two loads embedded the same session_request_id %q", a)
	}
	for _, id := range []string{b, a} {
		status, m := s.exchange(id)
		if status != http.StatusOK {
			t.Fatalf("exchange %s = %d %v", id, status, m)
		}
		claims := jwt.MapClaims{}
		if _, _, err := jwt.NewParser().ParseUnverified(m["auth_token"].(string), claims); err != nil || claims["sub"] != "alice" || claims["iss"] != "sandbox-op" {
			t.Errorf("token claims %v (%v)", claims, err)
		}
	}
	if status, m := s.exchange(a); status != http.StatusUnauthorized || m["error"] != "session_request_used" {
		t.Errorf("second exchange = %d %v", status, m)
	}

	// The default bettor, an unknown locale and theme.
	u := s.hostPage("locale=xx&theme=neon")
	if q := u.Query(); q.Get("locale") != "en" || q.Get("theme") != "light" {
		t.Errorf("defaults: %s", u)
	}
	if _, body, _ := s.Get("/sandbox/host"); !strings.Contains(body, `value="demo-bettor"`) || !strings.Contains(body, "1000.00 USD") {
		t.Errorf("host page of the demo bettor:\n%s", body)
	}
	status, body, _ := s.Get("/sandbox/host/balance?bettor_id=alice")
	if status != http.StatusOK || !strings.Contains(body, `"balance":"1000.00"`) {
		t.Errorf("balance = %d %s", status, body)
	}
	if status, _, _ := s.Get("/sandbox/host/balance?bettor_id=nobody"); status != http.StatusNotFound {
		t.Errorf("balance of nobody = %d", status)
	}
	// A bettor id the operator refuses: an error, no widget.
	status, body, _ = s.Get("/sandbox/host?bettor_id=" + url.QueryEscape("a\x01b"))
	if status != http.StatusOK || strings.Contains(body, "<iframe") || !strings.Contains(body, `role="alert"`) {
		t.Errorf("host page of a bad bettor id: %d\n%s", status, body)
	}
}

func TestLedgerPageShowsTheLedger(t *testing.T) {
	t.Parallel()
	s := newSite(t)
	if status, body := s.withdraw("wd-page-1", "alice", "12.50"); status != http.StatusOK {
		t.Fatalf("withdrawal: %d %s", status, body)
	}
	if status, body := s.withdraw("wd-page-2", "alice", "5000.00"); status != http.StatusConflict {
		t.Fatalf("withdrawal: %d %s", status, body)
	}
	if err := s.s.Operator().Block("mallory"); err != nil {
		t.Fatal(err)
	}
	status, body, _ := s.Get("/sandbox/ledger")
	for _, want := range []string{
		`<a href="/sandbox/ledger?bettor_id=alice">alice</a></th><td class="num">987.50</td>`,
		`<td class="num">-12.50 USD</td><td class="num">987.50</td><td><code>wd-page-1</code></td><td><code>op-tx-1</code></td>`,
		`<td><code>wd-page-2</code></td><td>alice</td><td class="num">409</td><td><code>{&#34;error&#34;:&#34;insufficient_funds&#34;}</code></td>`,
		"Blocked before they existed: mallory.",
	} {
		if status != http.StatusOK || !strings.Contains(body, want) {
			t.Errorf("ledger page (%d) lacks %s\n%s", status, want, body)
		}
	}
	// Newest first: the withdrawal before the starting balance.
	if i, j := strings.Index(body, "wd-page-1</code></td><td><code>op-tx-1"), strings.Index(body, "<td>adjustment</td>"); i < 0 || j < 0 || i > j {
		t.Errorf("ledger not newest first")
	}
	_, other, _ := s.Get("/sandbox/ledger?bettor_id=bob")
	if strings.Contains(other, "wd-page-1") {
		t.Error("the ledger of bob shows alice's withdrawal")
	}
	for _, page := range []string{"/sandbox/controls", "/sandbox/ledger?before=2"} {
		if status, body, _ := s.Get(page); status != http.StatusOK || !strings.Contains(body, "<main id=\"main\">") {
			t.Errorf("%s = %d", page, status)
		}
	}
}

func TestLedgerPages(t *testing.T) {
	t.Parallel()
	s := newSite(t)
	for range 60 {
		if err := s.s.Operator().Credit("alice", "", "1"); err != nil {
			t.Fatal(err)
		}
	}
	_, body, _ := s.Get("/sandbox/ledger")
	older := regexp.MustCompile(`<a href="([^"]+)">Older entries</a>`).FindStringSubmatch(body)
	if older == nil || strings.Count(body, "<td>adjustment</td>") != 50 {
		t.Fatalf("first page: %d entries, older link %v", strings.Count(body, "<td>adjustment</td>"), older)
	}
	_, body, _ = s.Get(html.UnescapeString(older[1]))
	if strings.Count(body, "<td>adjustment</td>") != 10 || strings.Contains(body, "Older entries") {
		t.Errorf("second page has %d entries", strings.Count(body, "<td>adjustment</td>"))
	}
}

func TestControlAPIAuthentication(t *testing.T) {
	t.Parallel()
	s := newSite(t, func(c *operator.SiteConfig) { c.AdminToken = "admin-secret" })
	if n := s.WantGuarded("admin-secret", "POST", "/sandbox/api/credit", map[string]string{"bettor_id": "alice", "amount": "1"}); n != 3 {
		t.Errorf("%d credits admitted, want 3", n)
	}
	if got, _ := s.s.Operator().Balance("alice"); got != "3.00" {
		t.Errorf("balance after three admitted credits %s", got)
	}

	// The login form sets the cookie; a wrong token does not.
	for token, want := range map[string]string{"admin-secret": "notice=logged+in", "guess": "error="} {
		form := url.Values{"admin_token": {token}, "return": {"/sandbox/controls"}}
		req, _ := http.NewRequest("POST", s.Srv.URL+"/sandbox/login", strings.NewReader(form.Encode()))
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		resp, err := s.NoGo.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		cookie := resp.Header.Get("Set-Cookie")
		if resp.StatusCode != http.StatusSeeOther || !strings.Contains(resp.Header.Get("Location"), want) ||
			(token == "admin-secret") != strings.Contains(cookie, "sandbox_admin=admin-secret") {
			t.Errorf("login with %q: %d %q %q", token, resp.StatusCode, resp.Header.Get("Location"), cookie)
		}
		if token == "admin-secret" && (!strings.Contains(cookie, "HttpOnly") || !strings.Contains(cookie, "SameSite=Strict")) {
			t.Errorf("cookie %q", cookie)
		}
	}
	// The controls page offers the login form until then.
	if _, body, _ := s.Get("/sandbox/controls"); !strings.Contains(body, `action="/sandbox/login"`) {
		t.Error("the controls page does not offer to log in")
	}
}

func TestControlAPIWithoutTokenIsLoopbackOnly(t *testing.T) {
	t.Parallel()
	s := newSite(t)
	for addr, want := range map[string]int{"127.0.0.1:5555": http.StatusOK, "[::1]:5555": http.StatusOK, "203.0.113.9:5555": http.StatusForbidden} {
		req := httptest.NewRequest("GET", "/sandbox/api/state", nil)
		req.RemoteAddr = addr
		req.Host = "127.0.0.1:8081" // as a loopback client addresses it (see sandboxweb's TestGuardWithoutTokenWantsALoopbackHost)
		rec := httptest.NewRecorder()
		s.s.Handler().ServeHTTP(rec, req)
		if rec.Code != want {
			t.Errorf("state from %s = %d, want %d", addr, rec.Code, want)
		}
	}
}

func TestControlAPIForms(t *testing.T) {
	t.Parallel()
	s := newSite(t)
	post := func(path string, form url.Values) *http.Response {
		req, _ := http.NewRequest("POST", s.Srv.URL+path, strings.NewReader(form.Encode()))
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		resp, err := s.NoGo.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp
	}
	resp := post("/sandbox/api/balance", url.Values{"bettor_id": {"alice"}, "amount": {"42.00"}, "return": {"/sandbox/controls?bettor_id=alice"}})
	loc, _ := url.Parse(resp.Header.Get("Location"))
	if resp.StatusCode != http.StatusSeeOther || loc.Path != "/sandbox/controls" || loc.Query().Get("bettor_id") != "alice" ||
		loc.Query().Get("notice") != "bettor alice: balance set to 42.00 USD" {
		t.Errorf("form answer %d %s", resp.StatusCode, loc)
	}
	resp = post("/sandbox/api/balance", url.Values{"bettor_id": {"alice"}, "amount": {"-1"}, "return": {"https://evil.example/"}})
	loc, _ = url.Parse(resp.Header.Get("Location"))
	if resp.StatusCode != http.StatusSeeOther || loc.Host != "" || !strings.HasPrefix(loc.Path, "/sandbox/") || loc.Query().Get("error") == "" {
		t.Errorf("refused form answer %d %s", resp.StatusCode, loc)
	}
	// The page shows the outcome.
	if _, body, _ := s.Get(loc.RequestURI()); !strings.Contains(body, `<p class="error" role="alert">`) {
		t.Errorf("the page %s does not show the error:\n%s", loc.RequestURI(), body)
	}
}

func TestControlAPIHelpers(t *testing.T) {
	t.Parallel()
	s := newSite(t)
	tests := []struct {
		path   string
		body   map[string]string
		status int
		check  func() error
	}{
		{"/sandbox/api/balance", map[string]string{"bettor_id": "alice", "amount": "10.00"}, 200, func() error { return wantBalance(s, "alice", "10.00") }},
		{"/sandbox/api/credit", map[string]string{"bettor_id": "alice", "amount": "2.50"}, 200, func() error { return wantBalance(s, "alice", "12.50") }},
		{"/sandbox/api/balance", map[string]string{"bettor_id": "alice", "amount": "1.001"}, 400, func() error { return wantBalance(s, "alice", "12.50") }},
		{"/sandbox/api/balance", map[string]string{"bettor_id": "yen", "amount": "500", "currency": "JPY"}, 200, func() error { return wantBalance(s, "yen", "500") }},
		{"/sandbox/api/credit", map[string]string{"bettor_id": "alice", "amount": "0"}, 400, nil},
		{"/sandbox/api/block", map[string]string{"bettor_id": "alice"}, 200, func() error { return wantWithdrawal(s, "wd-b1", "alice", 403, "bettor_blocked") }},
		{"/sandbox/api/unblock", map[string]string{"bettor_id": "alice"}, 200, func() error { return wantWithdrawal(s, "wd-b2", "alice", 200, "") }},
		{"/sandbox/api/block", map[string]string{}, 400, nil},
		{"/sandbox/api/nothing", map[string]string{}, 404, nil},
	}
	for _, tt := range tests {
		status, m := s.Control("POST", tt.path, tt.body)
		if status != tt.status {
			t.Errorf("%s %v = %d %v, want %d", tt.path, tt.body, status, m, tt.status)
			continue
		}
		if tt.check != nil {
			if err := tt.check(); err != nil {
				t.Errorf("after %s %v: %v", tt.path, tt.body, err)
			}
		}
	}
	status, m := s.Control("POST", "/sandbox/api/session-requests", map[string]string{"bettor_id": "carol"})
	if status != 200 || !strings.HasPrefix(m["widget_url"].(string), platformURL+"/widget/?") {
		t.Fatalf("session request = %d %v", status, m)
	}
	if status, _ := s.exchange(m["session_request_id"].(string)); status != 200 {
		t.Errorf("exchange of the API's session request = %d", status)
	}
	status, m = s.Control("GET", "/sandbox/api/state", nil)
	if status != 200 || len(m["bettors"].([]any)) != 3 || len(m["ledger"].([]any)) == 0 {
		t.Errorf("state = %d %v", status, m)
	}
}

func wantBalance(s *site, bettor, want string) error {
	if got, _ := s.s.Operator().Balance(bettor); got != want {
		return fmt.Errorf("balance of %s is %q, want %q", bettor, got, want)
	}
	return nil
}

func wantWithdrawal(s *site, tx, bettor string, status int, code string) error {
	got, body := s.withdraw(tx, bettor, "1.00")
	if got != status || (code != "" && !strings.Contains(body, `"`+code+`"`)) {
		return fmt.Errorf("withdrawal %s: %d %s, want %d %s", tx, got, body, status, code)
	}
	return nil
}

// TestControlAPIFaults arms each fault through the API, for one bettor or
// for every bettor, and watches the wallet endpoints.
func TestControlAPIFaults(t *testing.T) {
	t.Parallel()
	// answered is what a withdrawal gets: its status (0 = no answer) and
	// code.
	type answered struct {
		status int
		code   string
	}
	tests := []sandboxtest.ControlFault[answered]{
		{Name: "5xx for one bettor", Body: map[string]string{"bettor_id": "victim", "kind": "fail", "status": "502"}, Victim: answered{502, "injected_failure"}, Bystander: answered{200, ""}},
		{Name: "5xx for every bettor", Body: map[string]string{"kind": "fail", "count": "2"}, Victim: answered{503, "injected_failure"}, Bystander: answered{503, "injected_failure"}},
		{Name: "insufficient funds for one bettor", Body: map[string]string{"bettor_id": "victim", "kind": "reject"}, Victim: answered{409, "insufficient_funds"}, Bystander: answered{200, ""}},
		{Name: "blocked for every bettor", Body: map[string]string{"kind": "reject", "code": "bettor_blocked", "count": "2"}, Victim: answered{403, "bettor_blocked"}, Bystander: answered{403, "bettor_blocked"}},
		{Name: "answer lost for one bettor", Body: map[string]string{"bettor_id": "victim", "kind": "drop"}, Victim: answered{0, ""}, Bystander: answered{200, ""}},
		{Name: "answer lost for every bettor", Body: map[string]string{"kind": "drop", "count": "2"}, Victim: answered{0, ""}, Bystander: answered{0, ""}},
		{Name: "latency for one bettor", Body: map[string]string{"bettor_id": "victim", "kind": "delay", "delay": "1ms"}, Victim: answered{200, ""}, Bystander: answered{200, ""}},
		{Name: "a proxy's page for one bettor", Body: map[string]string{"bettor_id": "victim", "kind": "malformed"}, Victim: answered{200, ""}, Bystander: answered{200, ""}},
		{Name: "JSON cut short for every bettor", Body: map[string]string{"kind": "malformed", "shape": "truncated", "count": "2"}, Victim: answered{200, ""}, Bystander: answered{200, ""}},
		{Name: "disarmed", Body: map[string]string{"bettor_id": "victim", "kind": "fail", "count": "0"}, Victim: answered{200, ""}, Bystander: answered{200, ""}},
	}
	sandboxtest.ControlFaults[*site, answered]{
		Endpoint: "withdrawals",
		NewSite:  func(t *testing.T) *site { return newSite(t) },
		Request: func(t *testing.T, s *site, who string, want answered) {
			status, answer := s.withdraw("wd-"+who, who, "10.00")
			if status != want.status || (want.code != "" && !strings.Contains(answer, `"`+want.code+`"`)) {
				t.Errorf("%s: %d %s, want %d %s", who, status, answer, want.status, want.code)
			}
		},
		// Every fault is used up: the retries succeed.
		After: func(t *testing.T, s *site) {
			for _, b := range []string{"victim", "bystander"} {
				if status, answer := s.withdraw("wd-"+b, b, "10.00"); status != 200 {
					t.Errorf("%s's retry: %d %s", b, status, answer)
				}
			}
		},
	}.Run(t, tests)
}

// TestControlAPIRefuseRetry arms the non-conforming wallet through the
// API: the debit's answer is lost, its retry refused afresh, the next
// retry gets the stored answer.
func TestControlAPIRefuseRetry(t *testing.T) {
	t.Parallel()
	s := newSite(t)
	for _, body := range []map[string]string{
		{"bettor_id": "victim", "endpoint": "withdrawals", "kind": "drop"},
		{"bettor_id": "victim", "endpoint": "withdrawals", "kind": "refuse_retry", "code": "insufficient_funds"},
	} {
		s.ArmFault(body)
	}
	for _, want := range []int{0, http.StatusConflict, http.StatusOK} {
		if status, answer := s.withdraw("wd-1", "victim", "10.00"); status != want {
			t.Errorf("withdrawal: %d %s, want %d", status, answer, want)
		}
	}
	if err := wantBalance(s, "victim", "990.00"); err != nil {
		t.Error(err)
	}
}

func TestControlAPIStall(t *testing.T) {
	t.Parallel()
	s := newSite(t)
	s.ArmFault(map[string]string{"bettor_id": "victim", "endpoint": "withdrawals", "kind": "stall"})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		_, _, err := s.wallet(ctx, "POST", "/v1/withdrawals", withdrawalBody(t, "wd-1", "victim", "10.00", "USD"))
		done <- err
	}()
	// Wait until the operator holds the request (the fault is used up),
	// then give up as a client with a time-out would.
	waitfor.True(t, "the stall taking the request", func() bool {
		return len(s.ArmedFaults()) == 0
	})
	cancel()
	if err := <-done; err == nil {
		t.Fatal("the stalled request got an answer")
	}
	if _, ok := s.s.Operator().Balance("victim"); ok {
		t.Error("the stalled withdrawal created its bettor")
	}
	if status, answer := s.withdraw("wd-1", "victim", "10.00"); status != 200 {
		t.Errorf("retry: %d %s", status, answer)
	}
	if err := wantBalance(s, "victim", "990.00"); err != nil {
		t.Error(err)
	}
}

func TestControlAPIRefusesBadFaults(t *testing.T) {
	t.Parallel()
	s := newSite(t)
	for _, body := range []map[string]string{
		{"endpoint": "jwks", "kind": "fail"},
		{"endpoint": "withdrawals", "kind": "explode"},
		{"endpoint": "withdrawals", "kind": "fail", "status": "42"},
		{"endpoint": "session", "kind": "reject"},
		{"endpoint": "session", "kind": "refuse_retry"},
		{"endpoint": "withdrawals", "kind": "malformed", "shape": "json"},
		{"endpoint": "withdrawals", "kind": "delay", "delay": "forever"},
		{"endpoint": "withdrawals", "kind": "drop", "count": "-1"},
	} {
		s.WantInvalidFault(body)
	}
}

func TestSiteRestartKeepsTheWorld(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "operator.db")
	cfg := operator.SiteConfig{ID: "sandbox-op", SiteSettings: sandboxweb.SiteSettings{PlatformURL: platformURL, DatabasePath: path}}
	var secret, kid string
	second := sandboxtest.Restart(t, operator.OpenSite, cfg, func(first *operator.Site) {
		if err := first.Operator().SetBalance("alice", "", "5.00"); err != nil {
			t.Fatal(err)
		}
		secret, kid = first.Operator().SigningSecret(), first.Operator().KeyID()
	})
	if got, _ := second.Operator().Balance("alice"); got != "5.00" || second.Operator().SigningSecret() != secret || second.Operator().KeyID() != kid {
		t.Errorf("after a restart: balance %s, same secret %v, same key %v", got, second.Operator().SigningSecret() == secret, second.Operator().KeyID() == kid)
	}
	var reg map[string]any
	if err := json.Unmarshal(second.Registration("http://127.0.0.1:9/"), &reg); err != nil {
		t.Fatal(err)
	}
	if reg["wallet_url"] != "http://127.0.0.1:9" || reg["jwks_url"] != "http://127.0.0.1:9/.well-known/jwks.json" ||
		reg["signing_secret"] != secret || reg["integration"] != "standalone" || reg["id"] != "sandbox-op" {
		t.Errorf("registration %v", reg)
	}
}

func TestOpenSiteRefusesBadConfig(t *testing.T) {
	t.Parallel()
	sandboxtest.WantOpenRefused(t, operator.OpenSite,
		operator.SiteConfig{ID: "Sandbox Op", SiteSettings: sandboxweb.SiteSettings{PlatformURL: platformURL}},
		operator.SiteConfig{ID: "op", SiteSettings: sandboxweb.SiteSettings{PlatformURL: "platform.test"}},
		operator.SiteConfig{ID: "op", SiteSettings: sandboxweb.SiteSettings{PlatformURL: platformURL, StartingBalance: "-1"}},
		operator.SiteConfig{ID: "op", SiteSettings: sandboxweb.SiteSettings{PlatformURL: platformURL, Currency: "usd"}},
		operator.SiteConfig{ID: "op", SiteSettings: sandboxweb.SiteSettings{PlatformURL: platformURL, DatabasePath: t.TempDir()}},
	)
}

// TestPlatformAcceptsTheSite registers the site on the real platform with
// its Registration, logs a bettor in through the host page and the session
// exchange, and calls the bettor API with the token: the platform checks
// it against the site's JWKS.
func TestPlatformAcceptsTheSite(t *testing.T) {
	t.Parallel()
	platform := sandboxtest.StartPlatform(t)
	s := newSite(t, func(c *operator.SiteConfig) { c.PlatformURL = platform.URL })
	if status, body := platform.Admin(t, "POST", "/admin/v1/operators", s.s.Registration(s.Srv.URL)); status != http.StatusCreated {
		t.Fatalf("registering the operator: %d %s", status, body)
	}
	widget := s.hostPage("bettor_id=alice")
	if widget.Scheme+"://"+widget.Host != platform.URL {
		t.Fatalf("widget URL %s", widget)
	}
	status, m := s.exchange(widget.Query().Get("session_request_id"))
	if status != http.StatusOK {
		t.Fatalf("exchange: %d %v", status, m)
	}
	req, _ := http.NewRequest("GET", platform.URL+"/api/v1/auth/me", nil)
	req.Header.Set("Authorization", "Bearer "+m["auth_token"].(string))
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var me map[string]any
	if err := json.NewDecoder(resp.Body).Decode(&me); err != nil || resp.StatusCode != http.StatusOK || me["bettor_id"] != "alice" {
		t.Errorf("GET /api/v1/auth/me = %d %v (%v)", resp.StatusCode, me, err)
	}
}

// TestHostPageRenewsTheSession: the host page's script gets a new
// session_request_id for its bettor from POST /sandbox/host/session (the
// iframe names the endpoint); the id exchanges for a token of the same
// bettor. Another origin, a GET and a bettor id the operator refuses get
// none.
func TestHostPageRenewsTheSession(t *testing.T) {
	t.Parallel()
	s := newSite(t)
	_, body, _ := s.Get("/sandbox/host?bettor_id=alice")
	if !strings.Contains(body, `data-session-url="/sandbox/host/session?bettor_id=alice"`) {
		t.Fatalf("the host page does not name its session endpoint:\n%s", body)
	}
	status, m := s.Control("POST", "/sandbox/host/session?bettor_id=alice", nil, "Origin", s.Srv.URL)
	id, _ := m["session_request_id"].(string)
	if status != http.StatusOK || !strings.HasPrefix(id, "sr_") {
		t.Fatalf("POST /sandbox/host/session = %d %v", status, m)
	}
	status, m = s.exchange(id)
	claims := jwt.MapClaims{}
	if status != http.StatusOK {
		t.Fatalf("exchange = %d %v", status, m)
	}
	if _, _, err := jwt.NewParser().ParseUnverified(m["auth_token"].(string), claims); err != nil || claims["sub"] != "alice" {
		t.Errorf("renewed token claims %v (%v)", claims, err)
	}
	tests := []struct {
		name, method, query string
		header              []string
		status              int
	}{
		{"another origin", "POST", "bettor_id=alice", []string{"Origin", "https://evil.example"}, http.StatusForbidden},
		{"a GET", "GET", "bettor_id=alice", nil, http.StatusNotFound},
		{"no bettor", "POST", "", nil, http.StatusBadRequest},
		{"a bad bettor id", "POST", "bettor_id=" + url.QueryEscape("a\x01b"), nil, http.StatusBadRequest},
	}
	for _, tt := range tests {
		if status, m := s.Control(tt.method, "/sandbox/host/session?"+tt.query, nil, tt.header...); status != tt.status || m["session_request_id"] != nil {
			t.Errorf("%s: %d %v, want %d without an id", tt.name, status, m, tt.status)
		}
	}
}

// TestControlAPITokenLifetime: POST /sandbox/api/token-lifetime sets the
// lifetime of the tokens minted after it (exp − iat), the state shows it,
// 0 goes back to the configured hour, bad values change nothing, and the
// setting outlives a restart (it is journalled).
func TestControlAPITokenLifetime(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "operator.db")
	s := newSite(t, func(c *operator.SiteConfig) { c.DatabasePath = path })
	lifetime := func(op *operator.Operator) float64 {
		t.Helper()
		status, m := s.exchange(op.NewSessionRequest("alice", ""))
		if status != http.StatusOK {
			t.Fatalf("exchange = %d %v", status, m)
		}
		claims := jwt.MapClaims{}
		if _, _, err := jwt.NewParser().ParseUnverified(m["auth_token"].(string), claims); err != nil {
			t.Fatal(err)
		}
		return claims["exp"].(float64) - claims["iat"].(float64)
	}
	tests := []struct {
		body   map[string]any
		status int
		want   float64 // the lifetime after, seconds
	}{
		{map[string]any{"seconds": 5}, 200, 5},
		{map[string]any{"seconds": "2"}, 200, 2},
		{map[string]any{"seconds": -1}, 400, 2},
		{map[string]any{"seconds": 1.5}, 400, 2},
		{map[string]any{}, 400, 2},
		{map[string]any{"seconds": 0}, 200, 3600},
		{map[string]any{"seconds": 3}, 200, 3},
	}
	for _, tt := range tests {
		status, m := s.Control("POST", "/sandbox/api/token-lifetime", tt.body)
		if status != tt.status {
			t.Errorf("%v = %d %v, want %d", tt.body, status, m, tt.status)
		}
		if got := lifetime(s.s.Operator()); got != tt.want {
			t.Errorf("after %v tokens live %gs, want %gs", tt.body, got, tt.want)
		}
	}
	if status, m := s.Control("GET", "/sandbox/api/state", nil); status != 200 || m["token_lifetime_seconds"] != 3.0 {
		t.Errorf("state = %d %v, want token_lifetime_seconds 3", status, m)
	}
	if _, body, _ := s.Get("/sandbox/controls"); !strings.Contains(body, `name="seconds" type="number" min="0" required value="3"`) {
		t.Errorf("the controls page does not show the lifetime:\n%s", body)
	}
	if err := s.s.Close(); err != nil {
		t.Fatal(err)
	}
	again, err := operator.OpenSite(context.Background(), operator.SiteConfig{ID: "sandbox-op", SiteSettings: sandboxweb.SiteSettings{PlatformURL: platformURL, DatabasePath: path}})
	if err != nil {
		t.Fatal(err)
	}
	defer again.Close()
	if got := again.Operator().TokenLifetime(); got != 3*time.Second {
		t.Errorf("after a restart the lifetime is %v, want 3s", got)
	}
}
