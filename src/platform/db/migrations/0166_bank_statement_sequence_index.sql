-- corridor:outside-transaction
-- Each account's numbered statements in day order (the alert source bank.statement_sequence_gap walks
-- them every minute), built without blocking writes: CONCURRENTLY, outside a transaction. The build
-- waits (as a lock) for the table's open write transactions and for any older snapshot; waiting blocks
-- no write, so the lock timeout is long: a short one would fail the migration, and the start of the
-- release, whenever a transaction of a few seconds is running (test/db/rolling-upgrade.test.ts).
SET lock_timeout = '15min';
SET statement_timeout = 0;
CREATE INDEX CONCURRENTLY IF NOT EXISTS bank_statements_sequence ON bank_statements (bank_account, statement_date, electronic_seq, legal_seq) WHERE electronic_seq IS NOT NULL OR legal_seq IS NOT NULL;
RESET lock_timeout;
RESET statement_timeout;
