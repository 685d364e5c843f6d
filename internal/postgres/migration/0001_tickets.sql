CREATE TABLE ticket_clients (
    id              UUID PRIMARY KEY,
    name            TEXT NOT NULL,
    webhook_secret  TEXT NOT NULL,
    suspended       BOOLEAN NOT NULL DEFAULT FALSE,
    tickets_enabled BOOLEAN NOT NULL DEFAULT TRUE,
    created_at      TIMESTAMPTZ NOT NULL
);

CREATE TABLE ticket_api_keys (
    id          UUID PRIMARY KEY,
    client_id   UUID NOT NULL REFERENCES ticket_clients (id),
    secret_hash BYTEA NOT NULL,
    scopes      TEXT NOT NULL,
    expires_at  TIMESTAMPTZ,
    revoked_at  TIMESTAMPTZ,
    created_at  TIMESTAMPTZ NOT NULL
);
CREATE INDEX ticket_api_keys_client ON ticket_api_keys (client_id, created_at);

CREATE TABLE ticket_jobs (
    id              UUID PRIMARY KEY,
    client_id       UUID NOT NULL REFERENCES ticket_clients (id),
    idempotency_key TEXT NOT NULL,
    request_hash    TEXT NOT NULL,
    request         JSONB NOT NULL,
    status          TEXT NOT NULL,
    stage           TEXT NOT NULL,
    error_code      TEXT NOT NULL DEFAULT '',
    error_message   TEXT NOT NULL DEFAULT '',
    callback_failed BOOLEAN NOT NULL DEFAULT FALSE,
    result          BYTEA,
    created_at      TIMESTAMPTZ NOT NULL,
    updated_at      TIMESTAMPTZ NOT NULL,
    expires_at      TIMESTAMPTZ NOT NULL,
    UNIQUE (client_id, idempotency_key)
);
CREATE INDEX ticket_jobs_client_created ON ticket_jobs (client_id, created_at DESC, id DESC);
CREATE INDEX ticket_jobs_client_status ON ticket_jobs (client_id, status);
CREATE INDEX ticket_jobs_expiry ON ticket_jobs (expires_at) WHERE status <> 'expired';
