package casino_test

import (
	"bytes"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/foresight-dev/foresight/internal/sandbox/casino"
	"github.com/foresight-dev/foresight/internal/sandbox/sandboxtest"
)

const testSecret = "casino-test-secret-0123456789abcdef"

var testStart = time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)

// env is a casino served over real HTTP on loopback.
type env struct {
	t      *testing.T
	c      *casino.Casino
	srv    *httptest.Server
	client *http.Client
}

func newEnv(t *testing.T, mutate ...func(*casino.Config)) *env {
	t.Helper()
	return serveEnv(t, casino.Config{
		SigningSecret: testSecret,
		Now:           func() time.Time { return testStart },
	}, mutate)
}

// newFundedEnv is newEnv with one funded account: a1 holds 100.00 USD.
func newFundedEnv(t *testing.T) *env {
	t.Helper()
	e := newEnv(t)
	e.setBalance("a1", "USD", "100.00")
	return e
}

// serveEnv is a casino of cfg, changed by mutate, served on loopback until
// the test ends.
func serveEnv(t *testing.T, cfg casino.Config, mutate []func(*casino.Config)) *env {
	t.Helper()
	c, srv := sandboxtest.ServeNew(t, casino.New, cfg, mutate)
	return &env{t: t, c: c, srv: srv, client: srv.Client()}
}

// request builds a correctly signed POST, then lets mod change it.
func (e *env) request(path string, body []byte, mod func(*http.Request)) *http.Request {
	e.t.Helper()
	req, err := http.NewRequest(http.MethodPost, e.srv.URL+path, bytes.NewReader(body))
	if err != nil {
		e.t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("X-REQUEST-SIGN", sandboxtest.HMACHex(testSecret, body))
	if mod != nil {
		mod(req)
	}
	return req
}

// do sends a request and returns the status and body.
func (e *env) do(req *http.Request) (int, []byte) {
	e.t.Helper()
	status, body, _ := sandboxtest.Do(e.t, e.client, req)
	return status, body
}

// post sends a signed wallet request.
func (e *env) post(path string, body []byte) (int, []byte) {
	e.t.Helper()
	return e.do(e.request(path, body, nil))
}

// postOK posts a signed wallet request, wants a 200 (what names it) and
// returns the answer.
func (e *env) postOK(what, path string, body []byte) answer {
	e.t.Helper()
	status, resp := e.post(path, body)
	return wantOK(e.t, what, status, resp)
}

// wantPostedBalance is postOK that also wants the answer's balance.
func (e *env) wantPostedBalance(what, path string, body []byte, balance string) answer {
	e.t.Helper()
	status, resp := e.post(path, body)
	a := wantOK(e.t, what, status, resp)
	if str(a.Balance) != balance {
		e.t.Errorf("%s: balance %s, want %s (%s)", what, str(a.Balance), balance, resp)
	}
	return a
}

func (e *env) setBalance(account, currency, amount string) {
	e.t.Helper()
	if err := e.c.SetBalance(account, currency, amount); err != nil {
		e.t.Fatalf("SetBalance(%s, %s, %s): %v", account, currency, amount, err)
	}
}

func (e *env) wantBalance(account, currency, want string) {
	e.t.Helper()
	got, ok := e.c.Balance(account, currency)
	if !ok || got != want {
		e.t.Errorf("balance of %s = %q (exists %v), want %q", account, got, ok, want)
	}
}

func (e *env) ledgerLen() int { return len(e.c.Ledger()) }

// Request bodies as the platform writes them.

func balanceBody(t *testing.T, account, currency string) []byte {
	return sandboxtest.JSON(t, map[string]any{
		"account_id": account,
		"currency":   currency,
		"game_id":    casino.GameID,
		"session_id": "sess-" + account,
	})
}

func betWinBody(t *testing.T, account, currency, round, id, typ, amount string, finished bool) []byte {
	return sandboxtest.JSON(t, map[string]any{
		"account_id": account,
		"currency":   currency,
		"game_id":    casino.GameID,
		"round_id":   round,
		"finished":   finished,
		"session_id": "sess-" + account,
		"transactions": []map[string]any{
			{"id_provider": id, "type": typ, "amount": amount},
		},
	})
}

func betBody(t *testing.T, account, currency, round, id, amount string) []byte {
	return betWinBody(t, account, currency, round, id, "bet", amount, false)
}

func winBody(t *testing.T, account, currency, round, id, amount string) []byte {
	return betWinBody(t, account, currency, round, id, "win", amount, true)
}

func finishBody(t *testing.T, account, currency, round string) []byte {
	return sandboxtest.JSON(t, map[string]any{
		"account_id": account,
		"currency":   currency,
		"round_id":   round,
		"session_id": "sess-" + account,
	})
}

func rollbackBody(t *testing.T, account, currency, round, id, original string) []byte {
	return sandboxtest.JSON(t, map[string]any{
		"account_id":        account,
		"currency":          currency,
		"game_id":           casino.GameID,
		"round_id_provider": round,
		"finished":          false,
		"session_id":        "sess-" + account,
		"transactions": []map[string]any{
			{"id_provider": id, "type": "rollback", "original_id_provider": original},
		},
	})
}

// Decoded answers.

type txItem struct {
	IDProvider string `json:"id_provider"`
	ID         string `json:"id"`
}

type answer struct {
	RoundID      *string  `json:"round_id"`
	Balance      *string  `json:"balance"`
	Transactions []txItem `json:"transactions"`
}

func decodeAnswer(t *testing.T, body []byte) answer {
	t.Helper()
	var a answer
	if err := json.Unmarshal(body, &a); err != nil {
		t.Fatalf("answer %s: %v", body, err)
	}
	return a
}

func str(p *string) string {
	if p == nil {
		return "<absent>"
	}
	return *p
}

type walletErr struct {
	Code string `json:"code"`
	Msg  string `json:"msg"`
	Meta struct {
		APICode    string  `json:"api_code"`
		APIMessage string  `json:"api_message"`
		Balance    *string `json:"balance"`
	} `json:"meta"`
}

func decodeErr(t *testing.T, body []byte) walletErr {
	t.Helper()
	var w walletErr
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&w); err != nil {
		t.Fatalf("error body %s: %v", body, err)
	}
	return w
}

// wantOK checks a 200 and decodes it.
func wantOK(t *testing.T, what string, status int, body []byte) answer {
	t.Helper()
	if status != http.StatusOK {
		t.Fatalf("%s: status %d (%s), want 200", what, status, body)
	}
	return decodeAnswer(t, body)
}

// wantErr checks an error answer: HTTP status, code and api_code; balance
// is the expected meta.balance ("" for none).
func wantErr(t *testing.T, what string, status int, body []byte, wantStatus int, apiCode, balance string) walletErr {
	t.Helper()
	if status != wantStatus {
		t.Fatalf("%s: status %d (%s), want %d", what, status, body, wantStatus)
	}
	w := decodeErr(t, body)
	wantCode := "invalid_argument"
	switch wantStatus {
	case http.StatusForbidden:
		wantCode = "permission_denied"
	case http.StatusInternalServerError:
		wantCode = "internal"
	}
	if w.Code != wantCode || w.Meta.APICode != apiCode || w.Msg == "" || w.Meta.APIMessage == "" {
		t.Fatalf("%s: %s, want code %s api_code %s with messages", what, body, wantCode, apiCode)
	}
	gotBalance := ""
	if w.Meta.Balance != nil {
		gotBalance = *w.Meta.Balance
	}
	if gotBalance != balance {
		t.Fatalf("%s: meta.balance %q, want %q (%s)", what, gotBalance, balance, body)
	}
	return w
}
