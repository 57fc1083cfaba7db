-- corridor:outside-transaction
-- The delivered files the bank has not answered yet (the alert source bank.file_unacknowledged looks
-- at them every minute), built without blocking writes: CONCURRENTLY, outside a transaction.
SET lock_timeout = '5s';
SET statement_timeout = 0;
CREATE INDEX CONCURRENTLY IF NOT EXISTS bank_files_unacknowledged ON bank_files (delivered_at) WHERE status = 'delivered' AND acknowledged_at IS NULL;
RESET lock_timeout;
RESET statement_timeout;
