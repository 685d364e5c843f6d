package server_test

import (
	"strings"
	"testing"

	"github.com/google/uuid"

	"github.com/foresight-dev/foresight/internal/sandbox/casino"
	"github.com/foresight-dev/foresight/internal/sandbox/malformed"
)

// metric returns the /metrics line that starts with prefix, or "".
func metric(t *testing.T, w *world, prefix string) string {
	t.Helper()
	_, r := roundTrip(t, "GET", w.url+"/metrics", adminToken, nil)
	for _, line := range strings.Split(string(r.body), "\n") {
		if strings.HasPrefix(line, prefix) {
			return line
		}
	}
	return ""
}

// TestRefusedRetryIsRolledBack: the withdrawal's first attempt debits and
// its answer is lost; the non-conforming wallet refuses the retry afresh
// (it checks before its de-duplication). The bet is rejected with the
// refusal's code, and a rollback gives the stake back.
func TestRefusedRetryIsRolledBack(t *testing.T) {
	t.Parallel()
	forEachDatabase(t, func(t *testing.T, db string) {
		bw := newBettingWorld(t, db)
		for _, c := range []struct{ bettor, code, status string }{
			{"alice", "insufficient_funds", "409"}, {"bob", "bettor_blocked", "403"}, {"carol", "bet_limit_reached", "409"},
		} {
			token := bw.bettor(c.bettor, "100.00")
			bw.op.ForBettor(c.bettor).DropResponseNext("withdrawals", 1)
			bw.op.ForBettor(c.bettor).RefuseRetryNext("withdrawals", 1, c.code)
			id := bw.place(token, uuid.NewString(), bw.outcome[0], "10.00").json(t)["id"].(string)
			if bet := bw.settled(token, id); bet["status"] != "rejected" || bet["rejection_code"] != c.code {
				t.Fatalf("%s: bet = %v, want rejected %s", c.bettor, bet, c.code)
			}
			waitTransactions(t, bw.world, id, "withdrawal[unknown//0/connection_closed refused/"+c.code+"/"+c.status+"/] rollback+[done//200/]")
			if bal, _ := bw.op.Balance(c.bettor); bal != "100.00" {
				t.Errorf("%s: balance %s after the rollback, want 100.00", c.bettor, bal)
			}
		}
	})
}

// TestAggregatorRefusedRetryIsRolledBack: the same on the aggregator path:
// a Round/BetWin debits, its answer is lost, the retry is refused with
// api_code 100 afresh; the bet is rejected insufficient_funds and
// Round/Rollback gives the stake back.
func TestAggregatorRefusedRetryIsRolledBack(t *testing.T) {
	t.Parallel()
	forEachDatabase(t, func(t *testing.T, db string) {
		aw := newAggWorld(t, db, nil)
		token := aw.session("player-3", "EUR", uuid.NewString())
		aw.casino.ForAccount("player-3").DropResponseNext(casino.EndpointBetWin, 1)
		aw.casino.ForAccount("player-3").RefuseRetryNext(casino.EndpointBetWin, 1, "100")
		id := aw.place(token, uuid.NewString(), aw.outcome[0], "10.00").json(t)["id"].(string)
		if bet := aw.settled(token, id); bet["status"] != "rejected" || bet["rejection_code"] != "insufficient_funds" {
			t.Fatalf("bet = %v, want rejected insufficient_funds", bet)
		}
		waitTransactions(t, aw.world, id, "withdrawal[unknown//0/connection_closed refused/insufficient_funds/400/] rollback+[done//200/]")
		if b, _ := aw.casino.Balance("player-3", "EUR"); b != "100.00" {
			t.Errorf("balance %s after the rollback, want 100.00", b)
		}
	})
}

// TestMalformedCreditAnswerIsSentAgain: a 200 to a deposit whose body is
// not the protocol's answer (an HTML page from something in front of the
// wallet, which did not act) is not taken as the credit: the deposit is
// sent again and paid once, the attempt shows as unknown with
// unreadable_answer and is counted in /metrics.
func TestMalformedCreditAnswerIsSentAgain(t *testing.T) {
	t.Parallel()
	forEachDatabase(t, func(t *testing.T, db string) {
		bw := newBettingWorld(t, db)
		alice := bw.bettor("alice", "100.00")
		id := bw.placeConfirmed(alice, bw.outcome[0], "10.00")
		bw.op.ForBettor("alice").MalformedNext("deposits", 1, malformed.HTML)
		bw.resolve(bw.market, bw.outcome[0])
		waitTransactions(t, bw.world, id, "withdrawal+[done//200/] deposit+[unknown//200/unreadable_answer done//200/]")
		if bal, _ := bw.op.Balance("alice"); bal != "134.21" {
			t.Errorf("balance %s, want 134.21 (the payout once)", bal)
		}
		if m := metric(t, bw.world, `foresight_wallet_attempts_total{error="unreadable_answer",kind="deposit",result="unknown",status_class="2xx"}`); !strings.HasSuffix(m, " 1") {
			t.Errorf("metric %q, want the malformed 2xx deposit counted once", m)
		}
	})
}

// TestAggregatorMalformedCreditAnswerIsSentAgain: on the aggregator path a
// 200 without the protocol's balance (a foreign JSON body, or none) is not
// the credit either.
func TestAggregatorMalformedCreditAnswerIsSentAgain(t *testing.T) {
	t.Parallel()
	forEachDatabase(t, func(t *testing.T, db string) {
		aw := newAggWorld(t, db, nil)
		token := aw.session("player-4", "EUR", uuid.NewString())
		won := aw.place(token, uuid.NewString(), aw.outcome[0], "10.00").json(t)["id"].(string)
		lost := aw.place(token, uuid.NewString(), aw.outcome[1], "10.00").json(t)["id"].(string)
		for _, id := range []string{won, lost} {
			if bet := aw.settled(token, id); bet["status"] != "confirmed" {
				t.Fatalf("bet = %v", bet)
			}
		}
		aw.casino.ForAccount("player-4").MalformedNext(casino.EndpointBetWin, 1, malformed.Foreign)
		aw.casino.ForAccount("player-4").MalformedNext(casino.EndpointFinish, 1, malformed.Empty)
		aw.resolve(aw.market, aw.outcome[0])
		for _, id := range []string{won, lost} {
			waitTransactions(t, aw.world, id, "withdrawal+[done//200/] deposit+[unknown//200/unreadable_answer done//200/]")
		}
		wins := 0
		for _, e := range aw.casino.Ledger() {
			if e.Type == casino.EntryWin && e.IDProvider == "dp-"+won {
				wins++
			}
		}
		if r, _ := aw.casino.Round(lost); wins != 1 || !r.Finished {
			t.Errorf("%d wins credited, the lost round finished: %v; want the win once and the round finished", wins, r.Finished)
		}
	})
}
