-- The audit trail of staff actions (internal/audit). Entries are
-- append-only: triggers refuse every UPDATE, DELETE and TRUNCATE. The key,
-- when set, makes an entry unique (the replay of an idempotent request
-- adds none).
CREATE TABLE audit_entries (
    seq                 BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    id                  UUID NOT NULL UNIQUE,
    at                  TIMESTAMPTZ NOT NULL,
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
    before_state        JSONB,
    after_state         JSONB,
    entry_key           TEXT UNIQUE
);
CREATE INDEX audit_entries_operator ON audit_entries (operator_id, seq);
CREATE INDEX audit_entries_target ON audit_entries (target_kind, target_id, seq);
CREATE INDEX audit_entries_at ON audit_entries (at);

CREATE FUNCTION audit_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    RAISE EXCEPTION '% is append-only', TG_TABLE_NAME;
END
$$;
CREATE TRIGGER audit_entries_append_only BEFORE UPDATE OR DELETE ON audit_entries
    FOR EACH ROW EXECUTE FUNCTION audit_append_only();
CREATE TRIGGER audit_entries_no_truncate BEFORE TRUNCATE ON audit_entries
    FOR EACH STATEMENT EXECUTE FUNCTION audit_append_only();
