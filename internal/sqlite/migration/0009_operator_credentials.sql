-- Operator credentials: bearer keys with which one operator's staff use
-- the admin API and the backoffice for that operator alone. Only the
-- SHA-256 hash of a key is kept; a key is found by its hash.
CREATE TABLE operator_credentials (
    id          TEXT PRIMARY KEY,
    operator_id TEXT NOT NULL REFERENCES betting_operators (id),
    name        TEXT NOT NULL,
    key_hash    BLOB NOT NULL UNIQUE,
    created_at  INTEGER NOT NULL,
    expires_at  INTEGER,
    revoked_at  INTEGER
);
CREATE INDEX operator_credentials_operator ON operator_credentials (operator_id, created_at);
