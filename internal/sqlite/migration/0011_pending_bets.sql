-- The pending bets, oldest first: SQLite places bets in-process and sweeps
-- this list (betting.Dispatcher); the index holds only the pending rows.
CREATE INDEX betting_bets_pending ON betting_bets (created_at, id) WHERE status = 'pending';
