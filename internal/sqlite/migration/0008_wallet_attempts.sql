CREATE TABLE betting_wallet_attempts (
    id             INTEGER PRIMARY KEY,
    bet_id         TEXT NOT NULL,
    kind           TEXT NOT NULL,
    transaction_id TEXT NOT NULL,
    amount         TEXT NOT NULL,
    currency       TEXT NOT NULL,
    started_at     INTEGER NOT NULL,
    duration_us    INTEGER NOT NULL,
    result         TEXT NOT NULL,
    code           TEXT NOT NULL DEFAULT '',
    http_status    INTEGER NOT NULL DEFAULT 0,
    error          TEXT NOT NULL DEFAULT ''
);
CREATE INDEX betting_wallet_attempts_bet ON betting_wallet_attempts (bet_id, started_at, id);
