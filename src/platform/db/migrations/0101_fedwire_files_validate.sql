-- The scheme checks 0100 widened for Fedwire, validated apart from the transaction that added them.
SET LOCAL lock_timeout = '5s';
SET LOCAL statement_timeout = '60s';
ALTER TABLE bank_files VALIDATE CONSTRAINT bank_files_scheme_check;
ALTER TABLE bank_payouts VALIDATE CONSTRAINT bank_payouts_scheme_check;
