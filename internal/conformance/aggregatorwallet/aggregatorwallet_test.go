package aggregatorwallet_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/foresight-dev/foresight/internal/conformance"
	"github.com/foresight-dev/foresight/internal/conformance/aggregatorwallet"
	"github.com/foresight-dev/foresight/internal/conformance/conformancetest"
	"github.com/foresight-dev/foresight/internal/sandbox/casino"
)

const (
	secret  = "conformance-test-secret"
	account = "conformance-player"
)

func newCasino(t *testing.T) *casino.Casino {
	t.Helper()
	c, err := casino.New(casino.Config{SigningSecret: secret, StartingBalance: "1000"})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func run(t *testing.T, h http.Handler) *conformance.Report {
	t.Helper()
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	rep, err := aggregatorwallet.Run(context.Background(), aggregatorwallet.Config{URL: srv.URL, Secret: secret, AccountID: account})
	if err != nil {
		t.Fatal(err)
	}
	return rep
}

func TestSandboxCasinoPasses(t *testing.T) {
	t.Parallel()
	c := newCasino(t)
	rep := run(t, c.Handler())
	text := rep.String()
	for _, res := range rep.Results {
		if res.Status != conformance.Pass {
			t.Errorf("%s: %s %s", res.Name, res.Status, res.Reason())
		}
	}
	if !rep.Passed() || !strings.Contains(text, "17 passed") || !strings.Contains(text, "the wallet conforms") {
		t.Errorf("report:\n%s", text)
	}
	if got, want := len(rep.Results), len(aggregatorwallet.Checks()); got != want {
		t.Errorf("%d results, %d checks", got, want)
	}
	if bal, _ := c.Balance(account, "USD"); bal != "1000.00" {
		t.Errorf("balance after the run = %s, want 1000.00 (the run undoes its money)", bal)
	}
	if strings.Contains(text, secret) {
		t.Error("the report prints the signing secret")
	}
	if again := run(t, c.Handler()); !again.Passed() {
		t.Errorf("second run:\n%s", again)
	}
}

// TestSandboxCasinoUnderAPrefix mounts the wallet below a path, as the
// casino's doc suggests; the checker keeps the base URL's path.
func TestSandboxCasinoUnderAPrefix(t *testing.T) {
	t.Parallel()
	c := newCasino(t)
	mux := http.NewServeMux()
	mux.Handle("/wallet/", http.StripPrefix("/wallet", c.Handler()))
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	rep, err := aggregatorwallet.Run(context.Background(), aggregatorwallet.Config{URL: srv.URL + "/wallet/", Secret: secret,
		AccountID: account, Currency: "EUR", Stake: "0.25", SessionID: "a-session-long-gone"})
	if err != nil {
		t.Fatal(err)
	}
	if !rep.Passed() {
		t.Errorf("report:\n%s", rep)
	}
	if bal, _ := c.Balance(account, "EUR"); bal != "1000.00" {
		t.Errorf("balance after the run = %s, want 1000.00", bal)
	}
}

func signed(r *http.Request, body []byte) bool {
	return r.Header.Get("X-REQUEST-SIGN") == casino.Sign([]byte(secret), body)
}

// request is the part of a wallet request the wrappers read.
type request struct {
	RoundID      string `json:"round_id"`
	Transactions []txn  `json:"transactions"`
}

type txn struct {
	IDProvider         string `json:"id_provider"`
	OriginalIDProvider string `json:"original_id_provider"`
}

// parse reads a request; Transactions has at least one (maybe empty) item.
func parse(body []byte) request {
	var req request
	_ = json.Unmarshal(body, &req)
	if len(req.Transactions) == 0 {
		req.Transactions = []txn{{}}
	}
	return req
}

var (
	balanceString = regexp.MustCompile(`"balance":"([0-9.]+)"`)
	apiCodeString = regexp.MustCompile(`"api_code":"([0-9]+)"`)
)

func TestBrokenCasinoWallets(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		wrap func(c *casino.Casino, inner http.Handler) http.Handler
		// fail and warn are the checks expected to fail and to warn; every
		// other check passes.
		fail, warn []string
		// check and message: the reason of that check contains message.
		check, message string
		// shown is text the report must print for the check.
		shown []string
	}{
		{
			name: "accepts bad signatures",
			wrap: func(_ *casino.Casino, inner http.Handler) http.Handler {
				return conformancetest.BrokenWallet{Inner: inner, Before: func(r *http.Request, body []byte) ([]byte, *conformancetest.Answer) {
					r.Header.Set("X-REQUEST-SIGN", casino.Sign([]byte(secret), body))
					return body, nil
				}}
			},
			fail:    []string{"wrong-signature", "missing-signature"},
			check:   "wrong-signature",
			message: "the bet signed with another secret was accepted; the spec answers a missing or wrong signature 403",
			shown:   []string{"POST http://", "/v2/provider_agg.Round/BetWin", "X-Request-Sign: ", "HTTP 200 OK", `"round_id":"casino-round-`},
		},
		{
			name: "answers 403 to a wrong signature after processing it",
			wrap: func(_ *casino.Casino, inner http.Handler) http.Handler {
				return conformancetest.BrokenWallet{Inner: inner, Before: func(r *http.Request, body []byte) ([]byte, *conformancetest.Answer) {
					if sig := r.Header.Get("X-REQUEST-SIGN"); sig != "" && !signed(r, body) {
						r.Header.Set("X-REQUEST-SIGN", casino.Sign([]byte(secret), body))
						r.Body = io.NopCloser(bytes.NewReader(body))
						inner.ServeHTTP(httptest.NewRecorder(), r)
						return body, &conformancetest.Answer{Status: http.StatusForbidden, Body: []byte(`{"code":"permission_denied","msg":"bad sign","meta":{"api_code":"403","api_message":"Forbidden"}}`)}
					}
					return body, nil
				}}
			},
			fail:    []string{"wrong-signature"},
			check:   "wrong-signature",
			message: "the refused bet moved the balance from 1000 to 999; a refused request must change nothing",
			shown:   []string{"HTTP 403 Forbidden", `"api_code":"403"`},
		},
		{
			name: "moves money again on a replay",
			wrap: func(_ *casino.Casino, inner http.Handler) http.Handler {
				var mu sync.Mutex
				seen := map[string]int{}
				renamed := map[string]string{}
				return conformancetest.BrokenWallet{Inner: inner,
					Before: func(r *http.Request, body []byte) ([]byte, *conformancetest.Answer) {
						if !strings.HasSuffix(r.URL.Path, "Round/BetWin") || !signed(r, body) {
							return body, nil
						}
						mu.Lock()
						defer mu.Unlock()
						id := parse(body).Transactions[0].IDProvider
						if seen[id]++; seen[id] > 1 {
							again := fmt.Sprintf("%s-again-%d", id, seen[id])
							renamed[again] = id
							body = bytes.Replace(body, []byte(`"`+id+`"`), []byte(`"`+again+`"`), 1)
							r.Header.Set("X-REQUEST-SIGN", casino.Sign([]byte(secret), body))
						}
						return body, nil
					},
					After: func(_ *http.Request, body []byte, a *conformancetest.Answer) {
						mu.Lock()
						defer mu.Unlock()
						id := parse(body).Transactions[0].IDProvider
						if original, ok := renamed[id]; ok {
							a.Body = bytes.ReplaceAll(a.Body, []byte(`"`+id+`"`), []byte(`"`+original+`"`))
						}
					}}
			},
			fail:    []string{"replay", "replay-other-body", "win"},
			check:   "replay",
			message: "Player/Balance says 998 after one bet of 1 from 1000 sent twice, not 999 (1 too low)",
			shown:   []string{"the same bet again"},
		},
		{
			name: "answers a rollback of an unknown bet with an error",
			wrap: func(_ *casino.Casino, inner http.Handler) http.Handler {
				return conformancetest.BrokenWallet{Inner: inner, After: func(r *http.Request, _ []byte, a *conformancetest.Answer) {
					if strings.HasSuffix(r.URL.Path, "Round/Rollback") && bytes.Contains(a.Body, []byte(`"id":""`)) {
						a.Status = http.StatusBadRequest
						a.Body = []byte(`{"code":"invalid_argument","msg":"original transaction not found","meta":{"api_code":"404","api_message":"Not found"}}`)
					}
				}}
			},
			fail:    []string{"rollback-unknown"},
			check:   "rollback-unknown",
			message: `the rollback of a bet the wallet never saw was answered 400 with api_code 404; the spec: process it even if it arrives before the bet`,
			shown:   []string{"/v2/provider_agg.Round/Rollback", `"original_id_provider":"conformance-bet-`, "HTTP 400 Bad Request"},
		},
		{
			name: "keeps no tombstone of a rollback that came first",
			wrap: func(c *casino.Casino, inner http.Handler) http.Handler {
				var mu sync.Mutex
				processed := map[string]bool{}
				return conformancetest.BrokenWallet{Inner: inner,
					Before: func(r *http.Request, body []byte) ([]byte, *conformancetest.Answer) {
						mu.Lock()
						defer mu.Unlock()
						req := parse(body)
						if strings.HasSuffix(r.URL.Path, "Round/Rollback") && !processed[req.Transactions[0].OriginalIDProvider] {
							bal, _ := c.Balance(account, "USD")
							return body, &conformancetest.Answer{Status: http.StatusOK, Body: fmt.Appendf(nil,
								`{"balance":%q,"round_id":"forgetful","transactions":[{"id_provider":%q,"id":""}]}`, bal, req.Transactions[0].IDProvider)}
						}
						return body, nil
					},
					After: func(r *http.Request, body []byte, a *conformancetest.Answer) {
						mu.Lock()
						defer mu.Unlock()
						if strings.HasSuffix(r.URL.Path, "Round/BetWin") && a.Status == http.StatusOK {
							processed[parse(body).Transactions[0].IDProvider] = true
						}
					}}
			},
			fail:    []string{"rollback-unknown"},
			check:   "rollback-unknown",
			message: "was processed: the balance went from 1000 to 999; after reversing, the wallet must not process a late copy of the original bet",
			shown:   []string{"the rolled-back bet arriving late"},
		},
		{
			name: "rejects a win in a finished round",
			wrap: func(_ *casino.Casino, inner http.Handler) http.Handler {
				var mu sync.Mutex
				finished := map[string]bool{}
				return conformancetest.BrokenWallet{Inner: inner, Before: func(r *http.Request, body []byte) ([]byte, *conformancetest.Answer) {
					mu.Lock()
					defer mu.Unlock()
					req := parse(body)
					switch {
					case strings.HasSuffix(r.URL.Path, "Round/Finish"):
						finished[req.RoundID] = true
					case strings.HasSuffix(r.URL.Path, "Round/BetWin") && finished[req.RoundID]:
						return body, &conformancetest.Answer{Status: http.StatusBadRequest,
							Body: []byte(`{"code":"invalid_argument","msg":"round is closed","meta":{"api_code":"400","api_message":"Bad request"}}`)}
					}
					return body, nil
				}}
			},
			fail:    []string{"closed-round"},
			check:   "closed-round",
			message: "a win in a round already finished was answered 400 with api_code 400; the spec: do not reject a transaction because the round is already closed",
			shown:   []string{"round is closed"},
		},
		{
			name: "answers insufficient funds with another api_code",
			wrap: func(_ *casino.Casino, inner http.Handler) http.Handler {
				return conformancetest.BrokenWallet{Inner: inner, After: func(_ *http.Request, _ []byte, a *conformancetest.Answer) {
					a.Body = bytes.ReplaceAll(a.Body, []byte(`"api_code":"100"`), []byte(`"api_code":"101"`))
				}}
			},
			fail:    []string{"insufficient-funds"},
			check:   "insufficient-funds",
			message: `a bet above the balance was answered 400 with api_code 101; the spec's code for "player lacks money" is api_code "100"`,
			shown:   []string{`"api_code":"101"`},
		},
		{
			name: "answers insufficient funds without an api_code",
			wrap: func(_ *casino.Casino, inner http.Handler) http.Handler {
				return conformancetest.BrokenWallet{Inner: inner, After: func(_ *http.Request, _ []byte, a *conformancetest.Answer) {
					if bytes.Contains(a.Body, []byte(`"api_code":"100"`)) {
						a.Body = []byte(`{"error":"insufficient funds"}`)
					}
				}}
			},
			fail:    []string{"insufficient-funds", "api-codes"},
			check:   "api-codes",
			message: "an HTTP 400 answer without meta.api_code (1 answers like this); business rejections are signalled through meta.api_code",
			shown:   []string{`{"error":"insufficient funds"}`, "check insufficient-funds"},
		},
		{
			name: "writes api_codes as JSON numbers",
			wrap: func(_ *casino.Casino, inner http.Handler) http.Handler {
				return conformancetest.BrokenWallet{Inner: inner, After: func(_ *http.Request, _ []byte, a *conformancetest.Answer) {
					a.Body = apiCodeString.ReplaceAll(a.Body, []byte(`"api_code":$1`))
				}}
			},
			fail:    []string{"api-codes"},
			check:   "api-codes",
			message: "meta.api_code is the JSON value 403, not a string",
			shown:   []string{`"api_code":403`},
		},
		{
			name: "writes balances as JSON numbers",
			wrap: func(_ *casino.Casino, inner http.Handler) http.Handler {
				return conformancetest.BrokenWallet{Inner: inner, After: func(_ *http.Request, _ []byte, a *conformancetest.Answer) {
					a.Body = balanceString.ReplaceAll(a.Body, []byte(`"balance":$1`))
				}}
			},
			fail:    []string{"decimal-format"},
			check:   "decimal-format",
			message: "balance is the JSON number 1000.00, not a string",
			shown:   []string{`{"balance":1000.00}`},
		},
		{
			name: "writes balances with 13 decimals",
			wrap: func(_ *casino.Casino, inner http.Handler) http.Handler {
				return conformancetest.BrokenWallet{Inner: inner, After: func(_ *http.Request, _ []byte, a *conformancetest.Answer) {
					a.Body = balanceString.ReplaceAll(a.Body, []byte(`"balance":"${1}00000000000"`))
				}}
			},
			fail:    []string{"decimal-format"},
			check:   "decimal-format",
			message: `balance is "1000.0000000000000", with more than 18 digits before or 12 after the point`,
			shown:   []string{`"balance":"1000.0000000000000"`},
		},
		{
			name: "answers a round's items newest first",
			wrap: func(_ *casino.Casino, inner http.Handler) http.Handler {
				var mu sync.Mutex
				rounds := map[string][]json.RawMessage{}
				return conformancetest.BrokenWallet{Inner: inner, After: func(r *http.Request, body []byte, a *conformancetest.Answer) {
					if !strings.HasSuffix(r.URL.Path, "Round/BetWin") || a.Status != http.StatusOK {
						return
					}
					mu.Lock()
					defer mu.Unlock()
					var ans map[string]json.RawMessage
					var items []json.RawMessage
					if json.Unmarshal(a.Body, &ans) != nil || json.Unmarshal(ans["transactions"], &items) != nil || len(items) != 1 {
						return
					}
					round := parse(body).RoundID
					if !slices.ContainsFunc(rounds[round], func(m json.RawMessage) bool { return bytes.Equal(m, items[0]) }) {
						rounds[round] = append([]json.RawMessage{items[0]}, rounds[round]...)
					}
					ans["transactions"], _ = json.Marshal(rounds[round])
					a.Body, _ = json.Marshal(ans)
				}}
			},
			fail:    []string{"transaction-items"},
			check:   "transaction-items",
			message: "the answer has 2 transaction items for the request's 1",
			shown:   []string{`"type":"win"`},
		},
		{
			name: "answers text/plain",
			wrap: func(_ *casino.Casino, inner http.Handler) http.Handler {
				return conformancetest.BrokenWallet{Inner: inner, After: func(_ *http.Request, _ []byte, a *conformancetest.Answer) {
					a.Header.Set("Content-Type", "text/plain")
				}}
			},
			warn:    []string{"content-type"},
			check:   "content-type",
			message: `the answer's Content-Type is "text/plain"`,
			shown:   []string{"Content-Type: text/plain"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			c := newCasino(t)
			rep := run(t, tt.wrap(c, c.Handler()))
			conformancetest.CheckReport(t, rep, conformancetest.Want{Fail: tt.fail, Warn: tt.warn, Check: tt.check, Message: tt.message, Shown: tt.shown})
		})
	}
}

func TestUnreachableCasinoWallet(t *testing.T) {
	t.Parallel()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	url := "http://" + l.Addr().String()
	l.Close()
	rep, err := aggregatorwallet.Run(context.Background(), aggregatorwallet.Config{URL: url, Secret: secret, AccountID: account, Timeout: 2 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	res, _ := rep.Result("balance")
	if rep.Passed() || res.Status != conformance.Fail || !strings.Contains(res.Reason(), "Player/Balance was answered no answer: ") {
		t.Errorf("balance: %s %q\n%s", res.Status, res.Reason(), rep)
	}
	if rep.Count(conformance.Pass) != 0 {
		t.Errorf("%d checks passed against no wallet", rep.Count(conformance.Pass))
	}
}

func TestCasinoConfigErrors(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		cfg  aggregatorwallet.Config
		want string
	}{
		{"no URL", aggregatorwallet.Config{Secret: "s", AccountID: "a"}, "URL is required"},
		{"not http", aggregatorwallet.Config{URL: "ftp://w.example", Secret: "s", AccountID: "a"}, "absolute http or https URL"},
		{"no secret", aggregatorwallet.Config{URL: "https://w.example", AccountID: "a"}, "secret is required"},
		{"no account", aggregatorwallet.Config{URL: "https://w.example", Secret: "s"}, "account id is required"},
		{"lower-case currency", aggregatorwallet.Config{URL: "https://w.example", Secret: "s", AccountID: "a", Currency: "usd"}, "upper-case"},
		{"stake with 13 decimals", aggregatorwallet.Config{URL: "https://w.example", Secret: "s", AccountID: "a", Stake: "0.0000000000001"}, "stake"},
		{"negative stake", aggregatorwallet.Config{URL: "https://w.example", Secret: "s", AccountID: "a", Stake: "-1"}, "stake"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := aggregatorwallet.Run(context.Background(), tt.cfg)
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
	for _, c := range aggregatorwallet.Checks() {
		if !regexp.MustCompile(`(?m)^//\t` + regexp.QuoteMeta(c.Name) + ` `).Match(doc) {
			t.Errorf("doc.go does not list the check %s", c.Name)
		}
		if c.Rule == "" || c.Spec == "" {
			t.Errorf("check %s has no rule or spec reference", c.Name)
		}
	}
}
