CREATE TABLE betting_bettors (
    operator_id TEXT NOT NULL,
    id          TEXT NOT NULL,
    currency    TEXT NOT NULL,
    balance     TEXT,
    created_at  INTEGER NOT NULL,
    PRIMARY KEY (operator_id, id)
);

CREATE TABLE betting_bets (
    id                  TEXT PRIMARY KEY,
    operator_id         TEXT NOT NULL,
    bettor_id           TEXT NOT NULL,
    idempotency_key     TEXT NOT NULL,
    event_id            TEXT NOT NULL,
    market_id           TEXT NOT NULL,
    outcome_id          TEXT NOT NULL,
    outcome_index       INTEGER NOT NULL,
    stake               TEXT NOT NULL,
    currency            TEXT NOT NULL,
    entry_odds          TEXT NOT NULL,
    potential_payout    TEXT NOT NULL,
    display_probability TEXT NOT NULL,
    status              TEXT NOT NULL,
    rejection_code      TEXT,
    rejection_reason    TEXT NOT NULL DEFAULT '',
    withdrawal_tx_id    TEXT NOT NULL,
    operator_tx_id      TEXT NOT NULL DEFAULT '',
    payout_amount       TEXT,
    settled_at          INTEGER,
    exposure_reserved   INTEGER NOT NULL DEFAULT 0,
    accepted            BLOB NOT NULL,
    created_at          INTEGER NOT NULL,
    updated_at          INTEGER NOT NULL,
    UNIQUE (operator_id, bettor_id, idempotency_key)
);
CREATE INDEX betting_bets_bettor ON betting_bets (operator_id, bettor_id, created_at DESC, id DESC);
CREATE INDEX betting_bets_market ON betting_bets (market_id, status);

CREATE TABLE betting_exposure (
    operator_id TEXT NOT NULL,
    outcome_id  TEXT NOT NULL,
    currency    TEXT NOT NULL,
    reserved    TEXT NOT NULL,
    PRIMARY KEY (operator_id, outcome_id, currency)
);
