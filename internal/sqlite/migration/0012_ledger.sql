-- The double-entry ledger (internal/ledger). Amounts are TEXT (exact
-- decimals; sums are made in Go). Transfers and entries are append-only:
-- the triggers refuse every UPDATE and DELETE.
CREATE TABLE ledger_accounts (
    id                   TEXT PRIMARY KEY,
    operator_id          TEXT NOT NULL,
    currency             TEXT NOT NULL,
    kind                 TEXT NOT NULL CHECK (kind IN ('bettor', 'house', 'funding')),
    bettor_id            TEXT NOT NULL DEFAULT '',
    must_not_go_negative INTEGER NOT NULL,
    balance              TEXT NOT NULL DEFAULT '0',
    debits_pending       TEXT NOT NULL DEFAULT '0',
    credits_pending      TEXT NOT NULL DEFAULT '0',
    created_at           INTEGER NOT NULL,
    UNIQUE (operator_id, currency, kind, bettor_id)
);

CREATE TABLE ledger_transfers (
    id                TEXT PRIMARY KEY,
    operator_id       TEXT NOT NULL,
    idempotency_key   TEXT NOT NULL,
    currency          TEXT NOT NULL,
    kind              TEXT NOT NULL CHECK (kind IN ('posted', 'pending', 'post_pending', 'void_pending')),
    debit_account_id  TEXT NOT NULL REFERENCES ledger_accounts (id),
    credit_account_id TEXT NOT NULL REFERENCES ledger_accounts (id),
    amount            TEXT NOT NULL,
    pending_id        TEXT REFERENCES ledger_transfers (id),
    code              TEXT NOT NULL,
    reference         TEXT NOT NULL DEFAULT '',
    created_at        INTEGER NOT NULL,
    UNIQUE (operator_id, idempotency_key)
);
-- A pending transfer is posted or voided at most once.
CREATE UNIQUE INDEX ledger_transfers_resolution ON ledger_transfers (pending_id) WHERE pending_id IS NOT NULL;

CREATE TABLE ledger_entries (
    seq           INTEGER PRIMARY KEY AUTOINCREMENT,
    account_id    TEXT NOT NULL REFERENCES ledger_accounts (id),
    transfer_id   TEXT NOT NULL REFERENCES ledger_transfers (id),
    amount        TEXT NOT NULL,
    balance_after TEXT NOT NULL,
    created_at    INTEGER NOT NULL
);
CREATE INDEX ledger_entries_account ON ledger_entries (account_id, seq);
CREATE INDEX ledger_entries_transfer ON ledger_entries (transfer_id);

CREATE TRIGGER ledger_transfers_no_update BEFORE UPDATE ON ledger_transfers
BEGIN
    SELECT RAISE(ABORT, 'ledger_transfers is append-only');
END;
CREATE TRIGGER ledger_transfers_no_delete BEFORE DELETE ON ledger_transfers
BEGIN
    SELECT RAISE(ABORT, 'ledger_transfers is append-only');
END;
CREATE TRIGGER ledger_entries_no_update BEFORE UPDATE ON ledger_entries
BEGIN
    SELECT RAISE(ABORT, 'ledger_entries is append-only');
END;
CREATE TRIGGER ledger_entries_no_delete BEFORE DELETE ON ledger_entries
BEGIN
    SELECT RAISE(ABORT, 'ledger_entries is append-only');
END;
