package operatorwallet_test

import (
	"bytes"
	"crypto/rand"
	"crypto/rsa"
	"encoding/json"
	"fmt"
	"net/http"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/foresight-dev/foresight/internal/betting/wallet"
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

// checker is the operator wallet's checker with the sandbox operator.
var checker = conformancetest.Checker[*operator.Operator, operatorwallet.Config]{
	NewWallet: newOperator,
	Config: func(url string, timeout time.Duration) operatorwallet.Config {
		return operatorwallet.Config{URL: url + "/", Secret: secret, BettorID: bettor, Timeout: timeout}
	},
	Run:     operatorwallet.Run,
	Checks:  operatorwallet.Checks(),
	Secret:  secret,
	Balance: func(op *operator.Operator) string { bal, _ := op.Balance(bettor); return bal },
}

func TestSandboxOperatorPasses(t *testing.T) {
	t.Parallel()
	rep := checker.CheckSandboxPasses(t, "1000.00")
	if text := rep.String(); !strings.Contains(text, "1000.00 USD at the start of the run, the same at the end") {
		t.Errorf("the notes do not give the balance:\n%s", text)
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

var oneDecimal = regexp.MustCompile(`"balance":"([0-9]+\.[0-9])0"`)

func TestBrokenOperatorWallets(t *testing.T) {
	t.Parallel()
	tests := []conformancetest.Break[*operator.Operator]{
		{
			Name: "accepts bad signatures",
			Before: func(r *http.Request, body []byte) ([]byte, *conformancetest.Answer) {
				if r.Header.Get(wallet.HeaderSignature) != wallet.Sign(secret, body) {
					r.Header.Set(wallet.HeaderSignature, wallet.Sign(secret, body))
				}
				return body, nil
			},
			Fail:    []string{"wrong-signature", "missing-signature"},
			Check:   "wrong-signature",
			Message: "the withdrawal signed with another secret was accepted (200); the spec answers it 401",
			Shown:   []string{"POST http://", "/v1/withdrawals", "X-Payload-Signature: ", "HTTP 200 OK", `"balance":"`},
		},
		{
			Name: "answers 401 to a wrong signature after processing it",
			Wrap: func(_ *operator.Operator, inner http.Handler) http.Handler {
				return conformancetest.ProcessedThenRefused(inner,
					func(r *http.Request, body []byte) bool {
						sig := r.Header.Get(wallet.HeaderSignature)
						return sig != "" && sig != wallet.Sign(secret, body)
					},
					resign, conformancetest.Answer{Status: http.StatusUnauthorized, Body: []byte(`{"error":"invalid_signature"}`)})
			},
			Fail:    []string{"wrong-signature"},
			Check:   "wrong-signature",
			Message: "a refused request must change nothing (one stake too low)",
			Shown:   []string{"HTTP 401 Unauthorized", `{"error":"invalid_signature"}`},
		},
		{
			Name: "accepts stale timestamps",
			Before: func(r *http.Request, body []byte) ([]byte, *conformancetest.Answer) {
				if r.Header.Get(wallet.HeaderTimestamp) != "" {
					r.Header.Set(wallet.HeaderTimestamp, time.Now().UTC().Format(time.RFC3339))
				}
				return body, nil
			},
			Fail:    []string{"stale-timestamp"},
			Check:   "stale-timestamp",
			Message: "the withdrawal with an X-Timestamp 10 minutes old was accepted",
			Shown:   []string{"X-Timestamp: "},
		},
		{
			Name: "does not de-duplicate nonces",
			Before: func(r *http.Request, body []byte) ([]byte, *conformancetest.Answer) {
				if _, err := uuid.Parse(r.Header.Get(wallet.HeaderNonce)); err == nil {
					r.Header.Set(wallet.HeaderNonce, uuid.NewString())
				}
				return body, nil
			},
			Warn:    []string{"replayed-nonce"},
			Check:   "replayed-nonce",
			Message: "de-duplication is optional in the spec",
			Shown:   []string{"X-Nonce: "},
		},
		{
			Name: "accepts any X-Nonce",
			Before: func(r *http.Request, body []byte) ([]byte, *conformancetest.Answer) {
				if n := r.Header.Get(wallet.HeaderNonce); n != "" {
					if _, err := uuid.Parse(n); err != nil {
						r.Header.Set(wallet.HeaderNonce, uuid.NewString())
					}
				}
				return body, nil
			},
			Warn:    []string{"malformed-nonce"},
			Check:   "malformed-nonce",
			Message: "the withdrawal whose X-Nonce is not a UUID was accepted (200); the spec wants X-Nonce to be a UUID v4",
			Shown:   []string{"X-Nonce: conformance-not-a-uuid"},
		},
		{
			Name: "moves money again on a replay",
			Wrap: func(_ *operator.Operator, inner http.Handler) http.Handler {
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
			Fail:    []string{"replay", "replay-other-body"},
			Check:   "replay",
			Message: "the balance is 998.00 after one withdrawal of 1.00 from 1000.00 sent twice, not 999.00: one stake too low",
			Shown:   []string{"the same withdrawal again (new nonce and timestamp)"},
		},
		{
			Name: "answers a rollback of an unknown withdrawal with an error",
			After: func(r *http.Request, _ []byte, a *conformancetest.Answer) {
				if r.Method == http.MethodDelete && bytes.Contains(a.Body, []byte(`"result":"not_found"`)) {
					a.Status, a.Body = http.StatusNotFound, []byte(`{"error":"withdrawal_not_found"}`)
				}
			},
			Fail:    []string{"rollback-unknown"},
			Check:   "rollback-unknown",
			Message: "the rollback of a withdrawal the wallet never saw was answered 404; the operator answers 200 even when it never saw the withdrawal",
			Shown:   []string{"DELETE http://", "/v1/rollbacks/conformance-wd-", "HTTP 404 Not Found", "withdrawal_not_found"},
		},
		{
			Name: "keeps no tombstone of a rollback that came first",
			Wrap: func(_ *operator.Operator, inner http.Handler) http.Handler {
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
			Fail:    []string{"rollback-unknown"},
			Check:   "rollback-unknown",
			Message: "was accepted (200); the operator must remember the rolled-back transaction_id",
			Shown:   []string{"the rolled-back withdrawal arriving late"},
		},
		{
			Name: "refuses zero-amount deposits",
			Before: func(r *http.Request, body []byte) ([]byte, *conformancetest.Answer) {
				if r.URL.Path == "/v1/deposits" && field(body, "amount") == "0.00" {
					return body, &conformancetest.Answer{Status: http.StatusBadRequest, Body: []byte(`{"error":"invalid_amount","message":"amount must be positive"}`)}
				}
				return body, nil
			},
			Fail:    []string{"deposit-lost"},
			Check:   "deposit-lost",
			Message: "a deposit of amount 0.00 (a lost bet) was answered 400",
			Shown:   []string{"POST http://", "/v1/deposits", `"amount":"0.00"`, `"result":"lost"`, "HTTP 400 Bad Request"},
		},
		{
			Name: "answers insufficient funds with another error",
			After: func(_ *http.Request, _ []byte, a *conformancetest.Answer) {
				if bytes.Contains(a.Body, []byte("insufficient_funds")) {
					a.Status, a.Body = http.StatusBadRequest, []byte(`{"error":"not_enough_money"}`)
				}
			},
			Fail:    []string{"insufficient-funds"},
			Check:   "insufficient-funds",
			Message: `refused 400 with error "not_enough_money"; the platform reads only {"error": "insufficient_funds"}`,
			Shown:   []string{`{"error":"not_enough_money"}`},
		},
		{
			Name: "answers insufficient funds with a 500",
			After: func(_ *http.Request, _ []byte, a *conformancetest.Answer) {
				if bytes.Contains(a.Body, []byte("insufficient_funds")) {
					a.Status = http.StatusInternalServerError
				}
			},
			Fail:    []string{"insufficient-funds"},
			Check:   "insufficient-funds",
			Message: "was answered 500; insufficient funds is a final refusal",
			Shown:   []string{"HTTP 500 Internal Server Error"},
		},
		{
			Name:    "writes balances as JSON numbers",
			After:   conformancetest.BalancesAsNumbers,
			Fail:    []string{"balance-format"},
			Check:   "balance-format",
			Message: "balance is the JSON number 999.00, not a string",
			Shown:   []string{`"balance":999.00`},
		},
		{
			Name: "writes balances with fewer decimals than the currency",
			After: func(_ *http.Request, _ []byte, a *conformancetest.Answer) {
				a.Body = oneDecimal.ReplaceAll(a.Body, []byte(`"balance":"$1"`))
			},
			Warn:    []string{"balance-format"},
			Check:   "balance-format",
			Message: `balance "999.0" has 1 decimals; USD has 2`,
			Shown:   []string{`"balance":"999.0"`},
		},
		{
			Name:    "answers text/plain",
			After:   conformancetest.AnswersContentType("text/plain; charset=utf-8"),
			Warn:    []string{"content-type"},
			Check:   "content-type",
			Message: `the answer's Content-Type is "text/plain; charset=utf-8"`,
			Shown:   []string{"Content-Type: text/plain; charset=utf-8"},
		},
	}
	checker.RunBreaks(t, tests)
}

func TestUnreachableOperatorWallet(t *testing.T) {
	t.Parallel()
	checker.CheckUnreachable(t, "withdrawal", "was answered no answer: ")
}

func TestOperatorConfigErrors(t *testing.T) {
	t.Parallel()
	two := int32(2)
	tests := []conformancetest.ConfigError[operatorwallet.Config]{
		{Name: "no URL", Cfg: operatorwallet.Config{Secret: "s", BettorID: "b"}, Want: "URL is required"},
		{Name: "relative URL", Cfg: operatorwallet.Config{URL: "wallet.example", Secret: "s", BettorID: "b"}, Want: "absolute http or https URL"},
		{Name: "query", Cfg: operatorwallet.Config{URL: "https://w.example/?a=1", Secret: "s", BettorID: "b"}, Want: "query"},
		{Name: "no secret", Cfg: operatorwallet.Config{URL: "https://w.example", BettorID: "b"}, Want: "secret is required"},
		{Name: "no bettor", Cfg: operatorwallet.Config{URL: "https://w.example", Secret: "s"}, Want: "bettor id is required"},
		{Name: "crypto without decimals", Cfg: operatorwallet.Config{URL: "https://w.example", Secret: "s", BettorID: "b", Currency: "BTC"}, Want: "give its decimals"},
		{Name: "bad currency", Cfg: operatorwallet.Config{URL: "https://w.example", Secret: "s", BettorID: "b", Currency: "usd", Decimals: &two}, Want: "currency"},
		{Name: "stake too precise", Cfg: operatorwallet.Config{URL: "https://w.example", Secret: "s", BettorID: "b", Stake: "1.005"}, Want: "more decimals than USD's 2"},
		{Name: "zero stake", Cfg: operatorwallet.Config{URL: "https://w.example", Secret: "s", BettorID: "b", Stake: "0"}, Want: "stake"},
	}
	checker.CheckConfigErrors(t, tests)
}

// TestDocListsEveryCheck keeps the package documentation's list true.
func TestDocListsEveryCheck(t *testing.T) {
	t.Parallel()
	checker.CheckDocListsEveryCheck(t)
}
