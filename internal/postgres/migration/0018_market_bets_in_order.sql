-- A closed market's bets are settled oldest first, 500 at a time: with the
-- index on (market_id, status) alone each batch sorted every bet of the
-- market still in the status (docs/performance.md, "Settlement in larger
-- batches").
DROP INDEX betting_bets_market;
CREATE INDEX betting_bets_market ON betting_bets (market_id, status, created_at, id);
