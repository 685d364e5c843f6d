package ledger

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/foresight-dev/foresight/internal/money"
)

// rows is a ledger as Verify reads it, for the rules' table test; the
// stores' own behaviour is ledgertest's.
type rows struct {
	accounts  []Account
	transfers []Transfer
	entries   []Entry
}

func (r rows) Write(context.Context, func(Tx) error) error   { panic("not used") }
func (r rows) OpenAccounts(context.Context, []Account) error { panic("not used") }
func (r rows) Account(context.Context, string) (Account, error) {
	panic("not used")
}
func (r rows) TransferByKey(context.Context, string, string) (Transfer, error) { panic("not used") }
func (r rows) Statement(context.Context, string, int64, int) ([]Entry, error) {
	panic("not used")
}
func (r rows) TransferEntries(context.Context, string) ([]Entry, error)    { panic("not used") }
func (r rows) Snapshot(ctx context.Context, fn func(Snapshot) error) error { return fn(r) }
func (r rows) Accounts(_ context.Context, fn func(Account) error) error {
	for _, a := range r.accounts {
		if err := fn(a); err != nil {
			return err
		}
	}
	return nil
}
func (r rows) Transfers(_ context.Context, fn func(Transfer) error) error {
	for _, t := range r.transfers {
		if err := fn(t); err != nil {
			return err
		}
	}
	return nil
}
func (r rows) Entries(_ context.Context, fn func(Entry) error) error {
	for _, e := range r.entries {
		if err := fn(e); err != nil {
			return err
		}
	}
	return nil
}

func a(s string) money.Amount { return money.MustParse(s) }

// sound is a small consistent ledger: a deposit of 100, a stake of 30
// held then posted, a hold of 20 voided and a hold of 5 still open.
func sound() rows {
	now := time.Date(2026, 11, 26, 10, 0, 0, 0, time.UTC)
	bettor, house, funding := newAccount("op", "USD", Bettor("b"), now), newAccount("op", "USD", House(), now), newAccount("op", "USD", Funding(), now)
	bettor.Balance, bettor.DebitsPending = a("70"), a("5")
	house.Balance, house.CreditsPending = a("30"), a("5")
	funding.Balance = a("-100")
	tr := func(id, key string, kind TransferKind, d, c Account, amount, pending string) Transfer {
		return Transfer{ID: id, OperatorID: "op", Currency: "USD", Key: key, Kind: kind, DebitAccountID: d.ID, CreditAccountID: c.ID,
			Amount: a(amount), PendingID: pending, Code: "c", CreatedAt: now}
	}
	e := func(seq int64, acc Account, tid, amount, after string) Entry {
		return Entry{Seq: seq, AccountID: acc.ID, TransferID: tid, Amount: a(amount), BalanceAfter: a(after), CreatedAt: now}
	}
	return rows{
		accounts: []Account{bettor, house, funding},
		transfers: []Transfer{
			tr("t1", "deposit", Posted, funding, bettor, "100", ""),
			tr("t2", "stake", Pending, bettor, house, "30", ""),
			tr("t3", "stake/post", PostPending, bettor, house, "30", "t2"),
			tr("t4", "stake2", Pending, bettor, house, "20", ""),
			tr("t5", "stake2/void", VoidPending, bettor, house, "20", "t4"),
			tr("t6", "stake3", Pending, bettor, house, "5", ""),
		},
		entries: []Entry{
			e(1, funding, "t1", "-100", "-100"), e(2, bettor, "t1", "100", "100"),
			e(3, bettor, "t3", "-30", "70"), e(4, house, "t3", "30", "30"),
		},
	}
}

func TestVerifyRules(t *testing.T) {
	for _, tc := range []struct {
		name   string
		change func(r *rows)
		want   []string
	}{
		{"sound", func(r *rows) {}, nil},
		{"stored balance differs", func(r *rows) { r.accounts[0].Balance = a("71") }, []string{"balance"}},
		{"stored hold differs", func(r *rows) { r.accounts[1].CreditsPending = a("0") }, []string{"pending"}},
		{"entry amount changed", func(r *rows) { r.entries[1].Amount = a("101") },
			[]string{"running_balance", "balance", "transfer_entries", "running_balance", "currency_sum"}},
		{"entry missing", func(r *rows) { r.entries = r.entries[:3] }, []string{"balance", "transfer_entries", "currency_sum"}},
		{"entry on a pending transfer", func(r *rows) {
			r.entries = append(r.entries, Entry{Seq: 5, AccountID: r.accounts[1].ID, TransferID: "t6", Amount: a("0"), BalanceAfter: a("30")})
		}, []string{"transfer_entries"}},
		{"entry of an unknown transfer", func(r *rows) {
			r.entries = append(r.entries, Entry{Seq: 5, AccountID: r.accounts[1].ID, TransferID: "t9", Amount: a("0"), BalanceAfter: a("30")})
		}, []string{"transfer_entries"}},
		{"resolved twice", func(r *rows) {
			second := r.transfers[4]
			second.ID, second.Key, second.PendingID, second.Amount = "t7", "stake/void", "t2", a("30")
			r.transfers = append(r.transfers, second)
		}, []string{"resolution"}},
		{"post of a posted transfer", func(r *rows) { r.transfers[2].PendingID = "t1" }, []string{"resolution", "pending", "pending"}},
		{"post beyond its pending amount", func(r *rows) { r.transfers[1].Amount = a("29") }, []string{"resolution"}},
		{"bettor below zero", func(r *rows) {
			r.accounts[0].Balance, r.accounts[2].Balance = a("-1"), a("-29")
			r.entries[0].Amount, r.entries[0].BalanceAfter, r.entries[1].Amount, r.entries[1].BalanceAfter = a("-29"), a("-29"), a("29"), a("29")
			r.transfers[0].Amount = a("29")
		}, []string{"negative", "running_balance", "negative"}},
		{"account of another currency", func(r *rows) { r.transfers[0].Currency = "EUR" }, []string{"transfer_accounts", "transfer_accounts"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := sound()
			tc.change(&r)
			rep, err := Verify(context.Background(), r)
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, d := range rep.Discrepancies {
				got = append(got, d.Check)
			}
			slices.Sort(got)
			want := slices.Clone(tc.want)
			slices.Sort(want)
			if !slices.Equal(got, want) || rep.OK != (len(want) == 0) {
				t.Errorf("checks = %v, want %v: %+v", got, want, rep.Discrepancies)
			}
		})
	}
	rep, _ := Verify(context.Background(), sound())
	if len(rep.Currencies) != 1 || !rep.Currencies[0].Held.Equal(a("5")) || !rep.Currencies[0].BettorBalances.Equal(a("70")) ||
		rep.Transfers != 6 || rep.Entries != 4 || rep.Accounts != 3 {
		t.Errorf("report = %+v", rep)
	}
}
