package widgettest

import (
	"encoding/json"
	"fmt"
	"html/template"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
	"github.com/google/uuid"

	"github.com/foresight-dev/foresight/internal/browsertest"
	"github.com/foresight-dev/foresight/internal/sandbox/casino"
	"github.com/foresight-dev/foresight/internal/waitfor"
)

// hostTemplate is an operator's (or a casino lobby's) page: it embeds the
// widget, sizes the iframe from the widget's height messages and records
// every message from the widget's origin in window.messages.
var hostTemplate = template.Must(template.New("host").Parse(`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>{{.Title}}</title>
<meta name="viewport" content="width=device-width, initial-scale=1">
<style>body{margin:0;font:15px system-ui,sans-serif;background:#e9ecf1}header{padding:10px 16px;background:#222;color:#fff}
iframe{display:block;width:100%;border:0;height:400px}</style></head>
<body><header>{{.Title}}</header>
<iframe id="widget" title="Prediction markets" src="{{.Src}}"></iframe>
<script>
window.messages = [];
addEventListener("message", (e) => {
  if (e.origin !== {{.WidgetOrigin}}) return;
  window.messages.push(e.data);
  if (e.data && e.data.type === "foresight:height") document.getElementById("widget").style.height = e.data.height + "px";
});
</script></body></html>`))

// hostPage serves a page that embeds the widget at the URL src returns,
// which is called for every page load (a fresh session_request_id each).
func hostPage(t *testing.T, title, widgetOrigin string, src func() string) string {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/" {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		hostTemplate.Execute(w, map[string]any{"Title": title, "Src": template.URL(src()), "WidgetOrigin": widgetOrigin})
	}))
	t.Cleanup(srv.Close)
	return srv.URL
}

// openHost loads a host page and points the tab's queries at the widget's
// iframe (#widget in the tests' pages, #game in the sandbox's).
func (tb *tab) openHost(url string) {
	tb.T.Helper()
	tb.Frame = nil
	tb.Navigate(url)
	nodes, err := chromedp.Run(tb.Ctx, chromedp.Nodes(chromedp.CSS("iframe#widget, iframe#game")))
	if err != nil || len(nodes) != 1 {
		tb.T.Fatalf("the host page has no widget iframe: %v", err)
	}
	tb.Frame = nodes[0]
	tb.ready()
}

// hostTab opens a new tab of width × height on the host page at url
// (openHost).
func hostTab(t *testing.T, url string, width, height int64) *tab {
	t.Helper()
	tb := newTab(t)
	tb.Viewport(width, height)
	tb.openHost(url)
	return tb
}

// hostMessages returns the messages the host page received.
func (tb *tab) hostMessages() []map[string]any {
	tb.T.Helper()
	s, err := chromedp.Run(tb.Ctx, chromedp.Evaluate[string]("JSON.stringify(window.messages)"))
	if err != nil {
		tb.T.Fatalf("reading the host's messages: %v", err)
	}
	var out []map[string]any
	if err := json.Unmarshal([]byte(s), &out); err != nil {
		tb.T.Fatalf("host messages %s: %v", s, err)
	}
	return out
}

// waitMessage waits until the host received a message for which match is
// true, and returns it.
func (tb *tab) waitMessage(what string, match func(m map[string]any) bool) map[string]any {
	tb.T.Helper()
	var found map[string]any
	waitfor.Check(tb.T, func() error {
		msgs := tb.hostMessages()
		for _, m := range msgs {
			if match(m) {
				found = m
				return nil
			}
		}
		return fmt.Errorf("the host never received %s; it received %v", what, msgs)
	})
	return found
}

// messageTypes are the messages the widget may post.
var messageTypes = map[string]bool{"foresight:height": true, "foresight:balance": true, "foresight:deposit": true, "foresight:session_expired": true}

// checkMessages: only the documented messages, and never the token.
func checkMessages(t *testing.T, msgs []map[string]any) {
	t.Helper()
	raw, _ := json.Marshal(msgs)
	if strings.Contains(string(raw), "eyJ") {
		t.Errorf("a message holds a JWT: %s", raw)
	}
	for _, m := range msgs {
		if typ, _ := m["type"].(string); !messageTypes[typ] {
			t.Errorf("undocumented message %v", m)
		}
	}
}

// TestHostPage is the operator's path end to end: the operator's page
// (another origin) makes a session_request_id and embeds the widget; the
// widget exchanges it at the operator's POST /v1/session; the bettor is
// short of funds and asks to deposit (a message to the page), then places
// a bet and sees it confirmed, the balance follows (a message), the market
// resolves and the payout shows in the history. The iframe's height
// follows the widget's messages.
func TestHostPage(t *testing.T) {
	t.Parallel()
	w := newWorld(t, worldOptions{})
	if err := w.Op.SetBalance("hana", "USD", "5.00"); err != nil {
		t.Fatal(err)
	}
	host := hostPage(t, "Sandbox Bets — operator site", w.URL, func() string {
		q := url.Values{"operator": {"sandbox"}, "locale": {"en"}, "theme": {"light"}, "session_request_id": {w.Op.NewSessionRequest("hana", "USD")}}
		return w.URL + "/widget/?" + q.Encode()
	})
	tb := hostTab(t, host, 1000, 800)
	tb.Screenshot("events")

	h := tb.waitMessage("a height", func(m map[string]any) bool { return m["type"] == "foresight:height" })
	if height, _ := h["height"].(float64); height < 100 {
		t.Errorf("height message %v", h)
	}

	tb.bet(w.outcome[0], "10")
	tb.WaitText("#slip-status", "your balance does not cover a stake of 10.00 USD")
	// The page grows while the refusal and the balance re-read render (the
	// host's height messages show it): a pointer click computed before the
	// last shift can land beside the button, so the button is pressed as
	// an element, once it is there.
	tb.WaitFor("the deposit button", "!!document.getElementById('slip-deposit')")
	var pressed bool
	tb.Eval("(document.getElementById('slip-deposit').click(), true)", &pressed)
	dep := tb.waitMessage("a deposit request", func(m map[string]any) bool { return m["type"] == "foresight:deposit" })
	if dep["currency"] != "USD" || dep["amount"] != "10.00" {
		t.Errorf("deposit message %v, want USD 10.00", dep)
	}
	if err := w.Op.SetBalance("hana", "USD", "100.00"); err != nil { // the bettor deposits at the operator
		t.Fatal(err)
	}

	tb.WaitFor("placing allowed", "!document.getElementById('place').disabled")
	tb.WaitText("#slip-payout", "44.20 USD")
	tb.Screenshot("bet-slip")
	tb.Click("#place")
	tb.WaitText("#slip-status", "Bet placed: 10.00 USD on Home at odds 4.42. Potential payout 44.21 USD.")
	tb.WaitText("#balance", "90.00 USD")
	tb.Screenshot("bet-confirmed")
	bal := tb.waitMessage("the new balance", func(m map[string]any) bool {
		b, _ := m["balance"].(string)
		return m["type"] == "foresight:balance" && (b == "90" || b == "90.00")
	})
	if bal["currency"] != "USD" {
		t.Errorf("balance message %v", bal)
	}

	w.admin("POST", "/admin/v1/markets/"+w.market+"/resolve", 200, fmt.Sprintf(`{"winning_outcome_id":%q}`, w.outcome[0]))
	w.waitBet("hana", "settled")
	tb.Click("#tab-history")
	tb.WaitText("#history li.bet .bet-status", "Won")
	tb.WaitText("#history li.bet .payout", "Paid44.21 USD")
	if odds := tb.Text("#history li.bet .entry-odds dd"); odds != "4.42" {
		t.Errorf("history odds %q, want the entry odds 4.4214 at 2 decimals", odds)
	}
	tb.Screenshot("history")

	// The iframe's height and the messages are read at once: a height
	// message between two reads (the widget may still be laying out)
	// would tell them apart.
	var page struct {
		Height   string
		Messages []map[string]any
	}
	tb.Frame = nil
	tb.Eval("({Height: document.getElementById('widget').style.height, Messages: window.messages})", &page)
	iframeHeight, msgs := page.Height, page.Messages
	var last float64
	for _, m := range msgs {
		if m["type"] == "foresight:height" {
			last = m["height"].(float64)
		}
	}
	if iframeHeight != fmt.Sprintf("%gpx", last) {
		t.Errorf("iframe height %q, last height message %g", iframeHeight, last)
	}
	checkMessages(t, msgs)

	// A new page load (a new session_request_id): the resolved market
	// takes no bets, and the history still names the bet.
	tb.openHost(host)
	tb.WaitText(`[data-market-id="`+w.market+`"] .market-status`, "Resolved")
	tb.WaitFor("the resolved market's outcomes shown, not offered", fmt.Sprintf("!document.querySelector(%q) && document.querySelector(%q)",
		outcomeButton(w.outcome[0]), `.outcome.readonly[data-outcome-id="`+w.outcome[0]+`"]`))
	tb.Click("#tab-history")
	tb.WaitText("#history li.bet .bet-title", "HomeWho wins?Final")
}

const casinoSecret = "casino-signing-secret-0123"

// aggregatorWorld adds the sandbox casino and the aggregator operator
// "agg" (EUR) to a world.
func aggregatorWorld(t *testing.T) *world {
	t.Helper()
	w := newWorld(t, worldOptions{})
	c, err := casino.New(casino.Config{SigningSecret: casinoSecret, StartingBalance: "100.00"})
	if err != nil {
		t.Fatal(err)
	}
	wallet := httptest.NewServer(c.Handler())
	t.Cleanup(wallet.Close)
	w.admin("POST", "/admin/v1/operators", 201, fmt.Sprintf(`{"id":"agg","name":"Casino Royale","integration":"aggregator",
		"wallet_url":%q,"signing_secret":%q,"casino_ids":["casino-1"],
		"currencies":[{"code":"EUR","decimals":2}],"margin":{"method":"odds_ratio","value":"0.05"},
		"limits":{"EUR":{"min_stake":"1","max_stake":"100","max_payout":"1000","outcome_exposure":"5000"}},"odds_tolerance":"0.05"}`,
		wallet.URL, casinoSecret))
	return w
}

// launch asks the platform's launcher for a launch URL, as a casino lobby
// does: Launcher/Real with an account, Launcher/Demo without.
func (w *world) launch(path, body string) string {
	w.T.Helper()
	status, data := browsertest.Request(w.T, "POST", w.URL+path, "", body, "X-REQUEST-SIGN", casino.Sign([]byte(casinoSecret), []byte(body)))
	var out struct {
		LaunchURL string `json:"launch_url"`
	}
	if status != 200 || json.Unmarshal(data, &out) != nil || out.LaunchURL == "" {
		w.T.Fatalf("%s = %d %s", path, status, data)
	}
	return out.LaunchURL
}

// demoLaunch is the body of a Launcher/Demo request of casino-1, in
// English.
const demoLaunch = `{"casino_id":"casino-1","game":"prediction-markets","locale":"en",
	"ip":"203.0.113.7","client_type":"desktop","urls":{"return_url":"https://casino.example/lobby"}}`

// realLaunch is the body of a Launcher/Real request of casino-1 for the
// casino's account (EUR), in locale, in the casino's session.
func realLaunch(account, locale, session string) string {
	return fmt.Sprintf(`{"casino_id":"casino-1","game":"prediction-markets","locale":%q,
		"ip":"203.0.113.7","client_type":"desktop","session_id":%q,"urls":{"return_url":"https://casino.example/lobby"},
		"account":{"id":%q,"currency":"EUR"}}`, locale, session, account)
}

// casinoLobby serves a casino lobby page that embeds the game launched
// with the launcher's path and body, launched again at each load.
func (w *world) casinoLobby(t *testing.T, path, body string) string {
	t.Helper()
	return hostPage(t, "Casino lobby", w.URL, func() string { return w.launch(path, body) })
}

// TestAggregatorLobby: a casino lobby launches the game with
// Launcher/Real (locale de_AT) and embeds the launch URL; the widget
// exchanges the launch token at the platform's POST /api/v1/sessions,
// speaks German, shows the casino wallet's balance, places a bet and
// follows the balance.
func TestAggregatorLobby(t *testing.T) {
	t.Parallel()
	w := aggregatorWorld(t)
	lobby := w.casinoLobby(t, "/v2/agg_provider.Launcher/Real", realLaunch("player-1", "de_AT", uuid.NewString()))
	tb := hostTab(t, lobby, 1000, 800)
	tb.WaitText("#brand", "Casino Royale")
	tb.WaitText("#tab-markets", "Märkte")
	tb.WaitText("#events", "Finale")
	tb.WaitText("#balance", "100,00 EUR")
	tb.bet(w.outcome[0], "10")
	tb.WaitText("#slip-status", "Wette platziert: 10,00 EUR auf Heim zur Quote 4,42. Möglicher Gewinn 44,21 EUR.")
	tb.WaitText("#balance", "90,00 EUR")
	tb.waitMessage("the new balance", func(m map[string]any) bool { return m["type"] == "foresight:balance" && m["currency"] == "EUR" })
	checkMessages(t, tb.hostMessages())
}

// TestDemo: Launcher/Demo opens a demo session: a clear demo label, the
// markets and odds, and nothing that places a bet (no slip form, no
// outcome buttons, no history).
func TestDemo(t *testing.T) {
	t.Parallel()
	w := aggregatorWorld(t)
	lobby := w.casinoLobby(t, "/v2/agg_provider.Launcher/Demo", demoLaunch)
	tb := hostTab(t, lobby, 1000, 700)
	tb.WaitText("#demo-badge", "Demo")
	tb.WaitText("#demo-note", "No real bets can be placed.")
	tb.WaitText("#slip", "Demo mode: placing bets is not available.")
	tb.WaitText("#events", "Final")
	var offers struct {
		Form, Buttons, History, Balance bool
		Odds                            int
	}
	tb.Eval(`({Form: !!document.getElementById('slip-form'), Buttons: document.querySelectorAll('button.outcome').length > 0,
		History: !document.getElementById('tab-history').hidden, Balance: !document.getElementById('balance-box').hidden,
		Odds: document.querySelectorAll('.outcome .odds').length})`, &offers)
	if offers.Form || offers.Buttons || offers.History || offers.Balance || offers.Odds != 4 {
		t.Errorf("demo offers %+v; want odds only", offers)
	}
	tb.Screenshot("demo")
}
