ALTER TABLE betting_bets ADD COLUMN deposit_confirmed_at INTEGER;
ALTER TABLE betting_bets ADD COLUMN rollback_confirmed_at INTEGER;
