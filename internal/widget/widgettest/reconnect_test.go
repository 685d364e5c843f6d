package widgettest

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/foresight-dev/foresight/internal/sandbox/operator"
	"github.com/foresight-dev/foresight/internal/waitfor"
)

// hostOf is the sandbox operator's host page for a bettor (a world with
// site): it makes a session_request_id on load and another whenever the
// widget says its session expired.
func (w *world) hostOf(bettor string) string {
	return w.Partner + "/sandbox/host?" + url.Values{"bettor_id": {bettor}, "locale": {"en"}}.Encode()
}

// debits counts the withdrawals in the sandbox operator's ledger for a
// bettor.
func (w *world) debits(bettor string) int {
	n := 0
	for _, e := range w.Op.Ledger() {
		if e.BettorID == bettor && e.Type == operator.EntryWithdrawal {
			n++
		}
	}
	return n
}

// recordMessages makes a host page that does not record the widget's
// messages (the sandbox's) keep them in window.messages, as the tests'
// own host page does.
func (tb *tab) recordMessages() {
	tb.T.Helper()
	_, err := chromedp.Run(tb.Ctx, chromedp.Evaluate[bool](`(() => {
		if (window.messages) return true;
		window.messages = [];
		const frame = document.querySelector("iframe");
		addEventListener("message", (e) => { if (e.source === frame.contentWindow) window.messages.push(e.data); });
		return true;
	})()`))
	if err != nil {
		tb.T.Fatalf("recording the host's messages: %v", err)
	}
}

// postSession posts {type: "foresight:session", session_request_id: id}
// from the host page to the widget at widgetOrigin, as an operator's page
// answers foresight:session_expired.
func (tb *tab) postSession(id, widgetOrigin string) {
	tb.T.Helper()
	_, err := chromedp.Run(tb.Ctx, chromedp.Evaluate[bool](fmt.Sprintf(
		`(document.querySelector("iframe").contentWindow.postMessage({type: "foresight:session", session_request_id: %q}, %q), true)`, id, widgetOrigin)))
	if err != nil {
		tb.T.Fatalf("posting a session to the widget: %v", err)
	}
}

// expiredMessages counts the foresight:session_expired messages the host
// received.
func (tb *tab) expiredMessages() int {
	tb.T.Helper()
	n := 0
	for _, m := range tb.hostMessages() {
		if m["type"] == "foresight:session_expired" {
			n++
		}
	}
	return n
}

// tokenClaims decodes a JWT's claims without verifying it.
func tokenClaims(t *testing.T, token string) map[string]any {
	t.Helper()
	parts := strings.Split(token, ".")
	if len(parts) != 3 {
		t.Fatalf("%q is not a JWT", token)
	}
	raw, err := base64.RawURLEncoding.DecodeString(parts[1])
	var c map[string]any
	if err != nil || json.Unmarshal(raw, &c) != nil {
		t.Fatalf("the JWT's claims do not decode: %v", err)
	}
	return c
}

// refuseOnce answers 401 to the first request trap matches, as the
// platform answers an expired token; every other request goes on.
func refuseOnce(trap func(s seen) bool) func(seen) verdict {
	refused := false
	return func(s seen) verdict {
		if !refused && trap(s) {
			refused = true
			return verdict{status: 401}
		}
		return verdict{}
	}
}

// placeRequests are the place-bet calls the widget sent.
func placeRequests(ic *interceptor) []seen {
	var out []seen
	for _, p := range ic.requests("POST", "/api/v1/bettor/bets") {
		if p.Stage == "request" {
			out = append(out, p)
		}
	}
	return out
}

// TestSessionRenewal: on the sandbox operator's host page the widget's
// session expires, the widget asks the page (foresight:session_expired),
// the page makes a new session_request_id and posts it back
// (foresight:session), and the widget carries on where it was, never
// losing the bettor's bet: a bet left in the slip is placed after its
// token's exp passed; a bet whose place-bet call got a 401 (before the
// platform saw it, or after it took it) is sent again with the same
// Idempotency-Key; a bet being polled goes on being polled. Each ends with
// exactly one bet and one debit, and the odds stream reconnects with the
// new token.
func TestSessionRenewal(t *testing.T) {
	t.Parallel()
	w := newWorld(t, worldOptions{site: true,
		limits: `{"USD":{"min_stake":"1","max_stake":"100","max_payout":"1000","outcome_exposure":"5000"}}`})

	t.Run("exp passed with a bet in the slip", func(t *testing.T) {
		if err := w.Op.SetTokenLifetime(4 * time.Second); err != nil {
			t.Fatal(err)
		}
		if err := w.Op.SetBalance("rene", "USD", "100.00"); err != nil {
			t.Fatal(err)
		}
		tb := newTab(t)
		ic := tb.intercept(nil)
		tb.openHost(w.hostOf("rene"))
		// The renewed token lives the configured hour.
		if err := w.Op.SetTokenLifetime(0); err != nil {
			t.Fatal(err)
		}
		tb.recordMessages()
		first := ic.requests("GET", "/api/v1/events")[0].Token
		exp := time.Unix(int64(tokenClaims(t, first)["exp"].(float64)), 0)
		tb.preview(w.outcome[0], "10", "44.20 USD")
		// The widget counts the token's life from its receipt, and iat is
		// whole seconds: it holds the token expired within a second of
		// exp. The platform would still take it (it allows 30 s of skew).
		time.Sleep(time.Until(exp.Add(2 * time.Second)))
		tb.Click("#place")
		tb.WaitText("#slip-status", "Bet placed: 10.00 USD on Home at odds 4.42.")
		if n := tb.expiredMessages(); n != 1 {
			t.Errorf("the host page was told %d times that the session expired, want 1", n)
		}
		posts := placeRequests(ic)
		if len(posts) != 1 || posts[0].Token == first || tokenClaims(t, posts[0].Token)["sub"] != "rene" {
			t.Fatalf("place-bet calls %+v; want one, with a new token of rene's", posts)
		}
		renewed := posts[0].Token
		waitfor.True(t, "the stream to connect with the renewed token", func() bool {
			streams := ic.requests("GET", "/api/v1/odds/stream")
			return streams[len(streams)-1].Token == renewed
		})
		if n, d := w.betsOf("rene"), w.debits("rene"); n != 1 || d != 1 {
			t.Errorf("rene has %d bets and %d debits, want 1 and 1", n, d)
		}
		tb.WaitFor("the session notice gone", "document.getElementById('session-box').hidden")
		checkMessages(t, tb.hostMessages())
	})

	t.Run("the launch's id refused", func(t *testing.T) {
		// The operator refuses the page's first session_request_id, as it
		// refuses one that expired while the page sat in a background tab.
		w.Op.ForBettor("ria").FailNext("session", 1, 401)
		exchanges := w.gate.count("POST", "/v1/session")
		tb := newTab(t)
		tb.openHost(w.hostOf("ria"))
		tb.WaitText("#events", "Final")
		if n := w.gate.count("POST", "/v1/session") - exchanges; n != 2 {
			t.Errorf("%d session exchanges, want 2: the refused id, then the host page's new one", n)
		}
	})

	tests := []struct {
		name, bettor string
		trap         func(s seen) bool
		posts        int // place-bet calls sent
	}{
		{"401 on the place-bet call before the platform", "una", func(s seen) bool {
			return s.Method == "POST" && s.Stage == "request"
		}, 2},
		{"401 on the place-bet call after the platform took it", "ulf", func(s seen) bool {
			return s.Method == "POST" && s.Stage == "response"
		}, 2},
		{"401 on a read of the pending bet", "uma", func(s seen) bool {
			return s.Method == "GET" && strings.HasPrefix(s.path(), "/api/v1/bettor/bets/")
		}, 1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if err := w.Op.SetBalance(tc.bettor, "USD", "100.00"); err != nil {
				t.Fatal(err)
			}
			tb := newTab(t)
			ic := tb.intercept(refuseOnce(tc.trap))
			tb.openHost(w.hostOf(tc.bettor))
			tb.recordMessages()
			tb.bet(w.outcome[0], "10")
			tb.WaitText("#slip-status", "Bet placed: 10.00 USD on Home at odds 4.42.")
			if n := tb.expiredMessages(); n != 1 {
				t.Errorf("the host page was told %d times that the session expired, want 1", n)
			}
			posts := placeRequests(ic)
			if len(posts) != tc.posts {
				t.Fatalf("%d place-bet calls, want %d", len(posts), tc.posts)
			}
			for _, p := range posts {
				if p.Key != posts[0].Key || !uuidV4.MatchString(p.Key) {
					t.Errorf("place-bet calls carried keys %q and %q; want one UUID v4", posts[0].Key, p.Key)
				}
			}
			if n, d := w.betsOf(tc.bettor), w.debits(tc.bettor); n != 1 || d != 1 {
				t.Errorf("%s has %d bets and %d debits, want 1 and 1", tc.bettor, n, d)
			}
			tb.Click("#tab-history")
			tb.WaitText("#history li.bet .bet-status", "Confirmed")
			if n := tb.Text("#history"); strings.Count(n, "Confirmed") != 1 {
				t.Errorf("My bets shows %q; want one confirmed bet", n)
			}
		})
	}
}

// TestSessionUnanswered: a host page that does not answer
// foresight:session_expired. The widget says the session expired, keeps
// the slip and the bet being sent, and after a while without an answer
// says to reload the page; "Reconnect" asks the page again; an answer
// that comes late is still taken and the bet goes out with its key. An
// answer naming another bettor ends the session instead: the widget never
// switches bettors.
func TestSessionUnanswered(t *testing.T) {
	t.Parallel()
	w := newWorld(t, worldOptions{})
	refusePost := func(s seen) bool { return s.Method == "POST" && s.Stage == "request" }

	t.Run("late answer", func(t *testing.T) {
		host := hostPage(t, "Sandbox Bets — operator site", w.URL, func() string { return w.bettor("nia", "100.00") })
		tb := newTab(t)
		tb.Viewport(1000, 800)
		ic := tb.intercept(refuseOnce(refusePost))
		tb.openHost(host)
		tb.bet(w.outcome[0], "10")
		tb.WaitText("#session-text", "Your session could not be renewed. Press Reconnect to try again, or reload the page to continue.")
		tb.Screenshot("session-expired")
		var slip struct {
			Form   bool
			Stake  string
			Status string
		}
		tb.Eval(`({Form: !document.getElementById('slip-form').hidden, Stake: document.getElementById('stake').value,
			Status: document.getElementById('slip-status').textContent})`, &slip)
		if !slip.Form || slip.Stake != "10" || slip.Status != "Sending your bet…" {
			t.Errorf("while the session is expired the slip shows %+v; want the bet kept, still being sent", slip)
		}
		if waits := tb.waits("session"); fmt.Sprint(waits) != "[20000]" {
			t.Errorf("waits for the host's answer %v, want [20000]", waits)
		}
		if n := tb.expiredMessages(); n != 1 {
			t.Errorf("%d foresight:session_expired messages, want 1", n)
		}

		tb.Click("#session-reconnect")
		waitfor.True(t, "Reconnect to ask the host page again", func() bool { return tb.expiredMessages() == 2 })
		tb.WaitFor("a second wait for the answer", "window.__foresightTestClock.waits.filter((w) => w.label === 'session').length === 2")
		tb.WaitText("#session-text", "reload the page")

		tb.postSession(w.Op.NewSessionRequest("nia", "USD"), w.URL)
		tb.WaitText("#slip-status", "Bet placed: 10.00 USD on Home at odds 4.42.")
		tb.WaitFor("the session notice gone", "document.getElementById('session-box').hidden")
		posts := placeRequests(ic)
		if len(posts) != 2 || posts[0].Key != posts[1].Key {
			t.Errorf("place-bet calls %+v; want two with one key", posts)
		}
		if n := w.betsOf("nia"); n != 1 {
			t.Errorf("nia has %d bets, want 1", n)
		}
		checkMessages(t, tb.hostMessages())
	})

	t.Run("another bettor's session", func(t *testing.T) {
		host := hostPage(t, "Sandbox Bets — operator site", w.URL, func() string { return w.bettor("oli", "100.00") })
		tb := newTab(t)
		tb.intercept(refuseOnce(refusePost))
		tb.openHost(host)
		tb.bet(w.outcome[0], "10")
		tb.WaitText("#session-text", "Your session has expired.")
		if err := w.Op.SetBalance("eve", "USD", "100.00"); err != nil {
			t.Fatal(err)
		}
		tb.postSession(w.Op.NewSessionRequest("eve", "USD"), w.URL)
		tb.WaitText("#session-text", "Your session has expired. Reload the page to continue.")
		tb.WaitText("#slip-status", "Your session has expired.")
		tb.WaitFor("no Reconnect", "document.getElementById('session-reconnect').hidden")
		if !tb.placeDisabled() {
			t.Error("placing is still offered after the session ended")
		}
		if n, m := w.betsOf("oli"), w.betsOf("eve"); n+m != 0 {
			t.Errorf("bets: oli %d, eve %d; want none", n, m)
		}
	})
}

// TestAggregatorSessionEnds: the aggregator's protocol gives the casino's
// page nothing to do after the launch, so on that path (a real session or
// a demo) an expired session is not renewed: the widget tells the host
// page once, says to relaunch the game from the lobby and waits for no
// answer.
func TestAggregatorSessionEnds(t *testing.T) {
	t.Parallel()
	w := aggregatorWorld(t)
	tests := []struct {
		name, path, body string
		act              func(tb *tab)
	}{
		{"real", "/v2/agg_provider.Launcher/Real", realLaunch("player-2", "en", "8d6f4c2e-5b1a-4c3d-9e7f-0a1b2c3d4e5f"), func(tb *tab) {
			tb.bet(w.outcome[0], "10")
			tb.WaitText("#slip-status", "Your game session has ended.")
		}},
		{"demo", "/v2/agg_provider.Launcher/Demo", demoLaunch, func(tb *tab) {
			var ok bool
			tb.Eval("(() => { const c = document.getElementById('category'); c.value = 'sports'; return c.dispatchEvent(new Event('change')); })()", &ok)
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			lobby := w.casinoLobby(t, tc.path, tc.body)
			tb := newTab(t)
			tb.intercept(refuseOnce(func(s seen) bool {
				return (s.Method == "POST" && strings.HasPrefix(s.path(), "/api/v1/bettor/bets")) || strings.Contains(s.path(), "category=sports")
			}))
			tb.openHost(lobby)
			tc.act(tb)
			tb.WaitText("#session-text", "Your game session has ended. Relaunch the game from the lobby to continue.")
			tb.WaitFor("no Reconnect", "document.getElementById('session-reconnect').hidden")
			waitfor.True(t, "foresight:session_expired", func() bool { return tb.expiredMessages() > 0 })
			if n := tb.expiredMessages(); n != 1 {
				t.Errorf("%d foresight:session_expired messages, want 1", n)
			}
			if waits := tb.waits("session"); len(waits) != 0 {
				t.Errorf("the widget waited for an answer: %v", waits)
			}
		})
	}
}

// TestSessionTexts: every locale has its own texts for the expired
// session's states and its button.
func TestSessionTexts(t *testing.T) {
	t.Parallel()
	tb := moduleTab(t)
	var problems []string
	tb.Eval(`await (async () => {
		const m = await import('./js/rules.js');
		const keys = ["session.waiting", "session.unanswered", "session.reconnect", "session.relaunch", "session.expired"];
		const en = await (await fetch('./locales/en.json')).json();
		const out = [];
		for (const l of m.LOCALES) {
			const texts = await (await fetch('./locales/' + l + '.json')).json();
			for (const k of keys) {
				if (!texts[k] || !texts[k].trim()) out.push(l + ': ' + k + ' missing');
				else if (l !== 'en' && texts[k] === en[k]) out.push(l + ': ' + k + ' is the English text');
			}
		}
		return out;
	})()`, &problems)
	if len(problems) > 0 {
		t.Errorf("session texts: %v", problems)
	}
}
