-- Recipient checks (issues 34 point 2, 35 points 1-2): the name of a payout's beneficiary checked with
-- the rail before paying, where the connector serving the payout's route offers it (verifyRecipient:
-- Confirmation of Payee, a NIP name enquiry, a mobile-money account-name lookup). A payout with a check
-- `pending` (the job has not answered yet) or `held` (anything but a match, for the workspace to decide)
-- stays `queued` with its funds held and no provider step, as a screening hold or an approval holds it.
SET LOCAL lock_timeout = '5s';
SET LOCAL statement_timeout = '60s';

CREATE TABLE payout_recipient_checks (
  -- one check per payout, taken with it in the transaction that creates it
  payout_id     uuid PRIMARY KEY REFERENCES payouts (id),
  workspace_id  uuid NOT NULL REFERENCES workspaces (id),
  account_id    uuid NOT NULL REFERENCES accounts (id),
  -- the connector asked (the one serving the payout's route when it was created)
  connector     text NOT NULL,
  status        text NOT NULL CHECK (status IN ('pending', 'passed', 'held', 'confirmed', 'withdrawn')),
  -- the answer: null while pending
  result        text CHECK (result IN ('match', 'close_match', 'no_match', 'account_not_found', 'unavailable')),
  -- the beneficiary's name as checked, and the name the rail holds or suggests (when it gave one)
  name          text NOT NULL,
  rail_name     text,
  -- the rail's code or words, or why the check could not be made
  reason        text,
  checked_at    timestamptz,
  -- who decided a held check (`user:<id>`, `client:<id>`, or `system` when the payout ended otherwise)
  decided_by    text,
  decided_at    timestamptz,
  created_at    timestamptz NOT NULL DEFAULT now(),
  CHECK (status <> 'pending' OR (result IS NULL AND checked_at IS NULL)),
  CHECK (status NOT IN ('passed', 'held', 'confirmed') OR (result IS NOT NULL AND checked_at IS NOT NULL)),
  CHECK ((status IN ('confirmed', 'withdrawn')) = (decided_at IS NOT NULL))
);
CREATE INDEX payout_recipient_checks_held ON payout_recipient_checks (workspace_id, created_at DESC) WHERE status = 'held';
