// Package ledger is the double-entry ledger that holds bettors' money for
// the operators whose balances Foresight keeps (the bundled path).
//
// Accounts belong to an operator and a currency: one per bettor, the
// operator's house account and its funding account (cash in and out of the
// operator's own payment system). Every movement is a Transfer from a debit
// account to a credit account, named by an idempotency key unique within
// the operator. A posted transfer writes two entries (the amount taken from
// the debit account and given to the credit account), so a currency's
// entries always sum to zero. Entries and transfers are append-only. A
// bettor's account row keeps its balance and held amount for the
// non-negative check, locked and written in the same transaction as the
// entries that explain it, and Verify recomputes them from those. The
// house and funding accounts, which may go below zero and which every
// bet of their operator moves, keep no balance row: their balances and
// held amounts are read as the sum of their entries and open pending
// transfers, so that concurrent bets of different bettors never queue on
// one row (docs/decisions.md, "The ledger": "The house and funding
// accounts keep no balance row").
//
// Two-phase transfers follow TigerBeetle: a pending transfer holds its
// amount (it counts against the debit account's available balance and
// moves nothing), then one post moves some or all of it or one void
// releases it. docs/decisions.md ("The ledger") says why and how.
package ledger

import (
	"time"

	"github.com/google/uuid"

	"github.com/foresight-dev/foresight/internal/domainerror"
	"github.com/foresight-dev/foresight/internal/money"
)

// AccountKind is what an account is for.
type AccountKind string

// Account kinds.
const (
	// KindBettor holds a bettor's money. Its available balance (balance
	// less held amounts) never goes below zero.
	KindBettor AccountKind = "bettor"
	// KindHouse is the operator's side of the bets: stakes come in,
	// payouts go out. It may go below zero (a run of winning bettors).
	KindHouse AccountKind = "house"
	// KindFunding is the operator's cash in and out: deposits are taken
	// from it, withdrawals given back to it. Its balance is minus the net
	// cash the bettors brought in, so it is usually below zero.
	KindFunding AccountKind = "funding"
)

// AccountRef names an account within a transfer's operator and currency.
type AccountRef struct {
	Kind AccountKind `json:"kind"`
	// BettorID is the bettor of a KindBettor account, empty otherwise.
	BettorID string `json:"bettor_id,omitempty"`
}

// Bettor is the account of bettor id.
func Bettor(id string) AccountRef { return AccountRef{Kind: KindBettor, BettorID: id} }

// House is the operator's house account.
func House() AccountRef { return AccountRef{Kind: KindHouse} }

// Funding is the operator's funding account.
func Funding() AccountRef { return AccountRef{Kind: KindFunding} }

// accountNamespace derives account ids (UUIDv5), so that an account's id
// is known before it exists and concurrent writers lock accounts in one
// order.
var accountNamespace = uuid.MustParse("5b0e8f2c-3f57-4c61-9a43-7d1f1b2c6e10")

// AccountID returns the id of ref's account of operatorID in currency.
func AccountID(operatorID, currency string, ref AccountRef) string {
	return uuid.NewSHA1(accountNamespace, []byte(operatorID+"\x00"+currency+"\x00"+string(ref.Kind)+"\x00"+ref.BettorID)).String()
}

// Account is an account with its balances. Balance is the posted balance:
// credits less debits of its entries. DebitsPending and CreditsPending are
// the amounts of its open pending transfers on either side.
type Account struct {
	ID         string       `json:"id"`
	OperatorID string       `json:"operator_id"`
	Currency   string       `json:"currency"`
	Kind       AccountKind  `json:"kind"`
	BettorID   string       `json:"bettor_id,omitempty"`
	Balance    money.Amount `json:"balance"`
	// DebitsPending is held: it counts against Available.
	DebitsPending  money.Amount `json:"debits_pending"`
	CreditsPending money.Amount `json:"credits_pending"`
	// MustNotGoNegative is set on bettor accounts: a debit or hold that
	// would take Available below zero is refused.
	MustNotGoNegative bool      `json:"must_not_go_negative"`
	CreatedAt         time.Time `json:"created_at"`
}

// Available is the balance less the held debits.
func (a Account) Available() money.Amount { return a.Balance.Sub(a.DebitsPending) }

// KeepsBalance reports whether the account's row keeps its balance and
// held amounts, written under its lock with every transfer: a bettor's
// account, which must not go below zero. The others' are derived from
// their entries and pending transfers when read.
func (a Account) KeepsBalance() bool { return a.MustNotGoNegative }

// newAccount is the empty account ref names.
func newAccount(operatorID, currency string, ref AccountRef, now time.Time) Account {
	return Account{ID: AccountID(operatorID, currency, ref), OperatorID: operatorID, Currency: currency, Kind: ref.Kind,
		BettorID: ref.BettorID, MustNotGoNegative: ref.Kind == KindBettor, CreatedAt: now}
}

// TransferKind is the phase a transfer is.
type TransferKind string

// Transfer kinds.
const (
	// Posted moves the amount at once (single phase).
	Posted TransferKind = "posted"
	// Pending holds the amount on both accounts and moves nothing.
	Pending TransferKind = "pending"
	// PostPending moves some or all of a pending transfer's amount and
	// releases the rest of the hold.
	PostPending TransferKind = "post_pending"
	// VoidPending releases a pending transfer's hold.
	VoidPending TransferKind = "void_pending"
)

// Transfer is one movement, as recorded. Transfers are never changed.
type Transfer struct {
	ID         string       `json:"id"`
	OperatorID string       `json:"operator_id"`
	Currency   string       `json:"currency"`
	Key        string       `json:"idempotency_key"`
	Kind       TransferKind `json:"kind"`
	// DebitAccountID and CreditAccountID are the accounts; a post or void
	// has its pending transfer's.
	DebitAccountID  string `json:"debit_account_id"`
	CreditAccountID string `json:"credit_account_id"`
	// Amount is what moved (Posted, PostPending) or was held (Pending);
	// a void records the amount it released.
	Amount money.Amount `json:"amount"`
	// PendingID is the pending transfer a post or void resolves.
	PendingID string `json:"pending_id,omitempty"`
	// Code says what the movement is (deposit, withdrawal, stake,
	// payout, refund, adjustment); Reference what it is about (a bet id,
	// a payment reference).
	Code      string    `json:"code"`
	Reference string    `json:"reference,omitempty"`
	CreatedAt time.Time `json:"created_at"`
}

// Entry is one side of a posted movement on one account: Amount is
// positive for a credit and negative for a debit, BalanceAfter the
// account's posted balance after it (the sum of the account's entries up
// to it). Seq orders an account's entries. The store writes BalanceAfter
// only for accounts that keep a balance; for the others it computes it
// when it reads the entry.
type Entry struct {
	Seq          int64        `json:"seq"`
	AccountID    string       `json:"account_id"`
	TransferID   string       `json:"transfer_id"`
	Amount       money.Amount `json:"amount"`
	BalanceAfter money.Amount `json:"balance_after"`
	CreatedAt    time.Time    `json:"created_at"`
	// Code, Reference and Key are the transfer's, filled by statement
	// reads.
	Code      string `json:"code,omitempty"`
	Reference string `json:"reference,omitempty"`
	Key       string `json:"idempotency_key,omitempty"`
}

// ErrorCode is a ledger error's kind.
type ErrorCode string

// Error codes.
const (
	// ErrInvalid: the request is malformed (amount, currency, accounts).
	ErrInvalid ErrorCode = "invalid_request"
	// ErrInsufficientFunds: the debit would take a bettor's available
	// balance below zero.
	ErrInsufficientFunds ErrorCode = "insufficient_funds"
	// ErrConflict: the idempotency key names an earlier transfer with
	// different content.
	ErrConflict ErrorCode = "conflict"
	// ErrNotFound: no such account or transfer (a post or void of an
	// unknown pending transfer).
	ErrNotFound ErrorCode = "not_found"
	// ErrAlreadyResolved: the pending transfer was already posted or
	// voided under another key.
	ErrAlreadyResolved ErrorCode = "already_resolved"
)

// Error is a ledger error the caller can act on; anything else is a
// storage failure. It has the platform's one error shape (package
// domainerror, as betting.Error and tickets.Error): a code, a client-safe
// message and the cause. The ledger never sets RetryAfter.
type Error = domainerror.Error[ErrorCode]

func errorf(code ErrorCode, format string, args ...any) *Error {
	return domainerror.Errorf(code, format, args...)
}

// CodeOf returns err's ErrorCode, empty when err is not an *Error.
func CodeOf(err error) ErrorCode { return domainerror.CodeOf[ErrorCode](err, "") }
