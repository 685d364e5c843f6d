package aggregatorwallet_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

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

// checker is the aggregator wallet's checker with the sandbox casino.
var checker = conformancetest.Checker[*casino.Casino, aggregatorwallet.Config]{
	NewWallet: newCasino,
	Config: func(url string, timeout time.Duration) aggregatorwallet.Config {
		return aggregatorwallet.Config{URL: url, Secret: secret, AccountID: account, Timeout: timeout}
	},
	Run:     aggregatorwallet.Run,
	Checks:  aggregatorwallet.Checks(),
	Secret:  secret,
	Balance: func(c *casino.Casino) string { bal, _ := c.Balance(account, "USD"); return bal },
}

func TestSandboxCasinoPasses(t *testing.T) {
	t.Parallel()
	checker.CheckSandboxPasses(t, "1000.00")
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
	tests := []conformancetest.Break[*casino.Casino]{
		{
			Name: "accepts bad signatures",
			Before: func(r *http.Request, body []byte) ([]byte, *conformancetest.Answer) {
				r.Header.Set("X-REQUEST-SIGN", casino.Sign([]byte(secret), body))
				return body, nil
			},
			Fail:    []string{"wrong-signature", "missing-signature"},
			Check:   "wrong-signature",
			Message: "the bet signed with another secret was accepted; the spec answers a missing or wrong signature 403",
			Shown:   []string{"POST http://", "/v2/provider_agg.Round/BetWin", "X-Request-Sign: ", "HTTP 200 OK", `"round_id":"casino-round-`},
		},
		{
			Name: "answers 403 to a wrong signature after processing it",
			Wrap: func(_ *casino.Casino, inner http.Handler) http.Handler {
				return conformancetest.ProcessedThenRefused(inner,
					func(r *http.Request, body []byte) bool {
						return r.Header.Get("X-REQUEST-SIGN") != "" && !signed(r, body)
					},
					func(r *http.Request, body []byte) { r.Header.Set("X-REQUEST-SIGN", casino.Sign([]byte(secret), body)) },
					conformancetest.Answer{Status: http.StatusForbidden, Body: []byte(`{"code":"permission_denied","msg":"bad sign","meta":{"api_code":"403","api_message":"Forbidden"}}`)})
			},
			Fail:    []string{"wrong-signature"},
			Check:   "wrong-signature",
			Message: "the refused bet moved the balance from 1000 to 999; a refused request must change nothing",
			Shown:   []string{"HTTP 403 Forbidden", `"api_code":"403"`},
		},
		{
			Name: "moves money again on a replay",
			Wrap: func(_ *casino.Casino, inner http.Handler) http.Handler {
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
			Fail:    []string{"replay", "replay-other-body", "win"},
			Check:   "replay",
			Message: "Player/Balance says 998 after one bet of 1 from 1000 sent twice, not 999 (1 too low)",
			Shown:   []string{"the same bet again"},
		},
		{
			Name: "answers a rollback of an unknown bet with an error",
			After: func(r *http.Request, _ []byte, a *conformancetest.Answer) {
				if strings.HasSuffix(r.URL.Path, "Round/Rollback") && bytes.Contains(a.Body, []byte(`"id":""`)) {
					a.Status = http.StatusBadRequest
					a.Body = []byte(`{"code":"invalid_argument","msg":"original transaction not found","meta":{"api_code":"404","api_message":"Not found"}}`)
				}
			},
			Fail:    []string{"rollback-unknown"},
			Check:   "rollback-unknown",
			Message: `the rollback of a bet the wallet never saw was answered 400 with api_code 404; the spec: process it even if it arrives before the bet`,
			Shown:   []string{"/v2/provider_agg.Round/Rollback", `"original_id_provider":"conformance-bet-`, "HTTP 400 Bad Request"},
		},
		{
			Name: "keeps no tombstone of a rollback that came first",
			Wrap: func(c *casino.Casino, inner http.Handler) http.Handler {
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
			Fail:    []string{"rollback-unknown"},
			Check:   "rollback-unknown",
			Message: "was processed: the balance went from 1000 to 999; after reversing, the wallet must not process a late copy of the original bet",
			Shown:   []string{"the rolled-back bet arriving late"},
		},
		{
			Name: "rejects a win in a finished round",
			Wrap: func(_ *casino.Casino, inner http.Handler) http.Handler {
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
			Fail:    []string{"closed-round"},
			Check:   "closed-round",
			Message: "a win in a round already finished was answered 400 with api_code 400; the spec: do not reject a transaction because the round is already closed",
			Shown:   []string{"round is closed"},
		},
		{
			Name: "answers insufficient funds with another api_code",
			After: func(_ *http.Request, _ []byte, a *conformancetest.Answer) {
				a.Body = bytes.ReplaceAll(a.Body, []byte(`"api_code":"100"`), []byte(`"api_code":"101"`))
			},
			Fail:    []string{"insufficient-funds"},
			Check:   "insufficient-funds",
			Message: `a bet above the balance was answered 400 with api_code 101; the spec's code for "player lacks money" is api_code "100"`,
			Shown:   []string{`"api_code":"101"`},
		},
		{
			Name: "answers insufficient funds without an api_code",
			After: func(_ *http.Request, _ []byte, a *conformancetest.Answer) {
				if bytes.Contains(a.Body, []byte(`"api_code":"100"`)) {
					a.Body = []byte(`{"error":"insufficient funds"}`)
				}
			},
			Fail:    []string{"insufficient-funds", "api-codes"},
			Check:   "api-codes",
			Message: "an HTTP 400 answer without meta.api_code (1 answers like this); business rejections are signalled through meta.api_code",
			Shown:   []string{`{"error":"insufficient funds"}`, "check insufficient-funds"},
		},
		{
			Name: "writes api_codes as JSON numbers",
			After: func(_ *http.Request, _ []byte, a *conformancetest.Answer) {
				a.Body = apiCodeString.ReplaceAll(a.Body, []byte(`"api_code":$1`))
			},
			Fail:    []string{"api-codes"},
			Check:   "api-codes",
			Message: "meta.api_code is the JSON value 403, not a string",
			Shown:   []string{`"api_code":403`},
		},
		{
			Name:    "writes balances as JSON numbers",
			After:   conformancetest.BalancesAsNumbers,
			Fail:    []string{"decimal-format"},
			Check:   "decimal-format",
			Message: "balance is the JSON number 1000.00, not a string",
			Shown:   []string{`{"balance":1000.00}`},
		},
		{
			Name: "writes balances with 13 decimals",
			After: func(_ *http.Request, _ []byte, a *conformancetest.Answer) {
				a.Body = balanceString.ReplaceAll(a.Body, []byte(`"balance":"${1}00000000000"`))
			},
			Fail:    []string{"decimal-format"},
			Check:   "decimal-format",
			Message: `balance is "1000.0000000000000", with more than 18 digits before or 12 after the point`,
			Shown:   []string{`"balance":"1000.0000000000000"`},
		},
		{
			Name: "answers a round's items newest first",
			Wrap: func(_ *casino.Casino, inner http.Handler) http.Handler {
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
			Fail:    []string{"transaction-items"},
			Check:   "transaction-items",
			Message: "the answer has 2 transaction items for the request's 1",
			Shown:   []string{`"type":"win"`},
		},
		{
			Name:    "answers text/plain",
			After:   conformancetest.AnswersContentType("text/plain"),
			Warn:    []string{"content-type"},
			Check:   "content-type",
			Message: `the answer's Content-Type is "text/plain"`,
			Shown:   []string{"Content-Type: text/plain"},
		},
	}
	checker.RunBreaks(t, tests)
}

func TestUnreachableCasinoWallet(t *testing.T) {
	t.Parallel()
	checker.CheckUnreachable(t, "balance", "Player/Balance was answered no answer: ")
}

func TestCasinoConfigErrors(t *testing.T) {
	t.Parallel()
	tests := []conformancetest.ConfigError[aggregatorwallet.Config]{
		{Name: "no URL", Cfg: aggregatorwallet.Config{Secret: "s", AccountID: "a"}, Want: "URL is required"},
		{Name: "not http", Cfg: aggregatorwallet.Config{URL: "ftp://w.example", Secret: "s", AccountID: "a"}, Want: "absolute http or https URL"},
		{Name: "no secret", Cfg: aggregatorwallet.Config{URL: "https://w.example", AccountID: "a"}, Want: "secret is required"},
		{Name: "no account", Cfg: aggregatorwallet.Config{URL: "https://w.example", Secret: "s"}, Want: "account id is required"},
		{Name: "lower-case currency", Cfg: aggregatorwallet.Config{URL: "https://w.example", Secret: "s", AccountID: "a", Currency: "usd"}, Want: "upper-case"},
		{Name: "stake with 13 decimals", Cfg: aggregatorwallet.Config{URL: "https://w.example", Secret: "s", AccountID: "a", Stake: "0.0000000000001"}, Want: "stake"},
		{Name: "negative stake", Cfg: aggregatorwallet.Config{URL: "https://w.example", Secret: "s", AccountID: "a", Stake: "-1"}, Want: "stake"},
	}
	checker.CheckConfigErrors(t, tests)
}

// TestDocListsEveryCheck keeps the package documentation's list true.
func TestDocListsEveryCheck(t *testing.T) {
	t.Parallel()
	checker.CheckDocListsEveryCheck(t)
}
