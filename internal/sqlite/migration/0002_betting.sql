CREATE TABLE betting_operators (
    id         TEXT PRIMARY KEY,
    doc        TEXT NOT NULL,
    created_at INTEGER NOT NULL
);

CREATE TABLE betting_events (
    id         TEXT PRIMARY KEY,
    category   TEXT NOT NULL,
    status     TEXT NOT NULL,
    doc        TEXT NOT NULL,
    created_at INTEGER NOT NULL,
    updated_at INTEGER NOT NULL
);
CREATE INDEX betting_events_list ON betting_events (created_at DESC, id DESC);

CREATE TABLE betting_markets (
    id       TEXT PRIMARY KEY,
    event_id TEXT NOT NULL REFERENCES betting_events (id)
);
