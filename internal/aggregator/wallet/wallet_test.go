package wallet_test

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/foresight-dev/foresight/internal/aggregator/wallet"
	"github.com/foresight-dev/foresight/internal/betting"
	"github.com/foresight-dev/foresight/internal/money"
	"github.com/foresight-dev/foresight/internal/odds"
)

func TestWithdrawAnswers(t *testing.T) {
	t.Parallel()
	ok := canned{200, `{"round_id":"c-1","balance":"9.00","transactions":[{"id_provider":"wd-b1","id":"tx-9"}]}`}
	reject := func(code string) canned {
		return canned{400, `{"code":"invalid_argument","msg":"no","meta":{"api_code":"` + code + `","api_message":"no"}}`}
	}
	cases := []struct {
		name     string
		answers  []canned
		status   betting.WalletStatus
		code     betting.RejectionCode
		requests int
	}{
		{"200", []canned{ok}, betting.WalletDone, "", 1},
		{"100", []canned{reject("100")}, betting.WalletRefused, betting.RejectInsufficientFund, 1},
		{"105", []canned{reject("105")}, betting.WalletRefused, betting.RejectBetLimitReached, 1},
		{"106", []canned{reject("106")}, betting.WalletRefused, betting.RejectBetLimitReached, 1},
		{"110", []canned{reject("110")}, betting.WalletRefused, betting.RejectBettorBlocked, 1},
		{"101", []canned{reject("101")}, betting.WalletRefused, betting.RejectOther, 1},
		{"409", []canned{reject("409")}, betting.WalletRefused, betting.RejectOther, 1},
		{"api_code as a JSON number", []canned{{400, `{"meta":{"api_code":100}}`}}, betting.WalletRefused, betting.RejectInsufficientFund, 1},
		{"api_code on a 200", []canned{{200, `{"round_id":"c-1","balance":"9","meta":{"api_code":"105"}}`}}, betting.WalletRefused, betting.RejectBetLimitReached, 1},
		{"503 then 200", []canned{{500, `{"code":"internal","meta":{"api_code":"503"}}`}, ok}, betting.WalletDone, "", 2},
		{"non-numeric then 200", []canned{reject("oops"), ok}, betting.WalletDone, "", 2},
		{"500 then 200", []canned{reject("500"), ok}, betting.WalletDone, "", 2},
		{"HTML 502 always", []canned{{502, `<html>bad gateway</html>`}}, betting.WalletUnknown, betting.RejectWalletUnavailable, wallet.BetAttempts},
		{"200 without round_id", []canned{{200, `{"balance":"9.00","transactions":[]}`}}, betting.WalletUnknown, betting.RejectWalletRolledBack, 1},
		{"200 without balance", []canned{{200, `{"round_id":"c-1"}`}}, betting.WalletUnknown, betting.RejectWalletRolledBack, 1},
		{"403 without api_code", []canned{{403, `forbidden`}}, betting.WalletRefused, betting.RejectOther, 1},
		// meta.api_code is honoured whatever the other members hold.
		{"100 with a numeric transaction id", []canned{{400, `{"code":"insufficient_funds","transactions":[{"id_provider":"wd-b1","id":12}],` +
			`"meta":{"api_code":"100","balance":"0.50"}}`}}, betting.WalletRefused, betting.RejectInsufficientFund, 1},
		{"409 with a numeric balance", []canned{{400, `{"balance":0.5,"meta":{"api_code":"409"}}`}}, betting.WalletRefused, betting.RejectOther, 1},
		{"105 on a 200 with a numeric round_id", []canned{{200, `{"round_id":7,"meta":{"api_code":"105"}}`}}, betting.WalletRefused, betting.RejectBetLimitReached, 1},
		// A 200 with a numeric round_id or balance is not the protocol's
		// answer: unreadable, resent.
		{"200 with a numeric balance", []canned{{200, `{"round_id":"c-1","balance":9}`}}, betting.WalletUnknown, betting.RejectWalletUnavailable, wallet.BetAttempts},
		{"200 with a numeric round_id", []canned{{200, `{"round_id":1,"balance":"9"}`}}, betting.WalletUnknown, betting.RejectWalletUnavailable, wallet.BetAttempts},
		{"200 with a meta that is not an object", []canned{{200, `{"round_id":"c-1","balance":"9","meta":"105"}`}}, betting.WalletUnknown, betting.RejectWalletUnavailable, wallet.BetAttempts},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			f := &fakeWallet{answers: c.answers}
			srv := httptest.NewServer(f)
			defer srv.Close()
			cl := wallet.New(wallet.Options{AllowInsecure: true})
			op := betting.Operator{ID: "agg", Integration: betting.IntegrationAggregator, WalletURL: srv.URL, SigningSecret: secret}
			b := betting.Bet{ID: "b1", BettorID: "p1", Currency: "EUR", Stake: money.MustParse("1.50"), EntryOdds: odds.MustParse("2"),
				WithdrawalTxID: "wd-b1", SessionID: "s-1"}
			got, err := cl.Withdraw(context.Background(), op, b)
			if err != nil {
				t.Fatal(err)
			}
			if got.Status != c.status || got.Code != c.code {
				t.Errorf("answer = %+v, want status %d code %q", got, c.status, c.code)
			}
			if len(f.bodies) != c.requests {
				t.Fatalf("%d requests, want %d", len(f.bodies), c.requests)
			}
			want := `{"account_id":"p1","currency":"EUR","game_id":"prediction-markets","round_id":"b1","finished":false,"session_id":"s-1",` +
				`"transactions":[{"id_provider":"wd-b1","type":"bet","amount":"1.5"}]}`
			for i, body := range f.bodies {
				if body != want {
					t.Errorf("request %d = %s, want %s", i, body, want)
				}
			}
			// One Player/Balance before the bet, whatever its retries.
			wantBalance := `{"account_id":"p1","currency":"EUR","game_id":"prediction-markets","session_id":"s-1"}`
			if len(f.balances) != 1 || f.balances[0] != wantBalance {
				t.Errorf("Player/Balance requests = %q, want one %s", f.balances, wantBalance)
			}
			if c.status == betting.WalletDone && (got.OperatorTxID != "tx-9" || got.Balance == nil || got.Balance.String() != "9") {
				t.Errorf("done answer = %+v", got)
			}
		})
	}
}

func TestCreditsAndURLs(t *testing.T) {
	t.Parallel()
	f := &fakeWallet{answers: []canned{{200, `{"balance":"12.5"}`}}}
	srv := httptest.NewServer(f)
	defer srv.Close()
	op := betting.Operator{ID: "agg", WalletURL: srv.URL, SigningSecret: secret}
	cl := wallet.New(wallet.Options{AllowInsecure: true})
	// 0.000000000003 × 1.5555 = 0.0000000000046665: paid rounded to 12
	// decimals, half to even.
	payout := money.MustParse("0.000000000003").MulOdds(odds.MustParse("1.5555"))
	won := betting.Bet{ID: "b2", BettorID: "p1", Currency: "EUR", Stake: money.MustParse("1"), Status: betting.BetSettled, PayoutAmount: &payout,
		WithdrawalTxID: "wd-b2", SessionID: "s-1"}
	if c, err := cl.Deposit(context.Background(), op, won); err != nil || !c.Done || c.Balance.String() != "12.5" {
		t.Fatalf("win = %+v, %v", c, err)
	}
	if want := `{"account_id":"p1","currency":"EUR","game_id":"prediction-markets","round_id":"b2","finished":true,"session_id":"s-1",` +
		`"transactions":[{"id_provider":"dp-b2","type":"win","amount":"0.000000000005"}]}`; f.bodies[0] != want {
		t.Errorf("win body = %s, want %s", f.bodies[0], want)
	}
	if c, err := cl.Rollback(context.Background(), op, won); err != nil || !c.Done {
		t.Fatalf("rollback = %+v, %v", c, err)
	}
	if want := `"round_id_provider":"b2","finished":false,"session_id":"s-1","transactions":[{"id_provider":"rb-b2","type":"rollback","original_id_provider":"wd-b2"}]`; !strings.Contains(f.bodies[1], want) {
		t.Errorf("rollback body = %s", f.bodies[1])
	}
	zero := money.Zero()
	lost := won
	lost.PayoutAmount = &zero
	if c, err := cl.Deposit(context.Background(), op, lost); err != nil || !c.Done {
		t.Fatalf("finish = %+v, %v", c, err)
	}
	if want := `{"account_id":"p1","currency":"EUR","round_id":"b2","session_id":"s-1"}`; f.bodies[2] != want {
		t.Errorf("finish body = %s, want %s", f.bodies[2], want)
	}
	if want := []string{wallet.PathBetWin, wallet.PathRollback, wallet.PathFinish}; strings.Join(f.paths, " ") != strings.Join(want, " ") {
		t.Errorf("paths = %v, want %v", f.paths, want)
	}

	// A 200 that is not the protocol's answer (no balance: empty, foreign
	// JSON, HTML, JSON cut short) is not done: the credit is sent again.
	for _, body := range []string{``, `{}`, `{"status":"ok"}`, `<html>OK</html>`, `{"balance":"12`, `{"balance":12.5}`} {
		f := &fakeWallet{answers: []canned{{200, body}}}
		srv := httptest.NewServer(f)
		op := betting.Operator{ID: "agg", WalletURL: srv.URL, SigningSecret: secret}
		for name, call := range map[string]func() (betting.WalletCredit, error){
			"win":      func() (betting.WalletCredit, error) { return cl.Deposit(context.Background(), op, won) },
			"finish":   func() (betting.WalletCredit, error) { return cl.Deposit(context.Background(), op, lost) },
			"rollback": func() (betting.WalletCredit, error) { return cl.Rollback(context.Background(), op, won) },
		} {
			c, err := call()
			if err != nil || c.Done || len(c.Attempts) != 1 || !c.Attempts[0].MalformedSuccess() {
				t.Errorf("%s answered 200 %s = %+v, %v; want not done, a malformed 200", name, body, c, err)
			}
		}
		srv.Close()
	}
	insecure := wallet.New(wallet.Options{})
	if _, err := insecure.Withdraw(context.Background(), op, won); err == nil {
		t.Error("an http:// wallet URL was called without AllowInsecure")
	}
}

// TestCreditsStopWhenContextEnds: the walletcall cancellation rule holds
// for credits too. A win, a Round/Finish or a rollback whose context ends
// before an answer returns the context's error with the attempt sent,
// whose outcome is unknown, not a credit "not done yet" with a nil error
// that a caller shutting down would record as the aggregator's answer.
func TestCreditsStopWhenContextEnds(t *testing.T) {
	t.Parallel()
	payout, zero := money.MustParse("3"), money.Zero()
	won := betting.Bet{ID: "b1", BettorID: "p1", Currency: "EUR", Stake: money.MustParse("1.50"), WithdrawalTxID: "wd-b1",
		SessionID: "s-1", Status: betting.BetSettled, PayoutAmount: &payout}
	lost := won
	lost.PayoutAmount = &zero
	for name, call := range map[string]func(context.Context, *wallet.Client, betting.Operator) (betting.WalletCredit, error){
		"win": func(ctx context.Context, cl *wallet.Client, op betting.Operator) (betting.WalletCredit, error) {
			return cl.Deposit(ctx, op, won)
		},
		"finish": func(ctx context.Context, cl *wallet.Client, op betting.Operator) (betting.WalletCredit, error) {
			return cl.Deposit(ctx, op, lost)
		},
		"rollback": func(ctx context.Context, cl *wallet.Client, op betting.Operator) (betting.WalletCredit, error) {
			return cl.Rollback(ctx, op, won)
		},
	} {
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		var requests atomic.Int32
		srv := httptest.NewServer(http.HandlerFunc(func(_ http.ResponseWriter, r *http.Request) {
			io.ReadAll(r.Body) // the server notices the client is gone once the body is read
			requests.Add(1)
			cancel() // the platform shuts down while the request is on its way
			<-r.Context().Done()
			panic(http.ErrAbortHandler) // no answer at all, not an empty 200
		}))
		defer srv.Close()
		cl := wallet.New(wallet.Options{AllowInsecure: true, Timeout: time.Minute})
		op := betting.Operator{ID: "agg", Integration: betting.IntegrationAggregator, WalletURL: srv.URL, SigningSecret: secret}
		c, err := call(ctx, cl, op)
		if !errors.Is(err, context.Canceled) || c.Done {
			t.Errorf("%s: %+v, %v; want context.Canceled", name, c, err)
		}
		if len(c.Attempts) != 1 || c.Attempts[0].Result != betting.AttemptUnknown || c.Attempts[0].Error != betting.FailureCancelled {
			t.Errorf("%s: attempts %+v, want one unknown, cancelled", name, c.Attempts)
		}
		// A context that has ended before the call sends nothing.
		if c, err := call(ctx, cl, op); !errors.Is(err, context.Canceled) || len(c.Attempts) != 0 {
			t.Errorf("%s with an ended context: %+v, %v; want no attempt, context.Canceled", name, c, err)
		}
		if n := requests.Load(); n != 1 {
			t.Errorf("%s: %d requests, want 1", name, n)
		}
	}
}

// TestWithdrawKeepsANumericTransactionID: the aggregator's transaction id
// is kept for the records only; a JSON number's digits are kept as it, and
// the debit is done.
func TestWithdrawKeepsANumericTransactionID(t *testing.T) {
	t.Parallel()
	f := &fakeWallet{answers: []canned{{200, `{"round_id":"b1","balance":"8.5","transactions":[{"id_provider":"wd-b1","id":9001}]}`}}}
	srv := httptest.NewServer(f)
	defer srv.Close()
	op := betting.Operator{ID: "agg", Integration: betting.IntegrationAggregator, WalletURL: srv.URL, SigningSecret: secret}
	b := betting.Bet{ID: "b1", BettorID: "p1", Currency: "EUR", Stake: money.MustParse("1.50"), WithdrawalTxID: "wd-b1", SessionID: "s-1"}
	got, err := wallet.New(wallet.Options{AllowInsecure: true}).Withdraw(context.Background(), op, b)
	if err != nil || got.Status != betting.WalletDone || got.OperatorTxID != "9001" || got.Balance == nil || got.Balance.String() != "8.5" {
		t.Errorf("answer = %+v, %v; want done, transaction 9001, balance 8.5", got, err)
	}
}
