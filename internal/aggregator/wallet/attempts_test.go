package wallet_test

import (
	"fmt"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/foresight-dev/foresight/internal/aggregator/wallet"
	"github.com/foresight-dev/foresight/internal/betting"
	"github.com/foresight-dev/foresight/internal/betting/bettingtest"
	"github.com/foresight-dev/foresight/internal/money"
	"github.com/foresight-dev/foresight/internal/odds"
)

// TestWalletAttempts: each Round/BetWin, Round/Finish or Round/Rollback
// sent comes back as an attempt of the bet's transaction (Player/Balance
// moves no money and is not one).
func TestWalletAttempts(t *testing.T) {
	t.Parallel()
	ok := canned{200, `{"round_id":"c-1","balance":"9.00","transactions":[{"id_provider":"wd-b1","id":"tx-9"}]}`}
	payout := money.MustParse("3")
	tests := []struct {
		name    string
		call    string
		answers []canned
		want    string
		kind    string
		txID    string
		amount  string
	}{
		{"temporary then done", "withdraw", []canned{{502, `<html>bad gateway</html>`}, ok}, "unknown//502/ done//200/", betting.TxWithdrawal, "wd-b1", "1.5"},
		{"refused", "withdraw", []canned{{400, `{"meta":{"api_code":"100"}}`}}, "refused/insufficient_funds/400/", betting.TxWithdrawal, "wd-b1", "1.5"},
		{"200 without round_id", "withdraw", []canned{{200, `{"balance":"9.00"}`}}, "unknown//200/unreadable_answer", betting.TxWithdrawal, "wd-b1", "1.5"},
		{"200 not JSON", "withdraw", []canned{{200, `oops`}, ok}, "unknown//200/unreadable_answer done//200/", betting.TxWithdrawal, "wd-b1", "1.5"},
		{"win", "deposit", []canned{{200, `{"balance":"12"}`}}, "done//200/", betting.TxDeposit, "dp-b1", "3"},
		{"rollback not yet", "rollback", []canned{{500, `{"meta":{"api_code":"503"}}`}}, "unknown//500/", betting.TxRollback, "rb-b1", "1.5"},
		{"win refused, numeric balance", "deposit", []canned{{400, `{"balance":0,"meta":{"api_code":"100"}}`}}, "refused/insufficient_funds/400/", betting.TxDeposit, "dp-b1", "3"},
		{"rollback refused, numeric ids", "rollback", []canned{{400, `{"round_id":1,"transactions":[{"id":2}],"meta":{"api_code":"409"}}`}}, "refused/bet_rejected_other/400/", betting.TxRollback, "rb-b1", "1.5"},
		{"win 200, numeric balance", "deposit", []canned{{200, `{"balance":12}`}}, "unknown//200/unreadable_answer", betting.TxDeposit, "dp-b1", "3"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			srv := httptest.NewServer(&fakeWallet{answers: tt.answers})
			defer srv.Close()
			cl := wallet.New(wallet.Options{AllowInsecure: true})
			op := betting.Operator{ID: "agg", Integration: betting.IntegrationAggregator, WalletURL: srv.URL, SigningSecret: secret}
			b := betting.Bet{ID: "b1", BettorID: "p1", Currency: "EUR", Stake: money.MustParse("1.50"), EntryOdds: odds.MustParse("2"),
				WithdrawalTxID: "wd-b1", SessionID: "s-1", Status: betting.BetSettled, PayoutAmount: &payout}
			attempts := bettingtest.WalletAttempts(t, cl, tt.call, op, b)
			var got []string
			for i, a := range attempts {
				got = append(got, fmt.Sprintf("%s/%s/%d/%s", a.Result, a.Code, a.HTTPStatus, a.Error))
				if a.BetID != "b1" || a.Kind != tt.kind || a.TransactionID != tt.txID || a.Amount.String() != tt.amount || a.Currency != "EUR" ||
					a.StartedAt.IsZero() || a.Duration <= 0 {
					t.Errorf("attempt %d = %+v, want %s %s of %s EUR with a start and a duration", i+1, a, tt.kind, tt.txID, tt.amount)
				}
			}
			if strings.Join(got, " ") != tt.want {
				t.Errorf("attempts %s, want %s", strings.Join(got, " "), tt.want)
			}
		})
	}
}
