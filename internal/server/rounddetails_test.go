package server_test

import (
	"bytes"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/google/uuid"

	"github.com/foresight-dev/foresight/internal/waitfor"
)

// walletGate sits between the platform and the sandbox casino: a wallet
// call it is armed for is processed by the casino at once, but its answer
// is held until the test releases it, so the casino has applied the call
// and the platform has not heard its 200. Every call that matches while it
// is armed is held (a resent call too), so no 200 of that kind can reach
// the platform before the release.
type walletGate struct {
	next  http.Handler
	mu    sync.Mutex
	holds []*heldCall
}

// heldCall is one arming of the gate.
type heldCall struct {
	path, marker string
	arrived      chan struct{} // closed when the first matching call has been processed
	release      chan struct{}
	once         sync.Once
}

// arm holds the answers of the calls to path whose body contains marker.
func (g *walletGate) arm(path, marker string) *heldCall {
	h := &heldCall{path: path, marker: marker, arrived: make(chan struct{}), release: make(chan struct{})}
	g.mu.Lock()
	g.holds = append(g.holds, h)
	g.mu.Unlock()
	return h
}

// open disarms the gate and lets the held answers go.
func (g *walletGate) open(h *heldCall) {
	g.mu.Lock()
	g.holds = slices.DeleteFunc(g.holds, func(x *heldCall) bool { return x == h })
	g.mu.Unlock()
	close(h.release)
}

func (g *walletGate) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	r.Body = io.NopCloser(bytes.NewReader(body))
	g.mu.Lock()
	i := slices.IndexFunc(g.holds, func(h *heldCall) bool {
		return strings.HasSuffix(r.URL.Path, h.path) && bytes.Contains(body, []byte(h.marker))
	})
	var h *heldCall
	if i >= 0 {
		h = g.holds[i]
	}
	g.mu.Unlock()
	if h == nil {
		g.next.ServeHTTP(w, r)
		return
	}
	rec := httptest.NewRecorder()
	g.next.ServeHTTP(rec, r)
	h.once.Do(func() { close(h.arrived) })
	select {
	case <-h.release:
	case <-r.Context().Done():
		return
	}
	for k, v := range rec.Header() {
		w.Header()[k] = v
	}
	w.WriteHeader(rec.Code)
	w.Write(rec.Body.Bytes())
}

// wait blocks until the held call has reached the casino.
func (h *heldCall) wait(t *testing.T) {
	t.Helper()
	waitfor.True(t, "the held "+h.path+" call", func() bool {
		select {
		case <-h.arrived:
			return true
		default:
			return false
		}
	})
}

// TestRoundDetailsBeforeTheAnswer: for every transition of the round
// table, Round/Details reads the earlier state while the aggregator's 200
// to the call that makes it has not reached the platform, and the new
// state once it has (aggregator-api.md, "States and transitions").
func TestRoundDetailsBeforeTheAnswer(t *testing.T) {
	t.Parallel()
	forEachDatabase(t, func(t *testing.T, db string) {
		aw := newAggWorld(t, db, nil)
		gate := &walletGate{next: aw.casino.Handler()}
		wallet := httptest.NewServer(gate)
		t.Cleanup(wallet.Close)
		if st, p := aw.admin("PATCH", "/admin/v1/operators/agg", fmt.Sprintf(`{"wallet_url":%q}`, wallet.URL)); st != 200 {
			t.Fatalf("PATCH wallet_url = %d %v", st, p)
		}
		st, ev := aw.admin("POST", "/admin/v1/events", `{"category":"sports","title":{"en":"Semi-final"},"markets":[
			{"question":{"en":"Cancelled?"},"outcomes":[{"name":{"en":"Yes"},"probability":"0.5"},{"name":{"en":"No"},"probability":"0.5"}]},
			{"question":{"en":"Resolved during the debit?"},"outcomes":[{"name":{"en":"Yes"},"probability":"0.5"},{"name":{"en":"No"},"probability":"0.5"}]},
			{"question":{"en":"Refused?"},"outcomes":[{"name":{"en":"Yes"},"probability":"0.5"},{"name":{"en":"No"},"probability":"0.5"}]}]}`)
		if st != 201 {
			t.Fatalf("create event = %d %v", st, ev)
		}
		type market struct{ id, outcome string }
		var more [3]market
		for i, m := range ev["markets"].([]any) {
			m := m.(map[string]any)
			more[i] = market{m["id"].(string), m["outcomes"].([]any)[0].(map[string]any)["id"].(string)}
		}
		token := aw.session("player-9", "EUR", uuid.NewString())
		place := func(m market) string {
			t.Helper()
			acc := aw.api("POST", "/api/v1/bettor/bets", token, fmt.Sprintf(`{"market_id":%q,"outcome_id":%q,"stake":"10.00"}`, m.id, m.outcome),
				"Idempotency-Key", uuid.NewString())
			if acc.status != 202 {
				t.Fatalf("place = %d %s", acc.status, acc.body)
			}
			return acc.json(t)["id"].(string)
		}
		// state reads Round/Details: the round's status, or "none" for
		// the spec's "no round with that identifier".
		state := func(id string) (string, map[string]any) {
			t.Helper()
			a := aw.details(id, "")
			if a.status == 400 && bytes.Contains(a.body, []byte(`"api_code":"404"`)) {
				return "none", nil
			}
			if a.status != 200 {
				t.Fatalf("Round/Details = %d %s", a.status, a.body)
			}
			d := a.json(t)["round_details"].(map[string]any)
			return d["status"].(string), d
		}
		expect := func(what, id, want string) map[string]any {
			t.Helper()
			got, d := state(id)
			if got != want {
				t.Errorf("%s: Round/Details says %s, want %s (%v)", what, got, want, d)
			}
			return d
		}
		eventually := func(what, id, want string) map[string]any {
			t.Helper()
			var d map[string]any
			waitfor.True(t, what, func() bool {
				var got string
				got, d = state(id)
				return got == want
			})
			return d
		}
		confirmed := func(id string) {
			t.Helper()
			if bet := aw.settled(token, id); bet["status"] != "confirmed" {
				t.Fatalf("bet %s = %v, want confirmed", id, bet)
			}
		}
		// rolledBack checks that the bet id (what) is rejected with code,
		// that its round stays before while its Round/Rollback hr is held,
		// and that the round is rejected with code once hr is answered.
		rolledBack := func(what, id, code, before string, hr *heldCall) {
			t.Helper()
			if bet := aw.settled(token, id); bet["status"] != "rejected" || bet["rejection_code"] != code {
				t.Fatalf("%s = %v, want rejected %s", what, bet, code)
			}
			hr.wait(t)
			expect("Rollback of "+what+" unanswered", id, before)
			gate.open(hr)
			if d := eventually("the rollback's confirmation of "+what, id, "rejected"); d["rejection_code"] != code {
				t.Errorf("%s: round = %v, want rejected %s", what, d, code)
			}
		}

		// (none) → pending: the stake's Round/BetWin.
		h := gate.arm("Round/BetWin", `"type":"bet"`)
		won := aw.place(token, uuid.NewString(), aw.outcome[0], "10.00").json(t)["id"].(string)
		h.wait(t)
		expect("stake's BetWin unanswered", won, "none")
		gate.open(h)
		confirmed(won)
		expect("stake's BetWin answered", won, "pending")
		lost := aw.place(token, uuid.NewString(), aw.outcome[1], "10.00").json(t)["id"].(string)
		confirmed(lost)
		voided := place(more[0])
		confirmed(voided)

		// pending → won (Round/BetWin win), pending → lost (Round/Finish).
		hw := gate.arm("Round/BetWin", `"round_id":"`+won+`"`)
		hf := gate.arm("Round/Finish", `"round_id":"`+lost+`"`)
		aw.resolve(aw.market, aw.outcome[0])
		hw.wait(t)
		hf.wait(t)
		if d := expect("win's BetWin unanswered", won, "pending"); d != nil && (d["payout"] != nil || d["settled_at"] != nil) {
			t.Errorf("pending round with a payout or settled_at: %v", d)
		}
		expect("Round/Finish unanswered", lost, "pending")
		gate.open(hw)
		gate.open(hf)
		if d := eventually("the win's confirmation", won, "won"); d["payout"] != "44.214" {
			t.Errorf("won round = %v", d)
		}
		if d := eventually("the loss's confirmation", lost, "lost"); d["payout"] != "0.00" {
			t.Errorf("lost round = %v", d)
		}

		// pending → voided: a win of the stake.
		hv := gate.arm("Round/BetWin", `"round_id":"`+voided+`"`)
		if st, p := aw.admin("POST", "/admin/v1/markets/"+more[0].id+"/cancel", ""); st != 200 {
			t.Fatalf("cancel = %d %v", st, p)
		}
		hv.wait(t)
		expect("void's BetWin unanswered", voided, "pending")
		gate.open(hv)
		if d := eventually("the void's confirmation", voided, "voided"); d["payout"] != "10" && d["payout"] != "10.00" {
			t.Errorf("voided round = %v", d)
		}

		// pending → rejected: the debit stood, the market resolved while
		// its answer was on the way, and the Round/Rollback reverses it.
		hb := gate.arm("Round/BetWin", `"type":"bet"`)
		standing := place(more[1])
		hb.wait(t)
		aw.resolve(more[1].id, more[1].outcome)
		hr := gate.arm("Round/Rollback", `"round_id_provider":"`+standing+`"`)
		gate.open(hb)
		rolledBack("a bet debited on a resolved market", standing, "wallet_rolled_back", "pending", hr)

		// (none) → rejected: a debit refused with a final code of no
		// meaning of its own is reversed all the same.
		aw.casino.RejectNext("betwin", 1, "404")
		hr = gate.arm("Round/Rollback", `"original_id_provider":"wd-`)
		refused := place(more[2])
		rolledBack("a refused debit", refused, "bet_rejected_other", "none", hr)
	})
}
