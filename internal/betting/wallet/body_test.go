package wallet_test

import (
	"errors"
	"testing"

	"github.com/foresight-dev/foresight/internal/betting/wallet"
	"github.com/foresight-dev/foresight/internal/money"
)

func TestBodiesAreCanonical(t *testing.T) {
	t.Parallel()
	w, err := wallet.WithdrawalBody(wallet.Withdrawal{
		TransactionID: "wd-1", BettorID: "bettor_42", Amount: money.MustParse("10.5"),
		Currency: "USD", Decimals: 2, MarketID: "m-1", BetID: "b-<1>&",
	})
	if err != nil {
		t.Fatal(err)
	}
	if want := `{"transaction_id":"wd-1","bettor_id":"bettor_42","amount":"10.50","currency":"USD","metadata":{"market_id":"m-1","bet_id":"b-<1>&"}}`; string(w) != want {
		t.Errorf("WithdrawalBody =\n%s\nwant\n%s", w, want)
	}

	d, err := wallet.DepositBody(wallet.Deposit{
		TransactionID: "dp-1", BettorID: "bettor_42", Amount: money.Zero(), Currency: "JPY", Decimals: 0,
		MarketID: "m-1", BetID: "b-1", WithdrawalTransactionID: "wd-1", Result: wallet.ResultLost,
	})
	if err != nil {
		t.Fatal(err)
	}
	if want := `{"transaction_id":"dp-1","bettor_id":"bettor_42","amount":"0","currency":"JPY","metadata":{"market_id":"m-1","bet_id":"b-1","withdrawal_transaction_id":"wd-1","result":"lost"}}`; string(d) != want {
		t.Errorf("DepositBody =\n%s\nwant\n%s", d, want)
	}

	r, err := wallet.RollbackBody(wallet.Rollback{
		TransactionID: "rb-1", BettorID: "bettor_42", Amount: money.MustParse("1.250"), Currency: "KWD", Decimals: 3,
	})
	if err != nil {
		t.Fatal(err)
	}
	if want := `{"transaction_id":"rb-1","bettor_id":"bettor_42","amount":"1.250","currency":"KWD"}`; string(r) != want {
		t.Errorf("RollbackBody =\n%s\nwant\n%s", r, want)
	}
}

func TestBodiesRefuseWhatMustNotBeSent(t *testing.T) {
	t.Parallel()
	good := wallet.Withdrawal{TransactionID: "wd-1", BettorID: "b", Amount: money.MustParse("10"), Currency: "USD", Decimals: 2, MarketID: "m", BetID: "b"}
	withdrawal := func(mod func(*wallet.Withdrawal)) wallet.Withdrawal { w := good; mod(&w); return w }
	goodDeposit := wallet.Deposit{TransactionID: "dp-1", BettorID: "b", Amount: money.MustParse("12.34"), Currency: "USD", Decimals: 2,
		MarketID: "m", BetID: "b", WithdrawalTransactionID: "wd-1", Result: wallet.ResultWon}
	deposit := func(mod func(*wallet.Deposit)) wallet.Deposit { d := goodDeposit; mod(&d); return d }

	for name, w := range map[string]wallet.Withdrawal{
		"zero amount":         withdrawal(func(w *wallet.Withdrawal) { w.Amount = money.Zero() }),
		"negative amount":     withdrawal(func(w *wallet.Withdrawal) { w.Amount = money.MustParse("-1") }),
		"needs rounding":      withdrawal(func(w *wallet.Withdrawal) { w.Amount = money.MustParse("10.005") }),
		"JPY with decimals":   withdrawal(func(w *wallet.Withdrawal) { w.Amount, w.Currency, w.Decimals = money.MustParse("10.5"), "JPY", 0 }),
		"bad decimals":        withdrawal(func(w *wallet.Withdrawal) { w.Decimals = -1 }),
		"lowercase currency":  withdrawal(func(w *wallet.Withdrawal) { w.Currency = "usd" }),
		"no transaction id":   withdrawal(func(w *wallet.Withdrawal) { w.TransactionID = "" }),
		"no bettor":           withdrawal(func(w *wallet.Withdrawal) { w.BettorID = "" }),
		"control in bet id":   withdrawal(func(w *wallet.Withdrawal) { w.BetID = "b\n1" }),
		"invalid UTF-8 in id": withdrawal(func(w *wallet.Withdrawal) { w.MarketID = "\xff" }),
	} {
		if _, err := wallet.WithdrawalBody(w); !errors.Is(err, wallet.ErrInvalidBody) {
			t.Errorf("WithdrawalBody(%s) = %v, want ErrInvalidBody", name, err)
		}
	}
	for name, d := range map[string]wallet.Deposit{
		"lost with an amount": deposit(func(d *wallet.Deposit) { d.Result = wallet.ResultLost }),
		"won with zero":       deposit(func(d *wallet.Deposit) { d.Amount = money.Zero() }),
		"voided with zero":    deposit(func(d *wallet.Deposit) { d.Amount, d.Result = money.Zero(), wallet.ResultVoided }),
		"unknown result":      deposit(func(d *wallet.Deposit) { d.Result = "cashout" }),
		"no withdrawal id":    deposit(func(d *wallet.Deposit) { d.WithdrawalTransactionID = "" }),
	} {
		if _, err := wallet.DepositBody(d); !errors.Is(err, wallet.ErrInvalidBody) {
			t.Errorf("DepositBody(%s) = %v, want ErrInvalidBody", name, err)
		}
	}
	if _, err := wallet.RollbackBody(wallet.Rollback{TransactionID: "rb", BettorID: "b", Amount: money.Zero(), Currency: "USD", Decimals: 2}); !errors.Is(err, wallet.ErrInvalidBody) {
		t.Errorf("RollbackBody(zero) = %v, want ErrInvalidBody", err)
	}
}
