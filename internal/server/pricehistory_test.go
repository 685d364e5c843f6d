package server_test

import (
	"context"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/foresight-dev/foresight/internal/admin"
	"github.com/foresight-dev/foresight/internal/cursor"
)

// TestMarketPriceHistory: every price change through the admin API adds a
// point (the same prices again add none); the history reads oldest first
// in windows and pages, priced with an operator's current margin when one
// is asked for; bad queries are 400 and unknown ids 404; on both
// databases.
func TestMarketPriceHistory(t *testing.T) {
	t.Parallel()
	forEachDatabase(t, func(t *testing.T, db string) {
		w := newWorld(t, db, worldOptions{noWorkers: true})
		st, _ := w.asAdmin(t, "POST", "/admin/v1/operators", `{"id":"acme","name":"Acme Bets","integration":"standalone","wallet_url":"https://wallet.acme.example",
			"signing_secret":"s3cret-s3cret-s3cret","jwks_url":"https://wallet.acme.example/.well-known/jwks.json",
			"currencies":[{"code":"USD","decimals":2}],"margin":{"method":"odds_ratio","value":"0.05"},
			"limits":{"USD":{"min_stake":"1","max_stake":"500","max_payout":"10000","outcome_exposure":"100000"}}}`)
		if st != 201 {
			t.Fatalf("create operator = %d", st)
		}
		st, ev := w.asAdmin(t, "POST", "/admin/v1/events", `{"category":"sports","title":{"en":"Final"},"markets":[{"question":{"en":"Who wins?"},
			"outcomes":[{"name":{"en":"Home"},"probability":"0.2"},{"name":{"en":"Away"},"probability":"0.8"}]}]}`)
		if st != 201 {
			t.Fatalf("create event = %d %v", st, ev)
		}
		m := ev["markets"].([]any)[0].(map[string]any)
		market := m["id"].(string)
		home := m["outcomes"].([]any)[0].(map[string]any)["id"].(string)
		away := m["outcomes"].([]any)[1].(map[string]any)["id"].(string)
		history := "/admin/v1/markets/" + market + "/price-history"

		// Points: the creation, then three changes; the repeat of 0.3/0.7
		// changes nothing.
		times := []string{ev["updated_at"].(string)}
		for _, p := range [][2]string{{"0.3", "0.7"}, {"0.30", "0.70"}, {"0.4", "0.6"}, {"0.5", "0.5"}} {
			st, e := w.asAdmin(t, "POST", "/admin/v1/markets/"+market+"/prices", map[string]any{"outcomes": []any{
				map[string]string{"id": home, "probability": p[0]}, map[string]string{"id": away, "probability": p[1]}}})
			if st != 200 {
				t.Fatalf("prices %v = %d %v", p, st, e)
			}
			if e["updated_at"].(string) != times[len(times)-1] {
				times = append(times, e["updated_at"].(string))
			}
		}
		if len(times) != 4 {
			t.Fatalf("the event changed %d times, want 3 (the repeated prices change nothing)", len(times)-1)
		}

		// items reads every page of query; each item as "at home/away".
		items := func(query string) []string {
			t.Helper()
			var out []string
			cursor := ""
			for range 10 {
				path := history + "?" + query
				if cursor != "" {
					path += "&cursor=" + url.QueryEscape(cursor)
				}
				st, page := w.asAdmin(t, "GET", path, nil)
				if st != 200 {
					t.Fatalf("GET %s = %d %v", path, st, page)
				}
				for _, it := range page["items"].([]any) {
					p := it.(map[string]any)
					o := p["outcomes"].([]any)
					h, a := o[0].(map[string]any), o[1].(map[string]any)
					if h["id"] != home || a["id"] != away {
						t.Fatalf("outcomes out of the market's order: %v", o)
					}
					out = append(out, p["at"].(string)+" "+h["probability"].(string)+"/"+a["probability"].(string))
				}
				next, _ := page["next_cursor"].(string)
				if next == "" {
					return out
				}
				cursor = next
			}
			t.Fatalf("GET %s pages on and on: %v", history+"?"+query, out)
			return nil
		}
		at := func(i int) time.Time {
			v, err := time.Parse(time.RFC3339Nano, times[i])
			if err != nil {
				t.Fatal(err)
			}
			return v
		}
		q := func(name string, v time.Time) string { return name + "=" + url.QueryEscape(v.Format(time.RFC3339Nano)) }
		point := []string{times[0] + " 0.2/0.8", times[1] + " 0.3/0.7", times[2] + " 0.4/0.6", times[3] + " 0.5/0.5"}
		tests := []struct {
			name, query string
			want        []string
		}{
			{"everything", "", point},
			{"pages of one", "limit=1", point},
			{"from a point", q("from", at(1)), point[1:]},
			{"from between points", q("from", at(1).Add(time.Microsecond)), point[1:]},
			{"from before the market", q("from", at(0).Add(-time.Hour)), point},
			{"to, exclusive", q("to", at(2)), point[:2]},
			{"a window in pages", q("from", at(1).Add(time.Microsecond)) + "&" + q("to", at(3)) + "&limit=1", point[1:3]},
			{"before the market", q("to", at(0)), nil},
		}
		for _, tc := range tests {
			if got := items(tc.query); strings.Join(got, ", ") != strings.Join(tc.want, ", ") {
				t.Errorf("%s: %v, want %v", tc.name, got, tc.want)
			}
		}

		// With an operator: its current margin prices every point.
		display := func() string {
			t.Helper()
			st, page := w.asAdmin(t, "GET", history+"?operator_id=acme&limit=1", nil)
			if st != 200 {
				t.Fatalf("history priced for acme = %d %v", st, page)
			}
			o := page["items"].([]any)[0].(map[string]any)["outcomes"].([]any)
			h, a := o[0].(map[string]any), o[1].(map[string]any)
			return h["display_odds"].(string) + " " + h["display_probability"].(string) + " / " + a["display_odds"].(string) + " " + a["display_probability"].(string)
		}
		if got := display(); got != "4.42 22.62 / 1.21 82.64" {
			t.Errorf("creation point at acme's odds-ratio 5%% = %s, want 4.42 22.62 / 1.21 82.64", got)
		}
		if st, p := w.asAdmin(t, "PATCH", "/admin/v1/operators/acme", `{"margin":{"method":"multiplicative","value":"0"}}`); st != 200 {
			t.Fatalf("patch margin = %d %v", st, p)
		}
		if got := display(); got != "5.00 20.00 / 1.25 80.00" {
			t.Errorf("creation point after the margin became 0 = %s, want 5.00 20.00 / 1.25 80.00", got)
		}
		if _, page := w.asAdmin(t, "GET", history+"?limit=1", nil); len(page["items"].([]any)[0].(map[string]any)["outcomes"].([]any)[0].(map[string]any)) != 2 {
			t.Errorf("without an operator an outcome has more than its id and probability: %v", page)
		}

		// The Go client reads the same history.
		var viaClient []admin.PricePoint
		next := ""
		for range 10 {
			page, after, err := w.admin.PriceHistory(context.Background(), market, admin.PriceHistoryQuery{OperatorID: "acme", Limit: 3, Cursor: next})
			if err != nil {
				t.Fatal(err)
			}
			viaClient = append(viaClient, page...)
			if next = after; next == "" {
				break
			}
		}
		if len(viaClient) != 4 || !viaClient[3].At.Equal(at(3)) || viaClient[3].Outcomes[1].Probability != "0.5" || viaClient[3].Outcomes[1].DisplayOdds != "2.00" {
			t.Errorf("client history = %+v", viaClient)
		}
		_, _, err := w.admin.PriceHistory(context.Background(), uuid.NewString(), admin.PriceHistoryQuery{})
		if p, ok := err.(*admin.Problem); !ok || p.Status != 404 {
			t.Errorf("client history of an unknown market: %v", err)
		}

		// Refusals.
		st, other := w.asAdmin(t, "POST", "/admin/v1/events", `{"category":"sports","title":{"en":"Semi"},"markets":[{"question":{"en":"Who wins?"},
			"outcomes":[{"name":{"en":"Home"},"probability":"0.5"},{"name":{"en":"Away"},"probability":"0.5"}]}]}`)
		if st != 201 {
			t.Fatalf("create event = %d", st)
		}
		otherMarket := other["markets"].([]any)[0].(map[string]any)["id"].(string)
		_, first := w.asAdmin(t, "GET", history+"?limit=1", nil)
		refusals := []struct {
			path   string
			status int
		}{
			{"/admin/v1/markets/" + uuid.NewString() + "/price-history", 404},
			{"/admin/v1/markets/not-a-uuid/price-history", 404},
			{history + "?operator_id=nobody", 404},
			{history + "?from=yesterday", 400},
			{history + "?to=2026-13-01T00:00:00Z", 400},
			{history + "?" + q("from", at(1)) + "&" + q("to", at(1)), 400},
			{history + "?" + q("from", at(2)) + "&" + q("to", at(1)), 400},
			{history + "?limit=0", 400},
			{history + "?limit=101", 400},
			{history + "?cursor=not-a-cursor", 400},
			{history + "?cursor=" + url.QueryEscape(first["next_cursor"].(string)+"x"), 400},
			{history + "?cursor=" + url.QueryEscape(cursor.Encode(at(0), otherMarket)), 400},
		}
		for _, r := range refusals {
			if st, p := w.asAdmin(t, "GET", r.path, nil); st != r.status {
				t.Errorf("GET %s = %d %v, want %d", r.path, st, p, r.status)
			}
		}
	})
}
