package widgettest

import (
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"
)

// trap holds the tab's requests of one method and path prefix (at the
// request stage, before they reach the server) once armed, until opened.
type trap struct {
	method, prefix string
	mu             sync.Mutex
	armed          bool
	arrived        chan struct{}
	release        chan struct{}
	once           sync.Once
}

func newTrap(method, prefix string) *trap {
	return &trap{method: method, prefix: prefix, arrived: make(chan struct{}), release: make(chan struct{})}
}

func (tr *trap) arm() {
	tr.mu.Lock()
	tr.armed = true
	tr.mu.Unlock()
}

func (tr *trap) verdict(s seen) (verdict, bool) {
	tr.mu.Lock()
	defer tr.mu.Unlock()
	if !tr.armed || s.Stage != "request" || s.Method != tr.method || !strings.HasPrefix(s.path(), tr.prefix) {
		return verdict{}, false
	}
	tr.once.Do(func() { close(tr.arrived) })
	return verdict{wait: tr.release}, true
}

func (tr *trap) waitArrived(t *testing.T) {
	t.Helper()
	select {
	case <-tr.arrived:
	case <-time.After(30 * time.Second):
		t.Fatalf("no %s %s came", tr.method, tr.prefix)
	}
}

func (tr *trap) open() { close(tr.release) }

// decide holds the requests of the traps and cuts the odds stream.
func decide(traps ...*trap) func(seen) verdict {
	return func(s seen) verdict {
		for _, tr := range traps {
			if v, ok := tr.verdict(s); ok {
				return v
			}
		}
		return cutStream(s)
	}
}

// placeDisabled reports whether the slip refuses to place.
func (tb *tab) placeDisabled() bool {
	tb.T.Helper()
	var d bool
	tb.Eval("document.getElementById('place').disabled", &d)
	return d
}

// TestRejections: each rejection path of the rejection table, with its
// message built from rejection_code (rejection_reason, which the API
// fills with diagnostics, never shows) and what the table asks the client
// to do.
func TestRejections(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		balance string
		stake   string
		setup   func(w *world, bettor string)
		message string
		check   func(t *testing.T, w *world, tb *tab, ic *interceptor)
	}{
		{
			name: "insufficient_funds", balance: "5.00", stake: "10",
			message: "The bet was not placed: your balance does not cover a stake of 10.00 USD.",
			check: func(t *testing.T, w *world, tb *tab, ic *interceptor) {
				tb.WaitFor("the deposit offer", "!!document.getElementById('slip-deposit')")
				tb.WaitFor("placing allowed again after the balance read", "!document.getElementById('place').disabled")
				if len(ic.requests("GET", "/api/v1/auth/me")) < 2 {
					t.Error("the balance was not read after the rejection")
				}
			},
		},
		{
			name: "bettor_blocked", balance: "100.00", stake: "10",
			setup: func(w *world, bettor string) {
				if err := w.Op.Block(bettor); err != nil {
					w.T.Fatal(err)
				}
			},
			message: "Betting is not available for your account. Contact support.",
			check: func(t *testing.T, w *world, tb *tab, ic *interceptor) {
				var stakeDisabled bool
				tb.Eval("document.getElementById('stake').disabled", &stakeDisabled)
				if !tb.placeDisabled() || !stakeDisabled {
					t.Error("a blocked bettor can bet again")
				}
			},
		},
		{
			// 40 × 4.4214 = 176.86 is above the outcome exposure of 150:
			// a limit only the platform knows (the stake limits are
			// checked before sending).
			name: "bet_limit_reached", balance: "500.00", stake: "40",
			message: "The bet was not placed: it is above a betting limit. Change the stake to try again.",
			check: func(t *testing.T, w *world, tb *tab, ic *interceptor) {
				if !tb.placeDisabled() {
					t.Error("the same stake can be resubmitted")
				}
				tb.TypeIn("#stake", "40.00")
				if !tb.placeDisabled() {
					t.Error("the same stake written 40.00 can be resubmitted")
				}
				tb.TypeIn("#stake", "20")
				if tb.placeDisabled() {
					t.Error("another stake cannot be placed")
				}
			},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			w := newWorld(t, worldOptions{})
			if tc.setup != nil {
				tc.setup(w, "sam")
			}
			tb, ic := w.interceptedWidgetTab(t, "sam", tc.balance, cutStream)
			tb.bet(w.outcome[0], tc.stake)
			tb.WaitText("#slip-status", tc.message)
			w.waitBet("sam", "rejected")
			if reason := w.bets("sam")[0]["rejection_reason"]; reason != nil && strings.Contains(tb.Text("#app"), fmt.Sprint(reason)) {
				t.Errorf("the page shows rejection_reason %q", reason)
			}
			tc.check(t, w, tb, ic)
		})
	}
}

// TestBalanceReadBeforeNextAttempt: after bet_rejected_other and a null
// rejection_code, the widget reads the balance (GET /api/v1/auth/me)
// before it allows another attempt: while that read is held, placing
// stays disabled.
func TestBalanceReadBeforeNextAttempt(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, message string
		fault         func(w *world)
	}{
		{"bet_rejected_other", "The bet was not placed.", func(w *world) { w.Op.FailNext("withdrawals", 1, 400) }},
		{"null", "The bet was not placed. Your balance is being reconciled.", func(w *world) { w.Op.FailNext("withdrawals", 3, 503) }},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			w := newWorld(t, worldOptions{})
			me := newTrap("GET", "/api/v1/auth/me")
			tb, _ := w.interceptedWidgetTab(t, "tom", "100.00", decide(me))
			tc.fault(w)
			me.arm()
			tb.bet(w.outcome[0], "10")
			me.waitArrived(t)
			tb.WaitText("#slip-status", tc.message+" Refreshing your balance…")
			if !tb.placeDisabled() {
				t.Error("placing is allowed before the balance was read")
			}
			me.open()
			tb.WaitFor("placing allowed after the balance read", "!document.getElementById('place').disabled")
			if s := tb.Text("#slip-status"); s != tc.message {
				t.Errorf("slip says %q, want %q", s, tc.message)
			}
			bets := w.bets("tom")
			code := bets[0]["rejection_code"]
			if want := map[string]any{"bet_rejected_other": "bet_rejected_other", "null": nil}[tc.name]; code != want {
				t.Errorf("the bet's rejection_code is %v, want %v", code, want)
			}
		})
	}
}

// TestWalletRolledBack: the stake was debited and is being returned. The
// widget says so (not that it arrived), reads the balance, and allows
// another attempt only once the balance shows the stake back.
func TestWalletRolledBack(t *testing.T) {
	t.Parallel()
	w := newWorld(t, worldOptions{})
	tb := newTabAt(t, heldClockScale)
	tb.intercept(cutStream)
	tb.Navigate(w.bettor("uma", "100.00"))
	tb.ready()
	// A first bet makes the wallet's balance known: 90.00.
	tb.bet(w.outcome[0], "10")
	tb.WaitText("#slip-status", "Bet placed")
	tb.WaitText("#balance", "90.00 USD")

	wallet := w.gate.holdNext("/v1/withdrawals")
	rollback := w.gate.holdNext("/v1/rollbacks/")
	tb.bet(w.outcome[1], "10")
	w.waitArrived(wallet)
	w.suspend() // the market closes while the wallet answers the debit
	w.gate.release("/v1/withdrawals")
	tb.WaitText("#slip-status", "The bet was not placed. Your stake of 10.00 USD is being returned to your balance.")
	w.waitArrived(rollback)
	tb.WaitText("#balance", "80.00 USD") // the debit, not yet returned
	if s := tb.Text("#slip-status"); strings.Contains(s, "back in your balance") {
		t.Errorf("the slip says the stake is back before it is: %q", s)
	}
	if !tb.placeDisabled() {
		t.Error("placing is allowed before the stake is back")
	}
	w.reopen()
	w.gate.release("/v1/rollbacks/")
	tb.WaitText("#balance", "90.00 USD")
	tb.WaitText("#slip-status", "Your stake is back in your balance; you can bet again.")
	tb.WaitFor("placing allowed again", "!document.getElementById('place').disabled")
	w.waitBet("uma", "rejected")
	if code := w.bets("uma")[0]["rejection_code"]; code != "wallet_rolled_back" {
		t.Errorf("rejection_code %v, want wallet_rolled_back", code)
	}
}

// TestValidationFailed: the market closes, or its price moves, between
// the event read and the bet's processing. The widget reads the event
// again: it drops a closed selection, or shows the new price and asks to
// confirm again, which is a new bet with a new key.
func TestValidationFailed(t *testing.T) {
	t.Parallel()

	t.Run("closed", func(t *testing.T) {
		t.Parallel()
		w := newWorld(t, worldOptions{})
		post := newTrap("POST", "/api/v1/bettor/bets")
		post.arm()
		tb, _ := w.interceptedWidgetTab(t, "vic", "100.00", decide(post))
		tb.bet(w.outcome[0], "10")
		post.waitArrived(t)
		w.suspend()
		post.open()
		tb.WaitText("#slip-status", "The bet was not placed: the market changed before it was processed. This market no longer takes bets. The selection was removed.")
		tb.WaitFor("the slip to empty", "document.getElementById('slip-form').hidden")
	})

	t.Run("price moved", func(t *testing.T) {
		t.Parallel()
		w := newWorld(t, worldOptions{})
		post := newTrap("POST", "/api/v1/bettor/bets")
		reread := newTrap("GET", "/api/v1/events/")
		post.arm()
		tb, ic := w.interceptedWidgetTab(t, "wes", "100.00", decide(post, reread))
		tb.bet(w.outcome[0], "10")
		post.waitArrived(t)
		w.suspend()
		reread.arm()
		post.open()
		reread.waitArrived(t)
		w.reopen()
		w.price("0.25", "0.75")
		reread.open()
		tb.WaitText("#slip-status", "The bet was not placed: the market changed before it was processed. The odds changed from 4.42 to 3.62.")
		tb.WaitText("#slip-payout", "36.20 USD")
		tb.Click("#place")
		tb.WaitText("#slip-status", "Bet placed: 10.00 USD on Home at odds 3.6")
		var keys []string
		for _, p := range ic.requests("POST", "/api/v1/bettor/bets") {
			if p.Stage == "request" {
				keys = append(keys, p.Key)
			}
		}
		if len(keys) != 2 || keys[0] == keys[1] {
			t.Errorf("keys %v: the confirmed new price is a new bet with a new key", keys)
		}
	})
}
