-- The bank's first answer to a payment file: when a status report (pain.002) naming the file's
-- message arrived, and the message's group status in it (ACTC, ACCP, RJCT, PART…). A file delivered
-- and still unanswered after the operator's threshold is an alert (bank.file_unacknowledged).
SET LOCAL lock_timeout = '5s';
SET LOCAL statement_timeout = '30s';
ALTER TABLE bank_files ADD COLUMN acknowledged_at timestamptz;
ALTER TABLE bank_files ADD COLUMN ack_status text;
