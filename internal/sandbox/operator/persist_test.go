package operator_test

import (
	"context"
	"errors"
	"net/http"
	"path/filepath"
	"reflect"
	"testing"
	"time"

	"github.com/foresight-dev/foresight/internal/sandbox/journal"
	"github.com/foresight-dev/foresight/internal/sandbox/operator"
	"github.com/foresight-dev/foresight/internal/sandbox/sandboxtest"
)

// journalEnv is an operator over the journal at path, served on loopback,
// on clock. The journal is closed when the test ends (or by reopen).
func journalEnv(t *testing.T, path string, clock *fakeClock, mutate ...func(*operator.Config)) (*env, *journal.Journal) {
	t.Helper()
	j := sandboxtest.OpenJournal(t, path)
	return serveEnv(t, clock, operator.Config{
		ID:              testOperatorID,
		PrivateKey:      testKey(),
		KeyID:           "key-1",
		StartingBalance: "100.00",
		Now:             clock.Now,
		Journal:         j,
	}, mutate), j
}

// signedAs is call with the operator's own (generated) secret.
func (e *env) signedAs(method, path string, body []byte) (int, []byte) {
	e.t.Helper()
	req := e.signedRequest(method, path, body, func(h http.Header) {
		h.Set("X-Payload-Signature", sandboxtest.HMACHex(e.op.SigningSecret(), body))
	})
	status, b, _ := e.do(req)
	return status, b
}

type walletCall struct {
	method, path string
	body         []byte
}

func TestRestartReplaysTheJournal(t *testing.T) {
	path := filepath.Join(t.TempDir(), "operator.db")
	clock := &fakeClock{t: testStart}
	e, j := journalEnv(t, path, clock)
	secret := e.op.SigningSecret()
	if len(secret) < 32 {
		t.Fatalf("generated secret %q", secret)
	}

	if err := e.op.SetBalance("alice", "EUR", "50.00"); err != nil {
		t.Fatal(err)
	}
	if err := e.op.Credit("alice", "", "5.50"); err != nil {
		t.Fatal(err)
	}
	if err := e.op.Block("mallory"); err != nil {
		t.Fatal(err)
	}
	sessionID := e.op.NewSessionRequest("carol", "") // created with the starting balance
	oldToken, err := e.op.MintToken("alice", "")
	if err != nil {
		t.Fatal(err)
	}
	calls := []walletCall{
		{"POST", "/v1/withdrawals", withdrawalBody(t, "wd-1", "alice", "20.00", "EUR")},
		{"POST", "/v1/withdrawals", withdrawalBody(t, "wd-2", "alice", "999.00", "EUR")},         // insufficient_funds, stored
		{"POST", "/v1/withdrawals", withdrawalBody(t, "wd-3", "bob", "10.00", "USD")},            // bob created on the fly
		{"POST", "/v1/withdrawals", withdrawalBody(t, "wd-4", "mallory", "1.00", "USD")},         // blocked, stored
		{"POST", "/v1/deposits", depositBody(t, "dp-1", "alice", "44.21", "EUR", "wd-1", "won")}, // settles wd-1
		{"DELETE", "/v1/rollbacks/wd-3", rollbackBody(t, "rb-3", "bob", "10.00", "USD")},         // reversed
		{"DELETE", "/v1/rollbacks/wd-9", rollbackBody(t, "rb-9", "bob", "10.00", "USD")},         // tombstone
		{"POST", "/v1/withdrawals", withdrawalBody(t, "wd-5", "carol", "30.00", "USD")},          // carol from her session
	}
	first := make([][]byte, len(calls))
	for i, c := range calls {
		clock.Advance(time.Second + 1234*time.Nanosecond) // sub-microsecond times must not matter
		_, first[i] = e.signedAs(c.method, c.path, c.body)
	}
	rotated, err := e.op.RotateKey()
	if err != nil {
		t.Fatal(err)
	}
	newToken, err := e.op.MintToken("bob", "")
	if err != nil {
		t.Fatal(err)
	}
	ledger := e.op.Ledger()
	balances := map[string]string{}
	for _, b := range []string{"alice", "bob", "carol"} {
		balances[b], _ = e.op.Balance(b)
	}
	if balances["alice"] != "79.71" || balances["bob"] != "100.00" || balances["carol"] != "70.00" {
		t.Fatalf("balances before the restart %v", balances)
	}
	// Faults are not kept: after the restart every request goes through.
	e.op.FailNext("withdrawals", 100, http.StatusServiceUnavailable)
	e.op.ForBettor("alice").RejectNext("deposits", 100, "insufficient_funds")
	e.srv.Close()
	e.op.Close()
	if err := j.Close(); err != nil {
		t.Fatal(err)
	}

	// The restarted operator runs on a later clock and with another
	// starting balance: neither may change what the journal rebuilds.
	clock.Advance(10 * time.Minute)
	e2, _ := journalEnv(t, path, clock, func(c *operator.Config) { c.StartingBalance = "7.00" })
	for b, want := range balances {
		e2.wantBalance(b, want)
	}
	sandboxtest.Journalled[operator.Entry]{Secret: secret, Ledger: ledger, Answers: first}.WantRestored(t, e2.op.SigningSecret(), e2.op.Ledger,
		func(i int) (string, []byte) {
			c := calls[i]
			_, again := e2.signedAs(c.method, c.path, c.body)
			return c.method + " " + c.path, again
		})

	tests := []struct {
		name   string
		call   walletCall
		status int
		code   string
	}{
		{"tombstone", walletCall{"POST", "/v1/withdrawals", withdrawalBody(t, "wd-9", "bob", "10.00", "USD")}, http.StatusConflict, "withdrawal_rolled_back"},
		{"still blocked", walletCall{"POST", "/v1/withdrawals", withdrawalBody(t, "wd-6", "mallory", "1.00", "USD")}, http.StatusForbidden, "bettor_blocked"},
		{"settled", walletCall{"DELETE", "/v1/rollbacks/wd-1", rollbackBody(t, "rb-1", "alice", "20.00", "EUR")}, http.StatusConflict, "withdrawal_settled"},
		{"new bettor, new starting balance", walletCall{"POST", "/v1/withdrawals", withdrawalBody(t, "wd-7", "dave", "7.01", "USD")}, http.StatusConflict, "insufficient_funds"},
	}
	for _, tt := range tests {
		status, body := e2.signedAs(tt.call.method, tt.call.path, tt.call.body)
		wantStatus(t, tt.name, status, body, tt.status, tt.code)
	}

	// Keys: both tokens verify against the restarted JWKS, new tokens are
	// signed with the rotated key, the session request did not survive.
	if _, kid := e2.verify(oldToken); kid != "key-1" {
		t.Errorf("old token kid %s", kid)
	}
	if _, kid := e2.verify(newToken); kid != rotated || e2.op.KeyID() != rotated {
		t.Errorf("new token kid %s, current %s, want %s", kid, e2.op.KeyID(), rotated)
	}
	status, body := e2.exchange(sessionID)
	wantStatus(t, "session request after a restart", status, body, http.StatusUnauthorized, "session_request_not_found")
}

func TestFailedAppendChangesNothing(t *testing.T) {
	path := filepath.Join(t.TempDir(), "operator.db")
	clock := &fakeClock{t: testStart}
	e, _ := journalEnv(t, path, clock)
	if err := e.op.SetBalance("alice", "USD", "50.00"); err != nil {
		t.Fatal(err)
	}
	_, okBefore := e.signedAs("POST", "/v1/withdrawals", withdrawalBody(t, "wd-0", "alice", "1.00", "USD"))
	ledger := e.op.Ledger()
	kid := e.op.KeyID()

	restore := sandboxtest.RefuseAppends(t, path)
	body := withdrawalBody(t, "wd-1", "alice", "10.00", "USD")
	calls := []struct {
		name string
		do   func() error
	}{
		{"SetBalance", func() error { return e.op.SetBalance("alice", "", "1.00") }},
		{"Credit", func() error { return e.op.Credit("alice", "", "1.00") }},
		{"Block", func() error { return e.op.Block("alice") }},
		{"RotateKey", func() error { _, err := e.op.RotateKey(); return err }},
		{"new bettor's session", func() error { _, err := e.op.CreateSessionRequest("newcomer", ""); return err }},
	}
	for _, c := range calls {
		if err := c.do(); !errors.Is(err, operator.ErrJournal) {
			t.Errorf("%s without its journal record: %v", c.name, err)
		}
	}
	status, resp := e.signedAs("POST", "/v1/withdrawals", body)
	wantStatus(t, "withdrawal while the journal fails", status, resp, http.StatusServiceUnavailable, "storage_unavailable")
	// A stored answer needs no append.
	if _, again := e.signedAs("POST", "/v1/withdrawals", withdrawalBody(t, "wd-0", "alice", "1.00", "USD")); string(again) != string(okBefore) {
		t.Errorf("stored answer while the journal fails: %s", again)
	}
	e.wantBalance("alice", "49.00")
	if _, ok := e.op.Balance("newcomer"); ok {
		t.Error("the new bettor exists without its journal record")
	}
	if got := e.op.Ledger(); !reflect.DeepEqual(got, ledger) {
		t.Errorf("ledger changed: %+v", got[len(ledger):])
	}
	if e.op.KeyID() != kid {
		t.Error("the key rotated without its journal record")
	}
	// Not blocked: the retry, once the journal works, debits.
	restore()
	status, resp = e.signedAs("POST", "/v1/withdrawals", body)
	wantStatus(t, "retry", status, resp, http.StatusOK, "")
	e.wantBalance("alice", "39.00")
	// The transaction's op-tx id continues the sequence: the failed attempt
	// left no trace.
	if a := answer(t, resp); a["transaction_id"] != "op-tx-2" {
		t.Errorf("retry answer %s", resp)
	}
}

func TestJournalLostForGood(t *testing.T) {
	path := filepath.Join(t.TempDir(), "operator.db")
	e, j := journalEnv(t, path, &fakeClock{t: testStart})
	if err := e.op.SetBalance("alice", "USD", "50.00"); err != nil {
		t.Fatal(err)
	}
	j.Close() // neither append nor replay can work now
	status, resp := e.signedAs("POST", "/v1/withdrawals", withdrawalBody(t, "wd-1", "alice", "10.00", "USD"))
	wantStatus(t, "withdrawal", status, resp, http.StatusServiceUnavailable, "storage_unavailable")
	if err := e.op.Credit("alice", "", "1.00"); err == nil {
		t.Error("Credit after the journal was lost")
	}
	status, resp = e.signedAs("POST", "/v1/withdrawals", withdrawalBody(t, "wd-1", "alice", "10.00", "USD"))
	wantStatus(t, "retry", status, resp, http.StatusServiceUnavailable, "storage_unavailable")
}

func TestNewWithAJournal(t *testing.T) {
	dir := t.TempDir()
	j := sandboxtest.OpenJournal(t, filepath.Join(dir, "a.db"))
	if _, err := j.Append(context.Background(), testStart, "mystery", []byte(`{}`)); err != nil {
		t.Fatal(err)
	}
	if _, err := operator.New(operator.Config{ID: "op", SigningSecret: "s", PrivateKey: testKey(), Journal: j}); err == nil {
		t.Error("New replayed a journal with an unknown record")
	}

	// A given secret wins over none recorded, and is not recorded.
	k := sandboxtest.OpenJournal(t, filepath.Join(dir, "b.db"))
	op, err := operator.New(operator.Config{ID: "op", SigningSecret: "given", PrivateKey: testKey(), Journal: k})
	if err != nil || op.SigningSecret() != "given" {
		t.Fatalf("New: %v, secret %q", err, op.SigningSecret())
	}
	op, err = operator.New(operator.Config{ID: "op", PrivateKey: testKey(), Journal: k})
	if err != nil || op.SigningSecret() == "given" || op.SigningSecret() == "" {
		t.Fatalf("New without a secret: %v, secret %q", err, op.SigningSecret())
	}
	if _, err := operator.New(operator.Config{ID: "op", PrivateKey: testKey()}); err == nil {
		t.Error("New without a secret and without a journal")
	}
}
