CREATE TABLE betting_operators (
    id         TEXT PRIMARY KEY,
    doc        JSONB NOT NULL,
    created_at TIMESTAMPTZ NOT NULL
);

CREATE TABLE betting_events (
    id         UUID PRIMARY KEY,
    category   TEXT NOT NULL,
    status     TEXT NOT NULL,
    doc        JSONB NOT NULL,
    created_at TIMESTAMPTZ NOT NULL,
    updated_at TIMESTAMPTZ NOT NULL
);
CREATE INDEX betting_events_list ON betting_events (created_at DESC, id DESC);

CREATE TABLE betting_markets (
    id       UUID PRIMARY KEY,
    event_id UUID NOT NULL REFERENCES betting_events (id)
);
