package polymarket

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/shopspring/decimal"

	"github.com/foresight-dev/foresight/internal/feed"
)

// binaryMarket is an open, tradable Yes/No market; a test case appends
// fields to it (in JSON the last of repeated keys wins).
const binaryMarket = `"id":"m1","question":"Will it?","outcomes":"[\"Yes\", \"No\"]","clobTokenIds":"[\"t-yes\", \"t-no\"]",` +
	`"active":true,"closed":false,"acceptingOrders":true,"umaResolutionStatus":"","spread":0.01`

func market(t testing.TB, fields string) rawMarket {
	t.Helper()
	var m rawMarket
	if err := json.Unmarshal([]byte("{"+binaryMarket+","+fields+"}"), &m); err != nil {
		t.Fatalf("market %s: %v", fields, err)
	}
	return m
}

var testRules = rules{maxSpread: decimal.RequireFromString(DefaultMaxSpread)}

func probs(m feed.Market) string {
	var out []string
	for _, o := range m.Outcomes {
		out = append(out, o.Probability.String())
	}
	return strings.Join(out, " ")
}

func TestMarketState(t *testing.T) {
	t.Parallel()
	three := `"outcomes":"[\"A\",\"B\",\"C\"]","clobTokenIds":"[\"ta\",\"tb\",\"tc\"]",`
	tests := []struct {
		name        string
		fields      string
		eventClosed bool
		state       feed.State
		winner      string
		probs       string
	}{
		// Open markets and their prices.
		{"open", `"outcomePrices":"[\"0.6\", \"0.4\"]"`, false, feed.Open, "", "0.6 0.4"},
		{"real arrays and numbers", `"outcomes":["Yes","No"],"clobTokenIds":["t-yes","t-no"],"outcomePrices":[0.6,0.4]`, false, feed.Open, "", "0.6 0.4"},
		{"numbers inside the string", `"outcomePrices":"[0.6, 0.4]"`, false, feed.Open, "", "0.6 0.4"},
		{"strings in a real array", `"outcomePrices":["0.25","0.75"]`, false, feed.Open, "", "0.25 0.75"},
		{"acceptingOrders absent", `"outcomePrices":"[\"0.6\",\"0.4\"]","acceptingOrders":null`, false, feed.Open, "", "0.6 0.4"},
		{"spread at the limit", `"outcomePrices":"[\"0.6\",\"0.4\"]","spread":"0.1"`, false, feed.Open, "", "0.6 0.4"},
		{"spread absent", `"outcomePrices":"[\"0.6\",\"0.4\"]","spread":null`, false, feed.Open, "", "0.6 0.4"},
		{"active lags: still true when open", `"outcomePrices":"[\"0.6\",\"0.4\"]","active":true`, false, feed.Open, "", "0.6 0.4"},
		{"sum below 1: renormalised", `"outcomePrices":"[\"0.62\",\"0.37\"]"`, false, feed.Open, "", "0.626263 0.373737"},
		{"sum above 1: renormalised", `"outcomePrices":"[\"0.50\",\"0.52\"]"`, false, feed.Open, "", "0.490196 0.509804"},
		{"renormalised tie: the first largest takes the rest", three + `"outcomePrices":"[\"0.3\",\"0.3\",\"0.3\"]"`, false, feed.Open, "", "0.333334 0.333333 0.333333"},
		{"three outcomes summing to 1", three + `"outcomePrices":"[\"0.2\",\"0.3\",\"0.5\"]"`, false, feed.Open, "", "0.2 0.3 0.5"},
		// Open markets the adapter suspends.
		{"price 0", `"outcomePrices":"[\"0\",\"1\"]"`, false, feed.Suspended, "", "0 0"},
		{"price 1 and a negative", `"outcomePrices":"[\"1.2\",\"-0.2\"]"`, false, feed.Suspended, "", "0 0"},
		{"prices missing", `"outcomePrices":null`, false, feed.Suspended, "", "0 0"},
		{"prices empty string", `"outcomePrices":""`, false, feed.Suspended, "", "0 0"},
		{"prices unreadable", `"outcomePrices":"[\"abc\",\"0.5\"]"`, false, feed.Suspended, "", "0 0"},
		{"fewer prices than outcomes", `"outcomePrices":"[\"0.5\"]"`, false, feed.Suspended, "", "0 0"},
		{"more prices than outcomes", `"outcomePrices":"[\"0.2\",\"0.3\",\"0.5\"]"`, false, feed.Suspended, "", "0 0"},
		{"unpriceable favourite (0.995)", `"outcomePrices":"[\"0.005\",\"0.995\"]"`, false, feed.Suspended, "", "0 0"},
		{"renormalised to zero", `"outcomePrices":"[\"0.0000001\",\"0.9\"]"`, false, feed.Suspended, "", "0 0"},
		{"not accepting orders", `"outcomePrices":"[\"0.6\",\"0.4\"]","acceptingOrders":false`, false, feed.Suspended, "", "0.6 0.4"},
		{"not active", `"outcomePrices":"[\"0.6\",\"0.4\"]","active":false`, false, feed.Suspended, "", "0.6 0.4"},
		{"spread too wide", `"outcomePrices":"[\"0.5\",\"0.5\"]","spread":1`, false, feed.Suspended, "", "0.5 0.5"},
		{"result proposed", `"outcomePrices":"[\"0.0005\",\"0.9995\"]","umaResolutionStatus":"proposed"`, false, feed.Suspended, "", "0 0"},
		{"result disputed, prices usable", `"outcomePrices":"[\"0.6\",\"0.4\"]","umaResolutionStatus":"disputed"`, false, feed.Suspended, "", "0.6 0.4"},
		{"resolved but not closed", `"outcomePrices":"[\"1\",\"0\"]","umaResolutionStatus":"resolved"`, false, feed.Suspended, "", "0 0"},
		{"event closed", `"outcomePrices":"[\"0.6\",\"0.4\"]"`, true, feed.Suspended, "", "0.6 0.4"},
		// Closed markets.
		{"resolved: first wins", `"closed":true,"umaResolutionStatus":"resolved","outcomePrices":"[\"1\",\"0\"]"`, false, feed.Resolved, "t-yes", "0 0"},
		{"resolved: second wins", `"closed":true,"umaResolutionStatus":"resolved","outcomePrices":"[\"0\",\"1\"]"`, false, feed.Resolved, "t-no", "0 0"},
		{"resolved, written 1.0 and 0.000", `"closed":true,"umaResolutionStatus":"resolved","outcomePrices":"[\"1.0\",\"0.000\"]"`, false, feed.Resolved, "t-yes", "0 0"},
		{"resolved, numbers", `"closed":true,"umaResolutionStatus":"resolved","outcomePrices":[0,1]`, false, feed.Resolved, "t-no", "0 0"},
		{"resolved, upper case status", `"closed":true,"umaResolutionStatus":" Resolved ","outcomePrices":"[\"1\",\"0\"]"`, false, feed.Resolved, "t-yes", "0 0"},
		{"resolved with active lagging", `"closed":true,"active":true,"acceptingOrders":false,"umaResolutionStatus":"resolved","outcomePrices":"[\"0\",\"1\"]"`, false, feed.Resolved, "t-no", "0 0"},
		{"resolved, three outcomes", three + `"closed":true,"umaResolutionStatus":"resolved","outcomePrices":"[\"0\",\"1\",\"0\"]"`, false, feed.Resolved, "tb", "0 0 0"},
		{"50-50", `"closed":true,"umaResolutionStatus":"resolved","outcomePrices":"[\"0.5\",\"0.5\"]"`, false, feed.Cancelled, "", "0 0"},
		{"50-50 as numbers", `"closed":true,"umaResolutionStatus":"resolved","outcomePrices":[0.50,0.5]`, false, feed.Cancelled, "", "0 0"},
		{"resolved 0/0", `"closed":true,"umaResolutionStatus":"resolved","outcomePrices":"[\"0\",\"0\"]"`, false, feed.Suspended, "", "0 0"},
		{"resolved 1/1", `"closed":true,"umaResolutionStatus":"resolved","outcomePrices":"[\"1\",\"1\"]"`, false, feed.Suspended, "", "0 0"},
		{"resolved 0.97/0.03", `"closed":true,"umaResolutionStatus":"resolved","outcomePrices":"[\"0.97\",\"0.03\"]"`, false, feed.Suspended, "", "0.97 0.03"},
		{"resolved 0.5/0.5/0", three + `"closed":true,"umaResolutionStatus":"resolved","outcomePrices":"[\"0.5\",\"0.5\",\"0\"]"`, false, feed.Suspended, "", "0 0 0"},
		{"resolved, prices missing", `"closed":true,"umaResolutionStatus":"resolved","outcomePrices":null`, false, feed.Suspended, "", "0 0"},
		{"resolved, prices of another count", `"closed":true,"umaResolutionStatus":"resolved","outcomePrices":"[\"1\",\"0\",\"0\"]"`, false, feed.Suspended, "", "0 0"},
		{"closed, pinned, not proposed", `"closed":true,"active":true,"outcomePrices":"[\"1\",\"0\"]"`, false, feed.Suspended, "", "0 0"},
		{"closed, proposed", `"closed":true,"umaResolutionStatus":"proposed","outcomePrices":"[\"1\",\"0\"]"`, false, feed.Suspended, "", "0 0"},
		{"closed, disputed", `"closed":true,"umaResolutionStatus":"disputed","outcomePrices":"[\"0\",\"1\"]"`, false, feed.Suspended, "", "0 0"},
		{"closed, unknown status", `"closed":true,"umaResolutionStatus":"reproposed","outcomePrices":"[\"0\",\"1\"]"`, false, feed.Suspended, "", "0 0"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			m := market(t, tt.fields)
			got, err := testRules.mapMarket(&rawEvent{Title: "E", Closed: tt.eventClosed}, &m)
			if err != nil {
				t.Fatal(err)
			}
			if got.State != tt.state || got.Winner != tt.winner || probs(got) != tt.probs {
				t.Errorf("state %s winner %q probabilities %q; want %s %q %q", got.State, got.Winner, probs(got), tt.state, tt.winner, tt.probs)
			}
		})
	}
}

func TestMapMarketFields(t *testing.T) {
	t.Parallel()
	e := &rawEvent{Title: "Michigan Republican Senate Primary Winner"}
	m := market(t, `"id":4711,"question":"  ","groupItemTitle":"Mike Rogers","outcomePrices":"[\"0.6\",\"0.4\"]",`+
		`"image":"http://x/a.png","icon":"https://cdn.example/b.png","gameStartTime":"2025-06-10 23:10:00+00","endDate":"2025-06-17T23:10:00Z"`)
	got, err := testRules.mapMarket(e, &m)
	if err != nil {
		t.Fatal(err)
	}
	if got.Key != "4711" || got.Question["en"] != "Michigan Republican Senate Primary Winner: Mike Rogers" {
		t.Errorf("key %q question %q", got.Key, got.Question)
	}
	if got.ImageURL != "https://cdn.example/b.png" {
		t.Errorf("image %q", got.ImageURL)
	}
	if got.ClosesAt == nil || got.ClosesAt.Format("2006-01-02T15:04:05Z07:00") != "2025-06-10T23:10:00Z" {
		t.Errorf("closes at %v: want the game's start, never endDate", got.ClosesAt)
	}
	if got.Outcomes[0].Key != "t-yes" || got.Outcomes[1].Name["en"] != "No" {
		t.Errorf("outcomes %+v", got.Outcomes)
	}
	m = market(t, `"outcomePrices":"[\"0.6\",\"0.4\"]"`)
	if got, _ := testRules.mapMarket(e, &m); got.ClosesAt != nil {
		t.Errorf("a market without gameStartTime has no closing time; got %v", got.ClosesAt)
	}
}

func TestMapMarketRefuses(t *testing.T) {
	t.Parallel()
	var many []string
	for i := range 21 {
		many = append(many, fmt.Sprintf(`\"o%d\"`, i))
	}
	list := "[" + strings.Join(many, ",") + "]"
	tests := []struct{ name, fields string }{
		{"no id", `"id":null`},
		{"empty id", `"id":""`},
		{"no question nor group title", `"question":""`},
		{"outcomes missing", `"outcomes":null`},
		{"outcomes not an array", `"outcomes":"Yes, No"`},
		{"one outcome", `"outcomes":"[\"Yes\"]","clobTokenIds":"[\"a\"]"`},
		{"21 outcomes", `"outcomes":"` + list + `","clobTokenIds":"` + list + `"`},
		{"an empty outcome", `"outcomes":"[\"Yes\",\" \"]"`},
		{"token ids missing", `"clobTokenIds":null`},
		{"token ids empty", `"clobTokenIds":"[]"`},
		{"a token per outcome missing", `"clobTokenIds":"[\"a\"]"`},
		{"token repeated", `"clobTokenIds":"[\"a\",\"a\"]"`},
		{"token empty", `"clobTokenIds":"[\"a\",\"\"]"`},
		{"token an object", `"clobTokenIds":[{"id":"a"},"b"]`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			m := market(t, tt.fields)
			if got, err := testRules.mapMarket(&rawEvent{}, &m); err == nil {
				t.Errorf("mapped to %+v", got)
			}
		})
	}
}

func TestCategory(t *testing.T) {
	t.Parallel()
	tags := func(slugs ...string) []rawTag {
		var out []rawTag
		for _, s := range slugs {
			out = append(out, rawTag{Slug: s})
		}
		return out
	}
	tests := []struct {
		name     string
		e        rawEvent
		def      string
		want     string
		wantOK   bool
		ownRules []CategoryRule
	}{
		{"sport", rawEvent{Tags: tags("sports", "mlb")}, "", "sports", true, nil},
		{"politics", rawEvent{Tags: tags("politics")}, "", "elections", true, nil},
		{"crypto wins over politics", rawEvent{Tags: tags("politics", "crypto", "trump")}, "", "crypto", true, nil},
		{"climate wins over science", rawEvent{Tags: tags("science", "climate")}, "", "climate", true, nil},
		{"economy wins over politics", rawEvent{Tags: tags("politics", "fed-rates")}, "", "economy", true, nil},
		{"slugs are compared without case", rawEvent{Tags: tags(" NBA ")}, "", "sports", true, nil},
		{"legacy category field", rawEvent{Category: "Crypto"}, "", "crypto", true, nil},
		{"legacy category with a space", rawEvent{Category: "Pop Culture"}, "", "", false, nil},
		{"unmapped, no default", rawEvent{Tags: tags("pop-culture", "music")}, "", "", false, nil},
		{"unmapped, default", rawEvent{Tags: tags("pop-culture")}, "technology", "technology", true, nil},
		{"no tags", rawEvent{}, "", "", false, nil},
		{"own rules in their order", rawEvent{Tags: tags("pop-culture", "music")}, "", "technology", true,
			[]CategoryRule{{Tag: "music", Category: "technology"}, {Tag: "pop-culture", Category: "economy"}}},
		{"own rule for a legacy category", rawEvent{Category: "Pop Culture"}, "", "economy", true,
			[]CategoryRule{{Tag: "Pop-Culture", Category: "economy"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			r := tt.ownRules
			if r == nil {
				r = DefaultCategories()
			}
			got, ok := category(r, tt.def, &tt.e)
			if got != tt.want || ok != tt.wantOK {
				t.Errorf("category = %q, %v; want %q, %v", got, ok, tt.want, tt.wantOK)
			}
		})
	}
}

func TestDefaultCategoriesAreValid(t *testing.T) {
	t.Parallel()
	if _, err := New(Config{Categories: DefaultCategories()}); err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	for _, r := range DefaultCategories() {
		if seen[r.Tag] || r.Tag != strings.ToLower(r.Tag) {
			t.Errorf("tag %q repeated or not lower case", r.Tag)
		}
		seen[r.Tag] = true
	}
}

func TestText(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, in string
		wantLen  int
	}{
		{"trimmed", "  Fed decision?\n", len("Fed decision?")},
		{"ascii cut at 2000", strings.Repeat("a", 2500), 2000},
		{"multi-byte cut at a rune", strings.Repeat("é", 1500), 2000},
		{"three-byte runes", strings.Repeat("€", 700), 1998},
		{"invalid UTF-8 replaced", "a\xffb", len("a\uFFFDb")},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got := text(tt.in)
			if len(got) != tt.wantLen || !utf8.ValidString(got) {
				t.Errorf("len %d (valid %v), want %d", len(got), utf8.ValidString(got), tt.wantLen)
			}
		})
	}
	if texts("  ") != nil {
		t.Error("a blank text must be absent")
	}
}

func TestHTTPSURL(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in   []string
		want string
	}{
		{[]string{"https://a.example/x.png"}, "https://a.example/x.png"},
		{[]string{"http://a.example/x.png", "https://b.example/y.png"}, "https://b.example/y.png"},
		{[]string{"http://a.example/x.png"}, ""},
		{[]string{"https:///x.png", "//a.example/x.png", "x.png", ""}, ""},
		{[]string{" https://a.example/x.png "}, "https://a.example/x.png"},
	}
	for _, tt := range tests {
		if got := httpsURL(tt.in...); got != tt.want {
			t.Errorf("httpsURL(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestParseStringsAndDecimals(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, raw string
		strs      string // joined by "|", or "error"
		decs      string // joined by " ", or "error"
	}{
		{"encoded strings", `"[\"0.20\", \"0.80\"]"`, "0.20|0.80", "0.2 0.8"},
		{"encoded numbers", `"[0.2, 0.8]"`, "0.2|0.8", "0.2 0.8"},
		{"array of strings", `["0.20","0.80"]`, "0.20|0.80", "0.2 0.8"},
		{"array of numbers", `[0.2, 0.8]`, "0.2|0.8", "0.2 0.8"},
		{"long token number keeps its digits", `[115093477542595845459769642510663906754645636077470857739371815633441497856930]`,
			"115093477542595845459769642510663906754645636077470857739371815633441497856930", "error"},
		{"exponent", `["1e-3"]`, "1e-3", "0.001"},
		{"huge exponent", `["1e999999999"]`, "1e999999999", "error"},
		{"null", `null`, "error", "error"},
		{"empty string", `""`, "error", "error"},
		{"empty array", `"[]"`, "", ""},
		{"not an array", `"Yes"`, "error", "error"},
		{"object", `{"a":1}`, "error", "error"},
		{"nested array", `[["0.5"]]`, "error", "error"},
		{"bool", `[true]`, "error", "error"},
		{"not a number", `["abc"]`, "abc", "error"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			s, err := parseStrings(json.RawMessage(tt.raw))
			got := strings.Join(s, "|")
			if err != nil {
				got = "error"
			}
			if got != tt.strs {
				t.Errorf("parseStrings = %q (%v), want %q", got, err, tt.strs)
			}
			d, err := parseDecimals(json.RawMessage(tt.raw))
			var parts []string
			for _, x := range d {
				parts = append(parts, x.String())
			}
			got = strings.Join(parts, " ")
			if err != nil {
				got = "error"
			}
			if got != tt.decs {
				t.Errorf("parseDecimals = %q (%v), want %q", got, err, tt.decs)
			}
		})
	}
}

func TestParseTime(t *testing.T) {
	t.Parallel()
	tests := map[string]string{
		"2025-06-10T23:10:00Z":             "2025-06-10T23:10:00Z",
		"2025-06-10T19:10:00-04:00":        "2025-06-10T23:10:00Z",
		"2025-06-10 23:10:00+00":           "2025-06-10T23:10:00Z",
		"2026-02-02 16:30:13.656772+00":    "2026-02-02T16:30:13.656772Z",
		"2025-06-10 23:10:00+00:00":        "2025-06-10T23:10:00Z",
		"2025-06-10T23:10:00.123456789Z":   "2025-06-10T23:10:00.123456789Z",
		"":                                 "",
		"June 10":                          "",
		"2025-06-10":                       "",
		"2025-06-10T23:10:00Z trailing me": "",
	}
	for in, want := range tests {
		got := ""
		if p := parseTime(in); p != nil {
			got = p.Format("2006-01-02T15:04:05.999999999Z07:00")
		}
		if got != want {
			t.Errorf("parseTime(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestRenormalise(t *testing.T) {
	t.Parallel()
	tests := []struct{ in, want string }{
		{"0.62 0.37", "0.626263 0.373737"},
		{"0.3 0.3 0.3", "0.333334 0.333333 0.333333"},
		{"0.1 0.2 0.3 0.3", "0.111111 0.222222 0.333334 0.333333"},
		{"0.7 0.7", "0.5 0.5"},
		{"0.01 0.01 0.97", "0.010101 0.010101 0.979798"},
	}
	for _, tt := range tests {
		var ps []decimal.Decimal
		sum := decimal.Zero
		for _, f := range strings.Fields(tt.in) {
			p := decimal.RequireFromString(f)
			ps = append(ps, p)
			sum = sum.Add(p)
		}
		out := renormalise(ps, sum)
		var parts []string
		total := decimal.Zero
		for _, p := range out {
			parts = append(parts, p.String())
			total = total.Add(p)
		}
		if got := strings.Join(parts, " "); got != tt.want || !total.Equal(one) {
			t.Errorf("renormalise(%s) = %s (sum %s), want %s", tt.in, got, total, tt.want)
		}
	}
}

func newTestSource(t testing.TB) *Source {
	t.Helper()
	s, err := New(Config{})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func TestMapEventOfferRules(t *testing.T) {
	t.Parallel()
	open := func(id int) string {
		return fmt.Sprintf(`{"id":"%d","question":"Q%d?","active":true,"acceptingOrders":true,"outcomes":"[\"Yes\",\"No\"]",`+
			`"outcomePrices":"[\"0.3\",\"0.7\"]","clobTokenIds":"[\"y%d\",\"n%d\"]"}`, id, id, id, id)
	}
	manyMarkets := func(n int) string {
		var ms []string
		for i := range n {
			ms = append(ms, open(i+1))
		}
		return strings.Join(ms, ",")
	}
	placeholder := `{"id":"90","question":"Will Person A win?","active":false,"closed":false,"outcomes":"[\"Yes\",\"No\"]","outcomePrices":"[\"0\",\"1\"]","clobTokenIds":"[\"pa\",\"pb\"]"}`
	other := `{"id":"91","question":"Will another person win?","active":true,"negRiskOther":true,"acceptingOrders":true,"outcomes":"[\"Yes\",\"No\"]","outcomePrices":"[\"0.1\",\"0.9\"]","clobTokenIds":"[\"oa\",\"ob\"]"}`
	suspended := `{"id":"92","question":"Q?","active":true,"acceptingOrders":false,"outcomes":"[\"Yes\",\"No\"]","outcomePrices":"[\"0.3\",\"0.7\"]","clobTokenIds":"[\"sa\",\"sb\"]"}`
	closedNamed := `{"id":"93","question":"Will Ann win?","active":false,"closed":true,"umaResolutionStatus":"resolved","outcomes":"[\"Yes\",\"No\"]","outcomePrices":"[\"0\",\"1\"]","clobTokenIds":"[\"ca\",\"cb\"]"}`
	tests := []struct {
		name        string
		event       string
		offered     int // markets of the offered event; -1: not offered
		trackedKeys int // markets reported when tracked; -1: left out
	}{
		{"plain", `"markets":[` + open(1) + `]`, 1, 1},
		{"placeholder and Other skipped", `"negRisk":true,"negRiskAugmented":true,"markets":[` + open(1) + "," + placeholder + "," + other + `]`, 1, 3},
		{"placeholders need a negRisk event", `"markets":[` + open(1) + "," + placeholder + `]`, 2, 2},
		{"closed children are not placeholders", `"negRisk":true,"markets":[` + open(1) + "," + closedNamed + `]`, 2, 2},
		{"only placeholders", `"negRisk":true,"markets":[` + placeholder + `]`, -1, 1},
		{"no open market", `"markets":[` + suspended + `]`, -1, 1},
		{"closed event", `"closed":true,"markets":[` + open(1) + `]`, -1, 1},
		{"50 markets", `"markets":[` + manyMarkets(50) + `]`, 50, 50},
		{"51 markets", `"markets":[` + manyMarkets(51) + `]`, -1, 51},
		{"no markets", `"markets":[]`, -1, -1},
		{"no title", `"title":"","markets":[` + open(1) + `]`, -1, -1},
	}
	s := newTestSource(t)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var e rawEvent
			if err := json.Unmarshal([]byte(`{"id":"7","title":"Event","tags":[{"slug":"crypto"}],`+tt.event+`}`), &e); err != nil {
				t.Fatal(err)
			}
			for _, c := range []struct {
				tracked bool
				want    int
			}{{false, tt.offered}, {true, tt.trackedKeys}} {
				ev, why := s.mapEvent(&e, c.tracked)
				got := len(ev.Markets)
				if why != "" {
					got = -1
				}
				if got != c.want {
					t.Errorf("tracked=%v: %d markets (%s), want %d", c.tracked, got, why, c.want)
				}
			}
		})
	}
}

// FuzzMapMarket checks that any market JSON maps without panicking and
// that what is reported keeps the feed's promises.
func FuzzMapMarket(f *testing.F) {
	for _, name := range []string{"events_page1.json", "events_page2.json"} {
		b, err := os.ReadFile(filepath.Join("testdata", name))
		if err != nil {
			f.Fatal(err)
		}
		var events []struct {
			Markets []json.RawMessage `json:"markets"`
		}
		if err := json.Unmarshal(b, &events); err != nil {
			f.Fatal(err)
		}
		for _, e := range events {
			for _, m := range e.Markets {
				f.Add([]byte(m))
			}
		}
	}
	f.Add([]byte(`{` + binaryMarket + `,"closed":true,"umaResolutionStatus":"resolved","outcomePrices":[0.5,0.5]}`))
	f.Add([]byte(`{` + binaryMarket + `,"outcomePrices":"[\"1e-39\",\"1e39\"]"}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		var m rawMarket
		if json.Unmarshal(data, &m) != nil {
			return
		}
		got, err := testRules.mapMarket(&rawEvent{Title: "E"}, &m)
		if err != nil {
			return
		}
		if got.Key == "" || got.Question["en"] == "" || len(got.Outcomes) < 2 || len(got.Outcomes) > 20 {
			t.Fatalf("reported an unusable market: %+v", got)
		}
		var keys []string
		sum := decimal.Zero
		for _, o := range got.Outcomes {
			if o.Key == "" || o.Name["en"] == "" || slices.Contains(keys, o.Key) {
				t.Fatalf("bad outcome %+v", o)
			}
			keys = append(keys, o.Key)
			sum = sum.Add(o.Probability)
		}
		switch got.State {
		case feed.Open:
			if !sum.Equal(one) {
				t.Fatalf("open market with probabilities summing to %s", sum)
			}
			for _, o := range got.Outcomes {
				if !o.Probability.IsPositive() || !o.Probability.LessThan(one) {
					t.Fatalf("open market with probability %s", o.Probability)
				}
			}
		case feed.Resolved:
			if !slices.Contains(keys, got.Winner) || !m.Closed {
				t.Fatalf("resolved market with winner %q of %v (closed %v)", got.Winner, keys, m.Closed)
			}
		case feed.Cancelled:
			if !m.Closed || len(got.Outcomes) != 2 {
				t.Fatalf("cancelled market %+v", got)
			}
		case feed.Suspended:
			if !sum.IsZero() && !sum.Equal(one) {
				t.Fatalf("suspended market with probabilities summing to %s", sum)
			}
		default:
			t.Fatalf("state %q", got.State)
		}
		if got.State != feed.Resolved && got.Winner != "" {
			t.Fatalf("winner %q on a %s market", got.Winner, got.State)
		}
	})
}
