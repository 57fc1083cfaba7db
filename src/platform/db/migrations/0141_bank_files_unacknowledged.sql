-- corridor:outside-transaction
-- The delivered files the bank has not answered yet (the alert source bank.file_unacknowledged looks
-- at them every minute), built without blocking writes: CONCURRENTLY, outside a transaction. The
-- build waits (as a lock) for open write transactions and older snapshots, which blocks no write:
-- the lock timeout is long, else any transaction of a few seconds would fail the migration (0166).
SET lock_timeout = '15min';
SET statement_timeout = 0;
CREATE INDEX CONCURRENTLY IF NOT EXISTS bank_files_unacknowledged ON bank_files (delivered_at) WHERE status = 'delivered' AND acknowledged_at IS NULL;
RESET lock_timeout;
RESET statement_timeout;
