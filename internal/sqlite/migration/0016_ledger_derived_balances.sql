-- The house and funding accounts keep no balance row (docs/decisions.md,
-- "The ledger"): their entries carry no
-- balance_after and their balances are read as the sum of their entries
-- and open pending transfers; their rows' balance columns are zeroed,
-- unused. SQLite cannot drop a NOT NULL, so ledger_entries is rebuilt
-- (nothing references it) with its rows, indexes and triggers.
CREATE TABLE ledger_entries_new (
    seq           INTEGER PRIMARY KEY AUTOINCREMENT,
    account_id    TEXT NOT NULL REFERENCES ledger_accounts (id),
    transfer_id   TEXT NOT NULL REFERENCES ledger_transfers (id),
    amount        TEXT NOT NULL,
    balance_after TEXT,
    created_at    INTEGER NOT NULL
);
INSERT INTO ledger_entries_new (seq, account_id, transfer_id, amount, balance_after, created_at)
    SELECT seq, account_id, transfer_id, amount, balance_after, created_at FROM ledger_entries;
DROP TABLE ledger_entries;
ALTER TABLE ledger_entries_new RENAME TO ledger_entries;
CREATE INDEX ledger_entries_account ON ledger_entries (account_id, seq);
CREATE INDEX ledger_entries_transfer ON ledger_entries (transfer_id);
CREATE TRIGGER ledger_entries_no_update BEFORE UPDATE ON ledger_entries
BEGIN
    SELECT RAISE(ABORT, 'ledger_entries is append-only');
END;
CREATE TRIGGER ledger_entries_no_delete BEFORE DELETE ON ledger_entries
BEGIN
    SELECT RAISE(ABORT, 'ledger_entries is append-only');
END;
UPDATE ledger_accounts SET balance = '0', debits_pending = '0', credits_pending = '0' WHERE NOT must_not_go_negative;
CREATE INDEX ledger_transfers_pending_debit ON ledger_transfers (debit_account_id) WHERE kind = 'pending';
CREATE INDEX ledger_transfers_pending_credit ON ledger_transfers (credit_account_id) WHERE kind = 'pending';
