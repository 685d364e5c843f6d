-- The double-entry ledger (internal/ledger). Transfers and entries are
-- append-only: a trigger refuses every UPDATE and DELETE. A bettor
-- account's CHECK is the last line behind the ledger's own check, made
-- under the account's row lock.
CREATE TABLE ledger_accounts (
    id                   UUID PRIMARY KEY,
    operator_id          TEXT NOT NULL,
    currency             TEXT NOT NULL,
    kind                 TEXT NOT NULL CHECK (kind IN ('bettor', 'house', 'funding')),
    bettor_id            TEXT NOT NULL DEFAULT '',
    must_not_go_negative BOOLEAN NOT NULL,
    balance              NUMERIC NOT NULL DEFAULT 0,
    debits_pending       NUMERIC NOT NULL DEFAULT 0,
    credits_pending      NUMERIC NOT NULL DEFAULT 0,
    created_at           TIMESTAMPTZ NOT NULL,
    UNIQUE (operator_id, currency, kind, bettor_id),
    CHECK (NOT must_not_go_negative OR balance - debits_pending >= 0)
);

CREATE TABLE ledger_transfers (
    id                UUID PRIMARY KEY,
    operator_id       TEXT NOT NULL,
    idempotency_key   TEXT NOT NULL,
    currency          TEXT NOT NULL,
    kind              TEXT NOT NULL CHECK (kind IN ('posted', 'pending', 'post_pending', 'void_pending')),
    debit_account_id  UUID NOT NULL REFERENCES ledger_accounts (id),
    credit_account_id UUID NOT NULL REFERENCES ledger_accounts (id),
    amount            NUMERIC NOT NULL,
    pending_id        UUID REFERENCES ledger_transfers (id),
    code              TEXT NOT NULL,
    reference         TEXT NOT NULL DEFAULT '',
    created_at        TIMESTAMPTZ NOT NULL,
    UNIQUE (operator_id, idempotency_key)
);
-- A pending transfer is posted or voided at most once.
CREATE UNIQUE INDEX ledger_transfers_resolution ON ledger_transfers (pending_id) WHERE pending_id IS NOT NULL;

CREATE TABLE ledger_entries (
    seq           BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    account_id    UUID NOT NULL REFERENCES ledger_accounts (id),
    transfer_id   UUID NOT NULL REFERENCES ledger_transfers (id),
    amount        NUMERIC NOT NULL,
    balance_after NUMERIC NOT NULL,
    created_at    TIMESTAMPTZ NOT NULL
);
CREATE INDEX ledger_entries_account ON ledger_entries (account_id, seq);
CREATE INDEX ledger_entries_transfer ON ledger_entries (transfer_id);

CREATE FUNCTION ledger_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    RAISE EXCEPTION '% is append-only', TG_TABLE_NAME;
END
$$;
CREATE TRIGGER ledger_transfers_append_only BEFORE UPDATE OR DELETE ON ledger_transfers
    FOR EACH ROW EXECUTE FUNCTION ledger_append_only();
CREATE TRIGGER ledger_entries_append_only BEFORE UPDATE OR DELETE ON ledger_entries
    FOR EACH ROW EXECUTE FUNCTION ledger_append_only();
