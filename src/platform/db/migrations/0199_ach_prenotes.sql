-- ACH prenotes (issue 31), optional per workspace (settings.achPrenotes, set by the operator, the
-- Originator of record): the first ACH payout to an account the workspace has not prenoted sends a
-- zero-dollar prenote entry (transaction code 23 or 33) in the next file, and the payouts to that
-- account wait until three banking days after the prenote's settlement date pass without a return.
-- The account is known by a hash of its routing number, account number and type (its details are
-- personal data: they are sealed in the instruction). A returned prenote keeps its code; payouts to
-- that account are held with the reason.
SET LOCAL lock_timeout = '5s';
SET LOCAL statement_timeout = '60s';

CREATE TABLE ach_prenotes (
  id               uuid PRIMARY KEY,
  workspace_id     uuid NOT NULL REFERENCES workspaces (id),
  account_key      text NOT NULL,
  -- The payout whose account it prenotes (its saved beneficiary is the one a correction updates).
  payout_id        uuid NOT NULL,
  instruction      text NOT NULL,
  -- pending: waiting for the next file; filed: in a recorded file; delivered: at the ODFI;
  -- cleared: its waiting period passed without a return; returned: a return came back (return_code).
  status           text NOT NULL CHECK (status IN ('pending', 'filed', 'delivered', 'cleared', 'returned')),
  file_id          uuid REFERENCES ach_files (id),
  trace_number     text,
  effective_date   date,
  clears_on        date,
  return_code      text,
  return_reason    text,
  created_at       timestamptz NOT NULL DEFAULT now(),
  updated_at       timestamptz NOT NULL DEFAULT now(),
  UNIQUE (workspace_id, account_key)
);
CREATE INDEX ach_prenotes_pending ON ach_prenotes (created_at) WHERE status = 'pending';
CREATE INDEX ach_prenotes_trace ON ach_prenotes (trace_number);

-- The prenote a pending payout waits for (null: none): an ach_prenotes id, written only with the
-- prenote in the same transaction (no foreign key, whose scan would lock ach_payouts' writers).
ALTER TABLE ach_payouts ADD COLUMN prenote_id uuid;
