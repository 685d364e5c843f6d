package casino_test

import (
	"bytes"
	"context"
	"errors"
	"net/http"
	"path/filepath"
	"reflect"
	"testing"
	"time"

	"github.com/foresight-dev/foresight/internal/sandbox/casino"
	"github.com/foresight-dev/foresight/internal/sandbox/journal"
	"github.com/foresight-dev/foresight/internal/sandbox/sandboxtest"
)

// journalEnv is a casino over the journal at path, served on loopback,
// whose clock reads *now. The journal is closed when the test ends.
func journalEnv(t *testing.T, path string, now *time.Time, mutate ...func(*casino.Config)) (*env, *journal.Journal) {
	t.Helper()
	j := sandboxtest.OpenJournal(t, path)
	return serveEnv(t, casino.Config{
		StartingBalance: "100.00",
		Now:             func() time.Time { return *now },
		Journal:         j,
	}, mutate), j
}

// postAs is post signed with the casino's own (generated) secret.
func (e *env) postAs(path string, body []byte) (int, []byte) {
	e.t.Helper()
	return e.do(e.request(path, body, func(r *http.Request) {
		r.Header.Set("X-REQUEST-SIGN", sandboxtest.HMACHex(e.c.SigningSecret(), body))
	}))
}

type walletCall struct {
	path string
	body []byte
}

func TestRestartReplaysTheJournal(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "casino.db")
	now := testStart
	e, j := journalEnv(t, path, &now, func(c *casino.Config) { c.BetLimit = "50" })
	secret := e.c.SigningSecret()
	if len(secret) < 32 {
		t.Fatalf("generated secret %q", secret)
	}
	for _, err := range []error{
		e.c.SetBalance("alice", "EUR", "80.00"),
		e.c.Credit("alice", "EUR", "0.123456789012"),
		e.c.Block("mallory"),
		e.c.SetBetLimit("bob", "5"),
	} {
		if err != nil {
			t.Fatal(err)
		}
	}
	e.c.ForAccount("alice").OmitRoundIDNext(1)
	calls := []walletCall{
		{casino.PathBalance, balanceBody(t, "carol", "USD")},                          // carol created with 100.00
		{casino.PathBetWin, betBody(t, "alice", "EUR", "r1", "bet-1", "10")},          // answered without round_id
		{casino.PathBetWin, betBody(t, "alice", "EUR", "r2", "bet-2", "20")},          // a second open round
		{casino.PathBetWin, betBody(t, "alice", "EUR", "r3", "bet-3", "60")},          // 105 over the global limit, stored
		{casino.PathBetWin, betBody(t, "bob", "USD", "r4", "bet-4", "6")},             // 105 over bob's limit, stored
		{casino.PathBetWin, betBody(t, "mallory", "USD", "r5", "bet-5", "1")},         // 110, stored
		{casino.PathBetWin, winBody(t, "alice", "EUR", "r2", "win-2", "44.214")},      // win, round finished
		{casino.PathFinish, finishBody(t, "alice", "EUR", "r1")},                      // finish
		{casino.PathRollback, rollbackBody(t, "alice", "EUR", "r1", "rb-1", "bet-1")}, // reverses bet-1
		{casino.PathRollback, rollbackBody(t, "carol", "USD", "r9", "rb-9", "bet-9")}, // tombstone
	}
	first := make([][]byte, len(calls))
	for i, c := range calls {
		now = now.Add(time.Second + 777*time.Nanosecond)
		_, first[i] = e.postAs(c.path, c.body)
	}
	if a := decodeAnswer(t, first[1]); a.RoundID != nil {
		t.Fatalf("OmitRoundIDNext was not applied: %s", first[1])
	}
	ledger := e.c.Ledger()
	balances := map[string]string{}
	for acct, cur := range map[string]string{"alice": "EUR", "bob": "USD", "carol": "USD"} {
		balances[acct], _ = e.c.Balance(acct, cur)
	}
	if balances["alice"] != "104.337456789012" || balances["carol"] != "100.00" {
		t.Fatalf("balances before the restart %v", balances)
	}
	rounds := map[string]casino.Round{}
	for _, id := range []string{"r1", "r2", "r9"} {
		rounds[id], _ = e.c.Round(id)
	}
	// Faults are not kept: after the restart every request goes through.
	e.c.RejectNext(casino.EndpointBetWin, 100, "503")
	e.c.ForAccount("alice").FailNext(casino.EndpointFinish, 100, http.StatusBadGateway)
	e.srv.Close()
	e.c.Close()
	if err := j.Close(); err != nil {
		t.Fatal(err)
	}

	// A later clock and another configuration change nothing replayed.
	now = now.Add(time.Hour)
	e2, _ := journalEnv(t, path, &now, func(c *casino.Config) { c.StartingBalance = "3"; c.BetLimit = "" })
	sandboxtest.Journalled[casino.Entry]{Secret: secret, Ledger: ledger, Answers: first[1:]}.WantRestored(t, e2.c.SigningSecret(), e2.c.Ledger,
		func(i int) (string, []byte) {
			c := calls[i+1]
			_, again := e2.postAs(c.path, c.body)
			return c.path, again
		})
	for acct, want := range balances {
		cur := map[string]string{"alice": "EUR", "bob": "USD", "carol": "USD"}[acct]
		e2.wantBalance(acct, cur, want)
	}
	for id, want := range rounds {
		if got, ok := e2.c.Round(id); !ok || got != want {
			t.Errorf("round %s after the restart %+v, want %+v", id, got, want)
		}
	}

	tests := []struct {
		name    string
		call    walletCall
		status  int
		apiCode string
		balance string
	}{
		{"tombstone", walletCall{casino.PathBetWin, betBody(t, "carol", "USD", "r9", "bet-9", "1")}, 400, "409", ""},
		{"still blocked", walletCall{casino.PathBetWin, betBody(t, "mallory", "USD", "r6", "bet-6", "1")}, 400, "110", ""},
		{"bob's own limit", walletCall{casino.PathBetWin, betBody(t, "bob", "USD", "r7", "bet-7", "5.01")}, 400, "105", "100.00"},
		{"new account, new starting balance", walletCall{casino.PathBetWin, betBody(t, "dave", "USD", "r8", "bet-8", "3.01")}, 400, "100", "3.00"},
	}
	for _, tt := range tests {
		status, body := e2.postAs(tt.call.path, tt.call.body)
		wantErr(t, tt.name, status, body, tt.status, tt.apiCode, tt.balance)
	}
	// The global limit is gone with the new configuration: alice bets 60.
	status, body := e2.postAs(casino.PathBetWin, betBody(t, "alice", "EUR", "r10", "bet-10", "60"))
	wantOK(t, "bet above the old limit", status, body)
}

func TestFailedAppendChangesNothing(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "casino.db")
	now := testStart
	e, _ := journalEnv(t, path, &now)
	if err := e.c.SetBalance("alice", "EUR", "50.00"); err != nil {
		t.Fatal(err)
	}
	status, okBefore := e.postAs(casino.PathBetWin, betBody(t, "alice", "EUR", "r0", "bet-0", "1"))
	wantOK(t, "first bet", status, okBefore)
	ledger := e.c.Ledger()

	restore := sandboxtest.RefuseAppends(t, path)
	for name, do := range map[string]func() error{
		"SetBalance":  func() error { return e.c.SetBalance("alice", "EUR", "1") },
		"Credit":      func() error { return e.c.Credit("alice", "EUR", "1") },
		"Block":       func() error { return e.c.Block("alice") },
		"SetBetLimit": func() error { return e.c.SetBetLimit("alice", "0.5") },
	} {
		if err := do(); !errors.Is(err, casino.ErrJournal) {
			t.Errorf("%s without its journal record: %v", name, err)
		}
	}
	calls := []walletCall{
		{casino.PathBalance, balanceBody(t, "newcomer", "EUR")},
		{casino.PathBetWin, betBody(t, "alice", "EUR", "r1", "bet-1", "10")},
		{casino.PathFinish, finishBody(t, "alice", "EUR", "r0")},
		{casino.PathRollback, rollbackBody(t, "alice", "EUR", "r2", "rb-2", "bet-2")},
	}
	for _, c := range calls {
		status, body := e.postAs(c.path, c.body)
		wantErr(t, c.path+" while the journal fails", status, body, http.StatusInternalServerError, "503", "")
	}
	// A stored answer needs no append.
	if _, again := e.postAs(casino.PathBetWin, betBody(t, "alice", "EUR", "r0", "bet-0", "1")); !bytes.Equal(again, okBefore) {
		t.Errorf("stored answer while the journal fails: %s", again)
	}
	e.wantBalance("alice", "EUR", "49.00")
	if _, ok := e.c.Balance("newcomer", "EUR"); ok {
		t.Error("the new account exists without its journal record")
	}
	if _, ok := e.c.Round("r1"); ok {
		t.Error("the round exists without its journal record")
	}
	if got := e.c.Ledger(); !reflect.DeepEqual(got, ledger) {
		t.Errorf("ledger changed: %+v", got[len(ledger):])
	}
	restore()
	// The tombstone was not recorded: the bet it would refuse goes through,
	// and the casino's ids continue the sequence.
	status, body := e.postAs(casino.PathBetWin, betBody(t, "alice", "EUR", "r2", "bet-2", "10"))
	if a := wantOK(t, "retry", status, body); str(a.RoundID) != "casino-round-2" || a.Transactions[0].ID != "casino-tx-2" {
		t.Errorf("retry answer %s", body)
	}
	e.wantBalance("alice", "EUR", "39.00")
}

func TestJournalLostForGood(t *testing.T) {
	t.Parallel()
	now := testStart
	e, j := journalEnv(t, filepath.Join(t.TempDir(), "casino.db"), &now)
	if err := e.c.SetBalance("alice", "EUR", "50.00"); err != nil {
		t.Fatal(err)
	}
	j.Close()
	for i := range 2 {
		status, body := e.postAs(casino.PathBetWin, betBody(t, "alice", "EUR", "r1", "bet-1", "10"))
		wantErr(t, "bet "+string(rune('1'+i)), status, body, http.StatusInternalServerError, "503", "")
	}
	if err := e.c.Block("alice"); err == nil {
		t.Error("Block after the journal was lost")
	}
}

func TestNewWithAJournal(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	j := sandboxtest.OpenJournal(t, filepath.Join(dir, "a.db"))
	if _, err := j.Append(context.Background(), testStart, "mystery", []byte(`{}`)); err != nil {
		t.Fatal(err)
	}
	if _, err := casino.New(casino.Config{SigningSecret: "s", Journal: j}); err == nil {
		t.Error("New replayed a journal with an unknown record")
	}
	k := sandboxtest.OpenJournal(t, filepath.Join(dir, "b.db"))
	if c, err := casino.New(casino.Config{SigningSecret: "given", Journal: k}); err != nil || c.SigningSecret() != "given" {
		t.Fatalf("New with a secret: %v", err)
	}
	c, err := casino.New(casino.Config{Journal: k})
	if err != nil || c.SigningSecret() == "given" || c.SigningSecret() == "" {
		t.Fatalf("New without a secret: %v", err)
	}
	if _, err := casino.New(casino.Config{}); err == nil {
		t.Error("New without a secret and without a journal")
	}
}
