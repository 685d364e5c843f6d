package wallet_test

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/foresight-dev/foresight/internal/betting"
	"github.com/foresight-dev/foresight/internal/betting/wallet"
	"github.com/foresight-dev/foresight/internal/betting/walletcall"
	"github.com/foresight-dev/foresight/internal/money"
)

const testSecret = "whsec-operator-secret-7f3a"

// hang, as an answer's status, makes the fake wallet never answer: it
// drops the connection once the client has given up on the request.
const hang = -1

type request struct {
	method, path string
	header       http.Header
	body         []byte
	verifyErr    error
}

// fakeWallet is an operator wallet on loopback that records every request
// and answers from a script.
type fakeWallet struct {
	srv    *httptest.Server
	answer func(n int) (status int, body string) // n counts requests from 1

	mu   sync.Mutex
	reqs []request
}

func newFakeWallet(t *testing.T, useTLS bool, answer func(n int) (int, string)) *fakeWallet {
	t.Helper()
	f := &fakeWallet{answer: answer}
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		rec := request{
			method: r.Method, path: r.URL.EscapedPath(), header: r.Header.Clone(), body: body,
			verifyErr: wallet.Verify(testSecret, r.Header, body, time.Now()),
		}
		f.mu.Lock()
		f.reqs = append(f.reqs, rec)
		n := len(f.reqs)
		f.mu.Unlock()
		status, text := f.answer(n)
		if status == hang {
			<-r.Context().Done()
			// No answer at all: returning would send an empty 200, which
			// a client closing a TLS connection may still read.
			panic(http.ErrAbortHandler)
		}
		if text != "" {
			w.Header().Set("Content-Type", "application/json")
		}
		if status >= 300 && status < 400 {
			w.Header().Set("Location", "/elsewhere")
		}
		w.WriteHeader(status)
		io.WriteString(w, text)
	})
	if useTLS {
		f.srv = httptest.NewTLSServer(h)
	} else {
		f.srv = httptest.NewServer(h)
	}
	t.Cleanup(f.srv.Close)
	return f
}

func (f *fakeWallet) requests() []request {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]request(nil), f.reqs...)
}

// wantOneSignedRequest fails t unless f was sent exactly one request, method
// path with body and a signature that verifies; label names the case.
func (f *fakeWallet) wantOneSignedRequest(t *testing.T, label, method, path string, body []byte) {
	t.Helper()
	reqs := f.requests()
	if len(reqs) != 1 {
		t.Fatalf("%s: %d requests, want exactly 1", label, len(reqs))
	}
	r := reqs[0]
	if r.method != method || r.path != path || string(r.body) != string(body) || r.verifyErr != nil {
		t.Errorf("%s: request %s %s %s (verify %v)", label, r.method, r.path, r.body, r.verifyErr)
	}
}

// client trusts the fake wallet's test certificate; AllowInsecure stays off.
func (f *fakeWallet) client(timeout time.Duration) *wallet.Client {
	return wallet.New(wallet.Options{HTTPClient: f.srv.Client(), Timeout: timeout})
}

func always(status int, body string) func(int) (int, string) {
	return func(int) (int, string) { return status, body }
}

// operator is a standalone operator whose wallet is at walletURL, in USD
// and EUR, signing with testSecret.
func operator(walletURL string) betting.Operator {
	return betting.Operator{ID: "acme", WalletURL: walletURL, SigningSecret: testSecret,
		Currencies: []betting.Currency{{Code: "USD", Decimals: 2}, {Code: "EUR", Decimals: 2}}}
}

// testBet is a settled bet of 10.50 USD that pays 21 USD, with fresh ids.
func testBet() betting.Bet {
	payout := money.MustParse("21")
	return betting.Bet{ID: uuid.NewString(), BettorID: "bettor_42", Currency: "USD", Stake: money.MustParse("10.50"),
		WithdrawalTxID: uuid.NewString(), MarketID: uuid.NewString(), Status: betting.BetSettled, PayoutAmount: &payout}
}

// withdrawalBody is the body Withdraw sends for b.
func withdrawalBody(t *testing.T, b betting.Bet) []byte {
	t.Helper()
	body, err := wallet.WithdrawalBody(wallet.Withdrawal{TransactionID: b.WithdrawalTxID, BettorID: b.BettorID, Amount: b.Stake,
		Currency: b.Currency, Decimals: 2, MarketID: b.MarketID, BetID: b.ID})
	if err != nil {
		t.Fatal(err)
	}
	return body
}

// lastStatus is the HTTP status of the last attempt; 0 when none was
// made or it got no answer.
func lastStatus(attempts []betting.WalletAttempt) int {
	if len(attempts) == 0 {
		return 0
	}
	return attempts[len(attempts)-1].HTTPStatus
}

func checkNoSecret(t *testing.T, texts ...string) {
	t.Helper()
	for _, s := range texts {
		if strings.Contains(s, testSecret) {
			t.Errorf("%q contains the signing secret", s)
		}
	}
}

func TestWithdrawOutcomes(t *testing.T) {
	t.Parallel()
	success := `{"transaction_id":"op-tx-9","balance":"89.50"}`
	tests := []struct {
		name     string
		status   int
		body     string
		want     betting.WalletStatus
		code     betting.RejectionCode
		requests int
	}{
		{"200 with transaction_id and balance", 200, success, betting.WalletDone, "", 1},
		{"201 counts as 2xx", 201, success, betting.WalletDone, "", 1},
		{"200 with extra fields", 200, `{"transaction_id":"op-tx-9","balance":"89.50","currency":"USD"}`, betting.WalletDone, "", 1},
		{"200 not JSON", 200, `OK`, betting.WalletUnknown, "", 3},
		{"200 empty", 200, ``, betting.WalletUnknown, "", 3},
		{"200 without balance", 200, `{"transaction_id":"op-tx-9"}`, betting.WalletUnknown, "", 3},
		{"200 without transaction_id", 200, `{"balance":"89.50"}`, betting.WalletUnknown, "", 3},
		{"200 balance as a number", 200, `{"transaction_id":"op-tx-9","balance":89.5}`, betting.WalletUnknown, "", 3},
		{"200 over 64 KiB", 200, `{"transaction_id":"op-tx-9","balance":"89.50","pad":"` + strings.Repeat("x", 64<<10) + `"}`, betting.WalletUnknown, "", 3},
		{"400 insufficient_funds", 400, `{"error":"insufficient_funds"}`, betting.WalletRefused, betting.RejectInsufficientFund, 1},
		{"402 insufficient_funds", 402, `{"error":"insufficient_funds"}`, betting.WalletRefused, betting.RejectInsufficientFund, 1},
		{"403 bettor_blocked", 403, `{"error":"bettor_blocked"}`, betting.WalletRefused, betting.RejectBettorBlocked, 1},
		{"404 bettor_not_found", 404, `{"error":"bettor_not_found"}`, betting.WalletRefused, betting.RejectBettorBlocked, 1},
		{"422 bet_limit_reached", 422, `{"error":"bet_limit_reached"}`, betting.WalletRefused, betting.RejectBetLimitReached, 1},
		{"409 with no body", 409, ``, betting.WalletRefused, betting.RejectInsufficientFund, 1},
		{"409 bettor_blocked", 409, `{"error":"bettor_blocked"}`, betting.WalletRefused, betting.RejectBettorBlocked, 1},
		{"409 other error", 409, `{"error":"duplicate"}`, betting.WalletRefused, betting.RejectOther, 1},
		{"400 other error", 400, `{"error":"currency_not_supported"}`, betting.WalletRefused, betting.RejectOther, 1},
		{"401 bad signature, no body", 401, ``, betting.WalletRefused, betting.RejectOther, 1},
		{"400 not JSON", 400, `<html>bad request</html>`, betting.WalletRefused, betting.RejectOther, 1},
		{"429", 429, ``, betting.WalletRefused, betting.RejectOther, 1},
		{"500", 500, ``, betting.WalletUnknown, "", 3},
		{"503 with a rejection body", 503, `{"error":"insufficient_funds"}`, betting.WalletUnknown, "", 3},
		{"307 redirect is not followed", 307, ``, betting.WalletUnknown, "", 3},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			f := newFakeWallet(t, true, always(tt.status, tt.body))
			res, err := f.client(0).Withdraw(context.Background(), operator(f.srv.URL), testBet())
			if err != nil {
				t.Fatalf("Withdraw: %v", err)
			}
			if res.Status != tt.want || res.Code != tt.code {
				t.Errorf("Withdraw = %v/%q (%s), want %v/%q", res.Status, res.Code, res.Detail, tt.want, tt.code)
			}
			if got := lastStatus(res.Attempts); got != tt.status {
				t.Errorf("HTTPStatus = %d, want %d", got, tt.status)
			}
			reqs := f.requests()
			if len(reqs) != tt.requests || len(res.Attempts) != tt.requests {
				t.Errorf("server got %d requests, Attempts = %d, want %d", len(reqs), len(res.Attempts), tt.requests)
			}
			for _, r := range reqs {
				if r.method != http.MethodPost || r.path != "/v1/withdrawals" {
					t.Errorf("request %s %s, want POST /v1/withdrawals", r.method, r.path)
				}
			}
			if tt.want == betting.WalletDone {
				if res.OperatorTxID != "op-tx-9" || res.Balance == nil || !res.Balance.Equal(money.MustParse("89.5")) {
					t.Errorf("success = %q balance %v, want op-tx-9 89.50", res.OperatorTxID, res.Balance)
				}
			}
			checkNoSecret(t, res.Detail)
		})
	}
}

func TestWithdrawRequestIsSignedAsSpecified(t *testing.T) {
	t.Parallel()
	f := newFakeWallet(t, true, always(200, `{"transaction_id":"op-1","balance":"0"}`))
	fixed := time.Date(2026, 11, 21, 9, 30, 15, 123456789, time.FixedZone("CET", 3600))
	c := wallet.New(wallet.Options{HTTPClient: f.srv.Client(), Now: func() time.Time { return fixed }})
	b := testBet()
	body := withdrawalBody(t, b)
	// A base URL with a path and a trailing slash.
	res, err := c.Withdraw(context.Background(), operator(f.srv.URL+"/wallet/"), b)
	if err != nil || res.Status != betting.WalletDone {
		t.Fatalf("Withdraw = %+v, %v", res, err)
	}
	reqs := f.requests()
	if len(reqs) != 1 {
		t.Fatalf("%d requests, want 1", len(reqs))
	}
	r := reqs[0]
	if r.path != "/wallet/v1/withdrawals" {
		t.Errorf("path %s, want /wallet/v1/withdrawals", r.path)
	}
	if string(r.body) != string(body) {
		t.Errorf("body %s, want the given bytes %s", r.body, body)
	}
	if got := r.header.Get("Content-Type"); got != "application/json" {
		t.Errorf("Content-Type %q", got)
	}
	if got, want := r.header.Get(wallet.HeaderTimestamp), "2026-11-21T08:30:15Z"; got != want {
		t.Errorf("X-Timestamp %q, want %q", got, want)
	}
	if got, want := r.header.Get(wallet.HeaderSignature), wallet.Sign(testSecret, body); got != want {
		t.Errorf("X-Payload-Signature %q, want %q", got, want)
	}
	if id, err := uuid.Parse(r.header.Get(wallet.HeaderNonce)); err != nil || id.Version() != 4 {
		t.Errorf("X-Nonce %q is not a UUID v4", r.header.Get(wallet.HeaderNonce))
	}
	if err := wallet.Verify(testSecret, r.header, r.body, fixed); err != nil {
		t.Errorf("Verify at the sending time: %v", err)
	}
}

func TestWithdrawRetriesSendIdenticalBytes(t *testing.T) {
	t.Parallel()
	f := newFakeWallet(t, true, func(n int) (int, string) {
		if n < 3 {
			return 500, `{"error":"internal"}`
		}
		return 200, `{"transaction_id":"op-7","balance":"1.00"}`
	})
	b := testBet()
	body := withdrawalBody(t, b)
	start := time.Now()
	res, err := f.client(0).Withdraw(context.Background(), operator(f.srv.URL), b)
	if err != nil {
		t.Fatal(err)
	}
	if res.Status != betting.WalletDone || len(res.Attempts) != 3 || res.OperatorTxID != "op-7" {
		t.Errorf("Withdraw = %+v, want success after 3 attempts", res)
	}
	// Backoff 200 ms then 400 ms: timers never fire early.
	if elapsed := time.Since(start); elapsed < walletcall.FirstBackoff*3 {
		t.Errorf("3 attempts took %v, less than the backoff of %v", elapsed, walletcall.FirstBackoff*3)
	}
	reqs := f.requests()
	if len(reqs) != 3 {
		t.Fatalf("%d requests, want 3", len(reqs))
	}
	nonces := map[string]bool{}
	for i, r := range reqs {
		if string(r.body) != string(body) {
			t.Errorf("request %d body %s differs from %s", i+1, r.body, body)
		}
		if r.verifyErr != nil {
			t.Errorf("request %d: operator's Verify: %v", i+1, r.verifyErr)
		}
		nonces[r.header.Get(wallet.HeaderNonce)] = true
	}
	if len(nonces) != 3 {
		t.Errorf("nonces %v, want 3 distinct", nonces)
	}
}

func TestWithdrawGivesUpAfterThreeRequests(t *testing.T) {
	t.Parallel()
	f := newFakeWallet(t, true, always(500, ``))
	res, err := f.client(0).Withdraw(context.Background(), operator(f.srv.URL), testBet())
	if err != nil {
		t.Fatal(err)
	}
	if res.Status != betting.WalletUnknown || len(res.Attempts) != 3 || lastStatus(res.Attempts) != 500 {
		t.Errorf("Withdraw = %+v, want unknown after 3 attempts", res)
	}
	if n := len(f.requests()); n != 3 {
		t.Errorf("%d requests, want exactly 3", n)
	}
}

// TestWithdrawTimeoutPerAttempt: an attempt that gets no answer within
// the per-attempt limit is abandoned and retried. The limit is a second so
// that an answering attempt never reaches it, even on a loaded machine.
func TestWithdrawTimeoutPerAttempt(t *testing.T) {
	t.Parallel()
	t.Run("a hung attempt is retried", func(t *testing.T) {
		t.Parallel()
		f := newFakeWallet(t, true, func(n int) (int, string) {
			if n == 1 {
				return hang, ""
			}
			return 200, `{"transaction_id":"op-2","balance":"5"}`
		})
		res, err := f.client(time.Second).Withdraw(context.Background(), operator(f.srv.URL), testBet())
		if err != nil {
			t.Fatal(err)
		}
		if res.Status != betting.WalletDone || len(res.Attempts) != 2 {
			t.Errorf("Withdraw = %+v, want success on attempt 2", res)
		}
	})
	t.Run("every attempt hangs", func(t *testing.T) {
		t.Parallel()
		f := newFakeWallet(t, true, always(hang, ""))
		res, err := f.client(time.Second).Withdraw(context.Background(), operator(f.srv.URL), testBet())
		if err != nil {
			t.Fatal(err)
		}
		if res.Status != betting.WalletUnknown || len(res.Attempts) != 3 || lastStatus(res.Attempts) != 0 {
			t.Errorf("Withdraw = %+v, want unknown after 3 attempts without an answer", res)
		}
		if !strings.Contains(res.Detail, "deadline exceeded") {
			t.Errorf("Detail %q does not mention the time-out", res.Detail)
		}
		if n := len(f.requests()); n != 3 {
			t.Errorf("%d requests, want 3", n)
		}
	})
}

// TestWithdrawStopsWhenContextEnds: the walletcall cancellation rule. A
// withdrawal whose context ends before a definite answer stops at once and
// returns the context's error with what was sent, whose outcome is
// unknown.
func TestWithdrawStopsWhenContextEnds(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	f := newFakeWallet(t, true, func(n int) (int, string) {
		cancel() // the platform shuts down while the first answer is on its way
		return 503, ``
	})
	res, err := f.client(0).Withdraw(ctx, operator(f.srv.URL), testBet())
	if !errors.Is(err, context.Canceled) {
		t.Errorf("Withdraw error = %v, want context.Canceled", err)
	}
	if len(res.Attempts) != 1 || res.Attempts[0].Result != betting.AttemptUnknown {
		t.Errorf("Withdraw = %+v, want 1 unknown attempt", res)
	}
	if n := len(f.requests()); n != 1 {
		t.Errorf("%d requests after cancellation, want 1", n)
	}

	// A context that has ended before the call sends nothing.
	res, err = f.client(0).Withdraw(ctx, operator(f.srv.URL), testBet())
	if !errors.Is(err, context.Canceled) || len(res.Attempts) != 0 {
		t.Errorf("Withdraw with an ended context = %+v, %v; want unknown, 0 attempts, context.Canceled", res, err)
	}
	if n := len(f.requests()); n != 1 {
		t.Errorf("%d requests, want still 1", n)
	}
}

func TestCallsRefuseBadConfiguration(t *testing.T) {
	t.Parallel()
	plain := newFakeWallet(t, false, always(200, `{"transaction_id":"op-1","balance":"1"}`))
	strict := wallet.New(wallet.Options{})
	ctx := context.Background()
	for _, tt := range []struct {
		name, url, secret string
	}{
		{"http without AllowInsecure", plain.srv.URL, testSecret},
		{"relative URL", "/wallet", testSecret},
		{"no scheme", "wallet.example.com", testSecret},
		{"ftp", "ftp://wallet.example.com", testSecret},
		{"credentials", "https://user:pass@wallet.example.com", testSecret},
		{"query", "https://wallet.example.com/?k=v", testSecret},
		{"fragment", "https://wallet.example.com/#x", testSecret},
		{"empty secret", "https://wallet.example.com", ""},
	} {
		op := operator(tt.url)
		op.SigningSecret = tt.secret
		_, err := strict.Withdraw(ctx, op, testBet())
		if !errors.Is(err, wallet.ErrConfig) {
			t.Errorf("Withdraw(%s) = %v, want ErrConfig", tt.name, err)
			continue
		}
		checkNoSecret(t, err.Error())
		if _, err := strict.Deposit(ctx, op, testBet()); !errors.Is(err, wallet.ErrConfig) {
			t.Errorf("Deposit(%s) = %v, want ErrConfig", tt.name, err)
		}
		if _, err := strict.Rollback(ctx, op, testBet()); !errors.Is(err, wallet.ErrConfig) {
			t.Errorf("Rollback(%s) = %v, want ErrConfig", tt.name, err)
		}
	}
	if n := len(plain.requests()); n != 0 {
		t.Errorf("the insecure wallet got %d requests", n)
	}

	// The same http:// wallet is allowed with AllowInsecure.
	res, err := wallet.New(wallet.Options{AllowInsecure: true}).Withdraw(ctx, operator(plain.srv.URL), testBet())
	if err != nil || res.Status != betting.WalletDone {
		t.Errorf("Withdraw with AllowInsecure = %+v, %v; want success", res, err)
	}
}

func TestDefaultClientRefusesNonPublicAddresses(t *testing.T) {
	t.Parallel()
	f := newFakeWallet(t, true, always(200, `{"transaction_id":"op-1","balance":"1"}`))
	c := wallet.New(wallet.Options{}) // https required, loopback refused at connect time
	ctx := context.Background()
	if _, err := c.Withdraw(ctx, operator(f.srv.URL), testBet()); !errors.Is(err, wallet.ErrForbiddenAddress) {
		t.Errorf("Withdraw to loopback = %v, want ErrForbiddenAddress", err)
	}
	if _, err := c.Deposit(ctx, operator(f.srv.URL), testBet()); !errors.Is(err, wallet.ErrForbiddenAddress) {
		t.Errorf("Deposit to loopback = %v, want ErrForbiddenAddress", err)
	}
	if n := len(f.requests()); n != 0 {
		t.Errorf("the loopback wallet got %d requests, want 0", n)
	}
}

// depositBody is the body Deposit sends for b, a won bet.
func depositBody(t *testing.T, b betting.Bet) []byte {
	t.Helper()
	body, err := wallet.DepositBody(wallet.Deposit{
		TransactionID: "dp-" + b.ID, BettorID: b.BettorID, Amount: *b.PayoutAmount, Currency: b.Currency, Decimals: 2,
		MarketID: b.MarketID, BetID: b.ID, WithdrawalTransactionID: b.WithdrawalTxID, Result: wallet.ResultWon,
	})
	if err != nil {
		t.Fatal(err)
	}
	return body
}

func TestDeposit(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		status int
		done   bool
	}{{200, true}, {204, true}, {400, false}, {401, false}, {409, false}, {500, false}, {503, false}} {
		f := newFakeWallet(t, true, always(tt.status, ``))
		b := testBet()
		o, err := f.client(0).Deposit(context.Background(), operator(f.srv.URL), b)
		if err != nil {
			t.Fatal(err)
		}
		if o.Done != tt.done || lastStatus(o.Attempts) != tt.status {
			t.Errorf("%d: Deposit = %+v, want done %v", tt.status, o, tt.done)
		}
		f.wantOneSignedRequest(t, strconv.Itoa(tt.status), http.MethodPost, "/v1/deposits", depositBody(t, b))
	}

	// A 2xx answer's balance is read when it is a decimal string, ignored otherwise.
	for answer, want := range map[string]string{
		`{"transaction_id":"op-7","balance":"134.21"}`: "134.21",
		`{"balance":134.21}`:                           "",
		`{"balance":"lots"}`:                           "",
		`"ok"`:                                         "",
		``:                                             "",
	} {
		f := newFakeWallet(t, true, always(200, answer))
		o, err := f.client(0).Deposit(context.Background(), operator(f.srv.URL), testBet())
		got := ""
		if o.Balance != nil {
			got = o.Balance.String()
		}
		if err != nil || !o.Done || got != want {
			t.Errorf("answer %s: Deposit = %+v (balance %q), %v; want done with balance %q", answer, o, got, err, want)
		}
	}

	// A 2xx whose body is neither empty nor JSON is not the wallet's
	// answer: not done, an unreadable attempt, sent again later.
	for _, answer := range []string{`not json`, `<html><body>502 Bad Gateway</body></html>`, `{"transaction_id":"op-7","bal`, "\x00\xff\xfe"} {
		f := newFakeWallet(t, true, always(200, answer))
		o, err := f.client(0).Deposit(context.Background(), operator(f.srv.URL), testBet())
		if err != nil || o.Done || len(o.Attempts) != 1 || o.Attempts[0].HTTPStatus != 200 ||
			o.Attempts[0].Error != betting.FailureUnreadableAnswer || o.Attempts[0].Result != betting.AttemptUnknown {
			t.Errorf("answer %q: Deposit = %+v, %v; want not done, an unreadable 200", answer, o, err)
		}
	}

	// No answer in time: not done, one attempt. The limit is a second so
	// that the request (over TLS) reaches the wallet before it, even on a
	// loaded machine.
	f := newFakeWallet(t, true, always(hang, ""))
	o, err := f.client(time.Second).Deposit(context.Background(), operator(f.srv.URL), testBet())
	if err != nil || o.Done || lastStatus(o.Attempts) != 0 {
		t.Errorf("Deposit to a hung wallet = %+v, %v; want not done", o, err)
	}
	if n := len(f.requests()); n != 1 {
		t.Errorf("%d requests, want 1", n)
	}
}

func TestRollback(t *testing.T) {
	t.Parallel()
	b := testBet()
	b.WithdrawalTxID = "wd-1"
	body, err := wallet.RollbackBody(wallet.Rollback{
		TransactionID: "rb-" + b.ID, BettorID: b.BettorID, Amount: b.Stake, Currency: b.Currency, Decimals: 2,
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		status int
		done   bool
	}{{200, true}, {404, false}, {500, false}} {
		f := newFakeWallet(t, true, always(tt.status, ``))
		o, err := f.client(0).Rollback(context.Background(), operator(f.srv.URL+"/"), b)
		if err != nil {
			t.Fatal(err)
		}
		if o.Done != tt.done {
			t.Errorf("%d: Rollback = %+v, want done %v", tt.status, o, tt.done)
		}
		f.wantOneSignedRequest(t, strconv.Itoa(tt.status), http.MethodDelete, "/v1/rollbacks/wd-1", body)
	}

	// The withdrawal id is one escaped path segment.
	f := newFakeWallet(t, true, always(200, ``))
	b.WithdrawalTxID = "wd/1 ?#"
	if _, err := f.client(0).Rollback(context.Background(), operator(f.srv.URL), b); err != nil {
		t.Fatal(err)
	}
	if got := f.requests()[0].path; got != "/v1/rollbacks/wd%2F1%20%3F%23" {
		t.Errorf("path %s, want /v1/rollbacks/wd%%2F1%%20%%3F%%23", got)
	}
	for _, id := range []string{"", ".", "..", "wd\n1"} {
		b.WithdrawalTxID = id
		if _, err := f.client(0).Rollback(context.Background(), operator(f.srv.URL), b); !errors.Is(err, wallet.ErrConfig) {
			t.Errorf("Rollback(%q) = %v, want ErrConfig", id, err)
		}
	}
}

// TestCreditsStopWhenContextEnds: the walletcall cancellation rule holds
// for credits too. A deposit or a rollback whose context ends before an
// answer returns the context's error with the attempt sent, whose outcome
// is unknown, not a credit "not done yet" with a nil error that a caller
// shutting down would record as the operator's answer.
func TestCreditsStopWhenContextEnds(t *testing.T) {
	t.Parallel()
	for _, call := range []string{"deposit", "rollback"} {
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		f := newFakeWallet(t, true, func(int) (int, string) {
			cancel() // the platform shuts down while the request is on its way
			return hang, ""
		})
		c, op := f.client(time.Minute), operator(f.srv.URL)
		credit := func() (betting.WalletCredit, error) {
			if call == "deposit" {
				return c.Deposit(ctx, op, testBet())
			}
			return c.Rollback(ctx, op, testBet())
		}
		o, err := credit()
		if !errors.Is(err, context.Canceled) || o.Done {
			t.Errorf("%s: %+v, %v; want context.Canceled", call, o, err)
		}
		if len(o.Attempts) != 1 || o.Attempts[0].Result != betting.AttemptUnknown || o.Attempts[0].Error != betting.FailureCancelled {
			t.Errorf("%s: attempts %+v, want one unknown, cancelled", call, o.Attempts)
		}
		// A context that has ended before the call sends nothing.
		if o, err := credit(); !errors.Is(err, context.Canceled) || len(o.Attempts) != 0 {
			t.Errorf("%s with an ended context: %+v, %v; want no attempt, context.Canceled", call, o, err)
		}
		if n := len(f.requests()); n != 1 {
			t.Errorf("%s: %d requests, want 1", call, n)
		}
	}
}
