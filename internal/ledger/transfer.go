package ledger

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/google/uuid"

	"github.com/foresight-dev/foresight/internal/money"
)

// Ledger moves money between accounts of a Store under the ledger's
// rules. It is safe for concurrent use, from several processes sharing
// one database too: the store's locks (PostgreSQL) or its one writer
// (SQLite) order the writes.
type Ledger struct {
	store    Store
	decimals func(ctx context.Context, operatorID, currency string) (int32, error)
	now      func() time.Time
}

// Options configure a Ledger.
type Options struct {
	// Decimals returns how many decimals operatorID's currency has, or an
	// error (an *Error with ErrInvalid for a currency the operator does
	// not hold). Nil takes ISO 4217's minor units and refuses other codes.
	Decimals func(ctx context.Context, operatorID, currency string) (int32, error)
	// Now is the clock; nil is time.Now.
	Now func() time.Time
}

// New returns the ledger over store.
func New(store Store, opts Options) *Ledger {
	l := &Ledger{store: store, decimals: opts.Decimals, now: opts.Now}
	if l.decimals == nil {
		l.decimals = func(_ context.Context, _, currency string) (int32, error) {
			d, ok := money.CurrencyDecimals(currency)
			if !ok {
				return 0, errorf(ErrInvalid, "unknown currency %q", currency)
			}
			return d, nil
		}
	}
	if l.now == nil {
		l.now = time.Now
	}
	return l
}

// Store returns the ledger's store, for reads.
func (l *Ledger) Store() Store { return l.store }

// TransferRequest asks for a single-phase transfer or a pending one.
type TransferRequest struct {
	OperatorID string
	Currency   string
	// Key is the idempotency key, unique within the operator: a request
	// with the key of an earlier transfer and the same content returns
	// that transfer and moves nothing; with other content it is
	// ErrConflict.
	Key           string
	Debit, Credit AccountRef
	// Amount is positive, with at most the currency's decimals.
	Amount    money.Amount
	Code      string
	Reference string
}

// ResolveRequest asks to post or void the pending transfer PendingKey.
type ResolveRequest struct {
	OperatorID string
	// Key is the post's or void's own idempotency key.
	Key        string
	PendingKey string
	// Amount is what a post moves, at most the pending amount; zero
	// posts all of it (the rest of a partial post is released). A void
	// takes no amount.
	Amount money.Amount
	// Code and Reference default to the pending transfer's.
	Code      string
	Reference string
}

// maxKeyLength bounds idempotency keys, codes and references.
const maxKeyLength = 200

// maxAttempts bounds the reruns of a write that raced another for a key.
const maxAttempts = 5

// Transfer moves req.Amount from req.Debit to req.Credit at once. It
// returns the transfer and whether it was a replay. Errors: ErrInvalid,
// ErrInsufficientFunds (the debit is a bettor's and would take its
// available balance below zero), ErrConflict.
func (l *Ledger) Transfer(ctx context.Context, req TransferRequest) (Transfer, bool, error) {
	return l.open(ctx, Posted, req)
}

// Hold records a pending transfer: req.Amount is held on both accounts
// (it counts against the debit account's available balance) until a Post
// or Void. Results and errors are Transfer's.
func (l *Ledger) Hold(ctx context.Context, req TransferRequest) (Transfer, bool, error) {
	return l.open(ctx, Pending, req)
}

// Post moves req.Amount (all of it when zero) of the pending transfer
// req.PendingKey and releases its hold. A pending transfer is posted or
// voided once: another key for it is ErrAlreadyResolved. Errors also:
// ErrNotFound (no such pending transfer), ErrInvalid, ErrConflict.
func (l *Ledger) Post(ctx context.Context, req ResolveRequest) (Transfer, bool, error) {
	return l.resolve(ctx, PostPending, req)
}

// Void releases the hold of the pending transfer req.PendingKey; nothing
// moves. Errors are Post's.
func (l *Ledger) Void(ctx context.Context, req ResolveRequest) (Transfer, bool, error) {
	return l.resolve(ctx, VoidPending, req)
}

func checkText(name, v string, required bool) error {
	if required && v == "" {
		return errorf(ErrInvalid, "%s is required", name)
	}
	if len(v) > maxKeyLength {
		return errorf(ErrInvalid, "%s is longer than %d bytes", name, maxKeyLength)
	}
	if !utf8.ValidString(v) || strings.IndexFunc(v, unicode.IsControl) >= 0 {
		return errorf(ErrInvalid, "%s must be UTF-8 without control characters", name)
	}
	return nil
}

func checkRef(side string, r AccountRef) error {
	switch r.Kind {
	case KindBettor:
		return checkText(side+" bettor_id", r.BettorID, true)
	case KindHouse, KindFunding:
		if r.BettorID != "" {
			return errorf(ErrInvalid, "the %s account %s has no bettor", side, r.Kind)
		}
		return nil
	}
	return errorf(ErrInvalid, "unknown %s account kind %q", side, r.Kind)
}

// checkAmount refuses an amount below zero (or zero unless zeroOK) or with
// more decimals than the currency has.
func (l *Ledger) checkAmount(ctx context.Context, operatorID, currency string, a money.Amount, zeroOK bool) error {
	if a.IsNegative() || (a.IsZero() && !zeroOK) {
		return errorf(ErrInvalid, "the amount must be positive, got %s", a)
	}
	d, err := l.decimals(ctx, operatorID, currency)
	if err != nil {
		return err
	}
	if !a.FitsDecimals(d) {
		return errorf(ErrInvalid, "%s has more than the %d decimals of %s", a, d, currency)
	}
	return nil
}

func (l *Ledger) open(ctx context.Context, kind TransferKind, req TransferRequest) (Transfer, bool, error) {
	for _, c := range []struct {
		name, v string
	}{{"operator_id", req.OperatorID}, {"currency", req.Currency}, {"idempotency key", req.Key}, {"code", req.Code}} {
		if err := checkText(c.name, c.v, true); err != nil {
			return Transfer{}, false, err
		}
	}
	if err := checkText("reference", req.Reference, false); err != nil {
		return Transfer{}, false, err
	}
	if err := checkRef("debit", req.Debit); err != nil {
		return Transfer{}, false, err
	}
	if err := checkRef("credit", req.Credit); err != nil {
		return Transfer{}, false, err
	}
	if req.Debit == req.Credit {
		return Transfer{}, false, errorf(ErrInvalid, "the debit and credit accounts are the same")
	}
	if err := l.checkAmount(ctx, req.OperatorID, req.Currency, req.Amount, false); err != nil {
		return Transfer{}, false, err
	}
	now := l.now().UTC().Truncate(time.Microsecond)
	debit, credit := newAccount(req.OperatorID, req.Currency, req.Debit, now), newAccount(req.OperatorID, req.Currency, req.Credit, now)
	want := Transfer{ID: uuid.NewString(), OperatorID: req.OperatorID, Currency: req.Currency, Key: req.Key, Kind: kind,
		DebitAccountID: debit.ID, CreditAccountID: credit.ID, Amount: req.Amount, Code: req.Code, Reference: req.Reference, CreatedAt: now}
	// A missing bettor account holds nothing: it is not opened to be
	// debited (the debit is refused below), only to be credited.
	toOpen := []Account{credit}
	if !debit.MustNotGoNegative {
		toOpen = append(toOpen, debit)
	}
	t, replayed, err := l.write(ctx, toOpen, func(tx Tx) (Transfer, bool, error) {
		// The key is read under the accounts' locks: a concurrent request
		// with the same key has committed by then, and this one is its
		// replay (read before, it would be refused for the funds the
		// first one took).
		accounts, err := lockPair(ctx, tx, debit, credit)
		if err != nil {
			return Transfer{}, false, err
		}
		if prev, ok, err := tx.TransferByKey(ctx, req.OperatorID, req.Key); err != nil || ok {
			return replay(prev, want, err)
		}
		d, c := accounts[0], accounts[1]
		if d.MustNotGoNegative && d.Available().LessThan(req.Amount) {
			return Transfer{}, false, errorf(ErrInsufficientFunds, "the available balance %s is less than %s", d.Available(), req.Amount)
		}
		if err := tx.InsertTransfer(ctx, want); err != nil {
			return Transfer{}, false, err
		}
		if kind == Pending {
			d.DebitsPending = d.DebitsPending.Add(req.Amount)
			c.CreditsPending = c.CreditsPending.Add(req.Amount)
		} else if err := move(ctx, tx, &d, &c, want); err != nil {
			return Transfer{}, false, err
		}
		if err := updatePair(ctx, tx, d, c); err != nil {
			return Transfer{}, false, err
		}
		return want, false, nil
	})
	if errors.Is(err, ErrAccountsMissing) {
		// The debit is a bettor's account that was never opened: nothing
		// to debit, unless the key names an earlier transfer (then this
		// request is a conflict, as on a store that opens accounts in
		// the write).
		if prev, err := l.store.TransferByKey(ctx, req.OperatorID, req.Key); err == nil {
			return replay(prev, want, nil)
		} else if CodeOf(err) != ErrNotFound {
			return Transfer{}, false, fmt.Errorf("ledger: %w", err)
		}
		return Transfer{}, false, errorf(ErrInsufficientFunds, "the available balance 0 is less than %s", req.Amount)
	}
	return t, replayed, err
}

// resolve posts or voids (kind) the pending transfer req.PendingKey; see
// Post and Void for its results and errors.
func (l *Ledger) resolve(ctx context.Context, kind TransferKind, req ResolveRequest) (Transfer, bool, error) {
	if err := l.checkResolve(ctx, kind, req); err != nil {
		return Transfer{}, false, err
	}
	now := l.now().UTC().Truncate(time.Microsecond)
	return l.write(ctx, nil, func(tx Tx) (Transfer, bool, error) {
		pending, err := pendingByKey(ctx, tx, req.OperatorID, req.PendingKey)
		if err != nil {
			return Transfer{}, false, err
		}
		want, err := resolution(kind, req, pending, now)
		if err != nil {
			return Transfer{}, false, err
		}
		return commitResolution(ctx, tx, req.PendingKey, pending, want)
	})
}

// checkResolve checks a post's or void's request before its write: its
// texts, that a void has no amount, and that a post's amount suits the
// pending transfer's currency. Errors: ErrInvalid, and the store's
// failure to read the pending transfer (ErrNotFound when there is none).
func (l *Ledger) checkResolve(ctx context.Context, kind TransferKind, req ResolveRequest) error {
	for _, c := range []struct {
		name, v string
	}{{"operator_id", req.OperatorID}, {"idempotency key", req.Key}, {"pending transfer's key", req.PendingKey}} {
		if err := checkText(c.name, c.v, true); err != nil {
			return err
		}
	}
	if err := checkText("code", req.Code, false); err != nil {
		return err
	}
	if err := checkText("reference", req.Reference, false); err != nil {
		return err
	}
	if kind == VoidPending && !req.Amount.IsZero() {
		return errorf(ErrInvalid, "a void takes no amount")
	}
	if !req.Amount.IsZero() {
		// The pending transfer is immutable: its currency read here is
		// the one the write finds.
		pending, err := l.store.TransferByKey(ctx, req.OperatorID, req.PendingKey)
		if err != nil {
			return err
		}
		if err := l.checkAmount(ctx, req.OperatorID, pending.Currency, req.Amount, false); err != nil {
			return err
		}
	}
	return nil
}

// pendingByKey reads, in tx, the pending transfer a post or void names.
// Errors: ErrNotFound, ErrInvalid (the transfer is not a pending one),
// and tx's.
func pendingByKey(ctx context.Context, tx Tx, operatorID, key string) (Transfer, error) {
	pending, ok, err := tx.TransferByKey(ctx, operatorID, key)
	if err != nil {
		return Transfer{}, err
	}
	if !ok {
		return Transfer{}, errorf(ErrNotFound, "no transfer %q", key)
	}
	if pending.Kind != Pending {
		return Transfer{}, errorf(ErrInvalid, "transfer %q is %s, not pending", key, pending.Kind)
	}
	return pending, nil
}

// resolution is the transfer of kind (a post or void) that req asks for
// pending, created at now: between pending's accounts, of req's amount
// for a partial post and else all of pending's, with pending's code and
// reference unless req gives its own. An amount over pending's is
// ErrInvalid.
func resolution(kind TransferKind, req ResolveRequest, pending Transfer, now time.Time) (Transfer, error) {
	amount := req.Amount
	if kind == VoidPending || amount.IsZero() {
		amount = pending.Amount
	}
	if amount.GreaterThan(pending.Amount) {
		return Transfer{}, errorf(ErrInvalid, "the amount %s exceeds the pending %s", amount, pending.Amount)
	}
	want := Transfer{ID: uuid.NewString(), OperatorID: req.OperatorID, Currency: pending.Currency, Key: req.Key, Kind: kind,
		DebitAccountID: pending.DebitAccountID, CreditAccountID: pending.CreditAccountID, Amount: amount, PendingID: pending.ID,
		Code: req.Code, Reference: req.Reference, CreatedAt: now}
	if want.Code == "" {
		want.Code = pending.Code
	}
	if want.Reference == "" {
		want.Reference = pending.Reference
	}
	return want, nil
}

// commitResolution writes want, the post or void of pending (whose key is
// pendingKey), in tx: under the locks of pending's accounts it releases
// pending's hold and, for a post, moves want's amount. A key already used
// is a replay (or ErrConflict); a pending transfer already posted or
// voided is ErrAlreadyResolved.
func commitResolution(ctx context.Context, tx Tx, pendingKey string, pending, want Transfer) (Transfer, bool, error) {
	accounts, err := lockPair(ctx, tx, Account{ID: pending.DebitAccountID}, Account{ID: pending.CreditAccountID})
	if err != nil {
		return Transfer{}, false, err
	}
	// Under the locks, as in open: a concurrent request with this key
	// has committed, and this one is its replay.
	if prev, ok, err := tx.TransferByKey(ctx, want.OperatorID, want.Key); err != nil || ok {
		return replay(prev, want, err)
	}
	if res, ok, err := tx.Resolution(ctx, pending.ID); err != nil {
		return Transfer{}, false, err
	} else if ok {
		return Transfer{}, false, errorf(ErrAlreadyResolved, "transfer %q was already %s (%q)", pendingKey, res.Kind, res.Key)
	}
	d, c := accounts[0], accounts[1]
	if err := tx.InsertTransfer(ctx, want); err != nil {
		return Transfer{}, false, err
	}
	d.DebitsPending = d.DebitsPending.Sub(pending.Amount)
	c.CreditsPending = c.CreditsPending.Sub(pending.Amount)
	if want.Kind == PostPending {
		if err := move(ctx, tx, &d, &c, want); err != nil {
			return Transfer{}, false, err
		}
	}
	if err := updatePair(ctx, tx, d, c); err != nil {
		return Transfer{}, false, err
	}
	return want, false, nil
}

// write runs fn in a store transaction, again when it raced another
// writer for a key (the rerun finds the winner's transfer) or when the
// store asks for accounts to be opened first.
func (l *Ledger) write(ctx context.Context, accounts []Account, fn func(Tx) (Transfer, bool, error)) (Transfer, bool, error) {
	opened := false
	for attempt := 1; ; attempt++ {
		var out Transfer
		var replayed bool
		err := l.store.Write(ctx, func(tx Tx) error {
			var err error
			out, replayed, err = fn(tx)
			return err
		})
		if errors.Is(err, ErrAccountsMissing) && !opened && len(accounts) > 0 {
			if err := l.store.OpenAccounts(ctx, accounts); err != nil {
				return Transfer{}, false, fmt.Errorf("open accounts: %w", err)
			}
			opened = true
			continue
		}
		if errors.Is(err, ErrAccountsMissing) {
			// The accounts left unopened on purpose (see open).
			return Transfer{}, false, err
		}
		if errors.Is(err, ErrRaced) && attempt < maxAttempts {
			continue
		}
		if err != nil {
			var le *Error
			if errors.As(err, &le) {
				return Transfer{}, false, le
			}
			return Transfer{}, false, fmt.Errorf("ledger write: %w", err)
		}
		return out, replayed, nil
	}
}

// replay answers a request whose key names prev: prev itself when the
// request asks for the same movement, ErrConflict otherwise.
func replay(prev, want Transfer, err error) (Transfer, bool, error) {
	if err != nil {
		return Transfer{}, false, err
	}
	if prev.Kind != want.Kind || prev.Currency != want.Currency || prev.DebitAccountID != want.DebitAccountID ||
		prev.CreditAccountID != want.CreditAccountID || !prev.Amount.Equal(want.Amount) || prev.PendingID != want.PendingID ||
		prev.Code != want.Code || prev.Reference != want.Reference {
		return Transfer{}, false, errorf(ErrConflict, "the idempotency key %q was used for a different transfer", want.Key)
	}
	return prev, true, nil
}

// lockPair locks two accounts in ascending id order, so that writers
// never wait on each other in a cycle, and returns them in the order
// given. Only the accounts that keep a balance are locked (see
// Tx.LockAccounts); the house and funding accounts every stake, payout
// and deposit of an operator share are not, so writers of different
// bettors never queue on them.
func lockPair(ctx context.Context, tx Tx, a, b Account) ([2]Account, error) {
	swap := b.ID < a.ID
	if swap {
		a, b = b, a
	}
	got, err := tx.LockAccounts(ctx, []Account{a, b})
	if err != nil {
		return [2]Account{}, err
	}
	if len(got) != 2 {
		return [2]Account{}, fmt.Errorf("ledger: locked %d accounts of 2", len(got))
	}
	if swap {
		return [2]Account{got[1], got[0]}, nil
	}
	return [2]Account{got[0], got[1]}, nil
}

// move posts t's amount: the debit and credit entries, and the balances
// of the accounts that keep one (an entry on another account has no
// balance after it written: it is the sum of the account's entries).
func move(ctx context.Context, tx Tx, d, c *Account, t Transfer) error {
	d.Balance = d.Balance.Sub(t.Amount)
	c.Balance = c.Balance.Add(t.Amount)
	if err := tx.InsertEntry(ctx, Entry{AccountID: d.ID, TransferID: t.ID, Amount: t.Amount.Neg(), BalanceAfter: d.Balance, CreatedAt: t.CreatedAt},
		d.KeepsBalance()); err != nil {
		return err
	}
	return tx.InsertEntry(ctx, Entry{AccountID: c.ID, TransferID: t.ID, Amount: t.Amount, BalanceAfter: c.Balance, CreatedAt: t.CreatedAt},
		c.KeepsBalance())
}

// updatePair writes the balances of those of d and c that keep one.
func updatePair(ctx context.Context, tx Tx, d, c Account) error {
	for _, a := range []Account{d, c} {
		if !a.KeepsBalance() {
			continue
		}
		if err := tx.UpdateBalances(ctx, a); err != nil {
			return err
		}
	}
	return nil
}
