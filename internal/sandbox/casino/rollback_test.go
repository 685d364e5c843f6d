package casino_test

import (
	"bytes"
	"net/http"
	"strings"
	"testing"

	"github.com/foresight-dev/foresight/internal/sandbox/casino"
)

func TestRollbackAfterBet(t *testing.T) {
	t.Parallel()
	e := newFundedEnv(t)
	status, resp := e.post(casino.PathBetWin, betBody(t, "a1", "USD", "r1", "bet-1", "10.00"))
	betAnswer := wantOK(t, "bet", status, resp)
	e.wantBalance("a1", "USD", "90.00")

	rb := rollbackBody(t, "a1", "USD", "r1", "rb-1", "bet-1")
	status, first := e.post(casino.PathRollback, rb)
	a := wantOK(t, "rollback", status, first)
	if str(a.Balance) != "100.00" || str(a.RoundID) != str(betAnswer.RoundID) || len(a.Transactions) != 1 ||
		a.Transactions[0].IDProvider != "rb-1" || !strings.HasPrefix(a.Transactions[0].ID, "casino-tx-") ||
		a.Transactions[0].ID == betAnswer.Transactions[0].ID {
		t.Fatalf("rollback answer %s", first)
	}
	// Key order: balance, round_id, transactions.
	if !strings.HasPrefix(string(first), `{"balance":"100.00","round_id":`) {
		t.Errorf("rollback body %s", first)
	}
	e.wantBalance("a1", "USD", "100.00")

	// The same rollback again: the same bytes, no second credit.
	status, again := e.post(casino.PathRollback, rb)
	if status != http.StatusOK || !bytes.Equal(first, again) {
		t.Errorf("replayed rollback: %d %s", status, again)
	}
	// Another rollback of the same bet: 200 with its own id, nothing moves.
	if a := e.wantPostedBalance("second rollback", casino.PathRollback, rollbackBody(t, "a1", "USD", "r1", "rb-2", "bet-1"), "100.00"); a.Transactions[0].ID == "" {
		t.Errorf("second rollback: transactions %+v", a.Transactions)
	}
	e.wantBalance("a1", "USD", "100.00")

	var credits int
	for _, en := range e.c.Ledger() {
		if en.Type == casino.EntryRollback && en.Amount != "0.00" {
			credits++
			if en.OriginalIDProvider != "bet-1" || en.IDProvider != "rb-1" || en.Amount != "10.00" || en.BalanceAfter != "100.00" ||
				en.RoundID != "r1" || en.CasinoTxID != a.Transactions[0].ID {
				t.Errorf("rollback entry %+v", en)
			}
		}
	}
	if credits != 1 {
		t.Errorf("%d rollback credits, want 1", credits)
	}

	// The replayed bet still answers its first answer and moves nothing.
	e.wantPostedBalance("bet replay after rollback", casino.PathBetWin, betBody(t, "a1", "USD", "r1", "bet-1", "10.00"), "90.00")
	e.wantBalance("a1", "USD", "100.00")

	// A rollback of a blocked account's bet goes through.
	e.postOK("bet 2", casino.PathBetWin, betBody(t, "a1", "USD", "r2", "bet-2", "5"))
	e.c.Block("a1")
	e.wantPostedBalance("rollback of a blocked account", casino.PathRollback, rollbackBody(t, "a1", "USD", "r2", "rb-3", "bet-2"), "100.00")
}

func TestRollbackBeforeBet(t *testing.T) {
	t.Parallel()
	e := newFundedEnv(t)

	rb := rollbackBody(t, "a1", "USD", "r1", "rb-1", "bet-late")
	status, first := e.post(casino.PathRollback, rb)
	a := wantOK(t, "rollback of an unseen bet", status, first)
	if str(a.Balance) != "100.00" || a.RoundID == nil || *a.RoundID == "" || len(a.Transactions) != 1 ||
		a.Transactions[0].IDProvider != "rb-1" || a.Transactions[0].ID != "" {
		t.Fatalf("answer %s", first)
	}
	if !bytes.Contains(first, []byte(`"id":""`)) {
		t.Errorf("id is not written as an empty string: %s", first)
	}
	// Replayed: the same bytes.
	if status, again := e.post(casino.PathRollback, rb); status != http.StatusOK || !bytes.Equal(first, again) {
		t.Errorf("replayed rollback: %d %s", status, again)
	}

	// The bet arrives late: refused 409, nothing moves, and it stays refused.
	late := betBody(t, "a1", "USD", "r1", "bet-late", "10.00")
	status, refused := e.post(casino.PathBetWin, late)
	w := wantErr(t, "late bet", status, refused, http.StatusBadRequest, "409", "")
	if !strings.Contains(w.Msg, "bet-late") {
		t.Errorf("msg %q", w.Msg)
	}
	if status, again := e.post(casino.PathBetWin, late); status != http.StatusBadRequest || !bytes.Equal(refused, again) {
		t.Errorf("late bet again: %d %s", status, again)
	}
	e.wantBalance("a1", "USD", "100.00")
	ledger := e.c.Ledger()
	if len(ledger) != 1 || ledger[0].Type != casino.EntryRollback || ledger[0].Amount != "0.00" || ledger[0].CasinoTxID != "" ||
		ledger[0].OriginalIDProvider != "bet-late" || ledger[0].CasinoRoundID != *a.RoundID {
		t.Errorf("ledger %+v", ledger)
	}

	// A late win under a tombstoned id is refused too.
	e.postOK("rollback of an unseen win", casino.PathRollback, rollbackBody(t, "a1", "USD", "r2", "rb-2", "win-late"))
	status, resp := e.post(casino.PathBetWin, winBody(t, "a1", "USD", "r2", "win-late", "10.00"))
	wantErr(t, "late win", status, resp, http.StatusBadRequest, "409", "")
	e.wantBalance("a1", "USD", "100.00")

	// A rollback of a refused bet: nothing to return, id "".
	e.setBalance("poor", "USD", "1.00")
	status, resp = e.post(casino.PathBetWin, betBody(t, "poor", "USD", "r3", "bet-poor", "5.00"))
	wantErr(t, "refused bet", status, resp, http.StatusBadRequest, "100", "1.00")
	if a := e.wantPostedBalance("rollback of a refused bet", casino.PathRollback, rollbackBody(t, "poor", "USD", "r3", "rb-3", "bet-poor"), "1.00"); a.Transactions[0].ID != "" {
		t.Errorf("rollback of a refused bet: transactions %+v", a.Transactions)
	}
	e.wantBalance("poor", "USD", "1.00")

	// A rollback for an unknown account (no StartingBalance): 404, but the
	// tombstone holds even if the account is created afterwards.
	status, resp = e.post(casino.PathRollback, rollbackBody(t, "ghost", "USD", "r4", "rb-4", "bet-ghost"))
	wantErr(t, "rollback for an unknown account", status, resp, http.StatusBadRequest, "404", "")
	e.setBalance("ghost", "USD", "50")
	status, resp = e.post(casino.PathBetWin, betBody(t, "ghost", "USD", "r4", "bet-ghost", "5.00"))
	wantErr(t, "late bet of the ghost", status, resp, http.StatusBadRequest, "409", "")
	e.wantBalance("ghost", "USD", "50.00")
}

func TestRollbackOfWin(t *testing.T) {
	t.Parallel()
	e := newFundedEnv(t)
	e.postOK("win", casino.PathBetWin, winBody(t, "a1", "USD", "r1", "win-1", "30.00"))
	e.wantPostedBalance("rollback of a win", casino.PathRollback, rollbackBody(t, "a1", "USD", "r1", "rb-1", "win-1"), "100.00")

	// A win partly spent: the rollback clamps at zero.
	e.postOK("win 2", casino.PathBetWin, winBody(t, "a1", "USD", "r2", "win-2", "50.00"))
	status, resp := e.post(casino.PathBetWin, betBody(t, "a1", "USD", "r3", "bet-3", "120.00"))
	wantOK(t, "bet 3", status, resp)
	e.wantBalance("a1", "USD", "30.00")
	e.wantPostedBalance("clamped rollback", casino.PathRollback, rollbackBody(t, "a1", "USD", "r2", "rb-2", "win-2"), "0.00")
	ledger := e.c.Ledger()
	if last := ledger[len(ledger)-1]; last.Amount != "-30.00" || last.BalanceAfter != "0.00" {
		t.Errorf("clamped rollback entry %+v", last)
	}
}

func TestRollbackRefusals(t *testing.T) {
	t.Parallel()
	e := newFundedEnv(t)
	e.setBalance("a2", "USD", "100.00")
	for _, b := range [][]byte{
		betBody(t, "a1", "USD", "r1", "bet-1", "10"),
		betBody(t, "a1", "USD", "r2", "bet-2", "10"),
		betBody(t, "a2", "USD", "r9", "bet-9", "10"),
	} {
		if status, resp := e.post(casino.PathBetWin, b); status != http.StatusOK {
			t.Fatalf("bet: %d %s", status, resp)
		}
	}
	if status, resp := e.post(casino.PathRollback, rollbackBody(t, "a1", "USD", "r2", "rb-2", "bet-2")); status != http.StatusOK {
		t.Fatalf("rollback: %d %s", status, resp)
	}
	n := e.ledgerLen()
	for _, c := range []struct {
		name string
		body []byte
	}{
		{"another account's bet", rollbackBody(t, "a2", "USD", "r9", "rb-x1", "bet-1")},
		{"another account's round", rollbackBody(t, "a2", "USD", "r1", "rb-x2", "bet-unseen")},
		{"another round", rollbackBody(t, "a1", "USD", "r2", "rb-x3", "bet-1")},
		{"a rollback", rollbackBody(t, "a1", "USD", "r2", "rb-x4", "rb-2")},
	} {
		status, resp := e.post(casino.PathRollback, c.body)
		wantErr(t, c.name, status, resp, http.StatusBadRequest, "400", "")
	}
	if e.ledgerLen() != n {
		t.Error("refused rollbacks made ledger entries")
	}
	e.wantBalance("a1", "USD", "90.00")
	e.wantBalance("a2", "USD", "90.00")
	// Those refusals recorded no tombstone and consumed no id: bet-unseen can
	// still be placed and rb-x1 used.
	e.postOK("bet-unseen", casino.PathBetWin, betBody(t, "a1", "USD", "r5", "bet-unseen", "1"))
	status, resp := e.post(casino.PathRollback, rollbackBody(t, "a1", "USD", "r1", "rb-x1", "bet-1"))
	wantOK(t, "rb-x1", status, resp)
	e.wantBalance("a1", "USD", "99.00")
}
