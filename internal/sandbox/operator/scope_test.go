package operator_test

import (
	"net/http"
	"strconv"
	"testing"

	"github.com/foresight-dev/foresight/internal/sandbox/operator"
)

// TestFaultScopes arms each kind of fault for one bettor or for every
// bettor and checks what the victim and a bystander see.
func TestFaultScopes(t *testing.T) {
	const victim, bystander = "victim", "bystander"
	tests := []struct {
		name string
		arm  func(op *operator.Operator)
		// wantVictim is the victim's status (0: no answer at all) and
		// code; the bystander, asking afterwards, gets a 200 unless
		// wantBystander says otherwise.
		wantVictim     int
		victimCode     string
		wantBystander  int
		bystanderCode  string
		victimDebited  bool
		bystanderFirst bool
	}{
		{name: "fail for one bettor", arm: func(op *operator.Operator) { op.ForBettor(victim).FailNext("withdrawals", 1, 503) },
			wantVictim: 503, victimCode: "injected_failure", wantBystander: 200},
		{name: "fail for one bettor, the bystander first", arm: func(op *operator.Operator) { op.ForBettor(victim).FailNext("withdrawals", 1, 500) },
			wantVictim: 500, victimCode: "injected_failure", wantBystander: 200, bystanderFirst: true},
		{name: "insufficient funds for one bettor", arm: func(op *operator.Operator) { op.ForBettor(victim).RejectNext("withdrawals", 1, "insufficient_funds") },
			wantVictim: 409, victimCode: "insufficient_funds", wantBystander: 200},
		{name: "blocked for one bettor", arm: func(op *operator.Operator) { op.ForBettor(victim).RejectNext("withdrawals", 1, "bettor_blocked") },
			wantVictim: 403, victimCode: "bettor_blocked", wantBystander: 200},
		{name: "other refusal for one bettor", arm: func(op *operator.Operator) { op.ForBettor(victim).RejectNext("withdrawals", 1, "bet_limit_reached") },
			wantVictim: 409, victimCode: "bet_limit_reached", wantBystander: 200},
		{name: "answer lost for one bettor", arm: func(op *operator.Operator) { op.ForBettor(victim).DropResponseNext("withdrawals", 1) },
			wantVictim: 0, victimDebited: true, wantBystander: 200},
		{name: "global rejection, used up by the first request", arm: func(op *operator.Operator) { op.RejectNext("withdrawals", 1, "insufficient_funds") },
			wantVictim: 409, victimCode: "insufficient_funds", wantBystander: 200},
		{name: "global rejection of two", arm: func(op *operator.Operator) { op.RejectNext("withdrawals", 2, "bettor_not_found") },
			wantVictim: 404, victimCode: "bettor_not_found", wantBystander: 404, bystanderCode: "bettor_not_found"},
		{name: "another bettor's fault", arm: func(op *operator.Operator) { op.ForBettor("someone").FailNext("withdrawals", 1, 503) },
			wantVictim: 200, victimDebited: true, wantBystander: 200},
		{name: "another endpoint's fault", arm: func(op *operator.Operator) { op.ForBettor(victim).RejectNext("deposits", 1, "insufficient_funds") },
			wantVictim: 200, victimDebited: true, wantBystander: 200},
		{name: "cleared", arm: func(op *operator.Operator) { op.ForBettor(victim).FailNext("withdrawals", 1, 503); op.ClearFaults() },
			wantVictim: 200, victimDebited: true, wantBystander: 200},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newEnv(t)
			e.setBalance(victim, "USD", "100.00")
			e.setBalance(bystander, "USD", "100.00")
			tt.arm(e.op)
			victimBody := withdrawalBody(t, "wd-v", victim, "10.00", "USD")
			bystander := func() {
				status, resp := e.withdraw(withdrawalBody(t, "wd-b", bystander, "10.00", "USD"))
				wantStatus(t, "bystander", status, resp, tt.wantBystander, tt.bystanderCode)
			}
			if tt.bystanderFirst {
				bystander()
			}
			if tt.wantVictim == 0 {
				if resp, err := e.client.Do(e.signedRequest(http.MethodPost, "/v1/withdrawals", victimBody, nil)); err == nil {
					resp.Body.Close()
					t.Fatalf("victim got an answer: %d", resp.StatusCode)
				}
			} else {
				status, resp := e.withdraw(victimBody)
				wantStatus(t, "victim", status, resp, tt.wantVictim, tt.victimCode)
			}
			if !tt.bystanderFirst {
				bystander()
			}
			want := "100.00"
			if tt.victimDebited {
				want = "90.00"
			}
			e.wantBalance(victim, want)
			// An injected refusal leaves the transaction_id unused: the
			// retry is processed (or answered from the first processing).
			status, resp := e.withdraw(victimBody)
			wantStatus(t, "victim's retry", status, resp, http.StatusOK, "")
			e.wantBalance(victim, "90.00")
		})
	}
}

func TestSessionFaultForOneBettor(t *testing.T) {
	e := newEnv(t)
	victim := e.op.NewSessionRequest("victim", "USD")
	other := e.op.NewSessionRequest("other", "USD")
	e.op.ForBettor("victim").FailNext("session", 1, http.StatusBadGateway)
	status, resp := e.exchange(other)
	wantStatus(t, "other bettor", status, resp, http.StatusOK, "")
	status, resp = e.exchange(victim)
	wantStatus(t, "victim", status, resp, http.StatusBadGateway, "injected_failure")
	status, resp = e.exchange(victim)
	wantStatus(t, "victim's retry", status, resp, http.StatusOK, "")
}

func TestStallAndCloseLeaveNothingDone(t *testing.T) {
	e := fundedEnv(t)
	body := withdrawalBody(t, "wd-1", "b1", "10.00", "USD")
	// Close ends every stall, even one armed or arriving later: the
	// request ends with no answer and nothing processed.
	e.op.Close()
	e.op.StallNext("withdrawals", 1)
	e.op.ForBettor("b1").DelayNext("withdrawals", 1, 1<<40)
	for i := range 2 {
		if resp, err := e.client.Do(e.signedRequest(http.MethodPost, "/v1/withdrawals", body, nil)); err == nil {
			resp.Body.Close()
			t.Fatalf("request %d got an answer: %d", i, resp.StatusCode)
		}
	}
	e.wantBalance("b1", "100.00")
	status, resp := e.withdraw(body)
	wantStatus(t, "after the stall and the delay", status, resp, http.StatusOK, "")
	e.wantBalance("b1", "90.00")
}

func TestFaultSwitchMisusePanics(t *testing.T) {
	e := newEnv(t)
	for i, f := range []func(){
		func() { e.op.RejectNext("session", 1, "insufficient_funds") },
		func() { e.op.ForBettor("b").RejectNext("withdrawals", 1, "") },
		func() { e.op.ForBettor("") },
		func() { e.op.StallNext("jwks", 1) },
	} {
		t.Run(strconv.Itoa(i), func(t *testing.T) {
			defer func() {
				if recover() == nil {
					t.Error("no panic")
				}
			}()
			f()
		})
	}
}
