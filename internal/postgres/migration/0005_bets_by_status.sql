CREATE INDEX betting_bets_status ON betting_bets (operator_id, status, created_at DESC, id DESC);
