// Package webpagetest tests the ES modules the widget and the backoffice
// share (internal/webpage), in internal/browsertest's headless Chromium:
// a bare page served by webpage.Handler imports them and the tests call
// their functions.
package webpagetest

import (
	"encoding/json"
	"fmt"
	"net/http/httptest"
	"os"
	"testing"
	"testing/fstest"

	"github.com/foresight-dev/foresight/internal/browsertest"
	"github.com/foresight-dev/foresight/internal/webpage"
)

func TestMain(m *testing.M) { os.Exit(browsertest.Run(m)) }

// moduleTab opens a bare page that serves the shared modules, so that
// they can be imported and called.
func moduleTab(t *testing.T) *browsertest.Tab {
	t.Helper()
	browsertest.Browser(t)
	files := fstest.MapFS{"index.html": {Data: []byte("<!doctype html><title>shared modules</title>")}}
	srv := httptest.NewServer(webpage.Handler(webpage.Page{Root: "/page/", Files: files}))
	t.Cleanup(srv.Close)
	tb := browsertest.NewTab(t)
	tb.Navigate(srv.URL + "/page/")
	return tb
}

// TestDecimalRules: decimal.js reads an optional sign, digits and an
// optional fraction (nothing else), computes exactly and writes results
// without trailing zeros; its checks answer as documented.
func TestDecimalRules(t *testing.T) {
	t.Parallel()
	tb := moduleTab(t)
	tests := []struct {
		expr string
		want any // as JSON decodes it
	}{
		// What a decimal is.
		{`m.parse("10")`, map[string]any{"units": "10", "scale": 0.0}},
		{`m.parse(" -3.50 ")`, map[string]any{"units": "-350", "scale": 2.0}},
		{`m.parse("0.125")`, map[string]any{"units": "125", "scale": 3.0}},
		{`m.parse("+1")`, nil},
		{`m.parse(".5")`, nil},
		{`m.parse("1.")`, nil},
		{`m.parse("1e3")`, nil},
		{`m.parse("1,5")`, nil},
		{`m.parse("")`, nil},
		{`m.parse(null)`, nil},
		{`m.parse("--1")`, nil},

		// Exact results, written plainly.
		{`m.add("4.40", "0.60")`, "5"},
		{`m.add("0.1", "0.2")`, "0.3"},
		{`m.add("-3.5", "1.25")`, "-2.25"},
		{`m.add("10.00", "x")`, nil},
		{`m.sum([])`, "0"},
		{`m.sum(["0.35", "0.40", "0.25"])`, "1"},
		{`m.sum(["1", "2", "oops"])`, nil},
		{`m.difference("1", "1.000")`, "0"},
		{`m.difference("0.5", "0.75")`, "-0.25"},
		{`m.multiply("10.00", "4.42")`, "44.2"},
		{`m.multiply("0.1", "3")`, "0.3"},
		{`m.multiply("-2", "1.5")`, "-3"},
		{`m.multiply("999999999999999999", "999999.9999")`, "999999999899999999000000.0001"},

		// Comparisons.
		{`m.compare("1.50", "1.5")`, 0.0},
		{`m.compare("-0.01", "0")`, -1.0},
		{`m.compare("10", "9.999")`, 1.0},
		{`m.compare("1", "a")`, nil},
		{`m.max("2", "10")`, "10"},
		{`m.max("2.0", "2")`, "2.0"},
		{`m.max("x", "1")`, "x"},

		// Geometry and percentages.
		{`m.fraction("1", "4")`, 0.25},
		{`m.fraction("5", "4")`, 1.0},
		{`m.fraction("-1", "4")`, 0.0},
		{`m.fraction("1", "0")`, 0.0},
		{`m.percent("0.355")`, "35.5%"},
		{`m.percent("0.5")`, "50%"},
		{`m.percent("0.350")`, "35%"},
		{`m.percent("1")`, "100%"},
		{`m.percent("x")`, "—"},

		// Checks of typed input.
		{`m.isProbability("0.35")`, true},
		{`m.isProbability(".5")`, true},
		{`m.isProbability("0")`, false},
		{`m.isProbability("0.0")`, false},
		{`m.isProbability("1")`, false},
		{`m.isProbability("-0.5")`, false},
		{`m.stakeError("10.5", 2)`, nil},
		{`m.stakeError("10.555", 2)`, "decimals"},
		{`m.stakeError("-1", 2)`, "format"},
		{`m.stakeError("-0", 2)`, "format"},
		{`m.stakeError("010", 2)`, "format"},
		{`m.stakeError("0.00", 2)`, "format"},
	}
	for _, tc := range tests {
		var got any
		// BigInt has no JSON: units are written as strings.
		tb.Call("js/decimal.js", fmt.Sprintf("JSON.parse(JSON.stringify(%s, (k, v) => typeof v === 'bigint' ? String(v) : v))", tc.expr), &got)
		g, _ := json.Marshal(got)
		w, _ := json.Marshal(tc.want)
		if string(g) != string(w) {
			t.Errorf("%s = %s, want %s", tc.expr, g, w)
		}
	}
}

// TestSteps: a stepped line holds each point's value until the next point
// and the last one until the end.
func TestSteps(t *testing.T) {
	t.Parallel()
	tb := moduleTab(t)
	tests := []struct {
		points string
		want   string
	}{
		{`[]`, `[]`},
		{`[{at: 10, v: 5}]`, `[[10,5],[100,5]]`},
		{`[{at: 0, v: 1}, {at: 20, v: 3}, {at: 50, v: 2}]`, `[[0,1],[20,1],[20,3],[50,3],[50,2],[100,2]]`},
	}
	for _, tc := range tests {
		var got any
		tb.Call("js/steps.js", "m.steps("+tc.points+", (p) => p.at, (p) => p.v, 100)", &got)
		if g, _ := json.Marshal(got); string(g) != tc.want {
			t.Errorf("steps(%s) = %s, want %s", tc.points, g, tc.want)
		}
	}
}
