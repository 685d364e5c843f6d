-- Whether placement queued the reversal of a rejected bet's withdrawal,
-- set in the transaction that rejects it (Round/Details reads it). Bets
-- rejected before the column existed get it from their recorded wallet
-- attempts, by the rule placement applied then: no rejection code, a code
-- that means the debit stood or its outcome is unknown, bet_rejected_other
-- once the debit was sent, or any debit attempt without a definite answer,
-- or a rollback already sent.
ALTER TABLE betting_bets ADD COLUMN rollback_owed INTEGER NOT NULL DEFAULT 0;
UPDATE betting_bets SET rollback_owed = 1
WHERE status = 'rejected' AND (
    rejection_code IS NULL
    OR rejection_code IN ('wallet_rolled_back', 'wallet_provider_unavailable')
    OR (rejection_code = 'bet_rejected_other' AND EXISTS (
        SELECT 1 FROM betting_wallet_attempts a WHERE a.bet_id = betting_bets.id AND a.kind = 'withdrawal'))
    OR EXISTS (SELECT 1 FROM betting_wallet_attempts a WHERE a.bet_id = betting_bets.id
        AND ((a.kind = 'withdrawal' AND a.result = 'unknown') OR a.kind = 'rollback')));
