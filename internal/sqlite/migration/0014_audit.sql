-- The audit trail of staff actions (internal/audit). Entries are
-- append-only: the triggers refuse every UPDATE and DELETE. The key, when
-- set, makes an entry unique (the replay of an idempotent request adds
-- none). at is microseconds since the epoch; the states are JSON text.
CREATE TABLE audit_entries (
    seq                 INTEGER PRIMARY KEY AUTOINCREMENT,
    id                  TEXT NOT NULL UNIQUE,
    at                  INTEGER NOT NULL,
    actor_kind          TEXT NOT NULL CHECK (actor_kind IN ('admin', 'operator_credential')),
    actor_name          TEXT NOT NULL,
    actor_credential_id TEXT NOT NULL DEFAULT '',
    actor_operator_id   TEXT NOT NULL DEFAULT '',
    action              TEXT NOT NULL,
    target_kind         TEXT NOT NULL,
    target_id           TEXT NOT NULL,
    operator_id         TEXT NOT NULL DEFAULT '',
    client_address      TEXT NOT NULL DEFAULT '',
    request_id          TEXT NOT NULL DEFAULT '',
    before_state        TEXT,
    after_state         TEXT,
    entry_key           TEXT UNIQUE
);
CREATE INDEX audit_entries_operator ON audit_entries (operator_id, seq);
CREATE INDEX audit_entries_target ON audit_entries (target_kind, target_id, seq);
CREATE INDEX audit_entries_at ON audit_entries (at);

CREATE TRIGGER audit_entries_no_update BEFORE UPDATE ON audit_entries
BEGIN
    SELECT RAISE(ABORT, 'audit_entries is append-only');
END;
CREATE TRIGGER audit_entries_no_delete BEFORE DELETE ON audit_entries
BEGIN
    SELECT RAISE(ABORT, 'audit_entries is append-only');
END;
