package operatorwallet_test

import (
	"bytes"
	"context"
	"crypto/rand"
	"crypto/rsa"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/foresight-dev/foresight/internal/betting/wallet"
	"github.com/foresight-dev/foresight/internal/conformance"
	"github.com/foresight-dev/foresight/internal/conformance/conformancetest"
	"github.com/foresight-dev/foresight/internal/conformance/operatorwallet"
	"github.com/foresight-dev/foresight/internal/sandbox/operator"
)

const (
	secret = "conformance-test-secret"
	bettor = "conformance-bettor"
)

// key is one RSA key for every sandbox operator of the tests (generating
// one per operator is slow).
var key = sync.OnceValue(func() *rsa.PrivateKey {
	k, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		panic(err)
	}
	return k
})

func newOperator(t *testing.T) *operator.Operator {
	t.Helper()
	op, err := operator.New(operator.Config{ID: "conformance-op", SigningSecret: secret, StartingBalance: "1000", PrivateKey: key()})
	if err != nil {
		t.Fatal(err)
	}
	return op
}

func run(t *testing.T, h http.Handler) *conformance.Report {
	t.Helper()
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	rep, err := operatorwallet.Run(context.Background(), operatorwallet.Config{URL: srv.URL + "/", Secret: secret, BettorID: bettor})
	if err != nil {
		t.Fatal(err)
	}
	return rep
}

func TestSandboxOperatorPasses(t *testing.T) {
	t.Parallel()
	op := newOperator(t)
	rep := run(t, op.Handler())
	text := rep.String()
	for _, res := range rep.Results {
		if res.Status != conformance.Pass {
			t.Errorf("%s: %s %s", res.Name, res.Status, res.Reason())
		}
	}
	if !rep.Passed() || !strings.Contains(text, "17 passed") || !strings.Contains(text, "the wallet conforms") {
		t.Errorf("report:\n%s", text)
	}
	if got, want := len(rep.Results), len(operatorwallet.Checks()); got != want {
		t.Errorf("%d results, %d checks", got, want)
	}
	if bal, _ := op.Balance(bettor); bal != "1000.00" {
		t.Errorf("balance after the run = %s, want 1000.00 (the run undoes its money)", bal)
	}
	if !strings.Contains(text, "1000.00 USD at the start of the run, the same at the end") {
		t.Errorf("the notes do not give the balance:\n%s", text)
	}
	if strings.Contains(text, secret) {
		t.Error("the report prints the signing secret")
	}

	// A second run against the same wallet passes too: every id is fresh.
	if again := run(t, op.Handler()); !again.Passed() {
		t.Errorf("second run:\n%s", again)
	}
}

// resign signs the request as the platform would: correct signature, a
// fresh timestamp and nonce.
func resign(r *http.Request, body []byte) {
	r.Header.Set(wallet.HeaderSignature, wallet.Sign(secret, body))
	r.Header.Set(wallet.HeaderTimestamp, time.Now().UTC().Format(time.RFC3339))
	r.Header.Set(wallet.HeaderNonce, uuid.NewString())
}

func field(body []byte, name string) string {
	var m map[string]any
	_ = json.Unmarshal(body, &m)
	s, _ := m[name].(string)
	return s
}

func setField(body []byte, name, value string) []byte {
	var m map[string]any
	_ = json.Unmarshal(body, &m)
	m[name] = value
	b, _ := json.Marshal(m)
	return b
}

var (
	balanceString = regexp.MustCompile(`"balance":"([0-9.]+)"`)
	oneDecimal    = regexp.MustCompile(`"balance":"([0-9]+\.[0-9])0"`)
)

func TestBrokenOperatorWallets(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		// wrap breaks the sandbox operator.
		wrap func(op *operator.Operator, inner http.Handler) http.Handler
		// fail and warn are the checks expected to fail and to warn; every
		// other check passes.
		fail, warn []string
		// check and message: the reason of that check contains message.
		check, message string
		// shown is text the report must print for the check: a request
		// header or an answer line.
		shown []string
	}{
		{
			name: "accepts bad signatures",
			wrap: func(_ *operator.Operator, inner http.Handler) http.Handler {
				return conformancetest.BrokenWallet{Inner: inner, Before: func(r *http.Request, body []byte) ([]byte, *conformancetest.Answer) {
					if r.Header.Get(wallet.HeaderSignature) != wallet.Sign(secret, body) {
						r.Header.Set(wallet.HeaderSignature, wallet.Sign(secret, body))
					}
					return body, nil
				}}
			},
			fail:    []string{"wrong-signature", "missing-signature"},
			check:   "wrong-signature",
			message: "the withdrawal signed with another secret was accepted (200); the spec answers it 401",
			shown:   []string{"POST http://", "/v1/withdrawals", "X-Payload-Signature: ", "HTTP 200 OK", `"balance":"`},
		},
		{
			name: "answers 401 to a wrong signature after processing it",
			wrap: func(op *operator.Operator, inner http.Handler) http.Handler {
				return conformancetest.BrokenWallet{Inner: inner,
					Before: func(r *http.Request, body []byte) ([]byte, *conformancetest.Answer) {
						if sig := r.Header.Get(wallet.HeaderSignature); sig != "" && sig != wallet.Sign(secret, body) {
							rec := httptest.NewRecorder()
							resign(r, body)
							r.Body = io.NopCloser(bytes.NewReader(body))
							inner.ServeHTTP(rec, r)
							return body, &conformancetest.Answer{Status: http.StatusUnauthorized, Body: []byte(`{"error":"invalid_signature"}`)}
						}
						return body, nil
					}}
			},
			fail:    []string{"wrong-signature"},
			check:   "wrong-signature",
			message: "a refused request must change nothing (one stake too low)",
			shown:   []string{"HTTP 401 Unauthorized", `{"error":"invalid_signature"}`},
		},
		{
			name: "accepts stale timestamps",
			wrap: func(_ *operator.Operator, inner http.Handler) http.Handler {
				return conformancetest.BrokenWallet{Inner: inner, Before: func(r *http.Request, body []byte) ([]byte, *conformancetest.Answer) {
					if r.Header.Get(wallet.HeaderTimestamp) != "" {
						r.Header.Set(wallet.HeaderTimestamp, time.Now().UTC().Format(time.RFC3339))
					}
					return body, nil
				}}
			},
			fail:    []string{"stale-timestamp"},
			check:   "stale-timestamp",
			message: "the withdrawal with an X-Timestamp 10 minutes old was accepted",
			shown:   []string{"X-Timestamp: "},
		},
		{
			name: "does not de-duplicate nonces",
			wrap: func(_ *operator.Operator, inner http.Handler) http.Handler {
				return conformancetest.BrokenWallet{Inner: inner, Before: func(r *http.Request, body []byte) ([]byte, *conformancetest.Answer) {
					if _, err := uuid.Parse(r.Header.Get(wallet.HeaderNonce)); err == nil {
						r.Header.Set(wallet.HeaderNonce, uuid.NewString())
					}
					return body, nil
				}}
			},
			warn:    []string{"replayed-nonce"},
			check:   "replayed-nonce",
			message: "de-duplication is optional in the spec",
			shown:   []string{"X-Nonce: "},
		},
		{
			name: "accepts any X-Nonce",
			wrap: func(_ *operator.Operator, inner http.Handler) http.Handler {
				return conformancetest.BrokenWallet{Inner: inner, Before: func(r *http.Request, body []byte) ([]byte, *conformancetest.Answer) {
					if n := r.Header.Get(wallet.HeaderNonce); n != "" {
						if _, err := uuid.Parse(n); err != nil {
							r.Header.Set(wallet.HeaderNonce, uuid.NewString())
						}
					}
					return body, nil
				}}
			},
			warn:    []string{"malformed-nonce"},
			check:   "malformed-nonce",
			message: "the withdrawal whose X-Nonce is not a UUID was accepted (200); the spec wants X-Nonce to be a UUID v4",
			shown:   []string{"X-Nonce: conformance-not-a-uuid"},
		},
		{
			name: "moves money again on a replay",
			wrap: func(_ *operator.Operator, inner http.Handler) http.Handler {
				var mu sync.Mutex
				seen := map[string]int{}
				return conformancetest.BrokenWallet{Inner: inner, Before: func(r *http.Request, body []byte) ([]byte, *conformancetest.Answer) {
					if r.URL.Path != "/v1/withdrawals" || r.Header.Get(wallet.HeaderSignature) != wallet.Sign(secret, body) {
						return body, nil
					}
					mu.Lock()
					defer mu.Unlock()
					id := field(body, "transaction_id")
					if seen[id]++; seen[id] > 1 {
						body = setField(body, "transaction_id", fmt.Sprintf("%s-again-%d", id, seen[id]))
						resign(r, body)
					}
					return body, nil
				}}
			},
			fail:    []string{"replay", "replay-other-body"},
			check:   "replay",
			message: "the balance is 998.00 after one withdrawal of 1.00 from 1000.00 sent twice, not 999.00: one stake too low",
			shown:   []string{"the same withdrawal again (new nonce and timestamp)"},
		},
		{
			name: "answers a rollback of an unknown withdrawal with an error",
			wrap: func(_ *operator.Operator, inner http.Handler) http.Handler {
				return conformancetest.BrokenWallet{Inner: inner, After: func(r *http.Request, _ []byte, a *conformancetest.Answer) {
					if r.Method == http.MethodDelete && bytes.Contains(a.Body, []byte(`"result":"not_found"`)) {
						a.Status, a.Body = http.StatusNotFound, []byte(`{"error":"withdrawal_not_found"}`)
					}
				}}
			},
			fail:    []string{"rollback-unknown"},
			check:   "rollback-unknown",
			message: "the rollback of a withdrawal the wallet never saw was answered 404; the operator answers 200 even when it never saw the withdrawal",
			shown:   []string{"DELETE http://", "/v1/rollbacks/conformance-wd-", "HTTP 404 Not Found", "withdrawal_not_found"},
		},
		{
			name: "keeps no tombstone of a rollback that came first",
			wrap: func(_ *operator.Operator, inner http.Handler) http.Handler {
				var mu sync.Mutex
				debited := map[string]bool{}
				return conformancetest.BrokenWallet{Inner: inner,
					Before: func(r *http.Request, body []byte) ([]byte, *conformancetest.Answer) {
						mu.Lock()
						defer mu.Unlock()
						id := strings.TrimPrefix(r.URL.Path, "/v1/rollbacks/")
						if r.Method == http.MethodDelete && !debited[id] {
							return body, &conformancetest.Answer{Status: http.StatusOK, Body: []byte(`{"transaction_id":"forgetful-1","result":"not_found"}`)}
						}
						return body, nil
					},
					After: func(r *http.Request, body []byte, a *conformancetest.Answer) {
						mu.Lock()
						defer mu.Unlock()
						if r.URL.Path == "/v1/withdrawals" && a.Status == http.StatusOK {
							debited[field(body, "transaction_id")] = true
						}
					}}
			},
			fail:    []string{"rollback-unknown"},
			check:   "rollback-unknown",
			message: "was accepted (200); the operator must remember the rolled-back transaction_id",
			shown:   []string{"the rolled-back withdrawal arriving late"},
		},
		{
			name: "refuses zero-amount deposits",
			wrap: func(_ *operator.Operator, inner http.Handler) http.Handler {
				return conformancetest.BrokenWallet{Inner: inner, Before: func(r *http.Request, body []byte) ([]byte, *conformancetest.Answer) {
					if r.URL.Path == "/v1/deposits" && field(body, "amount") == "0.00" {
						return body, &conformancetest.Answer{Status: http.StatusBadRequest, Body: []byte(`{"error":"invalid_amount","message":"amount must be positive"}`)}
					}
					return body, nil
				}}
			},
			fail:    []string{"deposit-lost"},
			check:   "deposit-lost",
			message: "a deposit of amount 0.00 (a lost bet) was answered 400",
			shown:   []string{"POST http://", "/v1/deposits", `"amount":"0.00"`, `"result":"lost"`, "HTTP 400 Bad Request"},
		},
		{
			name: "answers insufficient funds with another error",
			wrap: func(_ *operator.Operator, inner http.Handler) http.Handler {
				return conformancetest.BrokenWallet{Inner: inner, After: func(_ *http.Request, _ []byte, a *conformancetest.Answer) {
					if bytes.Contains(a.Body, []byte("insufficient_funds")) {
						a.Status, a.Body = http.StatusBadRequest, []byte(`{"error":"not_enough_money"}`)
					}
				}}
			},
			fail:    []string{"insufficient-funds"},
			check:   "insufficient-funds",
			message: `refused 400 with error "not_enough_money"; the platform reads only {"error": "insufficient_funds"}`,
			shown:   []string{`{"error":"not_enough_money"}`},
		},
		{
			name: "answers insufficient funds with a 500",
			wrap: func(_ *operator.Operator, inner http.Handler) http.Handler {
				return conformancetest.BrokenWallet{Inner: inner, After: func(_ *http.Request, _ []byte, a *conformancetest.Answer) {
					if bytes.Contains(a.Body, []byte("insufficient_funds")) {
						a.Status = http.StatusInternalServerError
					}
				}}
			},
			fail:    []string{"insufficient-funds"},
			check:   "insufficient-funds",
			message: "was answered 500; insufficient funds is a final refusal",
			shown:   []string{"HTTP 500 Internal Server Error"},
		},
		{
			name: "writes balances as JSON numbers",
			wrap: func(_ *operator.Operator, inner http.Handler) http.Handler {
				return conformancetest.BrokenWallet{Inner: inner, After: func(_ *http.Request, _ []byte, a *conformancetest.Answer) {
					a.Body = balanceString.ReplaceAll(a.Body, []byte(`"balance":$1`))
				}}
			},
			fail:    []string{"balance-format"},
			check:   "balance-format",
			message: "balance is the JSON number 999.00, not a string",
			shown:   []string{`"balance":999.00`},
		},
		{
			name: "writes balances with fewer decimals than the currency",
			wrap: func(_ *operator.Operator, inner http.Handler) http.Handler {
				return conformancetest.BrokenWallet{Inner: inner, After: func(_ *http.Request, _ []byte, a *conformancetest.Answer) {
					a.Body = oneDecimal.ReplaceAll(a.Body, []byte(`"balance":"$1"`))
				}}
			},
			warn:    []string{"balance-format"},
			check:   "balance-format",
			message: `balance "999.0" has 1 decimals; USD has 2`,
			shown:   []string{`"balance":"999.0"`},
		},
		{
			name: "answers text/plain",
			wrap: func(_ *operator.Operator, inner http.Handler) http.Handler {
				return conformancetest.BrokenWallet{Inner: inner, After: func(_ *http.Request, _ []byte, a *conformancetest.Answer) {
					a.Header.Set("Content-Type", "text/plain; charset=utf-8")
				}}
			},
			warn:    []string{"content-type"},
			check:   "content-type",
			message: `the answer's Content-Type is "text/plain; charset=utf-8"`,
			shown:   []string{"Content-Type: text/plain; charset=utf-8"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			op := newOperator(t)
			rep := run(t, tt.wrap(op, op.Handler()))
			conformancetest.CheckReport(t, rep, conformancetest.Want{Fail: tt.fail, Warn: tt.warn, Check: tt.check, Message: tt.message, Shown: tt.shown})
		})
	}
}

func TestUnreachableOperatorWallet(t *testing.T) {
	t.Parallel()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	url := "http://" + l.Addr().String()
	l.Close()
	rep, err := operatorwallet.Run(context.Background(), operatorwallet.Config{URL: url, Secret: secret, BettorID: bettor, Timeout: 2 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	res, _ := rep.Result("withdrawal")
	if rep.Passed() || res.Status != conformance.Fail || !strings.Contains(res.Reason(), "was answered no answer: ") {
		t.Errorf("withdrawal: %s %q\n%s", res.Status, res.Reason(), rep)
	}
	if rep.Count(conformance.Pass) != 0 {
		t.Errorf("%d checks passed against no wallet", rep.Count(conformance.Pass))
	}
}

func TestOperatorConfigErrors(t *testing.T) {
	t.Parallel()
	two := int32(2)
	tests := []struct {
		name string
		cfg  operatorwallet.Config
		want string
	}{
		{"no URL", operatorwallet.Config{Secret: "s", BettorID: "b"}, "URL is required"},
		{"relative URL", operatorwallet.Config{URL: "wallet.example", Secret: "s", BettorID: "b"}, "absolute http or https URL"},
		{"query", operatorwallet.Config{URL: "https://w.example/?a=1", Secret: "s", BettorID: "b"}, "query"},
		{"no secret", operatorwallet.Config{URL: "https://w.example", BettorID: "b"}, "secret is required"},
		{"no bettor", operatorwallet.Config{URL: "https://w.example", Secret: "s"}, "bettor id is required"},
		{"crypto without decimals", operatorwallet.Config{URL: "https://w.example", Secret: "s", BettorID: "b", Currency: "BTC"}, "give its decimals"},
		{"bad currency", operatorwallet.Config{URL: "https://w.example", Secret: "s", BettorID: "b", Currency: "usd", Decimals: &two}, "currency"},
		{"stake too precise", operatorwallet.Config{URL: "https://w.example", Secret: "s", BettorID: "b", Stake: "1.005"}, "more decimals than USD's 2"},
		{"zero stake", operatorwallet.Config{URL: "https://w.example", Secret: "s", BettorID: "b", Stake: "0"}, "stake"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := operatorwallet.Run(context.Background(), tt.cfg)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("Run: %v, want an error containing %q", err, tt.want)
			}
		})
	}
}

// TestDocListsEveryCheck keeps the package documentation's list true.
func TestDocListsEveryCheck(t *testing.T) {
	t.Parallel()
	doc, err := os.ReadFile("doc.go")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range operatorwallet.Checks() {
		if !regexp.MustCompile(`(?m)^//\t` + regexp.QuoteMeta(c.Name) + ` `).Match(doc) {
			t.Errorf("doc.go does not list the check %s", c.Name)
		}
		if c.Rule == "" || c.Spec == "" {
			t.Errorf("check %s has no rule or spec reference", c.Name)
		}
	}
}
