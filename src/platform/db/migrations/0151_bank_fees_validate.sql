-- The checks 0150 added for bank charges, validated apart from the transaction that added them.
SET LOCAL lock_timeout = '5s';
SET LOCAL statement_timeout = '60s';
ALTER TABLE ledger_accounts VALIDATE CONSTRAINT ledger_accounts_kind_check;
ALTER TABLE bank_movements VALIDATE CONSTRAINT bank_movements_charges_check;
