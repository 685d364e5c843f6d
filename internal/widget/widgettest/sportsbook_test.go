package widgettest

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"testing"

	"github.com/google/uuid"

	"github.com/foresight-dev/foresight/internal/money"
	"github.com/foresight-dev/foresight/internal/sandbox/sportsbook"
	"github.com/foresight-dev/foresight/internal/waitfor"
)

// TestSportsbook plays the demo's bundled operator as a bettor would: the
// sportsbook's page (no wallet of its own) embeds the widget of the session
// its server opened; play money deposited through its form shows in the
// widget; a won bet and a voided one are paid from the platform's ledger;
// the bettor's statement is the deposit, the two stakes, the payout and
// the refund, and ends at the balance the widget shows.
func TestSportsbook(t *testing.T) {
	t.Parallel()
	w := newWorld(t, worldOptions{})
	w.admin("POST", "/admin/v1/operators", 201, string(sportsbook.Registration("book", "Book", "USD")))
	cred := w.admin("POST", "/admin/v1/operators/book/credentials", 201, `{"name":"sportsbook server"}`)["key"].(string)
	other := w.admin("POST", "/admin/v1/events", 201, `{"category":"economy","title":{"en":"Rates"},
		"markets":[{"question":{"en":"Cut in March?"},"outcomes":[{"name":{"en":"Yes"},"probability":"0.5"},{"name":{"en":"No"},"probability":"0.5"}]}]}`)
	om := other["markets"].([]any)[0].(map[string]any)
	otherMarket, otherYes := om["id"].(string), om["outcomes"].([]any)[0].(map[string]any)["id"].(string)
	site, err := sportsbook.New(sportsbook.Config{OperatorID: "book", PlatformURL: w.URL, Credential: cred, Currency: "USD"})
	if err != nil {
		t.Fatal(err)
	}
	book := httptest.NewServer(site.Handler())
	t.Cleanup(book.Close)

	resp, err := http.PostForm(book.URL+"/sandbox/deposit", url.Values{"bettor_id": {"ann"}, "key": {uuid.NewString()}, "amount": {"100.00"}})
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	tb := hostTab(t, book.URL+"/sandbox/host?bettor_id=ann", 1000, 900)
	tb.WaitText("#balance", "100.00 USD")
	tb.bet(w.outcome[0], "10")
	tb.WaitText("#slip-status", "Bet placed: 10.00 USD")
	tb.bet(otherYes, "5")
	tb.WaitText("#slip-status", "Bet placed: 5.00 USD")
	tb.WaitText("#balance", "85.00 USD")

	w.admin("POST", "/admin/v1/markets/"+w.market+"/resolve", 200, fmt.Sprintf(`{"winning_outcome_id":%q}`, w.outcome[0]))
	w.admin("POST", "/admin/v1/markets/"+otherMarket+"/cancel", 200, "")
	var payout money.Amount
	waitfor.Check(t, func() error {
		for _, b := range w.admin("GET", "/admin/v1/bets?operator_id=book", 200, "")["items"].([]any) {
			bet := b.(map[string]any)
			if bet["outcome_id"] == w.outcome[0] && bet["status"] == "settled" && bet["deposit_confirmed_at"] != nil {
				payout = money.MustParse(bet["payout_amount"].(string))
				return nil
			}
		}
		return fmt.Errorf("the won bet is not paid yet")
	})
	want := money.MustParse("90.00").Add(payout) // 100 − 15 staked, the payout, 5 refunded
	var st struct {
		Balance string `json:"balance"`
		Items   []struct {
			Kind         string `json:"kind"`
			Amount       string `json:"amount"`
			BalanceAfter string `json:"balance_after"`
		} `json:"items"`
	}
	waitfor.Check(t, func() error {
		raw, _ := json.Marshal(w.admin("GET", "/admin/v1/operators/book/bettors/ann/statement?currency=USD", 200, ""))
		if err := json.Unmarshal(raw, &st); err != nil {
			return err
		}
		if !money.MustParse(st.Balance).Equal(want) {
			return fmt.Errorf("statement balance %s, want %s", st.Balance, want)
		}
		return nil
	})
	var kinds []string
	sum := money.Zero()
	for _, it := range st.Items {
		kinds = append(kinds, it.Kind)
		sum = sum.Add(money.MustParse(it.Amount))
	}
	slices.Sort(kinds)
	if !slices.Equal(kinds, []string{"deposit", "payout", "refund", "stake", "stake"}) || !sum.Equal(want) {
		t.Errorf("statement %+v; want a deposit, two stakes, a payout and a refund summing to %s", st.Items, want)
	}
	tb.Click("#tab-history") // opening the history reads the balance
	tb.WaitText("#balance", want.StringFixed(2)+" USD")
	tb.Screenshot("sportsbook")
}
