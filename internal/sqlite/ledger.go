package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"math"

	"github.com/foresight-dev/foresight/internal/ledger"
	"github.com/foresight-dev/foresight/internal/money"
	"github.com/foresight-dev/foresight/internal/rowscan"
)

// LedgerStore returns the ledger's store. Its writes join the one
// writer's batches (group commit), each in a savepoint of its own, so a
// refused transfer leaves the batch's other writes alone; the one writer
// orders every transfer, so no lock is needed for the non-negative check.
// As on PostgreSQL, only bettors' account rows keep their balances; the
// house and funding accounts' are summed from their entries and pending
// transfers when read (in Go: amounts are exact decimals in TEXT).
func (d *DB) LedgerStore() ledger.Store { return ledgerStore{d} }

type ledgerStore struct{ d *DB }

const (
	ledgerAccountColumns  = `id, operator_id, currency, kind, bettor_id, must_not_go_negative, balance, debits_pending, credits_pending, created_at`
	ledgerTransferColumns = `id, operator_id, idempotency_key, currency, kind, debit_account_id, credit_account_id, amount, pending_id, code, reference, created_at`

	ledgerTransferByKeySQL = `SELECT ` + ledgerTransferColumns + ` FROM ledger_transfers WHERE operator_id = ? AND idempotency_key = ?`
	ledgerTransferByIDSQL  = `SELECT ` + ledgerTransferColumns + ` FROM ledger_transfers WHERE id = ?`
	ledgerResolutionSQL    = `SELECT ` + ledgerTransferColumns + ` FROM ledger_transfers WHERE pending_id = ?`
	ledgerAccountSQL       = `SELECT ` + ledgerAccountColumns + ` FROM ledger_accounts WHERE id = ?`
	ledgerOpenAccountSQL   = `INSERT INTO ledger_accounts (id, operator_id, currency, kind, bettor_id, must_not_go_negative, created_at)
		VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT (id) DO NOTHING`
	ledgerInsertTransferSQL = `INSERT INTO ledger_transfers (` + ledgerTransferColumns + `) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`
	ledgerInsertEntrySQL    = `INSERT INTO ledger_entries (account_id, transfer_id, amount, balance_after, created_at) VALUES (?, ?, ?, ?, ?)`
	ledgerUpdateBalancesSQL = `UPDATE ledger_accounts SET balance = ?, debits_pending = ?, credits_pending = ? WHERE id = ?`
)

// ledgerWriteStatements are prepared when the database opens.
var ledgerWriteStatements = []string{ledgerTransferByKeySQL, ledgerTransferByIDSQL, ledgerResolutionSQL, ledgerAccountSQL,
	ledgerOpenAccountSQL, ledgerInsertTransferSQL, ledgerInsertEntrySQL, ledgerUpdateBalancesSQL}

func (s ledgerStore) Write(ctx context.Context, fn func(ledger.Tx) error) error {
	return s.d.write(ctx, func(ctx context.Context, tx *writeTx) (error, error) {
		if _, err := tx.tx.ExecContext(ctx, `SAVEPOINT ledger_write`); err != nil {
			return nil, err
		}
		ferr := fn(ledgerTx{tx})
		if ferr != nil {
			if _, err := tx.tx.ExecContext(ctx, `ROLLBACK TO ledger_write`); err != nil {
				return nil, fmt.Errorf("roll back a refused ledger write: %w", err)
			}
		}
		if _, err := tx.tx.ExecContext(ctx, `RELEASE ledger_write`); err != nil {
			return nil, err
		}
		return ferr, nil
	})
}

type ledgerTx struct{ t *writeTx }

func (x ledgerTx) transfer(ctx context.Context, query string, args ...any) (ledger.Transfer, bool, error) {
	return rowscan.Found(rowscan.LedgerTransfer(x.t.queryRow(ctx, query, args...)))
}

func (x ledgerTx) TransferByKey(ctx context.Context, operatorID, key string) (ledger.Transfer, bool, error) {
	return x.transfer(ctx, ledgerTransferByKeySQL, operatorID, key)
}

func (x ledgerTx) TransferByID(ctx context.Context, id string) (ledger.Transfer, bool, error) {
	return x.transfer(ctx, ledgerTransferByIDSQL, id)
}

func (x ledgerTx) Resolution(ctx context.Context, pendingID string) (ledger.Transfer, bool, error) {
	return x.transfer(ctx, ledgerResolutionSQL, pendingID)
}

// LockAccounts opens the missing accounts; the one writer is the lock.
func (x ledgerTx) LockAccounts(ctx context.Context, accounts []ledger.Account) ([]ledger.Account, error) {
	out := make([]ledger.Account, len(accounts))
	for i, a := range accounts {
		got, err := rowscan.LedgerAccount(x.t.queryRow(ctx, ledgerAccountSQL, a.ID))
		if errors.Is(err, sql.ErrNoRows) && a.OperatorID != "" {
			if _, err := x.t.exec(ctx, ledgerOpenAccountSQL, a.ID, a.OperatorID, a.Currency, string(a.Kind), a.BettorID,
				a.MustNotGoNegative, micros(a.CreatedAt)); err != nil {
				return nil, fmt.Errorf("open account: %w", err)
			}
			got, err = rowscan.LedgerAccount(x.t.queryRow(ctx, ledgerAccountSQL, a.ID))
		}
		if err != nil {
			return nil, fmt.Errorf("account %s: %w", a.ID, err)
		}
		out[i] = got
	}
	return out, nil
}

func (x ledgerTx) InsertTransfer(ctx context.Context, t ledger.Transfer) error {
	_, err := x.t.exec(ctx, ledgerInsertTransferSQL, t.ID, t.OperatorID, t.Key, t.Currency, string(t.Kind), t.DebitAccountID,
		t.CreditAccountID, t.Amount.String(), sql.NullString{String: t.PendingID, Valid: t.PendingID != ""}, t.Code, t.Reference, micros(t.CreatedAt))
	if isUniqueViolation(err) {
		return ledger.ErrRaced
	}
	return err
}

func (x ledgerTx) InsertEntry(ctx context.Context, e ledger.Entry, withBalance bool) error {
	after := sql.NullString{String: e.BalanceAfter.String(), Valid: withBalance}
	_, err := x.t.exec(ctx, ledgerInsertEntrySQL, e.AccountID, e.TransferID, e.Amount.String(), after, micros(e.CreatedAt))
	return err
}

func (x ledgerTx) UpdateBalances(ctx context.Context, a ledger.Account) error {
	_, err := x.t.exec(ctx, ledgerUpdateBalancesSQL, a.Balance.String(), a.DebitsPending.String(), a.CreditsPending.String(), a.ID)
	return err
}

// ledgerQuery is a reader's or a read transaction's query.
type ledgerQuery func(ctx context.Context, query string, args ...any) (*sql.Rows, error)

// sumLedgerAmounts sums the amount column (the first) of query's rows.
func sumLedgerAmounts(ctx context.Context, q ledgerQuery, query string, args ...any) (money.Amount, error) {
	rows, err := q(ctx, query, args...)
	if err != nil {
		return money.Amount{}, err
	}
	defer rows.Close()
	sum := money.Zero()
	err = rowscan.Each(rows, func(row rowscan.Row) error {
		var s string
		if err := row.Scan(&s); err != nil {
			return err
		}
		a, err := parseStored(s)
		sum = sum.Add(a)
		return err
	})
	return sum, err
}

const (
	ledgerEntrySumSQL    = `SELECT amount FROM ledger_entries WHERE account_id = ? AND seq <= ?`
	ledgerOpenPendingSQL = `SELECT p.amount FROM ledger_transfers p WHERE p.%s = ? AND p.kind = 'pending'
		AND NOT EXISTS (SELECT 1 FROM ledger_transfers r WHERE r.pending_id = p.id)`
)

// deriveBalances computes the balances of an account that keeps none:
// its entries' sum and its open pending transfers'.
func deriveBalances(ctx context.Context, q ledgerQuery, a *ledger.Account) error {
	if a.KeepsBalance() {
		return nil
	}
	var err error
	if a.Balance, err = sumLedgerAmounts(ctx, q, ledgerEntrySumSQL, a.ID, int64(math.MaxInt64)); err != nil {
		return err
	}
	if a.DebitsPending, err = sumLedgerAmounts(ctx, q, fmt.Sprintf(ledgerOpenPendingSQL, "debit_account_id"), a.ID); err != nil {
		return err
	}
	a.CreditsPending, err = sumLedgerAmounts(ctx, q, fmt.Sprintf(ledgerOpenPendingSQL, "credit_account_id"), a.ID)
	return err
}

func (s ledgerStore) Account(ctx context.Context, id string) (ledger.Account, error) {
	return s.reads().account(ctx, id)
}

// ledgerReads runs the reads of Account, Statement and TransferEntries:
// on the reader pool, or in a snapshot's transaction (one connection,
// whose result sets are each closed before the next query).
type ledgerReads struct {
	query    ledgerQuery
	queryRow func(ctx context.Context, query string, args ...any) *sql.Row
}

// reads returns the reads on the reader pool.
func (s ledgerStore) reads() ledgerReads {
	return ledgerReads{query: s.d.reader.query, queryRow: s.d.reader.queryRow}
}

func (r ledgerReads) account(ctx context.Context, id string) (ledger.Account, error) {
	a, err := rowscan.LedgerAccount(r.queryRow(ctx, ledgerAccountSQL, id))
	if err != nil {
		return ledger.Account{}, rowscan.LedgerNotFound(err, "account", id)
	}
	return a, deriveBalances(ctx, r.query, &a)
}

// statementEntries reads the entries of query, each with its transfer's
// code, reference and key; with runningBalances (the entries of one
// account in order), one written without its balance after gets the
// balance after the entry before it plus its amount, the first such
// entry of the page the sum of its account's entries up to it: one sum
// per page, not one per entry (else it reads zero).
func (r ledgerReads) statementEntries(ctx context.Context, runningBalances bool, query string, args ...any) ([]ledger.Entry, error) {
	rows, err := r.query(ctx, query, args...)
	if err != nil {
		return nil, err
	}
	out := []ledger.Entry{}
	var kept []bool
	err = rowscan.Each(rows, func(row rowscan.Row) error {
		e, k, err := rowscan.LedgerStatementEntry(row)
		out, kept = append(out, e), append(kept, k)
		return err
	})
	// Closed before the sums below, which take a reader connection too.
	rows.Close()
	if err != nil {
		return nil, err
	}
	if !runningBalances {
		return out, nil
	}
	for i := range out {
		switch {
		case kept[i]:
		case i > 0:
			out[i].BalanceAfter = out[i-1].BalanceAfter.Add(out[i].Amount)
		default:
			if out[i].BalanceAfter, err = sumLedgerAmounts(ctx, r.query, ledgerEntrySumSQL, out[i].AccountID, out[i].Seq); err != nil {
				return nil, err
			}
		}
	}
	return out, nil
}

func (s ledgerStore) TransferByKey(ctx context.Context, operatorID, key string) (ledger.Transfer, error) {
	t, err := rowscan.LedgerTransfer(s.d.reader.queryRow(ctx, ledgerTransferByKeySQL, operatorID, key))
	return t, rowscan.LedgerNotFound(err, "transfer", key)
}

// OpenAccounts opens the missing accounts in a write of its own.
func (s ledgerStore) OpenAccounts(ctx context.Context, accounts []ledger.Account) error {
	return s.d.write(ctx, func(ctx context.Context, tx *writeTx) (error, error) {
		for _, a := range accounts {
			if _, err := tx.exec(ctx, ledgerOpenAccountSQL, a.ID, a.OperatorID, a.Currency, string(a.Kind), a.BettorID,
				a.MustNotGoNegative, micros(a.CreatedAt)); err != nil {
				return nil, fmt.Errorf("open account: %w", err)
			}
		}
		return nil, nil
	})
}

func (s ledgerStore) Statement(ctx context.Context, accountID string, afterSeq int64, limit int) ([]ledger.Entry, error) {
	return s.reads().statement(ctx, accountID, afterSeq, limit)
}

func (r ledgerReads) statement(ctx context.Context, accountID string, afterSeq int64, limit int) ([]ledger.Entry, error) {
	return r.statementEntries(ctx, true, `SELECT e.seq, e.account_id, e.transfer_id, e.amount, e.balance_after, e.created_at, t.code, t.reference, t.idempotency_key
		FROM ledger_entries e JOIN ledger_transfers t ON t.id = e.transfer_id
		WHERE e.account_id = ? AND e.seq > ? ORDER BY e.seq LIMIT ?`, accountID, afterSeq, limit)
}

func (s ledgerStore) TransferEntries(ctx context.Context, transferID string) ([]ledger.Entry, error) {
	return s.reads().statementEntries(ctx, false, `SELECT e.seq, e.account_id, e.transfer_id, e.amount, e.balance_after, e.created_at, t.code, t.reference, t.idempotency_key
		FROM ledger_entries e JOIN ledger_transfers t ON t.id = e.transfer_id
		WHERE e.transfer_id = ? ORDER BY e.seq`, transferID)
}

// Snapshot reads in one read transaction of a reader connection: in WAL
// mode it sees the database as of its first read, whatever commits later.
func (s ledgerStore) Snapshot(ctx context.Context, fn func(ledger.Snapshot) error) error {
	tx, err := s.d.reader.db.BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
	if err != nil {
		return err
	}
	defer tx.Rollback()
	return fn(ledgerSnapshot{tx})
}

type ledgerSnapshot struct{ tx *sql.Tx }

// reads returns the reads in the snapshot's transaction.
func (s ledgerSnapshot) reads() ledgerReads {
	return ledgerReads{query: s.tx.QueryContext, queryRow: s.tx.QueryRowContext}
}

func (s ledgerSnapshot) Account(ctx context.Context, id string) (ledger.Account, error) {
	return s.reads().account(ctx, id)
}

func (s ledgerSnapshot) Statement(ctx context.Context, accountID string, afterSeq int64, limit int) ([]ledger.Entry, error) {
	return s.reads().statement(ctx, accountID, afterSeq, limit)
}

func (s ledgerSnapshot) each(ctx context.Context, query string, fn func(rowscan.Row) error) error {
	rows, err := s.tx.QueryContext(ctx, query)
	if err != nil {
		return err
	}
	defer rows.Close()
	return rowscan.Each(rows, fn)
}

func (s ledgerSnapshot) Accounts(ctx context.Context, fn func(ledger.Account) error) error {
	var derived []ledger.Account
	if err := s.each(ctx, `SELECT `+ledgerAccountColumns+` FROM ledger_accounts ORDER BY id`, func(r rowscan.Row) error {
		a, err := rowscan.LedgerAccount(r)
		if err != nil {
			return err
		}
		// Derived after the scan: a read transaction has one connection.
		derived = append(derived, a)
		return nil
	}); err != nil {
		return err
	}
	for _, a := range derived {
		if err := deriveBalances(ctx, s.reads().query, &a); err != nil {
			return err
		}
		if err := fn(a); err != nil {
			return err
		}
	}
	return nil
}

func (s ledgerSnapshot) Transfers(ctx context.Context, fn func(ledger.Transfer) error) error {
	return s.each(ctx, `SELECT `+ledgerTransferColumns+` FROM ledger_transfers ORDER BY rowid`, rowscan.Calling(rowscan.LedgerTransfer, fn))
}

func (s ledgerSnapshot) Entries(ctx context.Context, fn func(ledger.Entry) error) error {
	return s.each(ctx, `SELECT seq, account_id, transfer_id, amount, balance_after, created_at FROM ledger_entries ORDER BY seq`,
		rowscan.EveryLedgerEntry(fn))
}
