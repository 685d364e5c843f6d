CREATE TABLE betting_bettors (
    operator_id TEXT NOT NULL,
    id          TEXT NOT NULL,
    currency    TEXT NOT NULL,
    balance     NUMERIC(30, 12),
    created_at  TIMESTAMPTZ NOT NULL,
    PRIMARY KEY (operator_id, id)
);

CREATE TABLE betting_bets (
    id                  UUID PRIMARY KEY,
    operator_id         TEXT NOT NULL,
    bettor_id           TEXT NOT NULL,
    idempotency_key     TEXT NOT NULL,
    event_id            UUID NOT NULL,
    market_id           UUID NOT NULL,
    outcome_id          UUID NOT NULL,
    outcome_index       INTEGER NOT NULL,
    stake               NUMERIC(30, 12) NOT NULL,
    currency            TEXT NOT NULL,
    entry_odds          NUMERIC(12, 4) NOT NULL,
    potential_payout    NUMERIC(40, 16) NOT NULL,
    display_probability NUMERIC(8, 2) NOT NULL,
    status              TEXT NOT NULL,
    rejection_code      TEXT,
    rejection_reason    TEXT NOT NULL DEFAULT '',
    withdrawal_tx_id    TEXT NOT NULL,
    operator_tx_id      TEXT NOT NULL DEFAULT '',
    payout_amount       NUMERIC(30, 12),
    settled_at          TIMESTAMPTZ,
    exposure_reserved   BOOLEAN NOT NULL DEFAULT FALSE,
    accepted            BYTEA NOT NULL,
    created_at          TIMESTAMPTZ NOT NULL,
    updated_at          TIMESTAMPTZ NOT NULL,
    UNIQUE (operator_id, bettor_id, idempotency_key)
);
CREATE INDEX betting_bets_bettor ON betting_bets (operator_id, bettor_id, created_at DESC, id DESC);
CREATE INDEX betting_bets_market ON betting_bets (market_id, status);

CREATE TABLE betting_exposure (
    operator_id TEXT NOT NULL,
    outcome_id  UUID NOT NULL,
    currency    TEXT NOT NULL,
    reserved    NUMERIC(40, 16) NOT NULL,
    PRIMARY KEY (operator_id, outcome_id, currency)
);
