ALTER TABLE betting_bets ADD COLUMN deposit_confirmed_at TIMESTAMPTZ;
ALTER TABLE betting_bets ADD COLUMN rollback_confirmed_at TIMESTAMPTZ;
