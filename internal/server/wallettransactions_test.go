package server_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/foresight-dev/foresight/internal/admin"
	"github.com/foresight-dev/foresight/internal/waitfor"
)

// walletTransactions reads a bet's wallet transactions through the admin
// API, checked against api/admin.yaml.
func walletTransactions(t *testing.T, w *world, betID string) []admin.WalletTransaction {
	t.Helper()
	st, body := w.asAdmin(t, "GET", "/admin/v1/bets/"+betID+"/wallet-transactions", nil)
	if st != 200 || body["next_cursor"] != nil {
		t.Fatalf("wallet transactions of %s = %d %v", betID, st, body)
	}
	raw, _ := json.Marshal(body["items"])
	if strings.Contains(string(raw), "signing-secret") || strings.Contains(strings.ToLower(string(raw)), "signature") {
		t.Errorf("wallet transactions show a secret or a signature: %s", raw)
	}
	var items []admin.WalletTransaction
	if err := json.Unmarshal(raw, &items); err != nil {
		t.Fatal(err)
	}
	return items
}

// summary writes transactions as "kind[result/code/status/error …]"
// separated by spaces, with "+" after a confirmed one's kind.
func summary(txs []admin.WalletTransaction) string {
	var parts []string
	for _, tx := range txs {
		var as []string
		for _, a := range tx.Attempts {
			as = append(as, fmt.Sprintf("%s/%s/%d/%s", a.Result, a.Code, a.HTTPStatus, a.Error))
		}
		confirmed := ""
		if tx.ConfirmedAt != nil {
			confirmed = "+"
		}
		parts = append(parts, tx.Kind+confirmed+"["+strings.Join(as, " ")+"]")
	}
	return strings.Join(parts, " ")
}

// waitTransactions polls a bet's wallet transactions until their summary
// is want; then the Go client must read the same.
func waitTransactions(t *testing.T, w *world, betID, want string) []admin.WalletTransaction {
	t.Helper()
	var txs []admin.WalletTransaction
	waitfor.Check(t, func() error {
		if txs = walletTransactions(t, w, betID); summary(txs) != want {
			return fmt.Errorf("bet %s's wallet transactions %s, want %s", betID, summary(txs), want)
		}
		return nil
	})
	viaClient, err := w.admin.BetWalletTransactions(context.Background(), betID)
	if err != nil || summary(viaClient) != want {
		t.Errorf("the Go client read %s, %v; want %s", summary(viaClient), err, want)
	}
	return txs
}

// TestBetWalletTransactions: the admin API shows each wallet transaction
// of a bet with every attempt, against the sandbox operator's wallet and
// its injected faults: an answer lost then a debit, a refusal, a deposit
// that failed once, a debit never answered and its rollback.
func TestBetWalletTransactions(t *testing.T) {
	t.Parallel()
	forEachDatabase(t, func(t *testing.T, db string) {
		bw := newBettingWorld(t, db)
		alice := bw.bettor("alice", "100.00")

		// The first withdrawal's answer is lost; the same bytes again get
		// the debit.
		bw.op.ForBettor("alice").DropResponseNext("withdrawals", 1)
		id := bw.placeConfirmed(alice, bw.outcome[0], "10.00")
		txs := waitTransactions(t, bw.world, id, "withdrawal+[unknown//0/connection_closed done//200/]")
		wd := txs[0]
		if wd.TransactionID != "wd-"+id || wd.Amount.String() != "10" || wd.Currency != "USD" {
			t.Errorf("withdrawal = %+v", wd)
		}
		first, second := wd.Attempts[0], wd.Attempts[1]
		if first.Attempt != 1 || second.Attempt != 2 || second.StartedAt.Before(first.StartedAt.Add(time.Duration(first.DurationMS)*time.Millisecond)) ||
			first.StartedAt.Location() != time.UTC || wd.ConfirmedAt == nil || wd.ConfirmedAt.Before(second.StartedAt) {
			t.Errorf("attempts %+v, confirmed at %v: want 1 then 2, one after the other, confirmed by the second", wd.Attempts, wd.ConfirmedAt)
		}

		// A refusal: one attempt, refused with the bet's rejection code.
		bob := bw.bettor("bob", "5.00")
		poor := bw.place(bob, uuid.NewString(), bw.outcome[1], "8.00").json(t)["id"].(string)
		if bet := bw.settled(bob, poor); bet["rejection_code"] != "insufficient_funds" {
			t.Fatalf("bet = %v", bet)
		}
		waitTransactions(t, bw.world, poor, "withdrawal[refused/insufficient_funds/409/]")

		// Settled: the deposit fails once (503), then the outbox's retry
		// is confirmed.
		bw.op.ForBettor("alice").FailNext("deposits", 1, 503)
		bw.resolve(bw.market, bw.outcome[0])
		txs = waitTransactions(t, bw.world, id, "withdrawal+[unknown//0/connection_closed done//200/] deposit+[unknown//503/ done//200/]")
		if dp := txs[1]; dp.TransactionID != "dp-"+id || dp.Amount.String() != "44.21" || dp.Currency != "USD" {
			t.Errorf("deposit = %+v, want dp-%s of 44.21 USD", dp, id)
		}
		_, bets := bw.admin("GET", "/admin/v1/bets?operator_id=sandbox&bettor_id=alice", "")
		if b := bets["items"].([]any)[0].(map[string]any); b["deposit_confirmed_at"] != txs[1].ConfirmedAt.Format(time.RFC3339Nano) {
			t.Errorf("deposit confirmed at %v, the bet says %v", txs[1].ConfirmedAt, b["deposit_confirmed_at"])
		}

		// A debit never answered: three unknown attempts, then the
		// rollback the rejection enqueued.
		_, ev := bw.admin("POST", "/admin/v1/events", `{"category":"crypto","title":{"en":"BTC"},"markets":[{"question":{"en":"Above 100k?"},
			"outcomes":[{"name":{"en":"Yes"},"probability":"0.5"},{"name":{"en":"No"},"probability":"0.5"}]}]}`)
		m := ev["markets"].([]any)[0].(map[string]any)
		bw.market = m["id"].(string)
		carol := bw.bettor("carol", "100.00")
		bw.op.ForBettor("carol").FailNext("withdrawals", 3, 502)
		lost := bw.place(carol, uuid.NewString(), m["outcomes"].([]any)[0].(map[string]any)["id"].(string), "2.00").json(t)["id"].(string)
		if bet := bw.settled(carol, lost); bet["status"] != "rejected" || bet["rejection_code"] != nil {
			t.Fatalf("bet = %v", bet)
		}
		txs = waitTransactions(t, bw.world, lost, "withdrawal[unknown//502/ unknown//502/ unknown//502/] rollback+[done//200/]")
		if rb := txs[1]; rb.TransactionID != "rb-"+lost || rb.Amount.String() != "2" {
			t.Errorf("rollback = %+v", rb)
		}

		// No such bet.
		for _, path := range []string{"/admin/v1/bets/" + uuid.NewString() + "/wallet-transactions", "/admin/v1/bets/nope/wallet-transactions"} {
			if st, p := bw.world.asAdmin(t, "GET", path, nil); st != 404 || p["code"] != "not_found" {
				t.Errorf("GET %s = %d %v, want 404 not_found", path, st, p)
			}
		}
		var p *admin.Problem
		if _, err := bw.world.admin.BetWalletTransactions(context.Background(), uuid.NewString()); !errors.As(err, &p) || p.Code != "not_found" {
			t.Errorf("the Go client on an unknown bet = %v, want a not_found problem", err)
		}
		if st, _ := bw.world.adminDo(t, "GET", "/admin/v1/bets/"+id+"/wallet-transactions", "", nil); st != 401 {
			t.Errorf("without the admin token = %d, want 401", st)
		}
	})
}

// TestAggregatorBetWalletTransactions: on the aggregator path the
// attempts are the Round/BetWin and Round/Finish requests to the casino.
func TestAggregatorBetWalletTransactions(t *testing.T) {
	t.Parallel()
	aw := newAggWorld(t, "sqlite:"+t.TempDir()+"/agg.db", nil)
	token := aw.session("player-7", "EUR", uuid.NewString())
	aw.casino.FailNext("betwin", 1, 500)
	id := aw.placeConfirmed(token, aw.outcome[1], "10.00")
	aw.resolve(aw.market, aw.outcome[0])
	txs := waitTransactions(t, aw.world, id, "withdrawal+[unknown//500/ done//200/] deposit+[done//200/]")
	if dp := txs[1]; dp.TransactionID != "dp-"+id || !dp.Amount.IsZero() || dp.Currency != "EUR" {
		t.Errorf("the loss's Round/Finish = %+v, want dp-%s of 0 EUR", dp, id)
	}
}
