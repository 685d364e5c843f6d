package ledger

import (
	"context"
	"errors"
)

// Store is what the ledger needs of a database. The rules live in this
// package and run inside Write; a store only reads, locks and appends.
type Store interface {
	// Write runs fn in one write transaction: fn's writes commit together
	// when it returns nil, and none of them does when it returns an error
	// (an *Error included), which Write returns. When two writers raced
	// for an idempotency key or a pending transfer's resolution, Write
	// returns ErrRaced, and the ledger runs fn again.
	Write(ctx context.Context, fn func(Tx) error) error
	// Snapshot runs fn over one consistent view of the whole ledger.
	Snapshot(ctx context.Context, fn func(Snapshot) error) error
	// Account returns the account id; ErrNotFound (an *Error) when it
	// was never opened. The balances of an account that keeps none (see
	// Account.KeepsBalance) are computed: the sum of its entries, and of
	// its open pending transfers on either side. Snapshot's Accounts
	// reads them the same way.
	Account(ctx context.Context, id string) (Account, error)
	// TransferByKey returns the transfer of the operator's key;
	// ErrNotFound when there is none.
	TransferByKey(ctx context.Context, operatorID, key string) (Transfer, error)
	// OpenAccounts creates the accounts that do not exist yet, each as
	// given, in a transaction of its own.
	OpenAccounts(ctx context.Context, accounts []Account) error
	// Statement returns the account's entries after seq afterSeq, oldest
	// first, at most limit of them, with their transfer's code,
	// reference and key. An entry written without its balance after
	// (InsertEntry) has it computed, here and in Snapshot's Entries.
	Statement(ctx context.Context, accountID string, afterSeq int64, limit int) ([]Entry, error)
	// TransferEntries returns the entries of the transfer id (none for a
	// pending transfer or a void), in Seq order, with the transfer's code,
	// reference and key. The BalanceAfter of an entry on an account that
	// keeps no balance (house, funding) is not computed here, where it
	// would sum every earlier entry of the account for each call: it is
	// zero (Statement has it).
	TransferEntries(ctx context.Context, transferID string) ([]Entry, error)
}

// Tx is a write transaction of a Store.
type Tx interface {
	// TransferByKey returns the transfer of the operator's key, if any.
	TransferByKey(ctx context.Context, operatorID, key string) (Transfer, bool, error)
	// TransferByID returns the transfer id, if any.
	TransferByID(ctx context.Context, id string) (Transfer, bool, error)
	// Resolution returns the post or void of the pending transfer
	// pendingID, if any.
	Resolution(ctx context.Context, pendingID string) (Transfer, bool, error)
	// LockAccounts returns the accounts as stored, in the order given;
	// callers give them in ascending id order. Those that keep a balance
	// are locked against other writers until the transaction ends; the
	// others are not locked, and their balances are not read (they are
	// neither checked nor written by a transfer). For an account that does not exist yet
	// it either opens it (as given) or returns ErrAccountsMissing, after
	// which the ledger opens them with Store.OpenAccounts, outside any
	// write, and runs the write again: opening a row while holding
	// another's lock would take locks out of id order.
	LockAccounts(ctx context.Context, accounts []Account) ([]Account, error)
	// InsertTransfer appends a transfer; ErrRaced when its key or its
	// pending transfer's resolution is taken.
	InsertTransfer(ctx context.Context, t Transfer) error
	// InsertEntry appends an entry; the store assigns Seq. It writes
	// e.BalanceAfter when withBalance (the account keeps its balance),
	// none otherwise.
	InsertEntry(ctx context.Context, e Entry, withBalance bool) error
	// UpdateBalances writes the Balance, DebitsPending and CreditsPending
	// of an account that keeps a balance.
	UpdateBalances(ctx context.Context, a Account) error
}

// Snapshot reads the ledger as of one moment: an account, a statement,
// or the whole ledger, each kind in ascending order (accounts by id,
// transfers by time, entries by Seq). Reads that must agree with each
// other (a report's balances and sums) are made in one Snapshot: on
// PostgreSQL the entries of accounts that keep no balance (house,
// funding) take their Seq when written, not when committed, so separate
// reads may see a later entry before an earlier one commits.
type Snapshot interface {
	// Account and Statement are Store's, as of the snapshot.
	Account(ctx context.Context, id string) (Account, error)
	Statement(ctx context.Context, accountID string, afterSeq int64, limit int) ([]Entry, error)
	Accounts(ctx context.Context, fn func(Account) error) error
	Transfers(ctx context.Context, fn func(Transfer) error) error
	Entries(ctx context.Context, fn func(Entry) error) error
}

// ErrRaced is a store's answer when a concurrent writer took the same
// idempotency key, or resolved the same pending transfer, first.
var ErrRaced = errors.New("ledger: a concurrent writer took the key first")

// ErrAccountsMissing is a Tx's answer when an account it was asked to lock
// does not exist yet.
var ErrAccountsMissing = errors.New("ledger: accounts to open first")
