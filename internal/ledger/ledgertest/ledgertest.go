// Package ledgertest is the conformance suite every ledger.Store passes:
// transfers, two-phase transfers, idempotency, the non-negative rule under
// 200 concurrent debits, Verify over a sound ledger and over rows changed
// behind the ledger's back.
package ledgertest

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/foresight-dev/foresight/internal/ledger"
	"github.com/foresight-dev/foresight/internal/money"
)

// Database is a store for one test and a way to run SQL on its database
// behind the ledger's back (Exec runs one statement without parameters).
type Database struct {
	Store ledger.Store
	Exec  func(query string) error
	// ConcurrentWriters is set for a store whose writes run at once,
	// each holding its own row locks (PostgreSQL), rather than one at a
	// time (SQLite's one writer).
	ConcurrentWriters bool
}

// Run runs the suite; newDatabase returns an empty database for one test.
func Run(t *testing.T, newDatabase func(t *testing.T) Database) {
	t.Run("Transfers", func(t *testing.T) { t.Parallel(); testTransfers(t, newDatabase(t)) })
	t.Run("TwoPhase", func(t *testing.T) { t.Parallel(); testTwoPhase(t, newDatabase(t)) })
	t.Run("ConcurrentDebits", func(t *testing.T) { t.Parallel(); testConcurrentDebits(t, newDatabase(t)) })
	t.Run("ConcurrentResolutions", func(t *testing.T) { t.Parallel(); testConcurrentResolutions(t, newDatabase(t)) })
	t.Run("ConcurrentReplays", func(t *testing.T) { t.Parallel(); testConcurrentReplays(t, newDatabase(t)) })
	t.Run("BetLifecycle", func(t *testing.T) { t.Parallel(); testBetLifecycle(t, newDatabase(t)) })
	t.Run("VerifyFindsTampering", func(t *testing.T) { t.Parallel(); testTampering(t, newDatabase(t)) })
	t.Run("ConcurrentStakes", func(t *testing.T) { t.Parallel(); testConcurrentStakes(t, newDatabase(t)) })
	t.Run("StakesDoNotQueueOnTheHouse", func(t *testing.T) { t.Parallel(); testStakesDoNotQueueOnTheHouse(t, newDatabase(t)) })
	t.Run("SnapshotReadsAsOfItsStart", func(t *testing.T) { t.Parallel(); testSnapshotReads(t, newDatabase(t)) })
}

// testSnapshotReads checks that a Snapshot's Account and Statement read
// the ledger as of the snapshot's first read: a transfer committed after
// it changes neither an account that keeps its balance (a bettor's) nor
// one whose balance is the sum of its entries (funding).
func testSnapshotReads(t *testing.T, db Database) {
	ctx := context.Background()
	l := newLedger(db.Store)
	deposited(t, l, "d1", "ann", "100")
	ann, funding := ledger.AccountID(op, "USD", ledger.Bettor("ann")), ledger.AccountID(op, "USD", ledger.Funding())
	err := db.Store.Snapshot(ctx, func(s ledger.Snapshot) error {
		before, err := s.Account(ctx, ann)
		if err != nil {
			return err
		}
		deposited(t, l, "d2", "ann", "50") // commits outside the snapshot
		for _, id := range []string{ann, funding} {
			a, err := s.Account(ctx, id)
			if err != nil {
				return err
			}
			entries, err := s.Statement(ctx, id, 0, 10)
			if err != nil {
				return err
			}
			if want := amt("100"); id == funding {
				want = want.Neg()
				if !a.Balance.Equal(want) {
					t.Errorf("funding in the snapshot: balance %s, want %s", a.Balance, want)
				}
			} else if !a.Balance.Equal(before.Balance) || !a.Balance.Equal(want) {
				t.Errorf("ann in the snapshot: balance %s then %s, want %s", before.Balance, a.Balance, want)
			}
			if len(entries) != 1 {
				t.Errorf("statement of %s in the snapshot: %d entries, want the 1 before it", id, len(entries))
			}
		}
		_, err = s.Account(ctx, ledger.AccountID(op, "USD", ledger.Bettor("nobody")))
		wantCode(t, "an account never opened, in a snapshot", err, ledger.ErrNotFound)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	balances(t, db.Store, ledger.Bettor("ann"), "150", "0")
}

const op = "alpha"

var t0 = time.Date(2026, 11, 26, 10, 0, 0, 0, time.UTC)

func newLedger(s ledger.Store) *ledger.Ledger {
	return ledger.New(s, ledger.Options{Now: func() time.Time { return t0 }})
}

func amt(s string) money.Amount { return money.MustParse(s) }

func deposit(key, bettor, amount string) ledger.TransferRequest {
	return ledger.TransferRequest{OperatorID: op, Currency: "USD", Key: key, Debit: ledger.Funding(), Credit: ledger.Bettor(bettor),
		Amount: amt(amount), Code: "deposit"}
}

// deposited credits bettor with amount through a deposit keyed key,
// failing the test when the ledger refuses it.
func deposited(t *testing.T, l *ledger.Ledger, key, bettor, amount string) {
	t.Helper()
	if _, _, err := l.Transfer(context.Background(), deposit(key, bettor, amount)); err != nil {
		t.Fatalf("deposit %s of %s to %s: %v", key, amount, bettor, err)
	}
}

func withdrawal(key, bettor, amount string) ledger.TransferRequest {
	return ledger.TransferRequest{OperatorID: op, Currency: "USD", Key: key, Debit: ledger.Bettor(bettor), Credit: ledger.Funding(),
		Amount: amt(amount), Code: "withdrawal"}
}

func stake(key, bettor, amount string) ledger.TransferRequest {
	return ledger.TransferRequest{OperatorID: op, Currency: "USD", Key: key, Debit: ledger.Bettor(bettor), Credit: ledger.House(),
		Amount: amt(amount), Code: "stake", Reference: "bet-" + key}
}

// account returns the account of ref, failing the test when it is missing.
func account(t *testing.T, s ledger.Store, ref ledger.AccountRef) ledger.Account {
	t.Helper()
	a, err := s.Account(context.Background(), ledger.AccountID(op, "USD", ref))
	if err != nil {
		t.Fatalf("account %+v: %v", ref, err)
	}
	return a
}

// balances fails the test unless ref's account has balance and held.
func balances(t *testing.T, s ledger.Store, ref ledger.AccountRef, balance, held string) {
	t.Helper()
	a := account(t, s, ref)
	if !a.Balance.Equal(amt(balance)) || !a.DebitsPending.Equal(amt(held)) {
		t.Errorf("%s %s: balance %s held %s, want %s held %s", ref.Kind, ref.BettorID, a.Balance, a.DebitsPending, balance, held)
	}
}

// verified fails the test unless Verify finds the ledger sound.
func verified(t *testing.T, s ledger.Store) ledger.Report {
	t.Helper()
	r, err := ledger.Verify(context.Background(), s)
	if err != nil {
		t.Fatal(err)
	}
	if !r.OK {
		t.Errorf("Verify found %d discrepancies, the first: %+v", len(r.Discrepancies), r.Discrepancies[:min(3, len(r.Discrepancies))])
	}
	return r
}

func wantCode(t *testing.T, what string, err error, code ledger.ErrorCode) {
	t.Helper()
	if ledger.CodeOf(err) != code {
		t.Errorf("%s: %v, want %s", what, err, code)
	}
}

// testTransfers: a deposit opens the bettor's account; replays and
// conflicting reuses of its key move nothing; debits stay within the
// balance while the house may go below zero; invalid requests are
// refused; and the store reads back what was written.
func testTransfers(t *testing.T, db Database) {
	l := newLedger(db.Store)
	first := checkFirstDeposit(t, db, l)
	checkReusedKeys(t, db, l, first)
	checkDebits(t, db, l)
	checkInvalidTransfers(t, l)
	checkReadBack(t, db)
}

// checkFirstDeposit deposits 100.50 to ann, the ledger's first transfer,
// checks the accounts it opens, and returns it.
func checkFirstDeposit(t *testing.T, db Database, l *ledger.Ledger) ledger.Transfer {
	ctx := context.Background()
	first, replayed, err := l.Transfer(ctx, deposit("d1", "ann", "100.50"))
	if err != nil || replayed || first.Kind != ledger.Posted {
		t.Fatalf("deposit = %+v %v %v", first, replayed, err)
	}
	balances(t, db.Store, ledger.Bettor("ann"), "100.5", "0")
	balances(t, db.Store, ledger.Funding(), "-100.5", "0")
	if a := account(t, db.Store, ledger.Bettor("ann")); !a.MustNotGoNegative || a.Kind != ledger.KindBettor || a.BettorID != "ann" {
		t.Errorf("bettor account = %+v", a)
	}
	if a := account(t, db.Store, ledger.Funding()); a.MustNotGoNegative {
		t.Errorf("funding account must be allowed below zero: %+v", a)
	}
	return first
}

// checkReusedKeys checks that a replay of first returns it and that its
// key used with other content is a conflict; neither moves money.
func checkReusedKeys(t *testing.T, db Database, l *ledger.Ledger, first ledger.Transfer) {
	ctx := context.Background()
	again, replayed, err := l.Transfer(ctx, deposit("d1", "ann", "100.50"))
	if err != nil || !replayed || again.ID != first.ID {
		t.Errorf("replay = %+v %v %v, want %s", again, replayed, err, first.ID)
	}
	balances(t, db.Store, ledger.Bettor("ann"), "100.5", "0")
	// The same key with other content is a conflict, and moves nothing.
	_, _, err = l.Transfer(ctx, deposit("d1", "ann", "100.51"))
	wantCode(t, "same key, other amount", err, ledger.ErrConflict)
	_, _, err = l.Transfer(ctx, deposit("d1", "bob", "100.50"))
	wantCode(t, "same key, other bettor", err, ledger.ErrConflict)
	_, _, err = l.Hold(ctx, deposit("d1", "ann", "100.50"))
	wantCode(t, "same key, pending", err, ledger.ErrConflict)
	_, _, err = l.Transfer(ctx, withdrawal("d1", "nobody", "1"))
	wantCode(t, "same key, a bettor without an account", err, ledger.ErrConflict)
	balances(t, db.Store, ledger.Bettor("ann"), "100.5", "0")
}

// checkDebits withdraws from and stakes ann's whole balance, pays her out
// from the house, and checks that no debit goes beyond a bettor's
// balance while the house may go below zero.
func checkDebits(t *testing.T, db Database, l *ledger.Ledger) {
	ctx := context.Background()
	_, _, err := l.Transfer(ctx, withdrawal("w1", "ann", "100.51"))
	wantCode(t, "overdraw", err, ledger.ErrInsufficientFunds)
	if _, _, err := l.Transfer(ctx, withdrawal("w1", "ann", "0.50")); err != nil {
		t.Fatal(err)
	}
	if _, _, err := l.Transfer(ctx, stake("s1", "ann", "100")); err != nil {
		t.Fatal(err)
	}
	payout := ledger.TransferRequest{OperatorID: op, Currency: "USD", Key: "p1", Debit: ledger.House(), Credit: ledger.Bettor("ann"),
		Amount: amt("250"), Code: "payout"}
	if _, _, err := l.Transfer(ctx, payout); err != nil {
		t.Fatal(err)
	}
	balances(t, db.Store, ledger.Bettor("ann"), "250", "0")
	balances(t, db.Store, ledger.House(), "-150", "0")
	// A bettor with no account cannot be debited.
	_, _, err = l.Transfer(ctx, withdrawal("w2", "nobody", "1"))
	wantCode(t, "debit of an empty account", err, ledger.ErrInsufficientFunds)
}

// checkInvalidTransfers checks that malformed requests are refused as
// invalid.
func checkInvalidTransfers(t *testing.T, l *ledger.Ledger) {
	ctx := context.Background()
	for name, req := range map[string]ledger.TransferRequest{
		"zero":           deposit("x1", "ann", "0"),
		"negative":       deposit("x2", "ann", "-1"),
		"too precise":    deposit("x3", "ann", "1.001"),
		"same account":   {OperatorID: op, Currency: "USD", Key: "x4", Debit: ledger.House(), Credit: ledger.House(), Amount: amt("1"), Code: "c"},
		"no key":         deposit("", "ann", "1"),
		"no bettor":      deposit("x5", "", "1"),
		"house bettor":   {OperatorID: op, Currency: "USD", Key: "x6", Debit: ledger.AccountRef{Kind: ledger.KindHouse, BettorID: "b"}, Credit: ledger.Funding(), Amount: amt("1"), Code: "c"},
		"unknown kind":   {OperatorID: op, Currency: "USD", Key: "x7", Debit: ledger.AccountRef{Kind: "cash"}, Credit: ledger.Funding(), Amount: amt("1"), Code: "c"},
		"no code":        {OperatorID: op, Currency: "USD", Key: "x8", Debit: ledger.House(), Credit: ledger.Funding(), Amount: amt("1")},
		"unknown cur":    {OperatorID: op, Currency: "XYZ", Key: "x9", Debit: ledger.House(), Credit: ledger.Funding(), Amount: amt("1"), Code: "c"},
		"no operator id": {Currency: "USD", Key: "x10", Debit: ledger.House(), Credit: ledger.Funding(), Amount: amt("1"), Code: "c"},
		// Text PostgreSQL cannot store, which SQLite would: the engines
		// must answer alike.
		"NUL in the key":              deposit("x11\x00", "ann", "1"),
		"invalid UTF-8 in the key":    deposit("x12\xff", "ann", "1"),
		"NUL in the bettor id":        deposit("x13", "ann\x00", "1"),
		"invalid UTF-8 in the bettor": deposit("x14", "ann\xff", "1"),
		"control in the bettor id":    deposit("x15", "ann\n", "1"),
		"NUL in the reference":        {OperatorID: op, Currency: "USD", Key: "x16", Debit: ledger.Funding(), Credit: ledger.Bettor("ann"), Amount: amt("1"), Code: "deposit", Reference: "r\x00"},
		"NUL in the code":             {OperatorID: op, Currency: "USD", Key: "x17", Debit: ledger.Funding(), Credit: ledger.Bettor("ann"), Amount: amt("1"), Code: "deposit\x00"},
	} {
		if _, _, err := l.Transfer(ctx, req); ledger.CodeOf(err) != ledger.ErrInvalid {
			t.Errorf("%s: %v, want invalid_request", name, err)
		}
	}
	// JPY has no decimals.
	jpy := ledger.TransferRequest{OperatorID: op, Currency: "JPY", Key: "j1", Debit: ledger.Funding(), Credit: ledger.Bettor("ann"), Amount: amt("1.5"), Code: "deposit"}
	_, _, err := l.Transfer(ctx, jpy)
	wantCode(t, "JPY with decimals", err, ledger.ErrInvalid)
}

// checkReadBack checks what the store reads back after the transfers of
// testTransfers: ann's statement and its pages, a transfer's entries, a
// transfer by key, missing transfers and accounts, and Verify's report.
func checkReadBack(t *testing.T, db Database) {
	ctx := context.Background()
	// The statement: every entry with the balance after it.
	entries, err := db.Store.Statement(ctx, ledger.AccountID(op, "USD", ledger.Bettor("ann")), 0, 100)
	if err != nil {
		t.Fatal(err)
	}
	want := []struct{ amount, after, code string }{{"100.5", "100.5", "deposit"}, {"-0.5", "100", "withdrawal"}, {"-100", "0", "stake"}, {"250", "250", "payout"}}
	if len(entries) != len(want) {
		t.Fatalf("statement has %d entries: %+v", len(entries), entries)
	}
	for i, w := range want {
		e := entries[i]
		if !e.Amount.Equal(amt(w.amount)) || !e.BalanceAfter.Equal(amt(w.after)) || e.Code != w.code || !e.CreatedAt.Equal(t0) {
			t.Errorf("entry %d = %+v, want %+v", i, e, w)
		}
	}
	if page, err := db.Store.Statement(ctx, entries[0].AccountID, entries[1].Seq, 1); err != nil || len(page) != 1 || page[0].Seq != entries[2].Seq {
		t.Errorf("statement page after %d = %+v %v", entries[1].Seq, page, err)
	}
	// A transfer's entries: both sides, each with its account's balance
	// after it.
	if both, err := db.Store.TransferEntries(ctx, entries[1].TransferID); err != nil || len(both) != 2 ||
		!both[0].Amount.Add(both[1].Amount).IsZero() || !slicesContainsEntry(both, entries[1]) {
		t.Errorf("TransferEntries of the withdrawal = %+v %v", both, err)
	}
	if got, err := db.Store.TransferByKey(ctx, op, "s1"); err != nil || got.Reference != "bet-s1" || got.Code != "stake" || !got.Amount.Equal(amt("100")) {
		t.Errorf("TransferByKey = %+v %v", got, err)
	}
	if _, err := db.Store.TransferByKey(ctx, op, "nope"); ledger.CodeOf(err) != ledger.ErrNotFound {
		t.Errorf("missing transfer: %v", err)
	}
	if _, err := db.Store.Account(ctx, ledger.AccountID(op, "USD", ledger.Bettor("nobody"))); ledger.CodeOf(err) != ledger.ErrNotFound {
		t.Errorf("missing account: %v", err)
	}
	r := verified(t, db.Store)
	if r.Transfers != 4 || r.Entries != 8 || len(r.Currencies) != 1 || !r.Currencies[0].EntriesSum.IsZero() ||
		!r.Currencies[0].BettorBalances.Equal(amt("250")) {
		t.Errorf("report = %+v", r)
	}
}

func testTwoPhase(t *testing.T, db Database) {
	ctx := context.Background()
	l := newLedger(db.Store)
	deposited(t, l, "d1", "ann", "100")
	hold, replayed, err := l.Hold(ctx, stake("h1", "ann", "60"))
	if err != nil || replayed || hold.Kind != ledger.Pending {
		t.Fatalf("hold = %+v %v %v", hold, replayed, err)
	}
	// The hold counts against the available balance and moves nothing.
	balances(t, db.Store, ledger.Bettor("ann"), "100", "60")
	if h := account(t, db.Store, ledger.House()); !h.Balance.IsZero() || !h.CreditsPending.Equal(amt("60")) {
		t.Errorf("house = %+v", h)
	}
	_, _, err = l.Hold(ctx, stake("h2", "ann", "40.01"))
	wantCode(t, "hold beyond available", err, ledger.ErrInsufficientFunds)
	_, _, err = l.Transfer(ctx, withdrawal("w1", "ann", "40.01"))
	wantCode(t, "withdrawal beyond available", err, ledger.ErrInsufficientFunds)
	if again, replayed, err := l.Hold(ctx, stake("h1", "ann", "60")); err != nil || !replayed || again.ID != hold.ID {
		t.Errorf("hold replay = %+v %v %v", again, replayed, err)
	}
	balances(t, db.Store, ledger.Bettor("ann"), "100", "60")

	// Post all of it.
	post, replayed, err := l.Post(ctx, ledger.ResolveRequest{OperatorID: op, Key: "h1/post", PendingKey: "h1"})
	if err != nil || replayed || post.Kind != ledger.PostPending || post.PendingID != hold.ID || !post.Amount.Equal(amt("60")) ||
		post.Code != "stake" || post.Reference != "bet-h1" {
		t.Fatalf("post = %+v %v %v", post, replayed, err)
	}
	balances(t, db.Store, ledger.Bettor("ann"), "40", "0")
	balances(t, db.Store, ledger.House(), "60", "0")
	if again, replayed, err := l.Post(ctx, ledger.ResolveRequest{OperatorID: op, Key: "h1/post", PendingKey: "h1"}); err != nil || !replayed || again.ID != post.ID {
		t.Errorf("post replay = %+v %v %v", again, replayed, err)
	}
	_, _, err = l.Post(ctx, ledger.ResolveRequest{OperatorID: op, Key: "h1/post", PendingKey: "h1", Amount: amt("1")})
	wantCode(t, "post replay with another amount", err, ledger.ErrConflict)
	_, _, err = l.Void(ctx, ledger.ResolveRequest{OperatorID: op, Key: "h1/void", PendingKey: "h1"})
	wantCode(t, "void after post", err, ledger.ErrAlreadyResolved)
	_, _, err = l.Post(ctx, ledger.ResolveRequest{OperatorID: op, Key: "h1/post2", PendingKey: "h1"})
	wantCode(t, "second post", err, ledger.ErrAlreadyResolved)
	balances(t, db.Store, ledger.Bettor("ann"), "40", "0")

	// Void releases the hold.
	if _, _, err := l.Hold(ctx, stake("h3", "ann", "30")); err != nil {
		t.Fatal(err)
	}
	balances(t, db.Store, ledger.Bettor("ann"), "40", "30")
	void, _, err := l.Void(ctx, ledger.ResolveRequest{OperatorID: op, Key: "h3/void", PendingKey: "h3"})
	if err != nil || void.Kind != ledger.VoidPending || !void.Amount.Equal(amt("30")) {
		t.Fatalf("void = %+v %v", void, err)
	}
	balances(t, db.Store, ledger.Bettor("ann"), "40", "0")
	if again, replayed, err := l.Void(ctx, ledger.ResolveRequest{OperatorID: op, Key: "h3/void", PendingKey: "h3"}); err != nil || !replayed || again.ID != void.ID {
		t.Errorf("void replay = %+v %v %v", again, replayed, err)
	}
	_, _, err = l.Post(ctx, ledger.ResolveRequest{OperatorID: op, Key: "h3/post", PendingKey: "h3"})
	wantCode(t, "post after void", err, ledger.ErrAlreadyResolved)
	balances(t, db.Store, ledger.Bettor("ann"), "40", "0")

	// A partial post moves what it names and releases the rest.
	if _, _, err := l.Hold(ctx, stake("h4", "ann", "20")); err != nil {
		t.Fatal(err)
	}
	_, _, err = l.Post(ctx, ledger.ResolveRequest{OperatorID: op, Key: "h4/post", PendingKey: "h4", Amount: amt("20.01")})
	wantCode(t, "post beyond the pending amount", err, ledger.ErrInvalid)
	_, _, err = l.Post(ctx, ledger.ResolveRequest{OperatorID: op, Key: "h4/post", PendingKey: "h4", Amount: amt("0.001")})
	wantCode(t, "post with too many decimals", err, ledger.ErrInvalid)
	if _, _, err := l.Post(ctx, ledger.ResolveRequest{OperatorID: op, Key: "h4/post", PendingKey: "h4", Amount: amt("12.5")}); err != nil {
		t.Fatal(err)
	}
	balances(t, db.Store, ledger.Bettor("ann"), "27.5", "0")
	balances(t, db.Store, ledger.House(), "72.5", "0")

	_, _, err = l.Post(ctx, ledger.ResolveRequest{OperatorID: op, Key: "x/post", PendingKey: "missing"})
	wantCode(t, "post of an unknown transfer", err, ledger.ErrNotFound)
	_, _, err = l.Void(ctx, ledger.ResolveRequest{OperatorID: op, Key: "d1/void", PendingKey: "d1"})
	wantCode(t, "void of a posted transfer", err, ledger.ErrInvalid)
	_, _, err = l.Void(ctx, ledger.ResolveRequest{OperatorID: op, Key: "h5/void", PendingKey: "h4", Amount: amt("1")})
	wantCode(t, "void with an amount", err, ledger.ErrInvalid)

	// An open hold at the end is reported as held.
	if _, _, err := l.Hold(ctx, stake("h6", "ann", "7.5")); err != nil {
		t.Fatal(err)
	}
	r := verified(t, db.Store)
	if len(r.Currencies) != 1 || !r.Currencies[0].Held.Equal(amt("7.5")) {
		t.Errorf("report currencies = %+v", r.Currencies)
	}
}

func testConcurrentDebits(t *testing.T, db Database) { ConcurrentDebits(t, db.Store) }

// ConcurrentDebits sends 200 debits of 1 at once (100 holds, 100
// withdrawals) against a bettor with 50, spread over the stores (one
// database seen from several processes): exactly 50 pass, and the bettor
// ends at zero, never below. The stores must share one empty database.
func ConcurrentDebits(t *testing.T, stores ...ledger.Store) {
	ctx := context.Background()
	ledgers := make([]*ledger.Ledger, len(stores))
	for i, s := range stores {
		ledgers[i] = newLedger(s)
	}
	if _, _, err := ledgers[0].Transfer(ctx, deposit("d1", "ann", "50")); err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	var mu sync.Mutex
	var passed, refused int
	var failures []error
	start := make(chan struct{})
	for i := range 200 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			var err error
			l := ledgers[(i/2)%len(ledgers)]
			if i%2 == 0 {
				_, _, err = l.Hold(ctx, stake(fmt.Sprintf("h%d", i), "ann", "1"))
			} else {
				_, _, err = l.Transfer(ctx, withdrawal(fmt.Sprintf("w%d", i), "ann", "1"))
			}
			mu.Lock()
			defer mu.Unlock()
			switch {
			case err == nil:
				passed++
			case ledger.CodeOf(err) == ledger.ErrInsufficientFunds:
				refused++
			default:
				failures = append(failures, err)
			}
		}()
	}
	close(start)
	wg.Wait()
	if len(failures) > 0 {
		t.Fatalf("%d debits failed: %v", len(failures), failures[0])
	}
	if passed != 50 || refused != 150 {
		t.Errorf("%d debits passed and %d were refused, want 50 and 150", passed, refused)
	}
	a := account(t, stores[0], ledger.Bettor("ann"))
	if !a.Available().IsZero() || a.Balance.IsNegative() {
		t.Errorf("after the debits: %+v", a)
	}
	verified(t, stores[0])
}

// testConcurrentResolutions races two posts, a void and a replay on each
// of 25 pending transfers: each is resolved exactly once.
func testConcurrentResolutions(t *testing.T, db Database) {
	ctx := context.Background()
	l := newLedger(db.Store)
	deposited(t, l, "d1", "ann", "25")
	for i := range 25 {
		if _, _, err := l.Hold(ctx, stake(fmt.Sprintf("h%d", i), "ann", "1")); err != nil {
			t.Fatal(err)
		}
	}
	type result struct {
		pending, key string
		t            ledger.Transfer
		err          error
	}
	results := make(chan result, 25*4)
	var wg sync.WaitGroup
	start := make(chan struct{})
	for i := range 25 {
		p := fmt.Sprintf("h%d", i)
		for _, c := range []struct {
			key  string
			call func(context.Context, ledger.ResolveRequest) (ledger.Transfer, bool, error)
		}{{p + "/a", l.Post}, {p + "/b", l.Post}, {p + "/c", l.Void}, {p + "/a", l.Post}} {
			wg.Add(1)
			go func() {
				defer wg.Done()
				<-start
				tr, _, err := c.call(ctx, ledger.ResolveRequest{OperatorID: op, Key: c.key, PendingKey: p})
				results <- result{p, c.key, tr, err}
			}()
		}
	}
	close(start)
	wg.Wait()
	close(results)
	winners := map[string]map[string]bool{}
	byKey := map[string][]result{}
	for r := range results {
		byKey[r.key] = append(byKey[r.key], r)
		switch {
		case r.err == nil:
			if winners[r.pending] == nil {
				winners[r.pending] = map[string]bool{}
			}
			winners[r.pending][r.t.ID] = true
		case ledger.CodeOf(r.err) != ledger.ErrAlreadyResolved:
			t.Errorf("%s: %v", r.pending, r.err)
		}
	}
	for i := range 25 {
		p := fmt.Sprintf("h%d", i)
		if len(winners[p]) != 1 {
			t.Errorf("%s was resolved by %d transfers", p, len(winners[p]))
		}
		// The two requests with one key get one answer: both the post,
		// or both already_resolved.
		a := byKey[p+"/a"]
		if len(a) != 2 || ledger.CodeOf(a[0].err) != ledger.CodeOf(a[1].err) || a[0].t.ID != a[1].t.ID {
			t.Errorf("%s: one key, two answers: %+v", p, a)
		}
	}
	if a := account(t, db.Store, ledger.Bettor("ann")); !a.DebitsPending.IsZero() {
		t.Errorf("holds left after every pending transfer was resolved: %+v", a)
	}
	verified(t, db.Store)
}

// testConcurrentReplays sends one request 50 times at once: one transfer.
func testConcurrentReplays(t *testing.T, db Database) {
	l := newLedger(db.Store)
	if n := transfersOfCopies(t, l, deposit("once", "ann", "10")); n != 1 {
		t.Errorf("50 replays made %d transfers", n)
	}
	balances(t, db.Store, ledger.Bettor("ann"), "10", "0")

	// 50 copies of a withdrawal of the whole balance: one moves it, the
	// others are its replays, not refusals for want of funds.
	if n := transfersOfCopies(t, l, withdrawal("all", "ann", "10")); n != 1 {
		t.Errorf("50 replays of a withdrawal made %d transfers", n)
	}
	balances(t, db.Store, ledger.Bettor("ann"), "0", "0")
	verified(t, db.Store)
}

// transfersOfCopies sends 50 copies of req at once and returns how many
// distinct transfers answered them. A copy that fails fails the test,
// naming req's key.
func transfersOfCopies(t *testing.T, l *ledger.Ledger, req ledger.TransferRequest) int {
	t.Helper()
	ids := make(chan string, 50)
	var wg sync.WaitGroup
	start := make(chan struct{})
	for range 50 {
		wg.Go(func() {
			<-start
			tr, _, err := l.Transfer(context.Background(), req)
			if err != nil {
				t.Errorf("copy of %s: %v", req.Key, err)
				return
			}
			ids <- tr.ID
		})
	}
	close(start)
	wg.Wait()
	close(ids)
	seen := map[string]bool{}
	for id := range ids {
		seen[id] = true
	}
	return len(seen)
}

// testTampering changes rows behind the ledger's back and checks that
// Verify reports each change, and that entries and transfers refuse
// updates and deletes.
func testTampering(t *testing.T, db Database) {
	ctx := context.Background()
	l := newLedger(db.Store)
	deposited(t, l, "d1", "ann", "100")
	if _, _, err := l.Hold(ctx, stake("h1", "ann", "10")); err != nil {
		t.Fatal(err)
	}
	verified(t, db.Store)
	ann := ledger.AccountID(op, "USD", ledger.Bettor("ann"))
	house := ledger.AccountID(op, "USD", ledger.House())
	for _, q := range []string{
		"UPDATE ledger_entries SET amount = 1000",
		"DELETE FROM ledger_entries",
		"UPDATE ledger_transfers SET amount = 1000",
		"DELETE FROM ledger_transfers",
	} {
		if err := db.Exec(q); err == nil {
			t.Errorf("%s: accepted; entries and transfers are append-only", q)
		}
	}
	if err := db.Exec("UPDATE ledger_accounts SET balance = '1000' WHERE id = '" + ann + "'"); err != nil {
		t.Fatal(err)
	}
	// The house account keeps no balance row: what its row says is not
	// read, and changing it breaks nothing.
	if err := db.Exec("UPDATE ledger_accounts SET balance = '5', credits_pending = '0' WHERE id = '" + house + "'"); err != nil {
		t.Fatal(err)
	}
	if h := account(t, db.Store, ledger.House()); !h.Balance.IsZero() || !h.CreditsPending.Equal(amt("10")) {
		t.Errorf("house after its row changed = %+v, want balance 0, 10 held", h)
	}
	bob := ledger.AccountID(op, "USD", ledger.Bettor("bob"))
	deposited(t, l, "d2", "bob", "20")
	if _, _, err := l.Hold(ctx, stake("h2", "bob", "5")); err != nil {
		t.Fatal(err)
	}
	if err := db.Exec("UPDATE ledger_accounts SET debits_pending = '0' WHERE id = '" + bob + "'"); err != nil {
		t.Fatal(err)
	}
	r, err := ledger.Verify(ctx, db.Store)
	if err != nil {
		t.Fatal(err)
	}
	found := map[string]string{}
	for _, d := range r.Discrepancies {
		found[d.Check] = d.AccountID
	}
	if r.OK || found["balance"] != ann || found["pending"] != bob || len(r.Discrepancies) != 2 {
		t.Errorf("Verify after tampering = %+v", r)
	}
}

// testBetLifecycle runs bets through their movements, each step twice:
// a bet confirmed and won, one rejected, one confirmed then voided, and
// the one-transfer stake of the placement, taken and returned.
func testBetLifecycle(t *testing.T, db Database) {
	ctx := context.Background()
	l := newLedger(db.Store)
	deposited(t, l, "d1", "ann", "100")
	bet := func(id string) ledger.BetRef {
		return ledger.BetRef{OperatorID: op, Currency: "USD", BettorID: "ann", BetID: id}
	}
	twice := func(what string, step func() (ledger.Transfer, error)) {
		t.Helper()
		first, err := step()
		if err != nil {
			t.Fatalf("%s: %v", what, err)
		}
		if again, err := step(); err != nil || again.ID != first.ID {
			t.Errorf("%s again = %+v %v, want the first transfer %s", what, again, err, first.ID)
		}
	}
	won, rejected, voided := bet("b1"), bet("b2"), bet("b3")
	twice("hold b1", func() (ledger.Transfer, error) { return l.HoldStake(ctx, won, amt("10")) })
	twice("hold b2", func() (ledger.Transfer, error) { return l.HoldStake(ctx, rejected, amt("20")) })
	twice("hold b3", func() (ledger.Transfer, error) { return l.HoldStake(ctx, voided, amt("5")) })
	balances(t, db.Store, ledger.Bettor("ann"), "100", "35")
	if _, err := l.HoldStake(ctx, bet("b4"), amt("65.01")); ledger.CodeOf(err) != ledger.ErrInsufficientFunds {
		t.Errorf("a stake beyond the available balance: %v", err)
	}
	twice("confirm b1", func() (ledger.Transfer, error) { return l.ConfirmStake(ctx, won) })
	twice("reject b2", func() (ledger.Transfer, error) { return l.ReleaseStake(ctx, rejected) })
	twice("confirm b3", func() (ledger.Transfer, error) { return l.ConfirmStake(ctx, voided) })
	if _, err := l.ConfirmStake(ctx, rejected); ledger.CodeOf(err) != ledger.ErrAlreadyResolved {
		t.Errorf("confirm after reject: %v", err)
	}
	if _, err := l.ReleaseStake(ctx, won); ledger.CodeOf(err) != ledger.ErrAlreadyResolved {
		t.Errorf("reject after confirm: %v", err)
	}
	balances(t, db.Store, ledger.Bettor("ann"), "85", "0")
	twice("pay b1", func() (ledger.Transfer, error) { return l.PayWin(ctx, won, amt("18.5")) })
	twice("refund b3", func() (ledger.Transfer, error) { return l.RefundStake(ctx, voided, amt("5")) })
	if _, err := l.PayWin(ctx, won, amt("19")); ledger.CodeOf(err) != ledger.ErrConflict {
		t.Errorf("a second payout of another amount: %v", err)
	}
	balances(t, db.Store, ledger.Bettor("ann"), "108.5", "0")
	balances(t, db.Store, ledger.House(), "-8.5", "0")

	// The placement's one-transfer stake, and its return after a
	// rejection; a stake never taken has nothing to return.
	taken, never := bet("b5"), bet("b6")
	twice("take b5", func() (ledger.Transfer, error) { return l.TakeStake(ctx, taken, amt("8.5")) })
	balances(t, db.Store, ledger.Bettor("ann"), "100", "0")
	if _, err := l.TakeStake(ctx, never, amt("100.01")); ledger.CodeOf(err) != ledger.ErrInsufficientFunds {
		t.Errorf("a stake beyond the balance: %v", err)
	}
	if _, err := l.ReturnStake(ctx, never); ledger.CodeOf(err) != ledger.ErrNotFound {
		t.Errorf("returning a stake never taken: %v", err)
	}
	twice("return b5", func() (ledger.Transfer, error) { return l.ReturnStake(ctx, taken) })
	balances(t, db.Store, ledger.Bettor("ann"), "108.5", "0")
	balances(t, db.Store, ledger.House(), "-8.5", "0")
	verified(t, db.Store)
}

// slicesContainsEntry reports whether entries holds e (its seq, amount and
// balance after, code and key).
func slicesContainsEntry(entries []ledger.Entry, e ledger.Entry) bool {
	for _, x := range entries {
		if x.Seq == e.Seq && x.AccountID == e.AccountID && x.Amount.Equal(e.Amount) && x.BalanceAfter.Equal(e.BalanceAfter) && x.Code == e.Code && x.Key == e.Key {
			return true
		}
	}
	return false
}

// testConcurrentStakes sends 200 stakes of 50 bettors of one operator at
// once, and a deposit and a withdrawal of each bettor with them: every
// one lands, the house holds every stake, and Verify passes.
func testConcurrentStakes(t *testing.T, db Database) {
	ctx := context.Background()
	l := newLedger(db.Store)
	const bettors, stakes = 50, 4
	for b := range bettors {
		deposited(t, l, fmt.Sprintf("d%d", b), fmt.Sprintf("b%d", b), "10")
	}
	var wg sync.WaitGroup
	var mu sync.Mutex
	var failures []error
	start := make(chan struct{})
	run := func(req ledger.TransferRequest) {
		defer wg.Done()
		<-start
		if _, _, err := l.Transfer(ctx, req); err != nil {
			mu.Lock()
			failures = append(failures, fmt.Errorf("%s: %w", req.Key, err))
			mu.Unlock()
		}
	}
	for b := range bettors {
		bettor := fmt.Sprintf("b%d", b)
		for i := range stakes {
			wg.Add(1)
			go run(stake(fmt.Sprintf("s%d-%d", b, i), bettor, "1.5"))
		}
		wg.Add(2)
		go run(deposit(fmt.Sprintf("d%d-again", b), bettor, "2"))
		go run(withdrawal(fmt.Sprintf("w%d", b), bettor, "3"))
	}
	close(start)
	wg.Wait()
	if len(failures) > 0 {
		t.Fatalf("%d of %d transfers failed, the first: %v", len(failures), bettors*(stakes+2), failures[0])
	}
	for b := range bettors {
		balances(t, db.Store, ledger.Bettor(fmt.Sprintf("b%d", b)), "3", "0")
	}
	balances(t, db.Store, ledger.House(), "300", "0")
	balances(t, db.Store, ledger.Funding(), "-450", "0")
	verified(t, db.Store)
	// The house keeps no balance row: its statement's balance after each
	// entry is computed, across pages too.
	for _, ref := range []ledger.AccountRef{ledger.House(), ledger.Funding()} {
		id := ledger.AccountID(op, "USD", ref)
		var after int64
		running, n := money.Zero(), 0
		for {
			page, err := db.Store.Statement(ctx, id, after, 7)
			if err != nil {
				t.Fatal(err)
			}
			for _, e := range page {
				running = running.Add(e.Amount)
				n++
				if !e.BalanceAfter.Equal(running) {
					t.Fatalf("%s statement entry %d: balance after %s, want %s", ref.Kind, n, e.BalanceAfter, running)
				}
				after = e.Seq
			}
			if len(page) < 7 {
				break
			}
		}
		if want := account(t, db.Store, ref).Balance; n == 0 || !running.Equal(want) {
			t.Errorf("%s statement: %d entries summing to %s, want the balance %s", ref.Kind, n, running, want)
		}
	}
}

// testStakesDoNotQueueOnTheHouse holds a write open that has locked a
// bettor's and the house's accounts, as a stake does before it commits:
// another bettor's stake (and a deposit) must still commit meanwhile.
// Only a store whose writes run at once can show it.
func testStakesDoNotQueueOnTheHouse(t *testing.T, db Database) {
	if !db.ConcurrentWriters {
		t.Skip("the store runs one write at a time")
	}
	ctx := context.Background()
	l := newLedger(db.Store)
	for _, b := range []string{"ann", "bob"} {
		deposited(t, l, "d-"+b, b, "10")
	}
	if _, _, err := l.Transfer(ctx, stake("s-ann", "ann", "1")); err != nil { // opens the house account
		t.Fatal(err)
	}
	ann := ledger.Account{ID: ledger.AccountID(op, "USD", ledger.Bettor("ann"))}
	house := ledger.Account{ID: ledger.AccountID(op, "USD", ledger.House())}
	pair := []ledger.Account{ann, house}
	if house.ID < ann.ID {
		pair = []ledger.Account{house, ann}
	}
	locked, release := make(chan error, 1), make(chan struct{})
	held := make(chan error, 1)
	go func() {
		held <- db.Store.Write(ctx, func(tx ledger.Tx) error {
			_, err := tx.LockAccounts(ctx, pair)
			locked <- err
			<-release
			return err
		})
	}()
	defer func() {
		close(release)
		if err := <-held; err != nil {
			t.Error(err)
		}
	}()
	if err := <-locked; err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() {
		_, _, err := l.Transfer(ctx, stake("s-bob", "bob", "4"))
		if err == nil {
			_, _, err = l.Transfer(ctx, ledger.TransferRequest{OperatorID: op, Currency: "USD", Key: "payout-bob", Debit: ledger.House(),
				Credit: ledger.Bettor("bob"), Amount: amt("7"), Code: "payout"})
		}
		done <- err
	}()
	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(time.Minute):
		t.Fatal("bob's stake waited a minute on the write that holds ann's stake open")
	}
	balances(t, db.Store, ledger.Bettor("bob"), "13", "0")
	balances(t, db.Store, ledger.House(), "-2", "0")
}
