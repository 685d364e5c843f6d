package widgettest

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/foresight-dev/foresight/internal/browsertest"
	"github.com/foresight-dev/foresight/internal/sandbox/operator"
	"github.com/foresight-dev/foresight/internal/sandbox/sandboxweb"
	"github.com/foresight-dev/foresight/internal/waitfor"
)

const adminToken = "widget-test-admin-token"

// world is a running Foresight server (SQLite) with the sandbox operator
// "sandbox" (USD) configured through the admin API, and two events.
type world struct {
	*browsertest.World
	gate  *gate
	event string // the sports event "Final"
	// market and outcome: "Who wins?" with Home (4.42) and Away (1.21),
	// closing in 50 hours.
	market  string
	outcome [2]string
}

type worldOptions struct {
	// currencies and limits replace the operator's (JSON: the admin API's
	// currencies array and limits object).
	currencies, limits string
	// site serves the sandbox operator with its pages (operator.Site): its
	// host page at partner + "/sandbox/host" embeds the widget and answers
	// foresight:session_expired.
	site bool
}

func newWorld(t *testing.T, opts worldOptions) *world {
	t.Helper()
	browsertest.Browser(t)
	w := &world{World: &browsertest.World{T: t, URL: browsertest.StartServer(t, adminToken)}}
	var handler http.Handler
	if opts.site {
		site, err := operator.OpenSite(context.Background(), operator.SiteConfig{ID: "sandbox", SiteSettings: sandboxweb.SiteSettings{SigningSecret: browsertest.SandboxSigningSecret, PlatformURL: w.URL}})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { site.Close() })
		w.Op, handler = site.Operator(), site.Handler()
	} else {
		op, err := operator.New(operator.Config{ID: "sandbox", SigningSecret: browsertest.SandboxSigningSecret})
		if err != nil {
			t.Fatal(err)
		}
		w.Op, handler = op, op.Handler()
	}
	w.gate = &gate{next: handler}
	partner := httptest.NewServer(w.gate)
	t.Cleanup(partner.Close)
	t.Cleanup(w.gate.releaseAll)
	w.Partner = partner.URL
	currencies, limits := opts.currencies, opts.limits
	if currencies == "" {
		currencies = `[{"code":"USD","decimals":2}]`
	}
	if limits == "" {
		limits = `{"USD":{"min_stake":"1","max_stake":"100","max_payout":"1000","outcome_exposure":"150"}}`
	}
	w.admin("POST", "/admin/v1/operators", 201, fmt.Sprintf(`{"id":"sandbox","name":"Sandbox Bets","integration":"standalone",
		"wallet_url":%q,"signing_secret":%q,"jwks_url":%q,
		"currencies":%s,"margin":{"method":"odds_ratio","value":"0.05"},
		"limits":%s,"odds_tolerance":"0.05"}`, w.Partner, browsertest.SandboxSigningSecret, w.Partner+"/.well-known/jwks.json", currencies, limits))
	w.admin("POST", "/admin/v1/events", 201, `{"category":"elections","title":{"en":"Mayor of Springfield","de":"Bürgermeister von Springfield"},
		"markets":[{"question":{"en":"Who will win the election?","de":"Wer gewinnt die Wahl?"},
		"outcomes":[{"name":{"en":"Quimby"},"probability":"0.55"},{"name":{"en":"Skinner"},"probability":"0.45"}]}]}`)
	// The final has a picture (the platform's own icon: an image on its
	// origin is accepted over http) and closes in two days.
	ev := w.admin("POST", "/admin/v1/events", 201, fmt.Sprintf(`{"category":"sports","title":{"en":"Final","de":"Finale"},
		"description":{"en":"The cup final."},"image_url":%q,
		"markets":[{"question":{"en":"Who wins?","de":"Wer gewinnt?"},"closes_at":%q,"outcomes":[{"name":{"en":"Home","de":"Heim"},"probability":"0.2"},
		{"name":{"en":"Away","de":"Auswärts"},"probability":"0.8"}]}]}`, w.URL+"/favicon.ico", time.Now().Add(50*time.Hour).UTC().Format(time.RFC3339)))
	w.event = ev["id"].(string)
	m := ev["markets"].([]any)[0].(map[string]any)
	w.market = m["id"].(string)
	for i, o := range m["outcomes"].([]any) {
		w.outcome[i] = o.(map[string]any)["id"].(string)
	}
	return w
}

// admin calls the admin API and fails the test unless the answer has
// status want.
func (w *world) admin(method, path string, want int, body string) map[string]any {
	w.T.Helper()
	return adminCall(w.T, w.URL, method, path, want, body)
}

func adminCall(t *testing.T, base, method, path string, want int, body string) map[string]any {
	t.Helper()
	status, data := browsertest.Request(t, method, base+path, adminToken, body)
	if status != want {
		t.Fatalf("%s %s = %d %s, want %d", method, path, status, data, want)
	}
	var m map[string]any
	json.Unmarshal(data, &m)
	return m
}

// bettor gives a bettor a balance in USD and returns the widget's URL for
// a new session of theirs (a fresh session_request_id, as the operator's
// page makes for every page load).
func (w *world) bettor(id, balance string, params ...string) string {
	w.T.Helper()
	return w.bettorIn(id, "USD", balance, params...)
}

// widgetTab opens a tab on the widget for a new session of bettor id
// with balance (USD), and waits until the widget is ready.
func (w *world) widgetTab(t *testing.T, id, balance string) *tab {
	t.Helper()
	tb := newTab(t)
	tb.Navigate(w.bettor(id, balance))
	tb.ready()
	return tb
}

// interceptedWidgetTab is widgetTab with the tab's API requests
// intercepted (intercept with decide) from before the widget starts.
func (w *world) interceptedWidgetTab(t *testing.T, id, balance string, decide func(s seen) verdict) (*tab, *interceptor) {
	t.Helper()
	tb := newTab(t)
	ic := tb.intercept(decide)
	tb.Navigate(w.bettor(id, balance))
	tb.ready()
	return tb, ic
}

// bettorIn is bettor in another currency.
func (w *world) bettorIn(id, currency, balance string, params ...string) string {
	w.T.Helper()
	if err := w.Op.SetBalance(id, currency, balance); err != nil {
		w.T.Fatal(err)
	}
	q := url.Values{"operator": {"sandbox"}, "locale": {"en"}, "theme": {"light"},
		"session_request_id": {w.Op.NewSessionRequest(id, currency)}}
	for i := 0; i+1 < len(params); i += 2 {
		q.Set(params[i], params[i+1])
	}
	return w.URL + "/widget/?" + q.Encode()
}

// price sets new source probabilities of the "Who wins?" market.
func (w *world) price(home, away string) {
	w.T.Helper()
	w.admin("POST", "/admin/v1/markets/"+w.market+"/prices", 200, fmt.Sprintf(`{"outcomes":[{"id":%q,"probability":%q},{"id":%q,"probability":%q}]}`,
		w.outcome[0], home, w.outcome[1], away))
}

// moveHomeLive waits for tb's odds stream, moves Home from 0.2 to 0.25
// (Away 0.75) and waits until tb shows Home's new odds, 3.62.
func (w *world) moveHomeLive(tb *tab) {
	tb.T.Helper()
	tb.streaming()
	w.price("0.25", "0.75")
	tb.WaitText(outcomeButton(w.outcome[0])+" .odds", "3.62")
}

func (w *world) suspend() {
	w.T.Helper()
	w.admin("POST", "/admin/v1/markets/"+w.market+"/suspend", 200, "")
}
func (w *world) reopen() {
	w.T.Helper()
	w.admin("POST", "/admin/v1/markets/"+w.market+"/open", 200, "")
}

// bets lists a bettor's bets through the admin API, newest first.
func (w *world) bets(bettor string) []map[string]any {
	w.T.Helper()
	m := w.admin("GET", "/admin/v1/bets?operator_id=sandbox&bettor_id="+url.QueryEscape(bettor), 200, "")
	var out []map[string]any
	for _, b := range m["items"].([]any) {
		out = append(out, b.(map[string]any))
	}
	return out
}

// betsOf counts a bettor's bets.
func (w *world) betsOf(bettor string) int {
	w.T.Helper()
	return len(w.bets(bettor))
}

// waitBet waits until the bettor's newest bet has status.
func (w *world) waitBet(bettor, status string) {
	w.T.Helper()
	waitfor.Check(w.T, func() error {
		if bets := w.bets(bettor); len(bets) == 0 || bets[0]["status"] != status {
			return fmt.Errorf("%s's bets %v; waited for the newest to be %s", bettor, bets, status)
		}
		return nil
	})
}

// waitCredited waits until the platform has recorded the wallet's answer
// to the deposit of each of the bettor's n newest bets (its payout, zero
// or the stake back), and with it the balance the answer reported.
func (w *world) waitCredited(bettor string, n int) {
	w.T.Helper()
	waitfor.Check(w.T, func() error {
		bets := w.bets(bettor)
		credited := 0
		for _, b := range bets[:min(n, len(bets))] {
			if b["deposit_confirmed_at"] != nil {
				credited++
			}
		}
		if credited != n {
			return fmt.Errorf("%s's bets %v; waited for the newest %d to be credited", bettor, bets, n)
		}
		return nil
	})
}

// waitWallet waits until the sandbox operator's wallet holds balance for
// the bettor.
func (w *world) waitWallet(bettor, balance string) {
	w.T.Helper()
	waitfor.Check(w.T, func() error {
		if b, _ := w.Op.Balance(bettor); b != balance {
			return fmt.Errorf("%s's wallet holds %q; waited for %s", bettor, b, balance)
		}
		return nil
	})
}

// gate wraps the sandbox operator's handler: a held endpoint's requests
// wait until the test releases them (the wallet stalls), and arrivals are
// signalled, so that a test acts while the platform waits on the wallet.
type gate struct {
	next   http.Handler
	mu     sync.Mutex
	held   map[string]*hold // by path prefix: "/v1/withdrawals", "/v1/rollbacks/"
	served map[string]int   // requests by "METHOD /path"
}

// count is the number of requests the gate let through to method and path.
func (g *gate) count(method, path string) int {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.served[method+" "+path]
}

type hold struct {
	arrived chan struct{} // closed at the first held request
	release chan struct{} // closed by release
	once    sync.Once
}

// holdNext holds every request to paths starting with prefix until release.
func (g *gate) holdNext(prefix string) *hold {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.held == nil {
		g.held = map[string]*hold{}
	}
	h := &hold{arrived: make(chan struct{}), release: make(chan struct{})}
	g.held[prefix] = h
	return h
}

// release lets the held requests through and stops holding.
func (g *gate) release(prefix string) {
	g.mu.Lock()
	h := g.held[prefix]
	delete(g.held, prefix)
	g.mu.Unlock()
	if h != nil {
		close(h.release)
	}
}

func (g *gate) releaseAll() {
	g.mu.Lock()
	var prefixes []string
	for p := range g.held {
		prefixes = append(prefixes, p)
	}
	g.mu.Unlock()
	for _, p := range prefixes {
		g.release(p)
	}
}

func (g *gate) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	g.mu.Lock()
	if g.served == nil {
		g.served = map[string]int{}
	}
	g.served[r.Method+" "+r.URL.Path]++
	var h *hold
	for p, x := range g.held {
		if strings.HasPrefix(r.URL.Path, p) {
			h = x
		}
	}
	g.mu.Unlock()
	if h != nil {
		body, _ := io.ReadAll(r.Body)
		r.Body = io.NopCloser(bytes.NewReader(body))
		h.once.Do(func() { close(h.arrived) })
		select {
		case <-h.release:
		case <-r.Context().Done():
			return
		}
	}
	g.next.ServeHTTP(w, r)
}

// waitArrived waits until a held request arrived.
func (w *world) waitArrived(h *hold) {
	w.T.Helper()
	select {
	case <-h.arrived:
	case <-time.After(30 * time.Second):
		w.T.Fatal("the held wallet request never arrived")
	}
}
