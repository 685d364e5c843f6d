CREATE TABLE ticket_clients (
    id              TEXT PRIMARY KEY,
    name            TEXT NOT NULL,
    webhook_secret  TEXT NOT NULL,
    suspended       INTEGER NOT NULL DEFAULT 0,
    tickets_enabled INTEGER NOT NULL DEFAULT 1,
    created_at      INTEGER NOT NULL
);

CREATE TABLE ticket_api_keys (
    id          TEXT PRIMARY KEY,
    client_id   TEXT NOT NULL REFERENCES ticket_clients (id),
    secret_hash BLOB NOT NULL,
    scopes      TEXT NOT NULL,
    expires_at  INTEGER,
    revoked_at  INTEGER,
    created_at  INTEGER NOT NULL
);
CREATE INDEX ticket_api_keys_client ON ticket_api_keys (client_id, created_at);

CREATE TABLE ticket_jobs (
    id              TEXT PRIMARY KEY,
    client_id       TEXT NOT NULL REFERENCES ticket_clients (id),
    idempotency_key TEXT NOT NULL,
    request_hash    TEXT NOT NULL,
    request         TEXT NOT NULL,
    status          TEXT NOT NULL,
    stage           TEXT NOT NULL,
    error_code      TEXT NOT NULL DEFAULT '',
    error_message   TEXT NOT NULL DEFAULT '',
    callback_failed INTEGER NOT NULL DEFAULT 0,
    result          BLOB,
    created_at      INTEGER NOT NULL,
    updated_at      INTEGER NOT NULL,
    expires_at      INTEGER NOT NULL,
    UNIQUE (client_id, idempotency_key)
);
CREATE INDEX ticket_jobs_client_created ON ticket_jobs (client_id, created_at DESC, id DESC);
CREATE INDEX ticket_jobs_client_status ON ticket_jobs (client_id, status);
CREATE INDEX ticket_jobs_expiry ON ticket_jobs (expires_at) WHERE status <> 'expired';
