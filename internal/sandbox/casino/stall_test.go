package casino_test

import (
	"net/http"
	"testing"

	"github.com/foresight-dev/foresight/internal/sandbox/casino"
)

func TestStallAndCloseLeaveNothingDone(t *testing.T) {
	t.Parallel()
	e := newFundedEnv(t)
	body := betBody(t, "a1", "USD", "r1", "bet-1", "10")
	// Close ends every stall and delay, even one armed or arriving later:
	// the request ends with no answer and nothing processed.
	e.c.Close()
	e.c.ForAccount("a1").StallNext(casino.EndpointBetWin, 1)
	e.c.DelayNext(casino.EndpointBetWin, 1, 1<<40)
	for i := range 2 {
		if resp, err := e.client.Do(e.request(casino.PathBetWin, body, nil)); err == nil {
			resp.Body.Close()
			t.Fatalf("request %d got an answer: %d", i, resp.StatusCode)
		}
	}
	e.wantBalance("a1", "USD", "100.00")
	if _, ok := e.c.Round("r1"); ok {
		t.Error("a stalled bet made its round")
	}
	e.postOK("after the stall and the delay", casino.PathBetWin, body)
	e.wantBalance("a1", "USD", "90.00")
}

func TestClearFaults(t *testing.T) {
	t.Parallel()
	e := newFundedEnv(t)
	e.c.FailNext(casino.EndpointBalance, 5, http.StatusBadGateway)
	e.c.ForAccount("a1").RejectNext(casino.EndpointBalance, 5, "503")
	e.c.ClearFaults()
	e.postOK("after ClearFaults", casino.PathBalance, balanceBody(t, "a1", "USD"))
}
