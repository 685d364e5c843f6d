package chaos

import (
	"strings"
	"testing"
	"time"

	"github.com/foresight-dev/foresight/internal/money"
	"github.com/foresight-dev/foresight/internal/sandbox/casino"
	"github.com/foresight-dev/foresight/internal/sandbox/operator"
)

var confirmedAt = time.Date(2026, 11, 26, 12, 0, 0, 0, time.UTC)

func amount(s string) *money.Amount {
	a := money.MustParse(s)
	return &a
}

// standaloneBet is a bet of the sandbox operator in status, with its
// payout for a settled one.
func standaloneBet(id, status, stake, payout string) Bet {
	b := Bet{ID: id, OperatorID: operatorID, Status: status, Stake: money.MustParse(stake), Currency: "USD"}
	if payout != "" {
		b.PayoutAmount = amount(payout)
		b.DepositConfirmedAt = &confirmedAt
	}
	return b
}

func aggregatorBet(id, status, stake, payout string) Bet {
	b := standaloneBet(id, status, stake, payout)
	b.OperatorID, b.Currency = aggregatorID, "EUR"
	return b
}

func opEntry(typ operator.EntryType, txID, amount string) operator.Entry {
	return operator.Entry{Type: typ, TransactionID: txID, Amount: amount}
}

func casinoEntry(typ casino.EntryType, idProvider, round, amount string) casino.Entry {
	return casino.Entry{Type: typ, IDProvider: idProvider, RoundID: round, Amount: amount}
}

// TestReconcile feeds the reconciler books that agree, then books with
// each kind of disagreement a crash or a fault could leave, and checks
// that each is reported for its bet.
func TestReconcile(t *testing.T) {
	cleanBets := []Bet{
		standaloneBet("won", "settled", "10.00", "19.05"),
		standaloneBet("lost", "settled", "5.00", "0"),
		standaloneBet("rolledback", "rejected", "3.00", ""),
		standaloneBet("refused", "rejected", "4.00", ""),
		aggregatorBet("aggwon", "settled", "2.00", "3.81"),
		aggregatorBet("agglost", "settled", "2.00", "0"),
		aggregatorBet("aggrolledback", "rejected", "6.00", ""),
	}
	cleanOperator := []operator.Entry{
		{Type: operator.EntryAdjustment, Amount: "100.00"},
		opEntry(operator.EntryWithdrawal, "wd-won", "-10.00"),
		opEntry(operator.EntryWithdrawal, "wd-lost", "-5.00"),
		opEntry(operator.EntryWithdrawal, "wd-rolledback", "-3.00"),
		opEntry(operator.EntryRollback, "rb-rolledback", "3.00"),
		opEntry(operator.EntryDeposit, "dp-won", "19.05"),
		opEntry(operator.EntryDeposit, "dp-lost", "0.00"),
	}
	cleanCasino := []casino.Entry{
		casinoEntry(casino.EntryBet, "wd-aggwon", "aggwon", "-2.00"),
		casinoEntry(casino.EntryBet, "wd-agglost", "agglost", "-2.00"),
		casinoEntry(casino.EntryBet, "wd-aggrolledback", "aggrolledback", "-6.00"),
		casinoEntry(casino.EntryRollback, "rb-aggrolledback", "aggrolledback", "6.00"),
		casinoEntry(casino.EntryWin, "dp-aggwon", "aggwon", "3.81"),
		casinoEntry(casino.EntryFinish, "", "agglost", "0.00"),
	}
	tests := []struct {
		name string
		// change alters copies of the clean books.
		change func(bets []Bet, op []operator.Entry, cas []casino.Entry) ([]Bet, []operator.Entry, []casino.Entry)
		// want are the bets (or "" for a ledger entry) and words of the
		// discrepancies expected; none for clean books.
		want [][2]string
	}{
		{name: "clean books"},
		{name: "double deposit",
			change: func(b []Bet, op []operator.Entry, c []casino.Entry) ([]Bet, []operator.Entry, []casino.Entry) {
				return b, append(op, opEntry(operator.EntryDeposit, "dp-won", "19.05")), c
			},
			want: [][2]string{{"won", "paid 2 times"}}},
		{name: "missing rollback of a rejected bet",
			change: func(b []Bet, op []operator.Entry, c []casino.Entry) ([]Bet, []operator.Entry, []casino.Entry) {
				return b, remove(op, "rb-rolledback"), c
			},
			want: [][2]string{{"rolledback", "the stake is lost"}}},
		{name: "rollback of a settled bet",
			change: func(b []Bet, op []operator.Entry, c []casino.Entry) ([]Bet, []operator.Entry, []casino.Entry) {
				return b, append(op, opEntry(operator.EntryRollback, "rb-won", "10.00")), c
			},
			want: [][2]string{{"won", "debited 0 net"}}},
		{name: "stake never debited",
			change: func(b []Bet, op []operator.Entry, c []casino.Entry) ([]Bet, []operator.Entry, []casino.Entry) {
				return b, remove(op, "wd-lost"), c
			},
			want: [][2]string{{"lost", "debited 0 net"}}},
		{name: "deposit confirmed by the platform, absent from the ledger",
			change: func(b []Bet, op []operator.Entry, c []casino.Entry) ([]Bet, []operator.Entry, []casino.Entry) {
				return b, remove(op, "dp-won"), c
			},
			want: [][2]string{{"won", "never reached the wallet"}, {"won", "the wallet never recorded it"}}},
		{name: "payout of another amount",
			change: func(b []Bet, op []operator.Entry, c []casino.Entry) ([]Bet, []operator.Entry, []casino.Entry) {
				op = remove(op, "dp-won")
				return b, append(op, opEntry(operator.EntryDeposit, "dp-won", "19.04")), c
			},
			want: [][2]string{{"won", "paid 19.04"}}},
		{name: "payout never confirmed",
			change: func(b []Bet, op []operator.Entry, c []casino.Entry) ([]Bet, []operator.Entry, []casino.Entry) {
				b[0].DepositConfirmedAt = nil
				return b, op, c
			},
			want: [][2]string{{"won", "never confirmed"}}},
		{name: "a bet still pending",
			change: func(b []Bet, op []operator.Entry, c []casino.Entry) ([]Bet, []operator.Entry, []casino.Entry) {
				return append(b, standaloneBet("stuck", "pending", "1.00", "")), op, c
			},
			want: [][2]string{{"stuck", "still pending"}}},
		{name: "a bet never settled after the resolution",
			change: func(b []Bet, op []operator.Entry, c []casino.Entry) ([]Bet, []operator.Entry, []casino.Entry) {
				return append(b, standaloneBet("unsettled", "confirmed", "1.00", "")),
					append(op, opEntry(operator.EntryWithdrawal, "wd-unsettled", "-1.00")), c
			},
			want: [][2]string{{"unsettled", "never settled"}}},
		{name: "a ledger entry no bet explains",
			change: func(b []Bet, op []operator.Entry, c []casino.Entry) ([]Bet, []operator.Entry, []casino.Entry) {
				return b, append(op, opEntry(operator.EntryWithdrawal, "wd-ghost", "-7.00")), c
			},
			want: [][2]string{{"", "names no bet"}}},
		{name: "aggregator: double win",
			change: func(b []Bet, op []operator.Entry, c []casino.Entry) ([]Bet, []operator.Entry, []casino.Entry) {
				return b, op, append(c, casinoEntry(casino.EntryWin, "dp-aggwon", "aggwon", "3.81"))
			},
			want: [][2]string{{"aggwon", "paid 2 times"}}},
		{name: "aggregator: missing rollback",
			change: func(b []Bet, op []operator.Entry, c []casino.Entry) ([]Bet, []operator.Entry, []casino.Entry) {
				return b, op, removeCasino(c, "rb-aggrolledback")
			},
			want: [][2]string{{"aggrolledback", "the stake is lost"}}},
		{name: "aggregator: lost round never finished",
			change: func(b []Bet, op []operator.Entry, c []casino.Entry) ([]Bet, []operator.Entry, []casino.Entry) {
				var out []casino.Entry
				for _, e := range c {
					if e.Type != casino.EntryFinish {
						out = append(out, e)
					}
				}
				return b, op, out
			},
			want: [][2]string{{"agglost", "never finished"}, {"agglost", "the wallet never recorded it"}}},
		{name: "aggregator: a bet in another round",
			change: func(b []Bet, op []operator.Entry, c []casino.Entry) ([]Bet, []operator.Entry, []casino.Entry) {
				return b, op, append(c, casinoEntry(casino.EntryBet, "wd-aggwon", "other-round", "-2.00"))
			},
			want: [][2]string{{"", "names no bet"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			bets := append([]Bet(nil), cleanBets...)
			op := append([]operator.Entry(nil), cleanOperator...)
			cas := append([]casino.Entry(nil), cleanCasino...)
			if tt.change != nil {
				bets, op, cas = tt.change(bets, op, cas)
			}
			for i := range op {
				op[i].Seq = int64(i + 1)
			}
			moves, err := OperatorMovements(op)
			if err != nil {
				t.Fatal(err)
			}
			casMoves, err := CasinoMovements(cas)
			if err != nil {
				t.Fatal(err)
			}
			txs := confirmedDeposits(bets)
			got := Reconcile(Books{Bets: bets, Transactions: txs, Movements: append(moves, casMoves...), Resolved: true,
				Wallets: map[string]WalletKind{operatorID: StandaloneWallet, aggregatorID: AggregatorWallet}})
			checkDiscrepancies(t, got, tt.want)
		})
	}
}

// confirmedDeposits is the platform's account of the payouts it
// confirmed: a deposit transaction for each bet with a confirmed deposit.
func confirmedDeposits(bets []Bet) map[string][]WalletTransaction {
	txs := map[string][]WalletTransaction{}
	for _, b := range bets {
		if b.DepositConfirmedAt != nil {
			txs[b.ID] = []WalletTransaction{{TransactionID: "dp-" + b.ID, Kind: "deposit", ConfirmedAt: b.DepositConfirmedAt}}
		}
	}
	return txs
}

// checkDiscrepancies checks got against want, one {bet id, part of the
// text} a discrepancy, in order.
func checkDiscrepancies(t *testing.T, got []Discrepancy, want [][2]string) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("got %d discrepancies, want %d: %v", len(got), len(want), got)
	}
	for i, w := range want {
		if got[i].BetID != w[0] || !strings.Contains(got[i].What, w[1]) {
			t.Errorf("discrepancy %d = %q, want bet %q and %q", i, got[i], w[0], w[1])
		}
	}
}

func remove(op []operator.Entry, txID string) []operator.Entry {
	var out []operator.Entry
	for _, e := range op {
		if e.TransactionID != txID {
			out = append(out, e)
		}
	}
	return out
}

func removeCasino(c []casino.Entry, idProvider string) []casino.Entry {
	var out []casino.Entry
	for _, e := range c {
		if e.IDProvider != idProvider {
			out = append(out, e)
		}
	}
	return out
}
