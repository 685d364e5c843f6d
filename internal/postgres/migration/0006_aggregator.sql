-- The aggregator integration (aggregator-api.md): the session a bet was
-- placed in, single-use launch tokens, and the keys of the session tokens
-- the platform mints for aggregator players.
ALTER TABLE betting_bets ADD COLUMN session_id TEXT NOT NULL DEFAULT '';

CREATE TABLE agg_launches (
    token_hash  TEXT PRIMARY KEY,
    operator_id TEXT NOT NULL,
    casino_id   TEXT NOT NULL,
    account_id  TEXT NOT NULL,
    currency    TEXT NOT NULL,
    session_id  TEXT NOT NULL,
    locale      TEXT NOT NULL,
    demo        BOOLEAN NOT NULL,
    created_at  TIMESTAMPTZ NOT NULL,
    expires_at  TIMESTAMPTZ NOT NULL,
    used_at     TIMESTAMPTZ
);
CREATE INDEX agg_launches_expiry ON agg_launches (expires_at);

CREATE TABLE platform_keys (
    kid         TEXT PRIMARY KEY,
    private_pem TEXT NOT NULL,
    created_at  TIMESTAMPTZ NOT NULL
);
