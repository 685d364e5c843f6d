package ledger

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/foresight-dev/foresight/internal/money"
)

// Report is what Verify found over the whole ledger. OK is true when
// Discrepancies is empty.
type Report struct {
	OK            bool            `json:"ok"`
	CheckedAt     time.Time       `json:"checked_at"`
	Accounts      int             `json:"accounts"`
	Transfers     int             `json:"transfers"`
	Entries       int             `json:"entries"`
	Currencies    []CurrencyTotal `json:"currencies"`
	Discrepancies []Discrepancy   `json:"discrepancies"`
}

// CurrencyTotal sums one operator's currency: EntriesSum must be zero;
// Held is the amount of its open pending transfers; BettorBalances is what
// the bettors' accounts hold (posted), the money the operator owes them.
type CurrencyTotal struct {
	OperatorID     string       `json:"operator_id"`
	Currency       string       `json:"currency"`
	Accounts       int          `json:"accounts"`
	EntriesSum     money.Amount `json:"entries_sum"`
	Held           money.Amount `json:"held"`
	BettorBalances money.Amount `json:"bettor_balances"`
}

// Discrepancy is one broken invariant. Check names it:
//   - currency_sum: an operator's currency's entries do not sum to zero;
//   - balance: an account's stored balance is not the sum of its entries;
//   - running_balance: an entry's balance_after is not the sum of the
//     account's entries up to it;
//   - pending: an account's stored held amounts are not those of its open
//     pending transfers;
//   - negative: a must-not-go-negative account went (or is) below zero;
//   - transfer_entries: a transfer's entries are not the two it must have
//     (or an entry has no transfer or account);
//   - resolution: a post or void that does not resolve a pending transfer
//     once, within its amount;
//   - transfer_accounts: a transfer between accounts of another operator or
//     currency, or of accounts that do not exist.
type Discrepancy struct {
	Check      string `json:"check"`
	OperatorID string `json:"operator_id,omitempty"`
	Currency   string `json:"currency,omitempty"`
	AccountID  string `json:"account_id,omitempty"`
	TransferID string `json:"transfer_id,omitempty"`
	Detail     string `json:"detail"`
}

// Verify reads the whole ledger in one snapshot and reports every broken
// invariant. An error is a storage failure, never a discrepancy.
func Verify(ctx context.Context, store Store) (Report, error) {
	v := verifier{
		accounts:    map[string]Account{},
		transfers:   map[string]Transfer{},
		entries:     map[string]entryTally{},
		sums:        map[string]money.Amount{},
		resolutions: map[string][]Transfer{},
	}
	err := store.Snapshot(ctx, func(s Snapshot) error {
		if err := s.Accounts(ctx, func(a Account) error {
			v.accounts[a.ID] = a
			v.accountOrder = append(v.accountOrder, a.ID)
			return nil
		}); err != nil {
			return err
		}
		if err := s.Transfers(ctx, func(t Transfer) error {
			v.transfers[t.ID] = t
			v.transferOrder = append(v.transferOrder, t.ID)
			return nil
		}); err != nil {
			return err
		}
		return s.Entries(ctx, func(e Entry) error {
			v.entry(e)
			return nil
		})
	})
	if err != nil {
		return Report{}, fmt.Errorf("verify ledger: %w", err)
	}
	return v.report(), nil
}

// entryTally is what Verify keeps of a transfer's entries: how many, and
// whether the debit and credit it must have are among them. Entries are
// read after transfers, so each is checked against its transfer as it
// comes, and none is kept.
type entryTally struct {
	n             int
	debit, credit bool
}

type verifier struct {
	accounts      map[string]Account
	accountOrder  []string
	transfers     map[string]Transfer
	transferOrder []string
	entries       map[string]entryTally // by transfer
	sums          map[string]money.Amount
	resolutions   map[string][]Transfer // by pending id
	entryCount    int
	found         []Discrepancy
}

func (v *verifier) add(d Discrepancy) { v.found = append(v.found, d) }

// entry runs the per-account checks on e, read in Seq order.
func (v *verifier) entry(e Entry) {
	v.entryCount++
	t, known := v.transfers[e.TransferID]
	if !known {
		v.add(Discrepancy{Check: "transfer_entries", AccountID: e.AccountID, TransferID: e.TransferID,
			Detail: fmt.Sprintf("entry %d is of a transfer that does not exist", e.Seq)})
	} else {
		tally := v.entries[t.ID]
		tally.n++
		tally.debit = tally.debit || (e.AccountID == t.DebitAccountID && e.Amount.Equal(t.Amount.Neg()))
		tally.credit = tally.credit || (e.AccountID == t.CreditAccountID && e.Amount.Equal(t.Amount))
		v.entries[t.ID] = tally
	}
	a, ok := v.accounts[e.AccountID]
	if !ok {
		v.add(Discrepancy{Check: "transfer_entries", AccountID: e.AccountID, TransferID: e.TransferID,
			Detail: fmt.Sprintf("entry %d is on an account that does not exist", e.Seq)})
		return
	}
	sum := v.sums[a.ID].Add(e.Amount)
	v.sums[a.ID] = sum
	if !e.BalanceAfter.Equal(sum) {
		v.add(Discrepancy{Check: "running_balance", OperatorID: a.OperatorID, Currency: a.Currency, AccountID: a.ID, TransferID: e.TransferID,
			Detail: fmt.Sprintf("entry %d says the balance after it is %s; the entries up to it sum to %s", e.Seq, e.BalanceAfter, sum)})
	}
	if a.MustNotGoNegative && sum.IsNegative() {
		v.add(Discrepancy{Check: "negative", OperatorID: a.OperatorID, Currency: a.Currency, AccountID: a.ID, TransferID: e.TransferID,
			Detail: fmt.Sprintf("entry %d takes the balance to %s", e.Seq, sum)})
	}
}

func (v *verifier) report() Report {
	totals := map[[2]string]*CurrencyTotal{}
	total := func(op, cur string) *CurrencyTotal {
		k := [2]string{op, cur}
		if totals[k] == nil {
			totals[k] = &CurrencyTotal{OperatorID: op, Currency: cur}
		}
		return totals[k]
	}
	debitsHeld, creditsHeld := map[string]money.Amount{}, map[string]money.Amount{}
	for _, id := range v.transferOrder {
		t := v.transfers[id]
		v.checkTransfer(t)
		if t.Kind == PostPending || t.Kind == VoidPending {
			v.resolutions[t.PendingID] = append(v.resolutions[t.PendingID], t)
		}
	}
	for _, id := range v.transferOrder {
		t := v.transfers[id]
		if t.Kind != Pending {
			continue
		}
		rs := v.resolutions[t.ID]
		switch {
		case len(rs) == 0:
			debitsHeld[t.DebitAccountID] = debitsHeld[t.DebitAccountID].Add(t.Amount)
			creditsHeld[t.CreditAccountID] = creditsHeld[t.CreditAccountID].Add(t.Amount)
			total(t.OperatorID, t.Currency).Held = total(t.OperatorID, t.Currency).Held.Add(t.Amount)
		case len(rs) > 1:
			keys := make([]string, len(rs))
			for i, r := range rs {
				keys[i] = string(r.Kind) + " " + r.Key
			}
			v.add(Discrepancy{Check: "resolution", OperatorID: t.OperatorID, Currency: t.Currency, TransferID: t.ID,
				Detail: fmt.Sprintf("pending transfer %q is resolved %d times: %s", t.Key, len(rs), strings.Join(keys, ", "))})
		}
	}
	for _, id := range v.accountOrder {
		a := v.accounts[id]
		ct := total(a.OperatorID, a.Currency)
		ct.Accounts++
		ct.EntriesSum = ct.EntriesSum.Add(v.sums[id])
		if a.Kind == KindBettor {
			ct.BettorBalances = ct.BettorBalances.Add(a.Balance)
		}
		if !a.Balance.Equal(v.sums[id]) {
			v.add(Discrepancy{Check: "balance", OperatorID: a.OperatorID, Currency: a.Currency, AccountID: id,
				Detail: fmt.Sprintf("the stored balance is %s; the account's entries sum to %s", a.Balance, v.sums[id])})
		}
		if !a.DebitsPending.Equal(debitsHeld[id]) || !a.CreditsPending.Equal(creditsHeld[id]) {
			v.add(Discrepancy{Check: "pending", OperatorID: a.OperatorID, Currency: a.Currency, AccountID: id,
				Detail: fmt.Sprintf("the stored holds are %s debit, %s credit; the open pending transfers hold %s debit, %s credit",
					a.DebitsPending, a.CreditsPending, debitsHeld[id], creditsHeld[id])})
		}
		if a.MustNotGoNegative && a.Available().IsNegative() {
			v.add(Discrepancy{Check: "negative", OperatorID: a.OperatorID, Currency: a.Currency, AccountID: id,
				Detail: fmt.Sprintf("the available balance is %s", a.Available())})
		}
	}
	r := Report{CheckedAt: time.Now().UTC(), Accounts: len(v.accounts), Transfers: len(v.transfers), Entries: v.entryCount,
		Currencies: []CurrencyTotal{}, Discrepancies: v.found}
	for _, ct := range totals {
		if !ct.EntriesSum.IsZero() {
			v.add(Discrepancy{Check: "currency_sum", OperatorID: ct.OperatorID, Currency: ct.Currency,
				Detail: fmt.Sprintf("the entries sum to %s, not zero", ct.EntriesSum)})
		}
		r.Currencies = append(r.Currencies, *ct)
	}
	slices.SortFunc(r.Currencies, func(a, b CurrencyTotal) int {
		return strings.Compare(a.OperatorID+"\x00"+a.Currency, b.OperatorID+"\x00"+b.Currency)
	})
	r.Discrepancies = v.found
	if r.Discrepancies == nil {
		r.Discrepancies = []Discrepancy{}
	}
	r.OK = len(r.Discrepancies) == 0
	return r
}

// checkTransfer checks t's accounts, its entries and, for a post or void,
// the pending transfer it resolves.
func (v *verifier) checkTransfer(t Transfer) {
	bad := func(check, format string, args ...any) {
		v.add(Discrepancy{Check: check, OperatorID: t.OperatorID, Currency: t.Currency, TransferID: t.ID, Detail: fmt.Sprintf(format, args...)})
	}
	for _, id := range []string{t.DebitAccountID, t.CreditAccountID} {
		a, ok := v.accounts[id]
		if !ok {
			bad("transfer_accounts", "account %s does not exist", id)
		} else if a.OperatorID != t.OperatorID || a.Currency != t.Currency {
			bad("transfer_accounts", "account %s is of %s %s", id, a.OperatorID, a.Currency)
		}
	}
	tally := v.entries[t.ID]
	switch t.Kind {
	case Posted, PostPending:
		if tally.n != 2 || !tally.debit || !tally.credit {
			bad("transfer_entries", "transfer %q of %s has %d entries, not -%s on its debit and +%s on its credit account", t.Key, t.Amount, tally.n, t.Amount, t.Amount)
		}
	case Pending, VoidPending:
		fallthrough
	default: // a kind the ledger does not know must move nothing either
		if tally.n != 0 {
			bad("transfer_entries", "%s transfer %q has %d entries; it must have none", t.Kind, t.Key, tally.n)
		}
	}
	if t.Kind != PostPending && t.Kind != VoidPending {
		return
	}
	p, ok := v.transfers[t.PendingID]
	switch {
	case !ok || p.Kind != Pending:
		bad("resolution", "%s %q resolves %s, which is not a pending transfer", t.Kind, t.Key, t.PendingID)
	case p.DebitAccountID != t.DebitAccountID || p.CreditAccountID != t.CreditAccountID:
		bad("resolution", "%s %q is between other accounts than its pending transfer %q", t.Kind, t.Key, p.Key)
	case t.Amount.GreaterThan(p.Amount) || (t.Kind == VoidPending && !t.Amount.Equal(p.Amount)):
		bad("resolution", "%s %q of %s does not fit its pending transfer %q of %s", t.Kind, t.Key, t.Amount, p.Key, p.Amount)
	}
}
