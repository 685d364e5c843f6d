package ledgerwallet_test

import (
	"context"
	"errors"
	"testing"

	"github.com/foresight-dev/foresight/internal/betting"
	"github.com/foresight-dev/foresight/internal/betting/ledgerwallet"
	"github.com/foresight-dev/foresight/internal/ledger"
	"github.com/foresight-dev/foresight/internal/money"
	"github.com/foresight-dev/foresight/internal/sqlite/sqlitetest"
)

func amount(s string) money.Amount {
	a, err := money.ParseAmount(s)
	if err != nil {
		panic(err)
	}
	return a
}

// newLedger is a ledger on a real SQLite database, with 100 EUR credited
// to bettor ann of operator op.
func newLedger(t *testing.T) *ledger.Ledger {
	t.Helper()
	l := ledger.New(sqlitetest.Open(t).LedgerStore(), ledger.Options{})
	if _, _, err := l.Transfer(context.Background(), ledger.TransferRequest{OperatorID: "op", Currency: "EUR", Key: "in",
		Debit: ledger.Funding(), Credit: ledger.Bettor("ann"), Amount: amount("100"), Code: "deposit"}); err != nil {
		t.Fatal(err)
	}
	return l
}

func bet(id, stake string) betting.Bet {
	return betting.Bet{ID: id, OperatorID: "op", BettorID: "ann", Currency: "EUR", Stake: amount(stake)}
}

// step is one wallet call and what it must answer: the status of a
// withdrawal (with its code), or Done of a credit, and the bettor's
// available balance after it.
type step struct {
	call    string // withdraw, rollback, deposit
	bet     betting.Bet
	status  betting.WalletStatus
	code    betting.RejectionCode
	balance string
}

func settled(b betting.Bet, status betting.BetStatus, payout string) betting.Bet {
	b.Status = status
	p := amount(payout)
	b.PayoutAmount = &p
	return b
}

// TestWalletSteps runs each bet's steps, each twice (a replay moves
// nothing and answers the same), and checks the balance after each and
// that the ledger verifies at the end.
func TestWalletSteps(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name  string
		steps []step
	}{
		{"a stake is taken once", []step{{call: "withdraw", bet: bet("b1", "30"), status: betting.WalletDone, balance: "70"}}},
		{"a stake beyond the balance is refused", []step{
			{call: "withdraw", bet: bet("b1", "100.01"), status: betting.WalletRefused, code: betting.RejectInsufficientFund, balance: "100"},
		}},
		{"a won bet is paid from the house", []step{
			{call: "withdraw", bet: bet("b1", "30"), status: betting.WalletDone, balance: "70"},
			{call: "deposit", bet: settled(bet("b1", "30"), betting.BetSettled, "55.5"), balance: "125.5"},
		}},
		{"a lost bet moves nothing", []step{
			{call: "withdraw", bet: bet("b1", "30"), status: betting.WalletDone, balance: "70"},
			{call: "deposit", bet: settled(bet("b1", "30"), betting.BetSettled, "0"), balance: "70"},
		}},
		{"a voided bet gets its stake back", []step{
			{call: "withdraw", bet: bet("b1", "30"), status: betting.WalletDone, balance: "70"},
			{call: "deposit", bet: settled(bet("b1", "30"), betting.BetVoided, "30"), balance: "100"},
		}},
		{"a rollback after the debit gives the stake back", []step{
			{call: "withdraw", bet: bet("b1", "30"), status: betting.WalletDone, balance: "70"},
			{call: "rollback", bet: bet("b1", "30"), balance: "100"},
		}},
		{"a rollback of a bet never debited moves nothing", []step{
			{call: "rollback", bet: bet("b1", "30"), balance: "100"},
			{call: "withdraw", bet: bet("b2", "30"), status: betting.WalletDone, balance: "70"},
		}},
		{"two bets take the balance in turn", []step{
			{call: "withdraw", bet: bet("b1", "60"), status: betting.WalletDone, balance: "40"},
			{call: "withdraw", bet: bet("b2", "60"), status: betting.WalletRefused, code: betting.RejectInsufficientFund, balance: "40"},
			{call: "withdraw", bet: bet("b3", "40"), status: betting.WalletDone, balance: "0"},
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			ctx := context.Background()
			l := newLedger(t)
			w := ledgerwallet.New(l)
			op := betting.Operator{ID: "op", Integration: betting.IntegrationBundled}
			for i, s := range c.steps {
				for replay := range 2 {
					var balance *money.Amount
					switch s.call {
					case "withdraw":
						ans, err := w.Withdraw(ctx, op, s.bet)
						if err != nil || ans.Status != s.status || ans.Code != s.code {
							t.Fatalf("step %d (replay %d): withdraw = %+v, %v; want status %d code %q", i, replay, ans, err, s.status, s.code)
						}
						balance = ans.Balance
					case "rollback", "deposit":
						call := w.Rollback
						if s.call == "deposit" {
							call = w.Deposit
						}
						credit, err := call(ctx, op, s.bet)
						if err != nil || !credit.Done {
							t.Fatalf("step %d (replay %d): %s = %+v, %v; want done", i, replay, s.call, credit, err)
						}
						balance = credit.Balance
					}
					if balance == nil || !balance.Equal(amount(s.balance)) {
						t.Fatalf("step %d (replay %d): %s answered balance %v, want %s", i, replay, s.call, balance, s.balance)
					}
					if got, err := w.Balance(ctx, op, "ann", "EUR"); err != nil || !got.Equal(amount(s.balance)) {
						t.Fatalf("step %d (replay %d): balance %v, %v; want %s", i, replay, got, err, s.balance)
					}
				}
			}
			rep, err := ledger.Verify(ctx, l.Store())
			if err != nil || !rep.OK {
				t.Fatalf("verify = %+v, %v", rep, err)
			}
		})
	}
}

// flakyStore is a ledger store whose writes fail while fail says so,
// after committing when commitFirst: a commit whose answer was lost.
type flakyStore struct {
	ledger.Store
	fail        func(write int) bool
	commitFirst bool
	writes      int
}

func (s *flakyStore) Write(ctx context.Context, fn func(ledger.Tx) error) error {
	s.writes++
	if !s.fail(s.writes) {
		return s.Store.Write(ctx, fn)
	}
	if s.commitFirst {
		if err := s.Store.Write(ctx, fn); err != nil {
			return err
		}
	}
	return errors.New("connection reset")
}

// TestWalletStorageFailures: a write that fails (its commit lost or not)
// is retried under the same key and moves the stake once; failures that
// outlast the retries are an unknown outcome, and the rollback that
// follows returns whatever was taken, once.
func TestWalletStorageFailures(t *testing.T) {
	t.Parallel()
	op := betting.Operator{ID: "op", Integration: betting.IntegrationBundled}
	for _, c := range []struct {
		name        string
		fail        func(write int) bool
		commitFirst bool
		status      betting.WalletStatus
		balance     string // after the withdrawal and, when unknown, its rollback
	}{
		{"the stake's write fails once", func(w int) bool { return w == 1 }, false, betting.WalletDone, "70"},
		{"the stake's answer is lost once", func(w int) bool { return w == 1 }, true, betting.WalletDone, "70"},
		{"the stake's write fails every time", func(w int) bool { return w <= 3 }, false, betting.WalletUnknown, "100"},
		{"every answer is lost, the stake taken", func(w int) bool { return w <= 3 }, true, betting.WalletUnknown, "100"},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			ctx := context.Background()
			l := newLedger(t)
			store := &flakyStore{Store: l.Store(), fail: c.fail, commitFirst: c.commitFirst}
			w := ledgerwallet.New(ledger.New(store, ledger.Options{}))
			ans, err := w.Withdraw(ctx, op, bet("b1", "30"))
			if err != nil || ans.Status != c.status {
				t.Fatalf("withdraw = %+v, %v; want status %d", ans, err, c.status)
			}
			if ans.Status == betting.WalletUnknown {
				if credit, err := w.Rollback(ctx, op, bet("b1", "30")); err != nil || !credit.Done {
					t.Fatalf("rollback = %+v, %v", credit, err)
				}
			}
			if got, err := w.Balance(ctx, op, "ann", "EUR"); err != nil || !got.Equal(amount(c.balance)) {
				t.Fatalf("balance %v, %v; want %s", got, err, c.balance)
			}
			if rep, err := ledger.Verify(ctx, l.Store()); err != nil || !rep.OK {
				t.Fatalf("verify = %+v, %v", rep, err)
			}
		})
	}
}
