package server_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/google/uuid"
)

// TestBettorPriceHistory: a bettor reads an outcome's price history at
// their operator's current margin, oldest first, from the market's opening
// price to its price now (the one the event read shows), thinned to the
// points asked for with the first and the last kept; bad ids and
// parameters are refused in the bettor API's own shapes; on both
// databases.
func TestBettorPriceHistory(t *testing.T) {
	t.Parallel()
	forEachDatabase(t, func(t *testing.T, db string) {
		bw := newBettingWorld(t, db)
		alice := bw.bettor("alice", "100.00")
		home, away := bw.outcome[0], bw.outcome[1]
		for _, p := range [][2]string{{"0.25", "0.75"}, {"0.2501", "0.7499"}, {"0.3", "0.7"}, {"0.35", "0.65"}} {
			if st, e := bw.admin("POST", "/admin/v1/markets/"+bw.market+"/prices",
				fmt.Sprintf(`{"outcomes":[{"id":%q,"probability":%q},{"id":%q,"probability":%q}]}`, home, p[0], away, p[1])); st != 200 {
				t.Fatalf("prices %v = %d %v", p, st, e)
			}
		}
		base := "/api/v1/markets/" + bw.market + "/price-history"
		// read answers "odds chance" per point, checking the envelope.
		read := func(token, outcome, query string) []string {
			t.Helper()
			r := bw.api("GET", base+"?outcome_id="+outcome+query, token, "")
			if r.status != 200 {
				t.Fatalf("price history = %d %s", r.status, r.body)
			}
			h := r.json(t)
			if h["market_id"] != bw.market || h["outcome_id"] != strings.ToLower(outcome) {
				t.Errorf("history of %v/%v, asked for %s/%s", h["market_id"], h["outcome_id"], bw.market, outcome)
			}
			var out []string
			for _, it := range h["points"].([]any) {
				p := it.(map[string]any)
				if _, ok := p["at"].(string); !ok {
					t.Errorf("a point without its time: %v", p)
				}
				out = append(out, p["display_odds"].(string)+" "+p["display_probability"].(string))
			}
			return out
		}
		// Odds ratio 5 %: 0.2 → 4.42, 0.25 → 3.62 (0.2501 shows alike: one
		// point), 0.3 → 3.07, 0.35 → 2.66.
		want := "4.42 22.62, 3.62 27.62, 3.07 32.57, 2.66 37.59"
		if got := strings.Join(read(alice, home, ""), ", "); got != want {
			t.Errorf("Home's history = %s, want %s", got, want)
		}
		if got := strings.Join(read(alice, strings.ToUpper(home), "&points=120"), ", "); got != want {
			t.Errorf("Home's history by an upper-case id = %s, want %s", got, want)
		}
		if got, want := strings.Join(read(alice, home, "&points=2"), ", "), "4.42 22.62, 2.66 37.59"; got != want {
			t.Errorf("Home's history in 2 points = %s, want the first and the last, %s", got, want)
		}
		if got, want := read(alice, away, ""), 4; len(got) != want || got[3] != "1.48 67.57" {
			t.Errorf("Away's history = %v, want 4 points ending at 1.48 67.57", got)
		}
		ev := bw.api("GET", "/api/v1/events/"+eventOf(t, bw, alice), alice, "").json(t)
		now := ev["markets"].([]any)[0].(map[string]any)["outcomes"].([]any)[0].(map[string]any)
		if now["display_odds"] != "2.66" || now["display_probability"] != "37.59" {
			t.Errorf("the event read shows Home at %v %v; the history ends at 2.66 37.59", now["display_odds"], now["display_probability"])
		}

		// The operator's current margin prices the whole history; without
		// a margin 0.2501 no longer shows as 0.25 did.
		if st, p := bw.admin("PATCH", "/admin/v1/operators/sandbox", `{"margin":{"method":"multiplicative","value":"0"}}`); st != 200 {
			t.Fatalf("patch margin = %d %v", st, p)
		}
		if got, want := strings.Join(read(bw.bettor("bob", "10.00"), home, ""), ", "), "5.00 20.00, 4.00 25.00, 3.99 25.06, 3.33 30.03, 2.85 35.09"; got != want {
			t.Errorf("Home's history at a margin of 0 = %s, want %s", got, want)
		}

		for _, tc := range []struct {
			name, path, token string
			status            int
			contentType       string
		}{
			{"no token", base + "?outcome_id=" + home, "", 401, ""},
			{"a market id that is not a UUID", "/api/v1/markets/not-a-uuid/price-history?outcome_id=" + home, alice, 400, "text/plain"},
			{"no outcome_id", base, alice, 400, "application/problem+json"},
			{"an outcome_id that is not a UUID", base + "?outcome_id=home", alice, 400, "application/problem+json"},
			{"one point", base + "?outcome_id=" + home + "&points=1", alice, 400, "application/problem+json"},
			{"too many points", base + "?outcome_id=" + home + "&points=121", alice, 400, "application/problem+json"},
			{"points not a number", base + "?outcome_id=" + home + "&points=ten", alice, 400, "application/problem+json"},
			{"no such market", "/api/v1/markets/" + uuid.NewString() + "/price-history?outcome_id=" + home, alice, 404, "application/problem+json"},
			{"no such outcome in the market", base + "?outcome_id=" + uuid.NewString(), alice, 404, "application/problem+json"},
		} {
			r := bw.api("GET", tc.path, tc.token, "")
			if r.status != tc.status || !strings.HasPrefix(r.header.Get("Content-Type"), tc.contentType) || (tc.contentType == "") != (len(r.body) == 0) {
				t.Errorf("%s: %d %q %s, want %d %s", tc.name, r.status, r.header.Get("Content-Type"), r.body, tc.status, tc.contentType)
			}
		}
	})
}

// eventOf is the id of the bettingWorld's one event, as the bettor's
// event list shows it.
func eventOf(t *testing.T, bw *bettingWorld, token string) string {
	t.Helper()
	return bw.api("GET", "/api/v1/events", token, "").json(t)["items"].([]any)[0].(map[string]any)["id"].(string)
}
