-- An operator's bets newest first (the admin API's bet list without a
-- bettor or a status): without it each page sorted every bet of the
-- operator (docs/performance.md, "Chaos runs on the bundled path").
CREATE INDEX betting_bets_operator ON betting_bets (operator_id, created_at DESC, id DESC);
