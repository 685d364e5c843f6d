-- When the bettor's recorded balance was reported: a wallet answer records
-- its balance only when it is at least as recent, so two credits confirmed
-- out of order (a payout and a void refund of two markets) leave the later
-- answer's balance, not the one whose write happened to commit last.
ALTER TABLE betting_bettors ADD COLUMN IF NOT EXISTS balance_at TIMESTAMPTZ;
