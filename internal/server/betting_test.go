package server_test

import (
	"strings"
	"testing"
)

// TestAdminOperatorsAndCatalog sets up an operator and an event through the
// admin API, on both databases.
func TestAdminOperatorsAndCatalog(t *testing.T) {
	t.Parallel()
	forEachDatabase(t, func(t *testing.T, db string) {
		w := newWorld(t, db, worldOptions{noWorkers: true})
		operator := `{"id":"acme","name":"Acme Bets","integration":"standalone","wallet_url":"https://wallet.acme.example",
			"signing_secret":"s3cret-s3cret-s3cret","jwks_url":"https://wallet.acme.example/.well-known/jwks.json",
			"currencies":[{"code":"USD","decimals":2},{"code":"JPY","decimals":0}],
			"margin":{"method":"power","value":"0.05"},
			"limits":{"USD":{"min_stake":"1","max_stake":"500","max_payout":"10000","outcome_exposure":"100000"},
			          "JPY":{"min_stake":"100","max_stake":"50000","max_payout":"1000000","outcome_exposure":"10000000"}},
			"odds_tolerance":"0.03"}`
		st, op := w.asAdmin(t, "POST", "/admin/v1/operators", operator)
		if st != 201 || op["signing_secret"] != nil || op["id"] != "acme" {
			t.Fatalf("create operator = %d %v", st, op)
		}
		if st, p := w.asAdmin(t, "POST", "/admin/v1/operators", operator); st != 409 || p["code"] != "conflict" {
			t.Errorf("duplicate operator = %d %v", st, p)
		}
		for _, bad := range []string{`{"id":"x"}`, `{"id":"acme2","colour":1}`, strings.Replace(operator, `"acme"`, `"acme3"`, 1)[:40]} {
			if st, p := w.asAdmin(t, "POST", "/admin/v1/operators", bad); st != 400 || p["code"] != "invalid_request" {
				t.Errorf("bad operator %s = %d %v", bad, st, p)
			}
		}
		if st, p := w.asAdmin(t, "PATCH", "/admin/v1/operators/acme", `{"margin":{"method":"shin","value":"0.04"}}`); st != 200 || p["margin"].(map[string]any)["method"] != "shin" {
			t.Errorf("patch operator = %d %v", st, p)
		}
		if st, _ := w.asAdmin(t, "PATCH", "/admin/v1/operators/acme", `{"wallet_url":"http://insecure.example"}`); st != 400 {
			t.Errorf("insecure wallet URL accepted: %d", st)
		}
		if st, p := w.asAdmin(t, "GET", "/admin/v1/operators", nil); st != 200 || len(p["items"].([]any)) != 1 {
			t.Errorf("list operators = %d %v", st, p)
		}
		if st, _ := w.asAdmin(t, "GET", "/admin/v1/operators/nobody", nil); st != 404 {
			t.Errorf("missing operator = %d", st)
		}

		event := `{"category":"elections","title":{"en":"Mayor of Lisbon","pt-PT":"Presidente da Câmara de Lisboa"},
			"image_url":"https://img.example.com/lisbon.png",
			"markets":[{"question":{"en":"Who wins?"},"outcomes":[
				{"name":{"en":"Ana"},"probability":"0.5"},{"name":{"en":"Rui"},"probability":"0.3"},{"name":{"en":"Eva"},"probability":"0.2"}]}]}`
		st, ev := w.asAdmin(t, "POST", "/admin/v1/events", event)
		if st != 201 || ev["id"] == nil || ev["status"] != "open" {
			t.Fatalf("create event = %d %v", st, ev)
		}
		market := ev["markets"].([]any)[0].(map[string]any)
		outcomes := market["outcomes"].([]any)
		id := func(i int) string { return outcomes[i].(map[string]any)["id"].(string) }
		prices := `{"outcomes":[{"id":"` + id(0) + `","probability":"0.4"},{"id":"` + id(1) + `","probability":"0.4"},{"id":"` + id(2) + `","probability":"0.2"}]}`
		if st, p := w.asAdmin(t, "POST", "/admin/v1/markets/"+market["id"].(string)+"/prices", prices); st != 200 {
			t.Errorf("prices = %d %v", st, p)
		}
		if st, _ := w.asAdmin(t, "POST", "/admin/v1/markets/"+market["id"].(string)+"/prices", `{"outcomes":[{"id":"`+id(0)+`","probability":"1.4"}]}`); st != 400 {
			t.Errorf("bad prices = %d", st)
		}
		if st, p := w.asAdmin(t, "POST", "/admin/v1/markets/"+market["id"].(string)+"/suspend", nil); st != 200 || p["markets"].([]any)[0].(map[string]any)["status"] != "suspended" {
			t.Errorf("suspend = %d %v", st, p)
		}
		if st, _ := w.asAdmin(t, "POST", "/admin/v1/markets/"+market["id"].(string)+"/open", nil); st != 200 {
			t.Errorf("open = %d", st)
		}
		if st, p := w.asAdmin(t, "PATCH", "/admin/v1/events/"+ev["id"].(string), `{"title":{"en":"Lisbon mayor"}}`); st != 200 || p["title"].(map[string]any)["en"] != "Lisbon mayor" {
			t.Errorf("patch event = %d %v", st, p)
		}
		for _, path := range []string{"/admin/v1/events/not-a-uuid", "/admin/v1/markets/00000000-0000-4000-8000-000000000000/suspend"} {
			method := "GET"
			if strings.HasSuffix(path, "suspend") {
				method = "POST"
			}
			if st, _ := w.asAdmin(t, method, path, nil); st != 404 {
				t.Errorf("%s %s = %d, want 404", method, path, st)
			}
		}
		if st, _ := w.asAdmin(t, "POST", "/admin/v1/events", `{"category":"poker","title":{"en":"x"},"markets":[]}`); st != 400 {
			t.Errorf("bad event = %d", st)
		}

		// The catalog lists newest first, filtered and paged.
		st, sports := w.asAdmin(t, "POST", "/admin/v1/events", `{"category":"sports","title":{"en":"Final"},"markets":[{"question":{"en":"Who wins?"},
			"outcomes":[{"name":{"en":"Home"},"probability":"0.5"},{"name":{"en":"Away"},"probability":"0.5"}]}]}`)
		if st != 201 {
			t.Fatalf("create event = %d %v", st, sports)
		}
		listed := func(query string) []string {
			t.Helper()
			var ids []string
			cursor := ""
			for range 5 {
				path := "/admin/v1/events?" + query
				if cursor != "" {
					path += "&cursor=" + cursor
				}
				st, page := w.asAdmin(t, "GET", path, nil)
				if st != 200 {
					t.Fatalf("GET %s = %d %v", path, st, page)
				}
				for _, e := range page["items"].([]any) {
					ids = append(ids, e.(map[string]any)["id"].(string))
				}
				next, _ := page["next_cursor"].(string)
				if next == "" {
					return ids
				}
				cursor = next
			}
			t.Fatalf("GET /admin/v1/events?%s pages on and on: %v", query, ids)
			return nil
		}
		tests := []struct {
			query string
			want  []string
		}{
			{"limit=1", []string{sports["id"].(string), ev["id"].(string)}},
			{"category=Elections", []string{ev["id"].(string)}},
			{"status=open&category=sports", []string{sports["id"].(string)}},
			{"status=resolved", nil},
		}
		for _, tc := range tests {
			if got := listed(tc.query); strings.Join(got, ",") != strings.Join(tc.want, ",") {
				t.Errorf("events?%s = %v, want %v", tc.query, got, tc.want)
			}
		}
		for _, bad := range []string{"category=poker", "status=closed", "limit=0", "cursor=nonsense"} {
			if st, p := w.asAdmin(t, "GET", "/admin/v1/events?"+bad, nil); st != 400 || p["code"] != "invalid_request" {
				t.Errorf("events?%s = %d %v, want 400", bad, st, p)
			}
		}
	})
}
