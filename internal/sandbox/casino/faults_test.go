package casino_test

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net/http"
	"testing"
	"time"

	"github.com/foresight-dev/foresight/internal/sandbox/casino"
	"github.com/foresight-dev/foresight/internal/sandbox/faults"
	"github.com/foresight-dev/foresight/internal/sandbox/malformed"
	"github.com/foresight-dev/foresight/internal/sandbox/sandboxtest"
	"github.com/foresight-dev/foresight/internal/waitfor"
)

func TestFailNext(t *testing.T) {
	t.Parallel()
	e := newFundedEnv(t)
	body := betBody(t, "a1", "USD", "r1", "bet-1", "10.00")

	e.c.FailNext(casino.EndpointBetWin, 2, http.StatusBadGateway)
	for i := range 2 {
		status, resp := e.post(casino.PathBetWin, body)
		if status != http.StatusBadGateway || string(resp) != `{"error":"injected_failure"}`+"\n" {
			t.Fatalf("attempt %d: %d %s", i, status, resp)
		}
	}
	e.wantBalance("a1", "USD", "100.00")
	if e.ledgerLen() != 0 {
		t.Fatal("failures changed the ledger")
	}
	// The retry is processed: the failures did not consume the id_provider.
	e.postOK("after the failures", casino.PathBetWin, body)
	e.wantBalance("a1", "USD", "90.00")

	// Only the armed endpoint fails; a 200 without a wallet body can be
	// injected too.
	e.c.FailNext(casino.EndpointFinish, 1, http.StatusOK)
	e.postOK("balance", casino.PathBalance, balanceBody(t, "a1", "USD"))
	status, resp := e.post(casino.PathFinish, finishBody(t, "a1", "USD", "r1"))
	if status != http.StatusOK || bytes.Contains(resp, []byte("balance")) {
		t.Errorf("injected 200: %d %s", status, resp)
	}
	if r, _ := e.c.Round("r1"); r.Finished {
		t.Error("an injected failure finished the round")
	}

	// Disarming.
	e.c.FailNext(casino.EndpointBalance, 3, http.StatusServiceUnavailable)
	e.c.FailNext(casino.EndpointBalance, 0, http.StatusServiceUnavailable)
	e.postOK("disarmed", casino.PathBalance, balanceBody(t, "a1", "USD"))

	sandboxtest.WantPanics(t, map[string]func(){
		"unknown endpoint":    func() { e.c.FailNext("withdrawals", 1, 500) },
		"bad status":          func() { e.c.FailNext(casino.EndpointBetWin, 1, 42) },
		"informational":       func() { e.c.FailNext(casino.EndpointBetWin, 1, 100) },
		"reject endpoint":     func() { e.c.RejectNext("BetWin", 1, "100") },
		"empty api_code":      func() { e.c.RejectNext(casino.EndpointBetWin, 1, "") },
		"delay endpoint":      func() { e.c.DelayNext("bet", 1, time.Second) },
		"drop endpoint":       func() { e.c.DropResponseNext("", 1) },
		"empty account scope": func() { e.c.ForAccount("") },
	})
}

func TestRejectNext(t *testing.T) {
	t.Parallel()
	cases := []struct {
		apiCode, endpoint string
		status            int
		withBalance       bool
		apiMessage        string
	}{
		{"100", casino.EndpointBetWin, http.StatusBadRequest, true, "Player has not enough funds to process an action"},
		{"105", casino.EndpointBetWin, http.StatusBadRequest, true, "Player reached customized bet limit"},
		{"106", casino.EndpointBetWin, http.StatusBadRequest, true, "Bet exceeded max bet limit"},
		{"110", casino.EndpointBetWin, http.StatusBadRequest, false, "Player is disabled"},
		{"503", casino.EndpointBetWin, http.StatusInternalServerError, false, "Service is unavailable"},
		{"504", casino.EndpointRollback, http.StatusInternalServerError, false, "Request timed out"},
		{"500", casino.EndpointFinish, http.StatusInternalServerError, false, "Unknown error"},
		{"403", casino.EndpointBalance, http.StatusForbidden, false, "Forbidden"},
		{"oops", casino.EndpointBetWin, http.StatusBadRequest, false, "Unknown error"},
		{"199", casino.EndpointBalance, http.StatusBadRequest, false, "Unknown error"},
	}
	for _, c := range cases {
		t.Run(c.apiCode+"/"+c.endpoint, func(t *testing.T) {
			t.Parallel()
			e := newFundedEnv(t)
			e.postOK("setup bet", casino.PathBetWin, betBody(t, "a1", "USD", "r0", "bet-0", "10"))

			var path string
			var body []byte
			switch c.endpoint {
			case casino.EndpointBalance:
				path, body = casino.PathBalance, balanceBody(t, "a1", "USD")
			case casino.EndpointBetWin:
				path, body = casino.PathBetWin, betBody(t, "a1", "USD", "r1", "bet-1", "10.00")
			case casino.EndpointFinish:
				path, body = casino.PathFinish, finishBody(t, "a1", "USD", "r0")
			case casino.EndpointRollback:
				path, body = casino.PathRollback, rollbackBody(t, "a1", "USD", "r0", "rb-0", "bet-0")
			}
			before := e.ledgerLen()
			e.c.RejectNext(c.endpoint, 2, c.apiCode)
			balance := ""
			if c.withBalance {
				balance = "90.00"
			}
			for range 2 {
				status, resp := e.post(path, body)
				w := wantErr(t, "injected "+c.apiCode, status, resp, c.status, c.apiCode, balance)
				if w.Meta.APIMessage != c.apiMessage {
					t.Errorf("api_message %q, want %q", w.Meta.APIMessage, c.apiMessage)
				}
			}
			e.wantBalance("a1", "USD", "90.00")
			if e.ledgerLen() != before {
				t.Error("a rejection changed the ledger")
			}
			// Then the same request is processed: nothing was consumed.
			e.postOK("after the rejections", path, body)
		})
	}
}

func TestRejectNextWithoutAccount(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	// An unknown account gets no meta.balance.
	e.c.RejectNext(casino.EndpointBetWin, 1, "100")
	status, resp := e.post(casino.PathBetWin, betBody(t, "nobody", "USD", "r1", "bet-1", "1"))
	wantErr(t, "unknown account", status, resp, http.StatusBadRequest, "100", "")
	// A rejection is taken before the body is validated.
	e.c.RejectNext(casino.EndpointBetWin, 1, "503")
	status, resp = e.post(casino.PathBetWin, []byte(`{"account_id":5}`))
	wantErr(t, "invalid body", status, resp, http.StatusInternalServerError, "503", "")
}

func TestFailNextBeforeRejectNext(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.setBalance("a1", "USD", "100")
	e.c.RejectNext(casino.EndpointBalance, 1, "503")
	e.c.FailNext(casino.EndpointBalance, 1, http.StatusBadGateway)
	body := balanceBody(t, "a1", "USD")
	if status, _ := e.post(casino.PathBalance, body); status != http.StatusBadGateway {
		t.Errorf("first: %d, want the failure", status)
	}
	status, resp := e.post(casino.PathBalance, body)
	wantErr(t, "second", status, resp, http.StatusInternalServerError, "503", "")
	e.postOK("third", casino.PathBalance, body)
}

func TestDropResponseNext(t *testing.T) {
	t.Parallel()
	e := newFundedEnv(t)
	body := betBody(t, "a1", "USD", "r1", "bet-1", "10.00")

	e.c.DropResponseNext(casino.EndpointBetWin, 1)
	resp, err := e.client.Do(e.request(casino.PathBetWin, body, nil))
	if err == nil {
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		t.Fatalf("the answer was not dropped: %d %s", resp.StatusCode, b)
	}
	// The debit happened.
	e.wantBalance("a1", "USD", "90.00")
	ledger := e.c.Ledger()
	if len(ledger) != 1 || ledger[0].Type != casino.EntryBet || ledger[0].IDProvider != "bet-1" {
		t.Fatalf("ledger %+v", ledger)
	}
	// The platform's retry gets the stored answer; nothing moves again.
	status, first := e.post(casino.PathBetWin, body)
	a := wantOK(t, "retry", status, first)
	if str(a.Balance) != "90.00" || a.Transactions[0].ID != ledger[0].CasinoTxID || str(a.RoundID) != ledger[0].CasinoRoundID {
		t.Errorf("retry answer %s, ledger %+v", first, ledger[0])
	}
	e.wantBalance("a1", "USD", "90.00")
	if e.ledgerLen() != 1 {
		t.Error("the retry moved money")
	}

	// A dropped rollback answer: the credit happened too.
	e.c.DropResponseNext(casino.EndpointRollback, 1)
	if _, err := e.client.Do(e.request(casino.PathRollback, rollbackBody(t, "a1", "USD", "r1", "rb-1", "bet-1"), nil)); err == nil {
		t.Fatal("the rollback answer was not dropped")
	}
	e.wantBalance("a1", "USD", "100.00")
}

func TestDelayNext(t *testing.T) {
	t.Parallel()
	e := newFundedEnv(t)
	e.c.DelayNext(casino.EndpointBetWin, 1, 2*time.Second)

	// The client gives up while the casino holds its request (the delay
	// is used up), as a client with a time-out would; a time-out of its
	// own could end on a loaded machine before the request arrived ...
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	answered := make(chan error, 1)
	go func() {
		resp, err := e.client.Do(e.request(casino.PathBetWin, betBody(t, "a1", "USD", "r1", "bet-1", "10.00"), nil).WithContext(ctx))
		if err == nil {
			resp.Body.Close()
		}
		answered <- err
	}()
	waitfor.True(t, "the delay taking the bet", func() bool { return len(e.c.ArmedFaults()) == 0 })
	cancel()
	if err := <-answered; !errors.Is(err, context.Canceled) {
		t.Fatalf("want the client to have given up before the answer, got %v", err)
	}
	// ... and the slow wallet still debits.
	waitfor.True(t, "the delayed bet's debit", func() bool {
		got, _ := e.c.Balance("a1", "USD")
		return got == "90.00"
	})
	// The delay was used up.
	if armed := e.c.ArmedFaults(); len(armed) != 0 {
		t.Errorf("armed after the delayed request: %+v, want none", armed)
	}
	e.postOK("after the delay", casino.PathBetWin, betBody(t, "a1", "USD", "r2", "bet-2", "10.00"))
	e.wantBalance("a1", "USD", "80.00")
}

func TestOmitRoundIDNext(t *testing.T) {
	t.Parallel()
	e := newFundedEnv(t)
	e.setBalance("poor", "USD", "1.00")
	e.c.OmitRoundIDNext(1)

	// A refusal does not use it up.
	status, resp := e.post(casino.PathBetWin, betBody(t, "poor", "USD", "r0", "bet-0", "10.00"))
	wantErr(t, "refused", status, resp, http.StatusBadRequest, "100", "1.00")

	body := betBody(t, "a1", "USD", "r1", "bet-1", "10.00")
	status, first := e.post(casino.PathBetWin, body)
	a := wantOK(t, "omitted", status, first)
	if a.RoundID != nil || str(a.Balance) != "90.00" || len(a.Transactions) != 1 || a.Transactions[0].ID == "" {
		t.Fatalf("answer %s, want no round_id", first)
	}
	// Money moved, and the round exists.
	e.wantBalance("a1", "USD", "90.00")
	if _, ok := e.c.Round("r1"); !ok {
		t.Error("round not created")
	}
	// The replay returns the answer that was sent.
	if status, again := e.post(casino.PathBetWin, body); status != http.StatusOK || !bytes.Equal(first, again) {
		t.Errorf("replay %d %s", status, again)
	}
	// The platform rolls back.
	if a := e.wantPostedBalance("rollback", casino.PathRollback, rollbackBody(t, "a1", "USD", "r1", "rb-1", "bet-1"), "100.00"); a.RoundID == nil {
		t.Errorf("rollback: no round_id")
	}
	// Used up.
	status, resp = e.post(casino.PathBetWin, betBody(t, "a1", "USD", "r2", "bet-2", "10.00"))
	if a := wantOK(t, "next", status, resp); a.RoundID == nil {
		t.Errorf("next answer %s", resp)
	}
	// Wins are BetWin requests too.
	e.c.OmitRoundIDNext(1)
	status, resp = e.post(casino.PathBetWin, winBody(t, "a1", "USD", "r2", "win-2", "5"))
	if a := wantOK(t, "win", status, resp); a.RoundID != nil {
		t.Errorf("win answer %s", resp)
	}
}

func TestFaultsForAccount(t *testing.T) {
	t.Parallel()
	e := newEnv(t, func(c *casino.Config) { c.StartingBalance = "100" })
	e.setBalance("a1", "USD", "100")

	// A fault for one account leaves the others alone.
	e.c.ForAccount("a1").RejectNext(casino.EndpointBetWin, 1, "105")
	e.postOK("other account", casino.PathBetWin, betBody(t, "a2", "USD", "r-a2", "bet-a2", "1"))
	status, resp := e.post(casino.PathBetWin, betBody(t, "a1", "USD", "r-a1", "bet-a1", "1"))
	wantErr(t, "armed account", status, resp, http.StatusBadRequest, "105", "100.00")
	e.postOK("armed account, used up", casino.PathBetWin, betBody(t, "a1", "USD", "r-a1", "bet-a1", "1"))

	// A global fault applies to every account; the account's own is taken
	// first and the counters are separate.
	e.c.FailNext(casino.EndpointBalance, 2, http.StatusServiceUnavailable)
	e.c.ForAccount("a1").FailNext(casino.EndpointBalance, 1, http.StatusBadGateway)
	for _, c := range []struct {
		account string
		status  int
	}{
		{"a1", http.StatusBadGateway},         // a1's own
		{"a1", http.StatusServiceUnavailable}, // then the global one
		{"a3", http.StatusServiceUnavailable}, // global, for any account
		{"a1", http.StatusOK},
		{"a3", http.StatusOK},
	} {
		if status, resp := e.post(casino.PathBalance, balanceBody(t, c.account, "USD")); status != c.status {
			t.Errorf("%s: %d %s, want %d", c.account, status, resp, c.status)
		}
	}

	// Delays, drops and omitted round ids per account.
	e.c.ForAccount("a2").OmitRoundIDNext(1)
	status, resp = e.post(casino.PathBetWin, betBody(t, "a1", "USD", "r-a1-2", "bet-a1-2", "1"))
	if a := wantOK(t, "a1 bet", status, resp); a.RoundID == nil {
		t.Errorf("a1 lost its round_id: %s", resp)
	}
	status, resp = e.post(casino.PathBetWin, betBody(t, "a2", "USD", "r-a2-2", "bet-a2-2", "1"))
	if a := wantOK(t, "a2 bet", status, resp); a.RoundID != nil {
		t.Errorf("a2 kept its round_id: %s", resp)
	}
	e.c.ForAccount("a2").DropResponseNext(casino.EndpointFinish, 1)
	e.postOK("a1 finish", casino.PathFinish, finishBody(t, "a1", "USD", "r-a1"))
	if _, err := e.client.Do(e.request(casino.PathFinish, finishBody(t, "a2", "USD", "r-a2"), nil)); err == nil {
		t.Error("a2's finish answer was not dropped")
	}
	if r, _ := e.c.Round("r-a2"); !r.Finished {
		t.Error("the dropped finish was not processed")
	}
	e.c.ForAccount("a2").DelayNext(casino.EndpointBalance, 1, 200*time.Millisecond)
	e.postOK("a1 balance", casino.PathBalance, balanceBody(t, "a1", "USD"))
	if armed := e.c.ArmedFaults(); len(armed) != 1 || armed[0].Scope != "a2" || armed[0].Kind != faults.KindDelay || armed[0].Remaining != 1 {
		t.Errorf("armed after a1's request: %+v, want a2's delay, unused", armed)
	}
	e.postOK("a2 balance", casino.PathBalance, balanceBody(t, "a2", "USD"))
	if armed := e.c.ArmedFaults(); len(armed) != 0 {
		t.Errorf("armed after a2's request: %+v, want none (a2's delay used)", armed)
	}
}

// TestRejectKeepsIdempotency: an injected rejection is for new
// transactions; a retry of an answered one gets its first answer and
// leaves the rejection armed. RefuseRetryNext is the non-conforming wallet:
// it refuses exactly those retries afresh.
func TestRejectKeepsIdempotency(t *testing.T) {
	t.Parallel()
	e := newFundedEnv(t)
	bet := betBody(t, "a1", "USD", "r1", "bet-1", "10.00")
	status, debit := e.post(casino.PathBetWin, bet)
	wantOK(t, "debit", status, debit)

	e.c.RejectNext(casino.EndpointBetWin, 1, "100")
	status, resp := e.post(casino.PathBetWin, bet)
	if status != http.StatusOK || !bytes.Equal(resp, debit) {
		t.Errorf("retry during a reject = %d %s, want the first answer %s", status, resp, debit)
	}
	status, resp = e.post(casino.PathBetWin, betBody(t, "a1", "USD", "r2", "bet-2", "10.00"))
	wantErr(t, "new transaction", status, resp, http.StatusBadRequest, "100", "90.00")
	e.wantBalance("a1", "USD", "90.00")

	// The non-conforming wallet: a new bet is processed, a retry refused
	// although it debited.
	e.c.RefuseRetryNext(casino.EndpointBetWin, 1, "100")
	e.postOK("new transaction during refuse_retry", casino.PathBetWin, betBody(t, "a1", "USD", "r3", "bet-3", "5.00"))
	status, resp = e.post(casino.PathBetWin, bet)
	wantErr(t, "retry during refuse_retry", status, resp, http.StatusBadRequest, "100", "85.00")
	status, resp = e.post(casino.PathBetWin, bet)
	if status != http.StatusOK || !bytes.Equal(resp, debit) {
		t.Errorf("retry once refuse_retry is used up = %d %s, want the first answer", status, resp)
	}

	// A Round/Finish retry is known by its round.
	status, fin := e.post(casino.PathFinish, finishBody(t, "a1", "USD", "r1"))
	wantOK(t, "finish", status, fin)
	e.c.RejectNext(casino.EndpointFinish, 1, "503")
	if status, resp = e.post(casino.PathFinish, finishBody(t, "a1", "USD", "r1")); status != http.StatusOK || !bytes.Equal(resp, fin) {
		t.Errorf("finish retry during a reject = %d %s, want the first answer", status, resp)
	}
}

// TestMalformedNext: a 200 whose body is not the wallet's answer, before
// any processing: nothing changes, and the same request is processed next.
func TestMalformedNext(t *testing.T) {
	t.Parallel()
	e := newFundedEnv(t)
	for _, shape := range malformed.Shapes {
		body := betBody(t, "a1", "USD", "r-"+shape, "bet-"+shape, "1.00")
		e.c.MalformedNext(casino.EndpointBetWin, 1, shape)
		status, resp := e.post(casino.PathBetWin, body)
		if status != http.StatusOK || bytes.Contains(resp, []byte(`"round_id"`)) {
			t.Errorf("%s: %d %s, want a 200 without the protocol's answer", shape, status, resp)
		}
		e.wantBalance("a1", "USD", "100.00")
		status, resp = e.post(casino.PathBetWin, body)
		wantOK(t, shape+": the same request next", status, resp)
		e.setBalance("a1", "USD", "100.00")
	}
	defer func() {
		if recover() == nil {
			t.Error("an unknown shape was armed")
		}
	}()
	e.c.MalformedNext(casino.EndpointFinish, 1, "json")
}
