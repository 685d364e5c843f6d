package rowscan

import (
	"github.com/foresight-dev/foresight/internal/ledger"
	"github.com/foresight-dev/foresight/internal/money"
)

// The ledger's rows. Each engine selects the columns in the order given,
// amounts as text (NUMERIC cast to text on PostgreSQL).

// LedgerNotFound returns err, or the ledger's ErrNotFound naming what and
// id ("no account <id>") when err is the error of no row (sql.ErrNoRows,
// which pgx's ErrNoRows also is).
func LedgerNotFound(err error, what, id string) error {
	return noRowAs(err, func() error { return &ledger.Error{Code: ledger.ErrNotFound, Message: "no " + what + " " + id} })
}

// LedgerAccount reads an account from id, operator_id, currency, kind,
// bettor_id, must_not_go_negative, balance, debits_pending,
// credits_pending, created_at.
func LedgerAccount(row Row) (ledger.Account, error) {
	var a ledger.Account
	var kind string
	if err := row.Scan(&a.ID, &a.OperatorID, &a.Currency, &kind, &a.BettorID, &a.MustNotGoNegative,
		&a.Balance, &a.DebitsPending, &a.CreditsPending, Time(&a.CreatedAt)); err != nil {
		return ledger.Account{}, err
	}
	a.Kind = ledger.AccountKind(kind)
	return a, nil
}

// LedgerTransfer reads a transfer from id, operator_id, idempotency_key,
// currency, kind, debit_account_id, credit_account_id, amount,
// pending_id (NULL or "" for none), code, reference, created_at.
func LedgerTransfer(row Row) (ledger.Transfer, error) {
	var t ledger.Transfer
	var kind string
	if err := row.Scan(&t.ID, &t.OperatorID, &t.Key, &t.Currency, &kind, &t.DebitAccountID, &t.CreditAccountID, &t.Amount,
		Text(&t.PendingID), &t.Code, &t.Reference, Time(&t.CreatedAt)); err != nil {
		return ledger.Transfer{}, err
	}
	t.Kind = ledger.TransferKind(kind)
	return t, nil
}

// LedgerEntry reads an entry from seq, account_id, transfer_id, amount,
// balance_after, created_at, and then into extra. kept says balance_after
// was not NULL; when it was, BalanceAfter is zero, for the caller to
// compute.
func LedgerEntry(row Row, extra ...any) (e ledger.Entry, kept bool, err error) {
	var after string
	if err := row.Scan(append([]any{&e.Seq, &e.AccountID, &e.TransferID, &e.Amount, Text(&after), Time(&e.CreatedAt)}, extra...)...); err != nil {
		return ledger.Entry{}, false, err
	}
	if after == "" {
		return e, false, nil
	}
	e.BalanceAfter, err = amount(after)
	return e, true, err
}

// LedgerStatementEntry reads an entry as LedgerEntry does, followed by
// its transfer's code, reference and idempotency_key.
func LedgerStatementEntry(row Row) (ledger.Entry, bool, error) {
	var code, ref, key string
	e, kept, err := LedgerEntry(row, &code, &ref, &key)
	e.Code, e.Reference, e.Key = code, ref, key
	return e, kept, err
}

// amount parses an amount stored as text.
func amount(s string) (money.Amount, error) {
	var a money.Amount
	return a, a.Scan(s)
}

// EveryLedgerEntry returns the fn of Each for the rows of every entry of
// the ledger in seq order, read as LedgerEntry reads them: it calls fn
// with each entry, one written without its balance after (an account
// that keeps none) with the running sum of its account's entries.
func EveryLedgerEntry(fn func(ledger.Entry) error) func(Row) error {
	sums := map[string]money.Amount{}
	return func(row Row) error {
		e, kept, err := LedgerEntry(row)
		if err != nil {
			return err
		}
		sums[e.AccountID] = sums[e.AccountID].Add(e.Amount)
		if !kept {
			e.BalanceAfter = sums[e.AccountID]
		}
		return fn(e)
	}
}
