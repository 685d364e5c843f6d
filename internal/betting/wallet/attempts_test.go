package wallet_test

import (
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/foresight-dev/foresight/internal/betting"
	"github.com/foresight-dev/foresight/internal/betting/bettingtest"
	"github.com/foresight-dev/foresight/internal/betting/wallet"
	"github.com/foresight-dev/foresight/internal/money"
)

// drop, as a scripted status, closes the connection without an answer.
const drop = -2

// scriptedOperator answers the n-th request (from 1) with script(n): a
// status and body, hang or drop.
func scriptedOperator(t *testing.T, script func(n int) (int, string)) string {
	t.Helper()
	var mu sync.Mutex
	n := 0
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.ReadAll(r.Body)
		mu.Lock()
		n++
		status, body := script(n)
		mu.Unlock()
		switch status {
		case hang:
			<-r.Context().Done()
		case drop:
			conn, _, err := w.(http.Hijacker).Hijack()
			if err == nil {
				conn.Close()
			}
		default:
			w.WriteHeader(status)
			io.WriteString(w, body)
		}
	}))
	t.Cleanup(srv.Close)
	return srv.URL
}

// attemptSummary writes an attempt's result, code, status and error.
func attemptSummary(as []betting.WalletAttempt) string {
	var parts []string
	for _, a := range as {
		parts = append(parts, fmt.Sprintf("%s/%s/%d/%s", a.Result, a.Code, a.HTTPStatus, a.Error))
	}
	return strings.Join(parts, " ")
}

// TestBettingWalletAttempts: every request the adapter sends comes back
// as an attempt of the bet's transaction, with what it established.
func TestBettingWalletAttempts(t *testing.T) {
	t.Parallel()
	const debited = `{"transaction_id":"op-1","balance":"90.00"}`
	closed := httptest.NewServer(http.NotFoundHandler())
	closed.Close()
	payout := money.MustParse("19.23")
	b := betting.Bet{ID: "bet-1", BettorID: "alice", Currency: "USD", Stake: money.MustParse("10.00"), WithdrawalTxID: "wd-bet-1",
		MarketID: "m-1", Status: betting.BetSettled, PayoutAmount: &payout}
	tests := []struct {
		name   string
		call   string // withdraw, deposit or rollback
		script func(n int) (int, string)
		url    string // instead of the script's server
		want   string
	}{
		{"unknown, lost, then done", "withdraw", func(n int) (int, string) {
			return [...]int{503, drop, 200}[n-1], [...]string{"busy", "", debited}[n-1]
		}, "", "unknown//503/ unknown//0/connection_closed done//200/"},
		{"refused", "withdraw", func(int) (int, string) { return 402, `{"error":"insufficient_funds"}` }, "",
			"refused/insufficient_funds/402/"},
		{"unreadable", "withdraw", func(int) (int, string) { return 200, `{"ok":true}` }, "",
			"unknown//200/unreadable_answer unknown//200/unreadable_answer unknown//200/unreadable_answer"},
		{"time-outs", "withdraw", func(int) (int, string) { return hang, "" }, "",
			"unknown//0/timeout unknown//0/timeout unknown//0/timeout"},
		{"refused connections", "withdraw", nil, closed.URL,
			"unknown//0/connection_refused unknown//0/connection_refused unknown//0/connection_refused"},
		{"deposit done", "deposit", func(int) (int, string) { return 201, `{"balance":"109.23"}` }, "", "done//201/"},
		{"deposit refused with a code", "deposit", func(int) (int, string) { return 409, `{"error":"transaction_conflict"}` }, "",
			"refused/transaction_conflict/409/"},
		{"deposit refused with prose", "deposit", func(int) (int, string) { return 400, `{"error":"no <b>way</b>"}` }, "", "refused//400/"},
		{"rollback unknown", "rollback", func(int) (int, string) { return 500, "" }, "", "unknown//500/"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			url := tt.url
			if tt.script != nil {
				url = scriptedOperator(t, tt.script)
			}
			op := betting.Operator{ID: "acme", WalletURL: url, SigningSecret: testSecret, Currencies: []betting.Currency{{Code: "USD", Decimals: 2}}}
			// Only a hanging operator needs a short time-out; on a busy
			// machine a refused or answered attempt may take longer than
			// 100 ms to be seen, and must not be read as a time-out.
			timeout := 10 * time.Second
			if tt.name == "time-outs" {
				timeout = 100 * time.Millisecond
			}
			w := wallet.New(wallet.Options{AllowInsecure: true, Timeout: timeout})
			before := time.Now()
			attempts := bettingtest.WalletAttempts(t, w, tt.call, op, b)
			kind, txID, amount := betting.TxWithdrawal, "wd-bet-1", b.Stake
			switch tt.call {
			case "deposit":
				kind, txID, amount = betting.TxDeposit, "dp-bet-1", payout
			case "rollback":
				kind, txID = betting.TxRollback, "rb-bet-1"
			}
			if got := attemptSummary(attempts); got != tt.want {
				t.Errorf("attempts %s, want %s", got, tt.want)
			}
			last := before
			for i, a := range attempts {
				if a.BetID != b.ID || a.Kind != kind || a.TransactionID != txID || !a.Amount.Equal(amount) || a.Currency != "USD" {
					t.Errorf("attempt %d names %+v, want bet-1's %s %s of %s USD", i+1, a, kind, txID, amount)
				}
				if a.StartedAt.Before(last) || a.StartedAt.Location() != time.UTC || a.Duration <= 0 {
					t.Errorf("attempt %d started %v (after %v?) and took %v", i+1, a.StartedAt, last, a.Duration)
				}
				last = a.StartedAt.Add(a.Duration)
			}
		})
	}
}
