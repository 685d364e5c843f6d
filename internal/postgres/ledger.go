package postgres

import (
	"context"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/foresight-dev/foresight/internal/ledger"
	"github.com/foresight-dev/foresight/internal/rowscan"
)

// LedgerStore returns the ledger's store. A write is one READ COMMITTED
// transaction that locks the rows of its accounts that keep a balance
// (bettors': SELECT … FOR UPDATE, in id order) before it checks and
// changes their balances, so concurrent writers on any number of nodes
// queue on a bettor's account instead of overdrawing it (docs/decisions.md,
// "The ledger"). The house and funding accounts are not locked: their
// balances are summed from their entries when read.
func (d *DB) LedgerStore() ledger.Store { return ledgerStore{d} }

type ledgerStore struct{ d *DB }

const (
	pgLedgerAccountColumns = `id::text, operator_id, currency, kind, bettor_id, must_not_go_negative, balance::text, debits_pending::text,
		credits_pending::text, created_at`
	pgLedgerTransferColumns = `id::text, operator_id, idempotency_key, currency, kind, debit_account_id::text, credit_account_id::text,
		amount::text, coalesce(pending_id::text, ''), code, reference, created_at`
	pgLedgerEntryColumns = `seq, account_id::text, transfer_id::text, amount::text, balance_after::text, created_at`

	// pgLedgerAccountRead reads accounts (as a) with their balances: the
	// row's for an account that keeps them, else its entries' sum and its
	// open pending transfers'.
	pgLedgerAccountRead = `SELECT a.id::text, a.operator_id, a.currency, a.kind, a.bettor_id, a.must_not_go_negative,
		CASE WHEN a.must_not_go_negative THEN a.balance
			ELSE (SELECT coalesce(sum(e.amount), 0) FROM ledger_entries e WHERE e.account_id = a.id) END::text,
		CASE WHEN a.must_not_go_negative THEN a.debits_pending
			ELSE (SELECT coalesce(sum(p.amount), 0) FROM ledger_transfers p WHERE p.debit_account_id = a.id AND p.kind = 'pending'
				AND NOT EXISTS (SELECT 1 FROM ledger_transfers r WHERE r.pending_id = p.id)) END::text,
		CASE WHEN a.must_not_go_negative THEN a.credits_pending
			ELSE (SELECT coalesce(sum(p.amount), 0) FROM ledger_transfers p WHERE p.credit_account_id = a.id AND p.kind = 'pending'
				AND NOT EXISTS (SELECT 1 FROM ledger_transfers r WHERE r.pending_id = p.id)) END::text,
		a.created_at
		FROM ledger_accounts a`

	// pgLedgerEntryRead reads entries (as e, with their transfer as t);
	// an entry written without its balance after reads zero.
	pgLedgerEntryRead = `SELECT e.seq, e.account_id::text, e.transfer_id::text, e.amount::text, coalesce(e.balance_after, 0)::text,
		e.created_at, t.code, t.reference, t.idempotency_key
		FROM ledger_entries e JOIN ledger_transfers t ON t.id = e.transfer_id`
)

func (s ledgerStore) Write(ctx context.Context, fn func(ledger.Tx) error) error {
	return pgx.BeginFunc(ctx, s.d.pool, func(tx pgx.Tx) error { return fn(pgLedgerTx{tx}) })
}

type pgLedgerTx struct{ tx pgx.Tx }

func (x pgLedgerTx) transfer(ctx context.Context, where string, args ...any) (ledger.Transfer, bool, error) {
	return rowscan.Found(rowscan.LedgerTransfer(x.tx.QueryRow(ctx, `SELECT `+pgLedgerTransferColumns+` FROM ledger_transfers WHERE `+where, args...)))
}

func (x pgLedgerTx) TransferByKey(ctx context.Context, operatorID, key string) (ledger.Transfer, bool, error) {
	return x.transfer(ctx, `operator_id = $1 AND idempotency_key = $2`, operatorID, key)
}

func (x pgLedgerTx) TransferByID(ctx context.Context, id string) (ledger.Transfer, bool, error) {
	return x.transfer(ctx, `id = $1`, id)
}

func (x pgLedgerTx) Resolution(ctx context.Context, pendingID string) (ledger.Transfer, bool, error) {
	return x.transfer(ctx, `pending_id = $1`, pendingID)
}

// LockAccounts locks the accounts that keep a balance; ORDER BY id makes
// PostgreSQL lock them in id order. The others are read without a lock
// (a transfer's foreign keys take a KEY SHARE lock on them, which
// concurrent transfers share). A missing account is ErrAccountsMissing:
// opening it here, with another account's lock held, would take locks
// out of order.
func (x pgLedgerTx) LockAccounts(ctx context.Context, accounts []ledger.Account) ([]ledger.Account, error) {
	ids := make([]string, len(accounts))
	for i, a := range accounts {
		ids[i] = a.ID
	}
	locked, err := queryList(ctx, x.tx, `WITH locked AS (
			SELECT `+pgLedgerAccountColumns+` FROM ledger_accounts WHERE id = ANY($1::uuid[]) AND must_not_go_negative ORDER BY id FOR UPDATE)
		SELECT * FROM locked
		UNION ALL SELECT `+pgLedgerAccountColumns+` FROM ledger_accounts WHERE id = ANY($1::uuid[]) AND NOT must_not_go_negative`,
		[]any{ids}, rowscan.LedgerAccount)
	if err != nil {
		return nil, err
	}
	got := make(map[string]ledger.Account, len(locked))
	for _, a := range locked {
		got[a.ID] = a
	}
	out := make([]ledger.Account, len(accounts))
	for i, a := range accounts {
		var ok bool
		if out[i], ok = got[a.ID]; !ok {
			if a.OperatorID != "" {
				return nil, ledger.ErrAccountsMissing
			}
			return nil, fmt.Errorf("account %s does not exist", a.ID)
		}
	}
	return out, nil
}

func (x pgLedgerTx) InsertTransfer(ctx context.Context, t ledger.Transfer) error {
	var pending *string
	if t.PendingID != "" {
		pending = &t.PendingID
	}
	_, err := x.tx.Exec(ctx, `INSERT INTO ledger_transfers (id, operator_id, idempotency_key, currency, kind, debit_account_id, credit_account_id,
		amount, pending_id, code, reference, created_at) VALUES ($1, $2, $3, $4, $5, $6, $7, $8::numeric, $9, $10, $11, $12)`,
		t.ID, t.OperatorID, t.Key, t.Currency, string(t.Kind), t.DebitAccountID, t.CreditAccountID, t.Amount.String(), pending,
		t.Code, t.Reference, t.CreatedAt)
	if isUniqueViolation(err) {
		return ledger.ErrRaced
	}
	return err
}

func (x pgLedgerTx) InsertEntry(ctx context.Context, e ledger.Entry, withBalance bool) error {
	var after *string
	if withBalance {
		s := e.BalanceAfter.String()
		after = &s
	}
	_, err := x.tx.Exec(ctx, `INSERT INTO ledger_entries (account_id, transfer_id, amount, balance_after, created_at)
		VALUES ($1, $2, $3::numeric, $4::numeric, $5)`, e.AccountID, e.TransferID, e.Amount.String(), after, e.CreatedAt)
	return err
}

func (x pgLedgerTx) UpdateBalances(ctx context.Context, a ledger.Account) error {
	_, err := x.tx.Exec(ctx, `UPDATE ledger_accounts SET balance = $2::numeric, debits_pending = $3::numeric, credits_pending = $4::numeric
		WHERE id = $1`, a.ID, a.Balance.String(), a.DebitsPending.String(), a.CreditsPending.String())
	return err
}

func (s ledgerStore) Account(ctx context.Context, id string) (ledger.Account, error) {
	return readLedgerAccount(ctx, s.d.pool, id)
}

// readLedgerAccount is Account on db: the pool, or a snapshot's
// transaction.
func readLedgerAccount(ctx context.Context, db interface {
	QueryRow(context.Context, string, ...any) pgx.Row
}, id string) (ledger.Account, error) {
	a, err := rowscan.LedgerAccount(db.QueryRow(ctx, pgLedgerAccountRead+` WHERE a.id = $1`, id))
	return a, rowscan.LedgerNotFound(err, "account", id)
}

func (s ledgerStore) TransferByKey(ctx context.Context, operatorID, key string) (ledger.Transfer, error) {
	t, err := rowscan.LedgerTransfer(s.d.pool.QueryRow(ctx, `SELECT `+pgLedgerTransferColumns+` FROM ledger_transfers
		WHERE operator_id = $1 AND idempotency_key = $2`, operatorID, key))
	return t, rowscan.LedgerNotFound(err, "transfer", key)
}

// OpenAccounts inserts the missing accounts in one statement of its own.
func (s ledgerStore) OpenAccounts(ctx context.Context, accounts []ledger.Account) error {
	var ids, operators, currencies, kinds, bettors []string
	var flags []bool
	var created []time.Time
	for _, a := range accounts {
		ids, operators, currencies = append(ids, a.ID), append(operators, a.OperatorID), append(currencies, a.Currency)
		kinds, bettors = append(kinds, string(a.Kind)), append(bettors, a.BettorID)
		flags, created = append(flags, a.MustNotGoNegative), append(created, a.CreatedAt)
	}
	_, err := s.d.pool.Exec(ctx, `INSERT INTO ledger_accounts (id, operator_id, currency, kind, bettor_id, must_not_go_negative, created_at)
		SELECT * FROM unnest($1::uuid[], $2::text[], $3::text[], $4::text[], $5::text[], $6::boolean[], $7::timestamptz[]) AS a(id)
		ORDER BY id ON CONFLICT DO NOTHING`, ids, operators, currencies, kinds, bettors, flags, created)
	return err
}

func (s ledgerStore) Statement(ctx context.Context, accountID string, afterSeq int64, limit int) ([]ledger.Entry, error) {
	return readLedgerStatement(ctx, s.d.pool, accountID, afterSeq, limit)
}

// readLedgerStatement is Statement on db: the pool, or a snapshot's
// transaction.
func readLedgerStatement(ctx context.Context, db querier, accountID string, afterSeq int64, limit int) ([]ledger.Entry, error) {
	// An entry without its balance after gets the sum of the account's
	// entries up to the page and of the page's up to it.
	return queryList(ctx, db, `SELECT e.seq, e.account_id::text, e.transfer_id::text, e.amount::text,
			coalesce(e.balance_after, (SELECT coalesce(sum(x.amount), 0) FROM ledger_entries x WHERE x.account_id = $1 AND x.seq <= $2)
				+ sum(e.amount) OVER (ORDER BY e.seq))::text,
			e.created_at, t.code, t.reference, t.idempotency_key
		FROM (SELECT * FROM ledger_entries WHERE account_id = $1 AND seq > $2 ORDER BY seq LIMIT $3) e
		JOIN ledger_transfers t ON t.id = e.transfer_id ORDER BY e.seq`, []any{accountID, afterSeq, limit}, scanStatementEntry)
}

// scanStatementEntry reads an entry of a statement query, whose
// balance_after is never NULL (the query computes the missing ones).
func scanStatementEntry(row rowscan.Row) (ledger.Entry, error) {
	e, _, err := rowscan.LedgerStatementEntry(row)
	return e, err
}

func (s ledgerStore) TransferEntries(ctx context.Context, transferID string) ([]ledger.Entry, error) {
	return queryList(ctx, s.d.pool, pgLedgerEntryRead+` WHERE e.transfer_id = $1 ORDER BY e.seq`, []any{transferID}, scanStatementEntry)
}

// Snapshot reads in one REPEATABLE READ, read-only transaction: every
// query sees the ledger as of its first one.
func (s ledgerStore) Snapshot(ctx context.Context, fn func(ledger.Snapshot) error) error {
	return pgx.BeginTxFunc(ctx, s.d.pool, pgx.TxOptions{IsoLevel: pgx.RepeatableRead, AccessMode: pgx.ReadOnly}, func(tx pgx.Tx) error {
		return fn(pgLedgerSnapshot{tx})
	})
}

type pgLedgerSnapshot struct{ tx pgx.Tx }

func (s pgLedgerSnapshot) Account(ctx context.Context, id string) (ledger.Account, error) {
	return readLedgerAccount(ctx, s.tx, id)
}

func (s pgLedgerSnapshot) Statement(ctx context.Context, accountID string, afterSeq int64, limit int) ([]ledger.Entry, error) {
	return readLedgerStatement(ctx, s.tx, accountID, afterSeq, limit)
}

func (s pgLedgerSnapshot) each(ctx context.Context, query string, fn func(rowscan.Row) error) error {
	rows, err := s.tx.Query(ctx, query)
	if err != nil {
		return err
	}
	defer rows.Close()
	return rowscan.Each(rows, fn)
}

func (s pgLedgerSnapshot) Accounts(ctx context.Context, fn func(ledger.Account) error) error {
	return s.each(ctx, pgLedgerAccountRead+` ORDER BY a.id`, rowscan.Calling(rowscan.LedgerAccount, fn))
}

func (s pgLedgerSnapshot) Transfers(ctx context.Context, fn func(ledger.Transfer) error) error {
	return s.each(ctx, `SELECT `+pgLedgerTransferColumns+` FROM ledger_transfers ORDER BY created_at, id`, rowscan.Calling(rowscan.LedgerTransfer, fn))
}

// Entries reads every entry in seq order; one written without its
// balance after gets the running sum of its account's entries.
func (s pgLedgerSnapshot) Entries(ctx context.Context, fn func(ledger.Entry) error) error {
	return s.each(ctx, `SELECT `+pgLedgerEntryColumns+` FROM ledger_entries ORDER BY seq`, rowscan.EveryLedgerEntry(fn))
}
