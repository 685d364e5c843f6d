package operator_test

import (
	"bytes"
	"crypto/rand"
	"crypto/rsa"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/foresight-dev/foresight/internal/sandbox/operator"
	"github.com/foresight-dev/foresight/internal/sandbox/sandboxtest"
)

const (
	testSecret     = "sandbox-test-secret-0123456789abcdef"
	testOperatorID = "sandbox-op"
)

var testStart = time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)

// testKey is one RSA key shared by the tests (generating one per test is
// slow).
var testKey = sync.OnceValue(func() *rsa.PrivateKey {
	k, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		panic(err)
	}
	return k
})

// fakeClock is a settable clock.
type fakeClock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *fakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *fakeClock) Advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(d)
}

// env is an operator served over real HTTP on loopback.
type env struct {
	t      *testing.T
	op     *operator.Operator
	srv    *httptest.Server
	clock  *fakeClock
	client *http.Client
}

func newEnv(t *testing.T, mutate ...func(*operator.Config)) *env {
	t.Helper()
	clock := &fakeClock{t: testStart}
	return serveEnv(t, clock, operator.Config{
		ID:            testOperatorID,
		SigningSecret: testSecret,
		PrivateKey:    testKey(),
		KeyID:         "key-1",
		Now:           clock.Now,
	}, mutate)
}

// fundedEnv is newEnv with bettor b1 holding 100.00 USD, where most tests
// start.
func fundedEnv(t *testing.T) *env {
	t.Helper()
	e := newEnv(t)
	e.setBalance("b1", "USD", "100.00")
	return e
}

// serveEnv is an operator of cfg, changed by mutate, served on loopback
// until the test ends; clock is the one cfg.Now reads.
func serveEnv(t *testing.T, clock *fakeClock, cfg operator.Config, mutate []func(*operator.Config)) *env {
	t.Helper()
	op, srv := sandboxtest.ServeNew(t, operator.New, cfg, mutate)
	return &env{t: t, op: op, srv: srv, clock: clock, client: srv.Client()}
}

// signedRequest builds a correctly signed wallet request, then lets mod
// change its headers.
func (e *env) signedRequest(method, path string, body []byte, mod func(http.Header)) *http.Request {
	e.t.Helper()
	req, err := http.NewRequest(method, e.srv.URL+path, bytes.NewReader(body))
	if err != nil {
		e.t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("X-Payload-Signature", sandboxtest.HMACHex(testSecret, body))
	req.Header.Set("X-Timestamp", e.clock.Now().UTC().Format(time.RFC3339))
	req.Header.Set("X-Nonce", uuid.NewString())
	if mod != nil {
		mod(req.Header)
	}
	return req
}

// do sends a request and returns the status, body and headers.
func (e *env) do(req *http.Request) (int, []byte, http.Header) {
	e.t.Helper()
	return sandboxtest.Do(e.t, e.client, req)
}

// call sends a signed wallet request.
func (e *env) call(method, path string, body []byte) (int, []byte) {
	e.t.Helper()
	status, b, _ := e.do(e.signedRequest(method, path, body, nil))
	return status, b
}

func (e *env) withdraw(body []byte) (int, []byte) {
	e.t.Helper()
	return e.call(http.MethodPost, "/v1/withdrawals", body)
}

func (e *env) deposit(body []byte) (int, []byte) {
	e.t.Helper()
	return e.call(http.MethodPost, "/v1/deposits", body)
}

func (e *env) rollback(withdrawalID string, body []byte) (int, []byte) {
	e.t.Helper()
	return e.call(http.MethodDelete, "/v1/rollbacks/"+withdrawalID, body)
}

func (e *env) setBalance(bettor, currency, amount string) {
	e.t.Helper()
	if err := e.op.SetBalance(bettor, currency, amount); err != nil {
		e.t.Fatalf("SetBalance(%s, %s, %s): %v", bettor, currency, amount, err)
	}
}

func (e *env) wantBalance(bettor, want string) {
	e.t.Helper()
	got, ok := e.op.Balance(bettor)
	if !ok || got != want {
		e.t.Errorf("balance of %s = %q (exists %v), want %q", bettor, got, ok, want)
	}
}

func (e *env) ledgerLen() int { return len(e.op.Ledger()) }

// movementBody is the body every wallet movement sends: the transaction,
// bettor, amount and currency, with metadata when it is not nil.
func movementBody(t *testing.T, tx, bettor, amount, currency string, metadata map[string]any) []byte {
	body := map[string]any{
		"transaction_id": tx,
		"bettor_id":      bettor,
		"amount":         amount,
		"currency":       currency,
	}
	if metadata != nil {
		body["metadata"] = metadata
	}
	return sandboxtest.JSON(t, body)
}

func withdrawalBody(t *testing.T, tx, bettor, amount, currency string) []byte {
	return movementBody(t, tx, bettor, amount, currency, map[string]any{"market_id": "mkt-1", "bet_id": "bet-" + tx})
}

func depositBody(t *testing.T, tx, bettor, amount, currency, withdrawalTx, result string) []byte {
	return movementBody(t, tx, bettor, amount, currency, map[string]any{
		"market_id":                 "mkt-1",
		"bet_id":                    "bet-" + withdrawalTx,
		"withdrawal_transaction_id": withdrawalTx,
		"result":                    result,
	})
}

func rollbackBody(t *testing.T, tx, bettor, amount, currency string) []byte {
	return movementBody(t, tx, bettor, amount, currency, nil)
}

// answer decodes a wallet answer.
func answer(t *testing.T, body []byte) map[string]string {
	t.Helper()
	var m map[string]string
	if err := json.Unmarshal(body, &m); err != nil {
		t.Fatalf("answer %s: %v", body, err)
	}
	return m
}

// wantStatus checks a status and, when code is not empty, the error code
// of the body.
func wantStatus(t *testing.T, what string, status int, body []byte, wantStatus int, code string) {
	t.Helper()
	if status != wantStatus {
		t.Fatalf("%s: status %d (%s), want %d", what, status, body, wantStatus)
	}
	if code != "" {
		if got := answer(t, body)["error"]; got != code {
			t.Fatalf("%s: error %q (%s), want %q", what, got, body, code)
		}
	}
}

// newServer serves op on loopback for the duration of the test.
func newServer(t *testing.T, op *operator.Operator) *httptest.Server {
	srv := httptest.NewServer(op.Handler())
	t.Cleanup(srv.Close)
	return srv
}
