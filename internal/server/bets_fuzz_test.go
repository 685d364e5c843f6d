package server_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/uuid"
)

// FuzzPlaceBody sends arbitrary bodies to POST /api/v1/bettor/bets. Every
// answer is a 202 or a 4xx that matches api/bettor.yaml, never a 5xx, and
// only a 202 creates a bet. In the bodies, $M and $O stand for the real
// market and outcome ids, so mutations start from requests that work.
//
// go test ./internal/server -run '^$' -fuzz FuzzPlaceBody -fuzztime 60s
func FuzzPlaceBody(f *testing.F) {
	for _, seed := range []string{
		`{"market_id":"$M","outcome_id":"$O","stake":"10.00"}`,
		`{"market_id":"$M","outcome_id":"$O","stake":"1"}`,
		`{"market_id":"$M","outcome_id":"$O","stake":"0.001"}`,
		`{"market_id":"$M","outcome_id":"$O","stake":"1e2"}`,
		`{"market_id":"$M","outcome_id":"$O","stake":" 5"}`,
		`{"market_id":"$M","outcome_id":"$O","stake":"-0.00"}`,
		`{"market_id":"$M","outcome_id":"$O","stake":"99999999999999999999999999.99"}`,
		`{"market_id":"$M","outcome_id":"$O","stake":10}`,
		`{"market_id":"$M","outcome_id":"$O","stake":null}`,
		`{"market_id":"$M","outcome_id":"$O","stake":"10.00","stake":"20.00"}`,
		`{"market_id":"$M","outcome_id":"$M","stake":"10.00"}`,
		`{"market_id":"$O","outcome_id":"$O","stake":"10.00"}`,
		`{"market_id":1,"outcome_id":"$O","stake":"10.00"}`,
		`{"market_id":"$M","outcome_id":"$O","stake":"10.00"} {}`,
		`[]`, `null`, ``, `{`, "{\"market_id\":\"$M\u0000\",\"outcome_id\":\"$O\",\"stake\":\"1\"}",
	} {
		f.Add(seed)
	}
	bw := newBettingWorld(f, "sqlite:"+f.TempDir()+"/fuzz.db")
	token := bw.bettor("fuzzer", "1000000.00")
	accepted := 0
	f.Fuzz(func(t *testing.T, body string) {
		body = strings.NewReplacer("$M", bw.market, "$O", bw.outcome[0]).Replace(body)
		r := bw.request(t, "POST", "/api/v1/bettor/bets", token, body, "Idempotency-Key", uuid.NewString())
		switch {
		case r.status == 202:
			accepted++
		case r.status >= 500 || r.status < 400:
			t.Fatalf("%s → %d %s", body, r.status, r.body)
		}
		var p struct {
			Positions int `json:"total_positions"`
		}
		if err := json.Unmarshal(bw.request(t, "GET", "/api/v1/bettor/portfolio", token, "").body, &p); err != nil || p.Positions != accepted {
			t.Fatalf("%s → %d; %d positions after %d accepted bets (%v)", body, r.status, p.Positions, accepted, err)
		}
	})
}
