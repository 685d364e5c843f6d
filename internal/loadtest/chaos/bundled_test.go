package chaos

import (
	"slices"
	"testing"
	"time"

	"github.com/foresight-dev/foresight/internal/money"
)

func bundledBet(id, status, stake, payout string) Bet {
	b := standaloneBet(id, status, stake, payout)
	b.OperatorID = bundledID
	return b
}

func line(bettor, kind, ref, key, amount string) StatementLine {
	return StatementLine{Bettor: bettor, Kind: kind, Reference: ref, IdempotencyKey: key, Amount: money.MustParse(amount)}
}

func move(key, bettor, kind, amount string) CashierMove {
	return CashierMove{Key: key, Bettor: bettor, Kind: kind, Amount: money.MustParse(amount)}
}

// TestReconcileBundled feeds the bundled path's reconciliation statements
// that agree with the bets and the cashier's requests, then statements
// with each disagreement a crash could leave, and checks that each is
// reported.
func TestReconcileBundled(t *testing.T) {
	cleanBets := []Bet{
		bundledBet("won", "settled", "10.00", "19.05"),
		bundledBet("lost", "settled", "5.00", "0"),
		bundledBet("voided", "voided", "2.00", "2.00"),
		bundledBet("rolledback", "rejected", "3.00", ""),
		bundledBet("refused", "rejected", "4.00", ""),
	}
	clean := []StatementLine{
		line("bettor-0", "deposit", "", bundledFundingKey("bettor-0"), "200.00"),
		line("bettor-0", "stake", "won", "bet:won:stake", "-10.00"),
		line("bettor-0", "stake", "lost", "bet:lost:stake", "-5.00"),
		line("bettor-0", "stake", "voided", "bet:voided:stake", "-2.00"),
		line("bettor-0", "stake", "rolledback", "bet:rolledback:stake", "-3.00"),
		line("bettor-0", "rollback", "rolledback", "bet:rolledback:rollback", "3.00"),
		line("bettor-0", "deposit", "", "c1", "50.00"),
		line("bettor-0", "withdrawal", "", "c2", "-20.00"),
		line("bettor-0", "withdrawal", "", "lost-answer", "-1.00"),
		line("bettor-0", "payout", "won", "bet:won:payout", "19.05"),
		line("bettor-0", "refund", "voided", "bet:voided:refund", "2.00"),
	}
	accepted := map[string]CashierMove{"c1": move("c1", "bettor-0", "deposit", "50.00"), "c2": move("c2", "bettor-0", "withdrawal", "20.00")}
	refused := map[string]CashierMove{"c3": move("c3", "bettor-0", "withdrawal", "1000.00")}
	unanswered := map[string]CashierMove{"lost-answer": move("lost-answer", "bettor-0", "withdrawal", "1.00"),
		"never-arrived": move("never-arrived", "bettor-0", "deposit", "5.00")}
	funding := map[string]money.Amount{"bettor-0": money.MustParse("200.00")}
	without := func(ls []StatementLine, key string) []StatementLine {
		var out []StatementLine
		for _, l := range ls {
			if l.IdempotencyKey != key {
				out = append(out, l)
			}
		}
		return out
	}
	tests := []struct {
		name   string
		change func([]StatementLine) []StatementLine
		want   [][2]string
	}{
		{name: "clean statements"},
		{name: "stake taken twice", change: func(ls []StatementLine) []StatementLine {
			return append(ls, line("bettor-0", "stake", "won", "bet:won:stake-again", "-10.00"))
		}, want: [][2]string{{"won", "debited 20 net"}}},
		{name: "rejected bet's stake not back", change: func(ls []StatementLine) []StatementLine {
			return without(ls, "bet:rolledback:rollback")
		}, want: [][2]string{{"rolledback", "the stake is lost"}}},
		{name: "win paid twice", change: func(ls []StatementLine) []StatementLine {
			return append(ls, line("bettor-0", "payout", "won", "bet:won:payout2", "19.05"))
		}, want: [][2]string{{"won", "paid 2 times"}}},
		{name: "win never paid", change: func(ls []StatementLine) []StatementLine {
			return without(ls, "bet:won:payout")
		}, want: [][2]string{{"won", "never reached the wallet"}, {"won", "the wallet never recorded it"}}},
		{name: "a lost bet paid", change: func(ls []StatementLine) []StatementLine {
			return append(ls, line("bettor-0", "payout", "lost", "bet:lost:payout", "1.00"))
		}, want: [][2]string{{"lost", "paid 1 times (want 0)"}, {"lost", "the wallet was paid 1,"}}},
		{name: "voided bet's stake never refunded", change: func(ls []StatementLine) []StatementLine {
			return without(ls, "bet:voided:refund")
		}, want: [][2]string{{"voided", "never reached the wallet"}, {"voided", "the wallet never recorded it"}}},
		{name: "accepted deposit missing", change: func(ls []StatementLine) []StatementLine {
			return without(ls, "c1")
		}, want: [][2]string{{"", "c1 of 50 for bettor-0 was accepted but is not in the statement"}}},
		{name: "deposit moved twice", change: func(ls []StatementLine) []StatementLine {
			return append(ls, line("bettor-0", "deposit", "", "c1", "50.00"))
		}, want: [][2]string{{"", "cashier key c1 moved money 2 times"}}},
		{name: "refused withdrawal moved", change: func(ls []StatementLine) []StatementLine {
			return append(ls, line("bettor-0", "withdrawal", "", "c3", "-1000.00"))
		}, want: [][2]string{{"", "was refused (409) but moved"}}},
		{name: "withdrawal of another amount", change: func(ls []StatementLine) []StatementLine {
			return append(without(ls, "c2"), line("bettor-0", "withdrawal", "", "c2", "-21.00"))
		}, want: [][2]string{{"", "asked withdrawal 20 for bettor-0, the statement has withdrawal -21"}}},
		{name: "a deposit nobody asked for", change: func(ls []StatementLine) []StatementLine {
			return append(ls, line("bettor-0", "deposit", "", "ghost", "9.00"))
		}, want: [][2]string{{"", "that the run never asked for"}}},
		{name: "a stake of no bet", change: func(ls []StatementLine) []StatementLine {
			return append(ls, line("bettor-0", "stake", "ghost-bet", "bet:ghost-bet:stake", "-7.00"))
		}, want: [][2]string{{"", "names no bet"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			lines := append([]StatementLine(nil), clean...)
			if tt.change != nil {
				lines = tt.change(lines)
			}
			for i := range lines {
				lines[i].Seq = int64(i + 1)
			}
			moves, err := LedgerMovements(lines)
			if err != nil {
				t.Fatal(err)
			}
			txs := confirmedDeposits(cleanBets)
			got := Reconcile(Books{Bets: cleanBets, Transactions: txs, Movements: moves, Resolved: true,
				Wallets: map[string]WalletKind{bundledID: BundledWallet}})
			got = append(got, ReconcileCashier(lines, accepted, refused, unanswered, funding)...)
			checkDiscrepancies(t, got, tt.want)
		})
	}
}

// TestBundledFunds: each bettor is funded with the stakes of its share of
// the bets at the mean stake, rounded up to tens.
func TestBundledFunds(t *testing.T) {
	for _, c := range []struct {
		rate    float64
		d       time.Duration
		bettors int
		want    string
	}{
		{200, 500 * time.Second, 200, "5440"}, // 500 bets × 10.875 = 5437.5
		{10, 6 * time.Second, 10, "70"},       // 6 bets × 10.875 = 65.25
		{1, time.Second, 1000, "20"},          // 1 bet (rounded up) × 10.875
	} {
		if got := BundledFunds(c.rate, c.d, c.bettors); got.String() != c.want {
			t.Errorf("BundledFunds(%v, %v, %d) = %s, want %s", c.rate, c.d, c.bettors, got, c.want)
		}
	}
}

// TestCheckTotals: totals that agree with the listed bets find nothing;
// each disagreement (a count, a stake, a payout, a confirmation, a group
// missing on either side) is reported.
func TestCheckTotals(t *testing.T) {
	won := bundledBet("won", "settled", "10.00", "19.05")
	lost := bundledBet("lost", "settled", "5.00", "0")
	rejected := bundledBet("rej", "rejected", "3.00", "")
	rejected.PayoutAmount = nil
	bets := []Bet{won, lost, rejected}
	at := time.Now()
	agree := BetTotals{
		{Status: "rejected", Currency: "USD", Bets: 1, Stake: money.MustParse("3"), Payout: money.Zero()},
		{Status: "settled", Currency: "USD", Bets: 2, Stake: money.MustParse("15"), Payout: money.MustParse("19.05"), PayoutsConfirmed: 2, LastPayoutConfirmedAt: &at},
	}
	if got := CheckTotals(agree, bets); len(got) != 0 {
		t.Fatalf("totals that agree: %v", got)
	}
	if got := CheckTotals(nil, bets); len(got) != 0 {
		t.Errorf("no totals read: %v", got)
	}
	for name, change := range map[string]func(ts BetTotals) BetTotals{
		"a count":        func(ts BetTotals) BetTotals { ts[1].Bets = 3; return ts },
		"a stake":        func(ts BetTotals) BetTotals { ts[1].Stake = money.MustParse("15.01"); return ts },
		"a payout":       func(ts BetTotals) BetTotals { ts[1].Payout = money.MustParse("38.10"); return ts },
		"a confirmation": func(ts BetTotals) BetTotals { ts[1].PayoutsConfirmed = 1; return ts },
		"a status less":  func(ts BetTotals) BetTotals { return ts[1:] },
		"a status more":  func(ts BetTotals) BetTotals { return append(ts, BetTotal{Status: "pending", Currency: "USD", Bets: 1}) },
	} {
		if got := CheckTotals(change(slices.Clone(agree)), bets); len(got) != 1 {
			t.Errorf("%s: %v, want one discrepancy", name, got)
		}
	}
}
