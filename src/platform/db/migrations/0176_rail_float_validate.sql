-- The kind check 0175 widened for the rail float, validated apart from the transaction that added it.
SET LOCAL lock_timeout = '5s';
SET LOCAL statement_timeout = '60s';
ALTER TABLE ledger_accounts VALIDATE CONSTRAINT ledger_accounts_kind_check;
