package widgettest

import (
	"fmt"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/foresight-dev/foresight/internal/browsertest"
	"github.com/foresight-dev/foresight/internal/widget"
)

// moduleTab opens the widget's page (without a session: it only shows that
// it cannot start) so that its modules can be imported and called.
func moduleTab(t *testing.T) *tab {
	t.Helper()
	browsertest.Browser(t)
	srv := httptest.NewServer(widget.Handler(nil))
	t.Cleanup(srv.Close)
	tb := newTab(t)
	tb.Navigate(srv.URL + "/widget/")
	return tb
}

// call imports module (under js/) and returns the JSON of expr, evaluated
// with the module bound to m.
func (tb *tab) call(module, expr string, out any) {
	tb.T.Helper()
	tb.Call("js/"+module, expr, out)
}

// exprCase is a JavaScript expression over a module (m) and the value it
// must evaluate to.
type exprCase[T comparable] struct {
	expr string
	want T
}

// wantExprs evaluates each case's expression over module in tb and
// reports those whose value is not the wanted one.
func wantExprs[T comparable](t *testing.T, tb *tab, module string, tests []exprCase[T]) {
	t.Helper()
	for _, tc := range tests {
		var got T
		tb.call(module, tc.expr, &got)
		if got != tc.want {
			t.Errorf("%s = %#v, want %#v", tc.expr, got, tc.want)
		}
	}
}

// TestPayoutPreview: obligations 1 and 2. The payout is stake × odds,
// gross, rounded to the currency's decimals (USD 2, JPY 0, KWD 3) half to
// even, as settlement rounds, with exact decimal arithmetic (0.1 × 3 is
// 0.30, not 0.30000000000000004).
func TestPayoutPreview(t *testing.T) {
	t.Parallel()
	tb := moduleTab(t)
	tests := []struct {
		stake, odds string
		decimals    int
		want        string
	}{
		{"10", "4.42", 2, "44.20"},      // USD
		{"10.00", "4.4214", 2, "44.21"}, // USD, entry odds: 44.214
		{"2.5", "1.05", 2, "2.62"},      // USD, 2.625: half to even
		{"2.5", "1.07", 2, "2.68"},      // USD, 2.675 (a float says 2.67)
		{"0.1", "3", 2, "0.30"},         // USD, no float error
		{"1.15", "1.01", 2, "1.16"},     // USD, 1.1615
		{"333", "1.55", 0, "516"},       // JPY, 516.15
		{"1000", "2.5", 0, "2500"},      // JPY
		{"5", "1.1", 0, "6"},            // JPY, 5.5: half to even
		{"1.234", "2.35", 3, "2.900"},   // KWD, 2.8999
		{"0.125", "1.01", 3, "0.126"},   // KWD, 0.12625
		{"10.500", "1.21", 3, "12.705"}, // KWD
		{"999999999999999999", "999999.9999", 2, "999999999899999999000000.00"}, // …000000.0001: far beyond a float's precision
	}
	for _, tc := range tests {
		var got string
		tb.call("format.js", fmt.Sprintf("m.payout(%q, %q, %d)", tc.stake, tc.odds, tc.decimals), &got)
		if got != tc.want {
			t.Errorf("payout(%s × %s, %d decimals) = %s, want %s", tc.stake, tc.odds, tc.decimals, got, tc.want)
		}
	}
}

func TestStakeCheck(t *testing.T) {
	t.Parallel()
	tb := moduleTab(t)
	tests := []struct {
		stake    string
		decimals int
		want     string
	}{
		{"10", 2, ""}, {"10.5", 2, ""}, {"10.55", 2, ""}, {"0.01", 2, ""},
		{"10.555", 2, "decimals"}, {"10.5", 0, "decimals"}, {"1.000", 2, "decimals"},
		{"0", 2, "format"}, {"0.00", 2, "format"}, {"-1", 2, "format"}, {"1e3", 2, "format"}, {"abc", 2, "format"},
		{"", 2, "format"}, {"010", 2, "format"}, {"1,5", 2, "format"}, {"10.", 2, "format"},
	}
	for _, tc := range tests {
		var got *string
		tb.call("decimal.js", fmt.Sprintf("m.stakeError(%q, %d)", tc.stake, tc.decimals), &got)
		g := ""
		if got != nil {
			g = *got
		}
		if g != tc.want {
			t.Errorf("stakeError(%q, %d) = %q, want %q", tc.stake, tc.decimals, g, tc.want)
		}
	}
}

// TestPollSchedule: obligation 6 and the Limits table. Waits before reads
// 1, 2, 3, 3, 3 s, then 5 s, stopping at the 60 s ceiling.
func TestPollSchedule(t *testing.T) {
	t.Parallel()
	tb := moduleTab(t)
	var waits []int
	tb.call("rules.js", "m.pollWaits()", &waits)
	want := []int{1000, 2000, 3000, 3000, 3000, 5000, 5000, 5000, 5000, 5000, 5000, 5000, 5000, 5000, 3000}
	if fmt.Sprint(waits) != fmt.Sprint(want) {
		t.Errorf("pollWaits() = %v, want %v", waits, want)
	}
	sum := 0
	for _, w := range waits {
		sum += w
	}
	if sum != 60000 {
		t.Errorf("the waits add up to %d ms, want the 60 s ceiling", sum)
	}
	var ceiling int
	tb.call("rules.js", "m.POLL_CEILING_MS", &ceiling)
	if ceiling != 60000 {
		t.Errorf("POLL_CEILING_MS = %d", ceiling)
	}
}

// TestStatusComparison: statuses compare case-insensitively (POST answers
// PENDING, GET answers pending); a settled or voided bet is placed.
func TestStatusComparison(t *testing.T) {
	t.Parallel()
	tb := moduleTab(t)
	wantExprs(t, tb, "rules.js", []exprCase[bool]{
		{`m.statusIs("PENDING", "pending")`, true},
		{`m.statusIs("Confirmed", "CONFIRMED")`, true},
		{`m.statusIs("rejected", "confirmed")`, false},
		{`m.statusIs(null, "pending")`, false},
		{`m.isPlaced("CONFIRMED")`, true},
		{`m.isPlaced("settled")`, true},
		{`m.isPlaced("Voided")`, true},
		{`m.isPlaced("PENDING")`, false},
		{`m.isPlaced("rejected")`, false},
	})
}

// TestRejectionTable: each rejection_code maps to its own message and to
// what the table asks the client to do; null is its own case; an unknown
// code is bet_rejected_other. The messages never come from
// rejection_reason (the mapping has no input for it).
func TestRejectionTable(t *testing.T) {
	t.Parallel()
	tb := moduleTab(t)
	type rule struct {
		Key              string `json:"key"`
		RefetchEvent     bool   `json:"refetchEvent"`
		Terminal         bool   `json:"terminal"`
		RefreshBalance   bool   `json:"refreshBalance"`
		AwaitStakeBack   bool   `json:"awaitStakeBack"`
		OfferDeposit     bool   `json:"offerDeposit"`
		SameStakeBlocked bool   `json:"sameStakeBlocked"`
	}
	tests := []struct {
		code string // a JavaScript expression
		want rule
	}{
		{`"validation_failed"`, rule{Key: "reject.validation_failed", RefetchEvent: true}},
		{`"bettor_blocked"`, rule{Key: "reject.bettor_blocked", Terminal: true}},
		{`"insufficient_funds"`, rule{Key: "reject.insufficient_funds", RefreshBalance: true, OfferDeposit: true}},
		{`"bet_limit_reached"`, rule{Key: "reject.bet_limit_reached", SameStakeBlocked: true}},
		{`"bet_rejected_other"`, rule{Key: "reject.bet_rejected_other", RefreshBalance: true}},
		{`"wallet_rolled_back"`, rule{Key: "reject.wallet_rolled_back", RefreshBalance: true, AwaitStakeBack: true}},
		{`null`, rule{Key: "reject.unconfirmed_debit", RefreshBalance: true}},
		{`undefined`, rule{Key: "reject.unconfirmed_debit", RefreshBalance: true}},
		{`"wallet_provider_unavailable"`, rule{Key: "reject.unconfirmed_debit", RefreshBalance: true}},
		{`"something_new"`, rule{Key: "reject.bet_rejected_other", RefreshBalance: true}},
		{`"toString"`, rule{Key: "reject.bet_rejected_other", RefreshBalance: true}},
	}
	for _, tc := range tests {
		var got rule
		tb.call("rules.js", "m.rejection("+tc.code+")", &got)
		if got != tc.want {
			t.Errorf("rejection(%s) = %+v, want %+v", tc.code, got, tc.want)
		}
	}
	// Every message key exists in every locale.
	var missing []string
	tb.Eval(`await (async () => {
		const m = await import('./js/rules.js');
		const keys = ["validation_failed", "bettor_blocked", "insufficient_funds", "bet_limit_reached", "bet_rejected_other", "wallet_rolled_back", null]
			.map((c) => m.rejection(c).key);
		const out = [];
		for (const l of m.LOCALES) {
			const texts = await (await fetch('./locales/' + l + '.json')).json();
			for (const k of keys) {
				if (!texts[k]) out.push(l + ':' + k);
				if (!texts['code.' + k.slice(7)]) out.push(l + ':code.' + k.slice(7));
			}
		}
		return out;
	})()`, &missing)
	if len(missing) > 0 {
		t.Errorf("messages missing: %v", missing)
	}
}

func TestLaunchParameters(t *testing.T) {
	t.Parallel()
	tb := moduleTab(t)
	wantExprs(t, tb, "rules.js", []exprCase[string]{
		{`m.resolveLocale("de_AT")`, "de"},
		{`m.resolveLocale("pt-BR")`, "pt"},
		{`m.resolveLocale("NL")`, "nl"},
		{`m.resolveLocale("ru")`, "ru"},
		{`m.resolveLocale("en-soc")`, "en"},
		{`m.resolveLocale("ja")`, "en"},
		{`m.resolveLocale(null)`, "en"},
		{`m.resolveTheme("dark")`, "dark"},
		{`m.resolveTheme("DARK")`, "dark"},
		{`m.resolveTheme("neon")`, "light"},
		{`m.hostOrigin(new URLSearchParams("origin=https://casino.example/lobby?x=1"), "https://other.example/")`, "https://casino.example"},
		{`m.hostOrigin(new URLSearchParams("host_origin=https://op.example:8443"), "")`, "https://op.example:8443"},
		{`m.hostOrigin(new URLSearchParams(""), "https://op.example/page")`, "https://op.example"},
		{`String(m.hostOrigin(new URLSearchParams("origin=javascript:alert(1)"), ""))`, "null"},
		{`String(m.hostOrigin(new URLSearchParams(""), ""))`, "null"},
	})
}

// TestIdempotencyKeys: obligation 4's keys are fresh UUID v4s.
func TestIdempotencyKeys(t *testing.T) {
	t.Parallel()
	tb := moduleTab(t)
	var keys []string
	tb.call("rules.js", "Array.from({length: 50}, () => m.newIdempotencyKey()).filter(m.isUUIDv4)", &keys)
	seen := map[string]bool{}
	for _, k := range keys {
		seen[strings.ToLower(k)] = true
	}
	if len(keys) != 50 || len(seen) != 50 {
		t.Errorf("got %d valid keys, %d distinct; want 50 fresh UUID v4s", len(keys), len(seen))
	}
}

// TestStreamParser: the odds stream's server-sent events, split anywhere.
func TestStreamParser(t *testing.T) {
	t.Parallel()
	tb := moduleTab(t)
	var got []map[string]string
	tb.call("stream.js", `(() => {
		const out = [];
		const feed = m.sseParser((e) => out.push(e));
		const text = ": connected\n\nid: 1\nevent: odds\ndata: {\"a\":1}\n\n: keep-alive\n\r\nid: 2\r\nevent: odds\r\ndata: {\"b\":\r\ndata: 2}\r\n\r\n";
		for (let i = 0; i < text.length; i += 3) feed(text.slice(i, i + 3));
		return out;
	})()`, &got)
	want := `[map[data:{"a":1} event:odds id:1] map[data:{"b":
2} event:odds id:2]]`
	if fmt.Sprint(got) != want {
		t.Errorf("parsed %v\nwant %s", got, want)
	}
}

// TestStreamParserIDs: every id the stream sends is handed on, an id-only
// event's (a new stream's position) included, in order and after its
// event, so that a reconnection resumes after the last one read.
func TestStreamParserIDs(t *testing.T) {
	t.Parallel()
	tb := moduleTab(t)
	var got []string
	tb.call("stream.js", `(() => {
		const out = [];
		const feed = m.sseParser((e) => out.push("event " + e.event), (id) => out.push("id " + id));
		const text = ": connected\n\nid: e-0\n\nid: e-1-0\nevent: odds\ndata: {}\n\n: keep-alive\n\nevent: token_expired\ndata: {}\n\nid: e-1\nevent: odds\ndata: {}\n\n";
		for (let i = 0; i < text.length; i += 5) feed(text.slice(i, i + 5));
		return out;
	})()`, &got)
	want := "[id e-0 event odds id e-1-0 event token_expired event odds id e-1]"
	if fmt.Sprint(got) != want {
		t.Errorf("parsed %v\nwant %s", got, want)
	}
}
