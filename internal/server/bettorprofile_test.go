package server_test

import (
	"fmt"
	"net/http/httptest"
	"testing"

	"github.com/google/uuid"
)

// TestAggregatorProfileHidesBalance: once a player has bet, the wallet's
// answers have reported a balance; a profile read whose Player/Balance
// fails (an error answer, or the casino's wallet stopped) still hides the
// balance instead of showing that older one (aggregator-api.md, behaviour
// rule 1).
func TestAggregatorProfileHidesBalance(t *testing.T) {
	t.Parallel()
	forEachDatabase(t, func(t *testing.T, db string) {
		aw := newAggWorld(t, db, nil)
		wallet := httptest.NewServer(aw.casino.Handler())
		if st, p := aw.admin("PATCH", "/admin/v1/operators/agg", fmt.Sprintf(`{"wallet_url":%q}`, wallet.URL)); st != 200 {
			t.Fatalf("PATCH wallet_url = %d %v", st, p)
		}
		token := aw.session("player-10", "EUR", uuid.NewString())
		aw.placeConfirmed(token, aw.outcome[0], "10.00")
		if me := aw.api("GET", "/api/v1/auth/me", token, "").json(t); me["balance"] != "90" && me["balance"] != "90.00" {
			t.Fatalf("auth/me after the bet = %v, want the casino's balance 90", me)
		}
		aw.casino.FailNext("balance", 1, 500)
		if me := aw.api("GET", "/api/v1/auth/me", token, "").json(t); me["balance"] != nil {
			t.Errorf("auth/me with a failing Player/Balance after a bet = %v, want a null balance", me)
		}
		wallet.Close()
		if me := aw.api("GET", "/api/v1/auth/me", token, "").json(t); me["balance"] != nil {
			t.Errorf("auth/me with the casino's wallet stopped after a bet = %v, want a null balance", me)
		}
	})
}
