-- The house and funding accounts keep no balance row (docs/decisions.md,
-- "The ledger"): every bet of an operator
-- moved its house account, so every transfer locked and rewrote that one
-- row. Their entries now carry no balance_after and their balances are
-- read as the sum of their entries and open pending transfers; their
-- rows' balance columns are zeroed, unused. Bettor accounts are as before.
ALTER TABLE ledger_entries ALTER COLUMN balance_after DROP NOT NULL;
UPDATE ledger_accounts SET balance = 0, debits_pending = 0, credits_pending = 0 WHERE NOT must_not_go_negative;
-- The open pending transfers of an account, read with its balances.
CREATE INDEX ledger_transfers_pending_debit ON ledger_transfers (debit_account_id) WHERE kind = 'pending';
CREATE INDEX ledger_transfers_pending_credit ON ledger_transfers (credit_account_id) WHERE kind = 'pending';
