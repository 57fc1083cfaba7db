-- Issue 33 (points 2, 3, 5, 6): an inbound file is recorded before it is read, applied in bounded
-- chunks that each commit with their progress, and every credit is taken once by the booking's own
-- identity.

-- 'received': recorded, not yet read (a file that stops the process while it is read is found here
-- after the restart, its attempts counted); 'applying': read, its chunks being applied, `units_applied`
-- of them done. A file too large to read is quarantined from its size alone: no hash.
ALTER TABLE bank_inbound_files ALTER COLUMN sha256 DROP NOT NULL;
ALTER TABLE bank_inbound_files DROP CONSTRAINT bank_inbound_files_status_check;
ALTER TABLE bank_inbound_files ADD CONSTRAINT bank_inbound_files_status_check CHECK (status IN ('received', 'applying', 'processed', 'quarantined'));
ALTER TABLE bank_inbound_files ADD COLUMN size_bytes bigint;
ALTER TABLE bank_inbound_files ADD COLUMN units_applied integer NOT NULL DEFAULT 0;
ALTER TABLE bank_inbound_files ADD COLUMN attempts integer NOT NULL DEFAULT 0;
ALTER TABLE bank_inbound_files ADD COLUMN last_error text;
DROP INDEX bank_inbound_files_message;
CREATE UNIQUE INDEX bank_inbound_files_message ON bank_inbound_files (message_type, message_id) WHERE status IN ('applying', 'processed');

-- Every booked credit taken in, by the booking's identity (account, the entry's bank references or,
-- without them, the transaction's, the transaction's position in the entry, amount and currency):
-- written in the transaction that credits it, so a resend, a second notification of the same
-- booking or a chunk applied again after a crash credits nothing twice.
CREATE TABLE bank_inbound_entries (
  entry_key   text PRIMARY KEY,
  file_id     uuid NOT NULL REFERENCES bank_inbound_files (id),
  created_at  timestamptz NOT NULL DEFAULT now()
);
