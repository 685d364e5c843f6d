package operator_test

import (
	"bytes"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/foresight-dev/foresight/internal/sandbox/operator"
	"github.com/foresight-dev/foresight/internal/sandbox/sandboxledger"
	"github.com/foresight-dev/foresight/internal/sandbox/sandboxtest"
)

func TestWithdrawal(t *testing.T) {
	e := fundedEnv(t)

	status, body := e.withdraw(withdrawalBody(t, "tx-1", "b1", "10.50", "USD"))
	wantStatus(t, "withdrawal", status, body, http.StatusOK, "")
	a := answer(t, body)
	if a["balance"] != "89.50" || !strings.HasPrefix(a["transaction_id"], "op-tx-") {
		t.Fatalf("answer %s", body)
	}
	e.wantBalance("b1", "89.50")

	ledger := e.op.Ledger()
	last := ledger[len(ledger)-1]
	want := operator.Entry{
		Stamp: sandboxledger.Stamp{Seq: int64(len(ledger)), Time: testStart}, Type: operator.EntryWithdrawal,
		TransactionID: "tx-1", OperatorTransactionID: a["transaction_id"],
		BettorID: "b1", Currency: "USD", Amount: "-10.50", BalanceAfter: "89.50",
	}
	if last != want {
		t.Errorf("ledger entry %+v, want %+v", last, want)
	}

	// The whole balance can be staked.
	status, body = e.withdraw(withdrawalBody(t, "tx-2", "b1", "89.5", "USD"))
	wantStatus(t, "withdraw all", status, body, http.StatusOK, "")
	if answer(t, body)["balance"] != "0.00" {
		t.Errorf("answer %s", body)
	}
}

func TestWithdrawalRefusals(t *testing.T) {
	e := newEnv(t)
	e.setBalance("poor", "USD", "5.00")
	e.setBalance("blocked", "USD", "100.00")
	e.op.Block("blocked")
	e.setBalance("euro", "EUR", "100.00")
	before := e.ledgerLen()

	status, body := e.withdraw(withdrawalBody(t, "tx-poor", "poor", "10.00", "USD"))
	wantStatus(t, "insufficient funds", status, body, http.StatusConflict, "")
	if string(bytes.TrimSpace(body)) != `{"error":"insufficient_funds"}` {
		t.Errorf("insufficient funds body %s", body)
	}
	status, body = e.withdraw(withdrawalBody(t, "tx-blocked", "blocked", "1.00", "USD"))
	wantStatus(t, "blocked", status, body, http.StatusForbidden, "bettor_blocked")
	status, body = e.withdraw(withdrawalBody(t, "tx-unknown", "nobody", "1.00", "USD"))
	wantStatus(t, "unknown bettor", status, body, http.StatusNotFound, "bettor_not_found")
	status, body = e.withdraw(withdrawalBody(t, "tx-currency", "euro", "1.00", "USD"))
	wantStatus(t, "currency mismatch", status, body, http.StatusConflict, "currency_mismatch")

	e.wantBalance("poor", "5.00")
	e.wantBalance("blocked", "100.00")
	e.wantBalance("euro", "100.00")
	if _, ok := e.op.Balance("nobody"); ok {
		t.Error("a refused withdrawal created a bettor")
	}
	if n := e.ledgerLen(); n != before {
		t.Errorf("ledger grew from %d to %d", before, n)
	}

	// A refusal is the transaction's definitive answer: the same request
	// after the bettor got money still answers it, byte for byte.
	e.setBalance("poor", "USD", "50.00")
	status2, body2 := e.withdraw(withdrawalBody(t, "tx-poor", "poor", "10.00", "USD"))
	if status2 != http.StatusConflict || string(body2) != `{"error":"insufficient_funds"}`+"\n" {
		t.Errorf("replayed refusal: %d %s", status2, body2)
	}
	e.wantBalance("poor", "50.00")

	// Unblocking lets the bettor bet again (with a new transaction).
	e.op.Unblock("blocked")
	status, body = e.withdraw(withdrawalBody(t, "tx-unblocked", "blocked", "1.00", "USD"))
	wantStatus(t, "unblocked", status, body, http.StatusOK, "")
}

func TestStartingBalanceCreatesBettors(t *testing.T) {
	e := newEnv(t, func(c *operator.Config) { c.StartingBalance = "1000" })
	status, body := e.withdraw(withdrawalBody(t, "tx-1", "newcomer", "10.00", "EUR"))
	wantStatus(t, "auto-created bettor", status, body, http.StatusOK, "")
	if a := answer(t, body); a["balance"] != "990.00" {
		t.Errorf("answer %s", body)
	}
	ledger := e.op.Ledger()
	if len(ledger) != 2 || ledger[0].Type != operator.EntryAdjustment || ledger[0].Amount != "1000.00" || ledger[0].Currency != "EUR" {
		t.Errorf("ledger %+v", ledger)
	}
	// Minting a token or issuing a session request creates the bettor too,
	// in the token's currency.
	if _, err := e.op.MintToken("widget-user", "JPY"); err != nil {
		t.Fatal(err)
	}
	e.wantBalance("widget-user", "1000")
	e.op.NewSessionRequest("page-user", "")
	e.wantBalance("page-user", "1000.00")
	if e.op.ID() != testOperatorID {
		t.Errorf("ID() = %q", e.op.ID())
	}
	// A blocked unknown bettor is refused without being created.
	e.op.Block("stranger")
	status, body = e.withdraw(withdrawalBody(t, "tx-2", "stranger", "1", "EUR"))
	wantStatus(t, "blocked unknown bettor", status, body, http.StatusForbidden, "bettor_blocked")
	if _, ok := e.op.Balance("stranger"); ok {
		t.Error("blocked bettor created")
	}
}

func TestWithdrawalIdempotency(t *testing.T) {
	e := fundedEnv(t)
	body := withdrawalBody(t, "tx-1", "b1", "10.00", "USD")

	status1, first := e.withdraw(body)
	wantStatus(t, "first", status1, first, http.StatusOK, "")
	e.setBalance("b1", "USD", "70.00") // the balance moves on; the replay must not show it
	n := e.ledgerLen()
	status2, second := e.withdraw(body)
	if status2 != http.StatusOK || !bytes.Equal(first, second) {
		t.Fatalf("replay: %d %s, want the first answer %s", status2, second, first)
	}
	e.wantBalance("b1", "70.00")
	if e.ledgerLen() != n {
		t.Error("replay added a ledger entry")
	}

	// The same JSON value in another key order and spacing is the same
	// request.
	reordered := []byte(`{ "metadata": {"bet_id":"bet-tx-1", "market_id":"mkt-1"}, "currency":"USD", "amount":"10.00", "bettor_id":"b1", "transaction_id":"tx-1" }`)
	status3, third := e.withdraw(reordered)
	if status3 != http.StatusOK || !bytes.Equal(first, third) {
		t.Fatalf("reordered replay: %d %s", status3, third)
	}

	// Another request under the same transaction_id is a conflict, and
	// changes nothing.
	for name, other := range map[string][]byte{
		"amount":   withdrawalBody(t, "tx-1", "b1", "20.00", "USD"),
		"scale":    withdrawalBody(t, "tx-1", "b1", "10.0", "USD"),
		"bettor":   withdrawalBody(t, "tx-1", "b2", "10.00", "USD"),
		"deposit":  depositBody(t, "tx-1", "b1", "10.00", "USD", "tx-1", "voided"),
		"rollback": rollbackBody(t, "tx-1", "b1", "10.00", "USD"),
	} {
		var status int
		var resp []byte
		switch name {
		case "deposit":
			status, resp = e.deposit(other)
		case "rollback":
			status, resp = e.rollback("tx-0", other)
		default:
			status, resp = e.withdraw(other)
		}
		wantStatus(t, "conflict "+name, status, resp, http.StatusConflict, "transaction_conflict")
	}
	e.wantBalance("b1", "70.00")
	if e.ledgerLen() != n {
		t.Error("conflicts added ledger entries")
	}
	// The conflict did not replace the stored answer.
	if _, again := e.withdraw(body); !bytes.Equal(first, again) {
		t.Errorf("after conflicts: %s", again)
	}
}

func TestConcurrentWithdrawals(t *testing.T) {
	e := newEnv(t)
	e.setBalance("b1", "USD", "10.00")
	const n = 20
	var wg sync.WaitGroup
	statuses := make([]int, n)
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			req := e.signedRequest(http.MethodPost, "/v1/withdrawals", withdrawalBody(t, fmt.Sprintf("tx-%d", i), "b1", "1.00", "USD"), nil)
			resp, err := e.client.Do(req)
			if err != nil {
				t.Error(err)
				return
			}
			resp.Body.Close()
			statuses[i] = resp.StatusCode
		}()
	}
	// The same transaction many times at once debits once.
	same := withdrawalBody(t, "tx-same", "b2", "1.00", "USD")
	e.setBalance("b2", "USD", "5.00")
	for range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			resp, err := e.client.Do(e.signedRequest(http.MethodPost, "/v1/withdrawals", same, nil))
			if err != nil {
				t.Error(err)
				return
			}
			resp.Body.Close()
			if resp.StatusCode != http.StatusOK {
				t.Errorf("same transaction: %d", resp.StatusCode)
			}
		}()
	}
	wg.Wait()
	sandboxtest.WantSplit(t, statuses, http.StatusConflict, 10, 10)
	e.wantBalance("b1", "0.00")
	e.wantBalance("b2", "4.00")
}

func TestRollbackAfterWithdrawal(t *testing.T) {
	e := fundedEnv(t)
	if status, body := e.withdraw(withdrawalBody(t, "wd-1", "b1", "10.00", "USD")); status != http.StatusOK {
		t.Fatalf("withdrawal: %d %s", status, body)
	}
	e.wantBalance("b1", "90.00")

	rb := rollbackBody(t, "rb-1", "b1", "10.00", "USD")
	status, first := e.rollback("wd-1", rb)
	wantStatus(t, "rollback", status, first, http.StatusOK, "")
	a := answer(t, first)
	if a["balance"] != "100.00" || a["result"] != "reversed" || !strings.HasPrefix(a["transaction_id"], "op-tx-") {
		t.Errorf("rollback answer %s", first)
	}
	e.wantBalance("b1", "100.00")

	// The same rollback again: the same bytes, no second credit.
	status, again := e.rollback("wd-1", rb)
	if status != http.StatusOK || !bytes.Equal(first, again) {
		t.Errorf("replayed rollback: %d %s", status, again)
	}
	// Another rollback of the same withdrawal: 200, nothing moves.
	status, other := e.rollback("wd-1", rollbackBody(t, "rb-2", "b1", "10.00", "USD"))
	wantStatus(t, "second rollback", status, other, http.StatusOK, "")
	if a := answer(t, other); a["result"] != "already_reversed" || a["balance"] != "100.00" {
		t.Errorf("second rollback %s", other)
	}
	e.wantBalance("b1", "100.00")

	var credits int
	for _, en := range e.op.Ledger() {
		if en.Type == operator.EntryRollback {
			credits++
			if en.Reference != "wd-1" || en.TransactionID != "rb-1" || en.Amount != "10.00" || en.BalanceAfter != "100.00" {
				t.Errorf("rollback entry %+v", en)
			}
		}
	}
	if credits != 1 {
		t.Errorf("%d rollback credits, want 1", credits)
	}

	// The replayed withdrawal still answers its first answer and moves
	// nothing.
	status, body := e.withdraw(withdrawalBody(t, "wd-1", "b1", "10.00", "USD"))
	wantStatus(t, "withdrawal replay after rollback", status, body, http.StatusOK, "")
	if answer(t, body)["balance"] != "90.00" {
		t.Errorf("replay %s", body)
	}
	e.wantBalance("b1", "100.00")
	// A deposit for the rolled-back withdrawal is refused.
	status, body = e.deposit(depositBody(t, "dep-1", "b1", "10.00", "USD", "wd-1", "voided"))
	wantStatus(t, "deposit after rollback", status, body, http.StatusConflict, "withdrawal_rolled_back")
	e.wantBalance("b1", "100.00")
}

func TestRollbackBeforeWithdrawal(t *testing.T) {
	e := fundedEnv(t)

	status, body := e.rollback("wd-late", rollbackBody(t, "rb-1", "b1", "10.00", "USD"))
	wantStatus(t, "rollback of an unseen withdrawal", status, body, http.StatusOK, "")
	if a := answer(t, body); a["result"] != "not_found" || a["balance"] != "100.00" {
		t.Errorf("answer %s", body)
	}
	e.wantBalance("b1", "100.00")

	// The withdrawal arrives late: refused, nothing moves, and it stays
	// refused.
	late := withdrawalBody(t, "wd-late", "b1", "10.00", "USD")
	status, first := e.withdraw(late)
	wantStatus(t, "late withdrawal", status, first, http.StatusConflict, "withdrawal_rolled_back")
	status, again := e.withdraw(late)
	if status != http.StatusConflict || !bytes.Equal(first, again) {
		t.Errorf("late withdrawal again: %d %s", status, again)
	}
	e.wantBalance("b1", "100.00")
	for _, en := range e.op.Ledger() {
		if en.Type != operator.EntryAdjustment {
			t.Errorf("unexpected ledger entry %+v", en)
		}
	}

	// A rollback for a bettor the operator does not know: 200 without a
	// balance.
	status, body = e.rollback("wd-ghost", rollbackBody(t, "rb-2", "ghost", "1.00", "USD"))
	wantStatus(t, "rollback for an unknown bettor", status, body, http.StatusOK, "")
	if a := answer(t, body); a["result"] != "not_found" || a["balance"] != "" {
		t.Errorf("answer %s", body)
	}

	// A rollback of a refused withdrawal: nothing to return.
	e.setBalance("poor", "USD", "1.00")
	if status, _ := e.withdraw(withdrawalBody(t, "wd-poor", "poor", "5.00", "USD")); status != http.StatusConflict {
		t.Fatalf("withdrawal: %d", status)
	}
	status, body = e.rollback("wd-poor", rollbackBody(t, "rb-3", "poor", "5.00", "USD"))
	wantStatus(t, "rollback of a refused withdrawal", status, body, http.StatusOK, "")
	if a := answer(t, body); a["result"] != "not_debited" || a["balance"] != "1.00" {
		t.Errorf("answer %s", body)
	}
	e.wantBalance("poor", "1.00")
}

func TestRollbackRefusals(t *testing.T) {
	e := fundedEnv(t)
	for _, tx := range []string{"wd-1", "wd-2"} {
		if status, body := e.withdraw(withdrawalBody(t, tx, "b1", "10.00", "USD")); status != http.StatusOK {
			t.Fatalf("withdrawal: %d %s", status, body)
		}
	}
	if status, body := e.deposit(depositBody(t, "dep-1", "b1", "0", "USD", "wd-2", "lost")); status != http.StatusOK {
		t.Fatalf("deposit: %d %s", status, body)
	}
	e.wantBalance("b1", "80.00")

	for _, c := range []struct {
		name, path string
		body       []byte
		status     int
		code       string
	}{
		{"other amount", "wd-1", rollbackBody(t, "rb-a", "b1", "9.00", "USD"), http.StatusConflict, "withdrawal_mismatch"},
		{"other bettor", "wd-1", rollbackBody(t, "rb-b", "b2", "10.00", "USD"), http.StatusConflict, "withdrawal_mismatch"},
		{"other currency", "wd-1", rollbackBody(t, "rb-c", "b1", "10.00", "EUR"), http.StatusConflict, "withdrawal_mismatch"},
		{"a deposit", "dep-1", rollbackBody(t, "rb-d", "b1", "10.00", "USD"), http.StatusConflict, "withdrawal_mismatch"},
		{"settled", "wd-2", rollbackBody(t, "rb-e", "b1", "10.00", "USD"), http.StatusConflict, "withdrawal_settled"},
		{"own id", "wd-1", rollbackBody(t, "wd-1", "b1", "10.00", "USD"), http.StatusBadRequest, "invalid_request"},
	} {
		status, body := e.rollback(c.path, c.body)
		wantStatus(t, c.name, status, body, c.status, c.code)
	}
	e.wantBalance("b1", "80.00")
}

func TestDeposits(t *testing.T) {
	e := fundedEnv(t)
	e.setBalance("b2", "USD", "100.00")
	for _, tx := range []string{"wd-won", "wd-lost", "wd-void", "wd-blocked"} {
		if status, body := e.withdraw(withdrawalBody(t, tx, "b1", "10.00", "USD")); status != http.StatusOK {
			t.Fatalf("withdrawal %s: %d %s", tx, status, body)
		}
	}
	e.wantBalance("b1", "60.00")

	// Won: stake × odds.
	won := depositBody(t, "dep-won", "b1", "23.45", "USD", "wd-won", "won")
	status, first := e.deposit(won)
	wantStatus(t, "won", status, first, http.StatusOK, "")
	if a := answer(t, first); a["balance"] != "83.45" || !strings.HasPrefix(a["transaction_id"], "op-tx-") {
		t.Errorf("won answer %s", first)
	}
	// Idempotent.
	status, again := e.deposit(won)
	if status != http.StatusOK || !bytes.Equal(first, again) {
		t.Errorf("replayed deposit: %d %s", status, again)
	}
	e.wantBalance("b1", "83.45")
	// A second deposit for the same bet is refused.
	status, body := e.deposit(depositBody(t, "dep-won-2", "b1", "23.45", "USD", "wd-won", "won"))
	wantStatus(t, "second deposit", status, body, http.StatusConflict, "already_settled")

	// Lost: a zero deposit is accepted and recorded.
	status, body = e.deposit(depositBody(t, "dep-lost", "b1", "0", "USD", "wd-lost", "lost"))
	wantStatus(t, "lost", status, body, http.StatusOK, "")
	if a := answer(t, body); a["balance"] != "83.45" {
		t.Errorf("lost answer %s", body)
	}
	ledger := e.op.Ledger()
	if last := ledger[len(ledger)-1]; last.Type != operator.EntryDeposit || last.Amount != "0.00" || last.Reference != "wd-lost" || last.TransactionID != "dep-lost" {
		t.Errorf("zero deposit entry %+v", last)
	}

	// Voided: exactly the stake.
	status, body = e.deposit(depositBody(t, "dep-void-wrong", "b1", "9.99", "USD", "wd-void", "voided"))
	wantStatus(t, "void with another amount", status, body, http.StatusConflict, "withdrawal_mismatch")
	status, body = e.deposit(depositBody(t, "dep-void", "b1", "10.00", "USD", "wd-void", "voided"))
	wantStatus(t, "void", status, body, http.StatusOK, "")
	e.wantBalance("b1", "93.45")

	// A blocked bettor is still paid.
	e.op.Block("b1")
	status, body = e.deposit(depositBody(t, "dep-blocked", "b1", "15.00", "USD", "wd-blocked", "won"))
	wantStatus(t, "deposit to a blocked bettor", status, body, http.StatusOK, "")
	e.wantBalance("b1", "108.45")

	// Deposits that do not belong to a debited withdrawal.
	n := e.ledgerLen()
	for _, c := range []struct {
		name string
		body []byte
		code string
	}{
		{"unknown withdrawal", depositBody(t, "dep-x1", "b1", "1.00", "USD", "wd-none", "won"), "withdrawal_not_found"},
		{"other bettor", depositBody(t, "dep-x2", "b2", "1.00", "USD", "wd-won", "won"), "withdrawal_mismatch"},
		{"other currency", depositBody(t, "dep-x3", "b1", "1.00", "EUR", "wd-won", "won"), "withdrawal_mismatch"},
	} {
		status, body := e.deposit(c.body)
		wantStatus(t, c.name, status, body, http.StatusConflict, c.code)
	}
	// A deposit for another market than the bet's.
	otherMarket := []byte(`{"transaction_id":"dep-x4","bettor_id":"b1","amount":"1.00","currency":"USD","metadata":{"market_id":"mkt-2","bet_id":"x","withdrawal_transaction_id":"wd-won","result":"won"}}`)
	status, body = e.deposit(otherMarket)
	wantStatus(t, "other market", status, body, http.StatusConflict, "withdrawal_mismatch")
	if e.ledgerLen() != n {
		t.Error("refused deposits added ledger entries")
	}
	e.wantBalance("b1", "108.45")
	e.wantBalance("b2", "100.00")
}

func TestAmountValidation(t *testing.T) {
	e := newEnv(t, func(c *operator.Config) { c.Decimals = map[string]int32{"BTC": 8} })
	e.setBalance("usd", "USD", "1000.00")
	e.setBalance("jpy", "JPY", "100000")
	e.setBalance("kwd", "KWD", "1000.000")
	e.setBalance("btc", "BTC", "1")

	good := []struct{ bettor, amount, currency, balance string }{
		{"usd", "10.00", "USD", "990.00"},
		{"usd", "10.5", "USD", "979.50"},
		{"usd", "1", "USD", "978.50"},
		{"jpy", "100", "JPY", "99900"},
		{"kwd", "1.234", "KWD", "998.766"},
		{"btc", "0.00000001", "BTC", "0.99999999"},
	}
	for i, g := range good {
		status, body := e.withdraw(withdrawalBody(t, fmt.Sprintf("good-%d", i), g.bettor, g.amount, g.currency))
		wantStatus(t, g.currency+" "+g.amount, status, body, http.StatusOK, "")
		if a := answer(t, body); a["balance"] != g.balance {
			t.Errorf("%s %s: balance %s, want %s", g.currency, g.amount, a["balance"], g.balance)
		}
	}

	n := e.ledgerLen()
	bad := map[string]string{
		"three decimals in USD":  `{"transaction_id":"bad","bettor_id":"usd","amount":"10.001","currency":"USD","metadata":{"market_id":"m"}}`,
		"trailing zero past USD": `{"transaction_id":"bad","bettor_id":"usd","amount":"10.000","currency":"USD","metadata":{"market_id":"m"}}`,
		"decimals in JPY":        `{"transaction_id":"bad","bettor_id":"jpy","amount":"100.5","currency":"JPY","metadata":{"market_id":"m"}}`,
		"zero decimal in JPY":    `{"transaction_id":"bad","bettor_id":"jpy","amount":"100.0","currency":"JPY","metadata":{"market_id":"m"}}`,
		"four decimals in KWD":   `{"transaction_id":"bad","bettor_id":"kwd","amount":"1.2345","currency":"KWD","metadata":{"market_id":"m"}}`,
		"JSON number":            `{"transaction_id":"bad","bettor_id":"usd","amount":10.5,"currency":"USD","metadata":{"market_id":"m"}}`,
		"JSON integer":           `{"transaction_id":"bad","bettor_id":"usd","amount":10,"currency":"USD","metadata":{"market_id":"m"}}`,
		"negative":               `{"transaction_id":"bad","bettor_id":"usd","amount":"-1.00","currency":"USD","metadata":{"market_id":"m"}}`,
		"zero":                   `{"transaction_id":"bad","bettor_id":"usd","amount":"0.00","currency":"USD","metadata":{"market_id":"m"}}`,
		"plus sign":              `{"transaction_id":"bad","bettor_id":"usd","amount":"+1","currency":"USD","metadata":{"market_id":"m"}}`,
		"exponent":               `{"transaction_id":"bad","bettor_id":"usd","amount":"1e2","currency":"USD","metadata":{"market_id":"m"}}`,
		"empty amount":           `{"transaction_id":"bad","bettor_id":"usd","amount":"","currency":"USD","metadata":{"market_id":"m"}}`,
		"null amount":            `{"transaction_id":"bad","bettor_id":"usd","amount":null,"currency":"USD","metadata":{"market_id":"m"}}`,
		"missing amount":         `{"transaction_id":"bad","bettor_id":"usd","currency":"USD","metadata":{"market_id":"m"}}`,
		"lowercase currency":     `{"transaction_id":"bad","bettor_id":"usd","amount":"1.00","currency":"usd","metadata":{"market_id":"m"}}`,
		"unknown currency":       `{"transaction_id":"bad","bettor_id":"usd","amount":"1.00","currency":"ZZZ","metadata":{"market_id":"m"}}`,
		"no minor unit currency": `{"transaction_id":"bad","bettor_id":"usd","amount":"1","currency":"XAU","metadata":{"market_id":"m"}}`,
		"missing currency":       `{"transaction_id":"bad","bettor_id":"usd","amount":"1.00","metadata":{"market_id":"m"}}`,
		"missing transaction_id": `{"bettor_id":"usd","amount":"1.00","currency":"USD","metadata":{"market_id":"m"}}`,
		"numeric transaction_id": `{"transaction_id":7,"bettor_id":"usd","amount":"1.00","currency":"USD","metadata":{"market_id":"m"}}`,
		"missing bettor_id":      `{"transaction_id":"bad","amount":"1.00","currency":"USD","metadata":{"market_id":"m"}}`,
		"control character":      `{"transaction_id":"bad\u0001","bettor_id":"usd","amount":"1.00","currency":"USD","metadata":{"market_id":"m"}}`,
		"missing metadata":       `{"transaction_id":"bad","bettor_id":"usd","amount":"1.00","currency":"USD"}`,
		"metadata not an object": `{"transaction_id":"bad","bettor_id":"usd","amount":"1.00","currency":"USD","metadata":"m"}`,
		"missing market_id":      `{"transaction_id":"bad","bettor_id":"usd","amount":"1.00","currency":"USD","metadata":{}}`,
		"not JSON":               `transaction_id=bad`,
		"array":                  `[{"transaction_id":"bad"}]`,
		"trailing data":          `{"transaction_id":"bad","bettor_id":"usd","amount":"1.00","currency":"USD","metadata":{"market_id":"m"}} {}`,
		"empty body":             ``,
		"too many digits":        `{"transaction_id":"bad","bettor_id":"usd","amount":"1000000000000000000","currency":"USD","metadata":{"market_id":"m"}}`,
	}
	for name, body := range bad {
		status, resp := e.withdraw([]byte(body))
		if status != http.StatusBadRequest || answer(t, resp)["error"] != "invalid_request" || answer(t, resp)["message"] == "" {
			t.Errorf("%s: %d %s, want 400 invalid_request with a message", name, status, resp)
		}
	}
	// A malformed request does not consume its transaction_id.
	status, body := e.withdraw(withdrawalBody(t, "bad", "usd", "1.00", "USD"))
	wantStatus(t, "after the malformed ones", status, body, http.StatusOK, "")
	if e.ledgerLen() != n+1 {
		t.Errorf("ledger has %d entries, want %d", e.ledgerLen(), n+1)
	}
	e.wantBalance("usd", "977.50")

	// Deposits: amount rules by result.
	badDeposits := map[string][]byte{
		"negative":        depositBody(t, "d", "usd", "-1.00", "USD", "good-0", "won"),
		"lost not zero":   depositBody(t, "d", "usd", "1.00", "USD", "good-0", "lost"),
		"won zero":        depositBody(t, "d", "usd", "0.00", "USD", "good-0", "won"),
		"voided zero":     depositBody(t, "d", "usd", "0", "USD", "good-0", "voided"),
		"unknown result":  depositBody(t, "d", "usd", "1.00", "USD", "good-0", "cashout"),
		"too many places": depositBody(t, "d", "usd", "1.001", "USD", "good-0", "won"),
		"number":          []byte(`{"transaction_id":"d","bettor_id":"usd","amount":0,"currency":"USD","metadata":{"market_id":"mkt-1","bet_id":"b","withdrawal_transaction_id":"good-0","result":"lost"}}`),
		"no withdrawal":   []byte(`{"transaction_id":"d","bettor_id":"usd","amount":"0","currency":"USD","metadata":{"market_id":"mkt-1","bet_id":"b","result":"lost"}}`),
	}
	for name, body := range badDeposits {
		status, resp := e.deposit(body)
		wantStatus(t, "deposit "+name, status, resp, http.StatusBadRequest, "invalid_request")
	}
	status, body = e.rollback("good-0", rollbackBody(t, "r", "usd", "10", "USD"))
	wantStatus(t, "rollback with a JPY-style amount in USD", status, body, http.StatusOK, "")
	status, body = e.rollback("good-1", []byte(`{"transaction_id":"r2","bettor_id":"usd","amount":10.5,"currency":"USD"}`))
	wantStatus(t, "rollback with a number", status, body, http.StatusBadRequest, "invalid_request")
	e.wantBalance("usd", "987.50")
}

func TestAuthentication(t *testing.T) {
	e := fundedEnv(t)
	body := withdrawalBody(t, "tx-1", "b1", "10.00", "USD")
	now := e.clock.Now()
	v1, _ := uuid.NewUUID() // a version 1 UUID

	cases := []struct {
		name string
		mod  func(http.Header)
		code string
	}{
		{"no signature", func(h http.Header) { h.Del("X-Payload-Signature") }, "missing_header"},
		{"no timestamp", func(h http.Header) { h.Del("X-Timestamp") }, "missing_header"},
		{"no nonce", func(h http.Header) { h.Del("X-Nonce") }, "missing_header"},
		{"wrong secret", func(h http.Header) { h.Set("X-Payload-Signature", sandboxtest.HMACHex("other-secret", body)) }, "invalid_signature"},
		{"signature of another body", func(h http.Header) {
			h.Set("X-Payload-Signature", sandboxtest.HMACHex(testSecret, withdrawalBody(t, "tx-1", "b1", "1.00", "USD")))
		}, "invalid_signature"},
		{"upper-case hex", func(h http.Header) {
			h.Set("X-Payload-Signature", strings.ToUpper(sandboxtest.HMACHex(testSecret, body)))
		}, "invalid_signature"},
		{"truncated signature", func(h http.Header) { h.Set("X-Payload-Signature", sandboxtest.HMACHex(testSecret, body)[:62]) }, "invalid_signature"},
		{"not hex", func(h http.Header) { h.Set("X-Payload-Signature", strings.Repeat("zz", 32)) }, "invalid_signature"},
		{"six minutes old", func(h http.Header) { h.Set("X-Timestamp", now.Add(-6*time.Minute).Format(time.RFC3339)) }, "stale_timestamp"},
		{"six minutes ahead", func(h http.Header) { h.Set("X-Timestamp", now.Add(6*time.Minute).Format(time.RFC3339)) }, "stale_timestamp"},
		{"five minutes and a bit old", func(h http.Header) {
			h.Set("X-Timestamp", now.Add(-5*time.Minute-time.Millisecond).Format(time.RFC3339Nano))
		}, "stale_timestamp"},
		{"not UTC", func(h http.Header) {
			h.Set("X-Timestamp", now.In(time.FixedZone("CET", 3600)).Format(time.RFC3339))
		}, "invalid_timestamp"},
		{"unix seconds", func(h http.Header) { h.Set("X-Timestamp", fmt.Sprint(now.Unix())) }, "invalid_timestamp"},
		{"no zone", func(h http.Header) { h.Set("X-Timestamp", now.Format("2006-01-02T15:04:05")) }, "invalid_timestamp"},
		{"nonce not a UUID", func(h http.Header) { h.Set("X-Nonce", "nonce-1") }, "invalid_nonce"},
		{"nonce UUID v1", func(h http.Header) { h.Set("X-Nonce", v1.String()) }, "invalid_nonce"},
		{"nonce without hyphens", func(h http.Header) { h.Set("X-Nonce", strings.ReplaceAll(uuid.NewString(), "-", "")) }, "invalid_nonce"},
	}
	for _, c := range cases {
		status, resp, _ := e.do(e.signedRequest(http.MethodPost, "/v1/withdrawals", body, c.mod))
		wantStatus(t, c.name, status, resp, http.StatusUnauthorized, c.code)
	}
	// The other signed endpoints check too.
	for _, path := range []string{"/v1/deposits", "/v1/rollbacks/tx-1"} {
		method := http.MethodPost
		if strings.HasPrefix(path, "/v1/rollbacks") {
			method = http.MethodDelete
		}
		rb := rollbackBody(t, "rb-1", "b1", "10.00", "USD")
		status, resp, _ := e.do(e.signedRequest(method, path, rb, func(h http.Header) { h.Set("X-Payload-Signature", sandboxtest.HMACHex("x", rb)) }))
		wantStatus(t, path, status, resp, http.StatusUnauthorized, "invalid_signature")
	}
	e.wantBalance("b1", "100.00")
	if n := e.ledgerLen(); n != 1 {
		t.Fatalf("ledger has %d entries after refused requests", n)
	}

	// A request refused for its signature does not burn its nonce, and the
	// transaction_id is still free.
	nonce := uuid.NewString()
	status, resp, _ := e.do(e.signedRequest(http.MethodPost, "/v1/withdrawals", body, func(h http.Header) {
		h.Set("X-Nonce", nonce)
		h.Set("X-Payload-Signature", sandboxtest.HMACHex("wrong", body))
	}))
	wantStatus(t, "bad signature with nonce", status, resp, http.StatusUnauthorized, "invalid_signature")
	status, resp, _ = e.do(e.signedRequest(http.MethodPost, "/v1/withdrawals", body, func(h http.Header) { h.Set("X-Nonce", nonce) }))
	wantStatus(t, "good request with that nonce", status, resp, http.StatusOK, "")
	e.wantBalance("b1", "90.00")

	// Replaying the nonce, with any body, is refused; upper-case spelling
	// is the same nonce.
	other := withdrawalBody(t, "tx-2", "b1", "10.00", "USD")
	for _, n := range []string{nonce, strings.ToUpper(nonce)} {
		status, resp, _ = e.do(e.signedRequest(http.MethodPost, "/v1/withdrawals", other, func(h http.Header) { h.Set("X-Nonce", n) }))
		wantStatus(t, "replayed nonce", status, resp, http.StatusUnauthorized, "nonce_replayed")
	}
	e.wantBalance("b1", "90.00")

	// The window's edges are accepted: five minutes old, five ahead,
	// fractional seconds, +00:00.
	for i, ts := range []string{
		now.Add(-5 * time.Minute).Format(time.RFC3339),
		now.Add(5 * time.Minute).Format(time.RFC3339),
		now.Add(-time.Second).Format("2006-01-02T15:04:05.123Z"),
		now.Format("2006-01-02T15:04:05+00:00"),
	} {
		b := withdrawalBody(t, fmt.Sprintf("edge-%d", i), "b1", "1.00", "USD")
		status, resp, _ = e.do(e.signedRequest(http.MethodPost, "/v1/withdrawals", b, func(h http.Header) { h.Set("X-Timestamp", ts) }))
		wantStatus(t, "timestamp "+ts, status, resp, http.StatusOK, "")
	}

	// After ten minutes a nonce is forgotten (its timestamp would be
	// refused anyway).
	e.clock.Advance(operator.NonceRetention)
	status, resp, _ = e.do(e.signedRequest(http.MethodPost, "/v1/withdrawals", other, func(h http.Header) { h.Set("X-Nonce", nonce) }))
	wantStatus(t, "nonce after retention", status, resp, http.StatusOK, "")
}

func TestRequestShape(t *testing.T) {
	e := fundedEnv(t)
	body := withdrawalBody(t, "tx-1", "b1", "10.00", "USD")

	// Authenticated, but not JSON.
	status, resp, _ := e.do(e.signedRequest(http.MethodPost, "/v1/withdrawals", body, func(h http.Header) { h.Set("Content-Type", "text/plain") }))
	wantStatus(t, "text/plain", status, resp, http.StatusUnsupportedMediaType, "unsupported_media_type")
	status, resp, _ = e.do(e.signedRequest(http.MethodPost, "/v1/withdrawals", body, func(h http.Header) { h.Del("Content-Type") }))
	wantStatus(t, "no Content-Type", status, resp, http.StatusUnsupportedMediaType, "unsupported_media_type")
	status, resp, _ = e.do(e.signedRequest(http.MethodPost, "/v1/withdrawals", body, func(h http.Header) { h.Set("Content-Type", "application/json; charset=utf-8") }))
	wantStatus(t, "with charset", status, resp, http.StatusOK, "")

	// Too large.
	huge := bytes.Repeat([]byte(" "), 1<<20+1)
	status, resp, _ = e.do(e.signedRequest(http.MethodPost, "/v1/withdrawals", huge, nil))
	wantStatus(t, "huge body", status, resp, http.StatusRequestEntityTooLarge, "request_too_large")

	// Wrong method.
	status, _, _ = e.do(e.signedRequest(http.MethodGet, "/v1/withdrawals", nil, nil))
	if status != http.StatusMethodNotAllowed {
		t.Errorf("GET /v1/withdrawals: %d", status)
	}
	e.wantBalance("b1", "90.00")
}

func TestHelpers(t *testing.T) {
	e := newEnv(t, func(c *operator.Config) { c.Currency = "EUR" })
	if err := e.op.Credit("b1", "", "5.25"); err != nil {
		t.Fatal(err)
	}
	e.wantBalance("b1", "5.25")
	if err := e.op.Credit("b1", "EUR", "0.75"); err != nil {
		t.Fatal(err)
	}
	e.wantBalance("b1", "6.00")
	if err := e.op.SetBalance("b1", "", "1"); err != nil {
		t.Fatal(err)
	}
	e.wantBalance("b1", "1.00")
	ledger := e.op.Ledger()
	if len(ledger) != 3 || ledger[2].Amount != "-5.00" || ledger[2].BalanceAfter != "1.00" || ledger[2].Currency != "EUR" {
		t.Errorf("ledger %+v", ledger)
	}
	for name, err := range map[string]error{
		"other currency":    e.op.SetBalance("b1", "USD", "1"),
		"credit zero":       e.op.Credit("b1", "", "0"),
		"negative balance":  e.op.SetBalance("b2", "USD", "-1"),
		"too many decimals": e.op.SetBalance("b2", "JPY", "1.5"),
		"no bettor":         e.op.SetBalance("", "USD", "1"),
		"bad currency":      e.op.Credit("b2", "usd", "1"),
	} {
		if err == nil {
			t.Errorf("%s: no error", name)
		}
	}
	if _, ok := e.op.Balance("b2"); ok {
		t.Error("failed helpers created a bettor")
	}
	if len(e.op.Ledger()) != 3 {
		t.Error("failed helpers changed the ledger")
	}
}

func TestNewRejectsBadConfig(t *testing.T) {
	base := func() operator.Config {
		return operator.Config{ID: "op", SigningSecret: "s", PrivateKey: testKey()}
	}
	small, err := rsaKey(1024)
	if err != nil {
		t.Fatal(err)
	}
	for name, mutate := range map[string]func(*operator.Config){
		"no id":             func(c *operator.Config) { c.ID = "" },
		"no secret":         func(c *operator.Config) { c.SigningSecret = "" },
		"bad currency":      func(c *operator.Config) { c.Currency = "XYZ" },
		"bad decimals":      func(c *operator.Config) { c.Decimals = map[string]int32{"BTC": 17} },
		"bad decimals code": func(c *operator.Config) { c.Decimals = map[string]int32{"btc": 8} },
		"bad start":         func(c *operator.Config) { c.StartingBalance = "-5" },
		"short lifetime":    func(c *operator.Config) { c.TokenLifetime = time.Millisecond },
		"small key":         func(c *operator.Config) { c.PrivateKey = small },
	} {
		cfg := base()
		mutate(&cfg)
		if _, err := operator.New(cfg); err == nil {
			t.Errorf("%s: New accepted the config", name)
		}
	}
	if _, err := operator.New(base()); err != nil {
		t.Errorf("base config: %v", err)
	}
}

// LedgerFrom(n) returns the entries a reader that has seen n has not.
func TestLedgerFrom(t *testing.T) {
	e := fundedEnv(t)
	for i := range 3 {
		status, body := e.withdraw(withdrawalBody(t, fmt.Sprint("tx-", i), "b1", "1.00", "USD"))
		wantStatus(t, "withdrawal", status, body, http.StatusOK, "")
	}
	all := e.op.Ledger()
	for n := range len(all) + 2 {
		got := e.op.LedgerFrom(n)
		if want := all[min(n, len(all)):]; len(got) != len(want) || (len(got) > 0 && got[0].Seq != want[0].Seq) {
			t.Errorf("LedgerFrom(%d) = %d entries from %v, want %d", n, len(got), got, len(want))
		}
	}
}
