-- Approvals (maker-checker) per workspace (issue 23, point 2): the rules a workspace admin sets, and
-- the approval a payout waits for when a rule matched it at creation. A payout with a pending approval
-- stays `queued` with its funds held and no provider step scheduled; an approval decides it once.

CREATE TABLE approval_rules (
  id            uuid PRIMARY KEY,
  workspace_id  uuid NOT NULL REFERENCES workspaces (id),
  type          text NOT NULL CHECK (type IN ('amount_over', 'new_beneficiary', 'batch_over', 'every_payout')),
  -- amount_over: payouts in this currency over this amount (minor units)
  currency      text,
  amount_minor  numeric(38, 0) CHECK (amount_minor >= 0),
  -- new_beneficiary: payouts to a beneficiary created less than this many days ago
  days          integer CHECK (days BETWEEN 1 AND 3650),
  -- batch_over: every payout of a batch request of more than this many rows
  batch_rows    integer CHECK (batch_rows >= 1),
  description   text,
  -- who set it: a credential's client id, or `dashboard:<user id>`
  created_by    text NOT NULL,
  created_at    timestamptz NOT NULL DEFAULT now(),
  CHECK ((type = 'amount_over') = (currency IS NOT NULL AND amount_minor IS NOT NULL)),
  CHECK ((type = 'new_beneficiary') = (days IS NOT NULL)),
  CHECK ((type = 'batch_over') = (batch_rows IS NOT NULL))
);
CREATE INDEX approval_rules_page ON approval_rules (workspace_id, created_at DESC, id DESC);

CREATE TABLE payout_approvals (
  -- one approval per payout, taken with it in the transaction that creates it
  payout_id     uuid PRIMARY KEY REFERENCES payouts (id),
  workspace_id  uuid NOT NULL REFERENCES workspaces (id),
  account_id    uuid NOT NULL REFERENCES accounts (id),
  -- the rule that matched, as it was then (the rule may be removed since)
  rule_id       uuid NOT NULL,
  rule          jsonb NOT NULL,
  status        text NOT NULL CHECK (status IN ('pending', 'approved', 'rejected', 'expired', 'withdrawn')),
  -- the payout's creator (a credential's client id, or `dashboard:<user id>`): never its approver
  requested_by  text NOT NULL,
  decided_by    text,
  decided_at    timestamptz,
  reason        text,
  expires_at    timestamptz NOT NULL,
  created_at    timestamptz NOT NULL DEFAULT now(),
  CHECK ((status = 'pending') = (decided_at IS NULL))
);
CREATE INDEX payout_approvals_pending ON payout_approvals (workspace_id, created_at DESC, payout_id DESC) WHERE status = 'pending';
CREATE INDEX payout_approvals_page ON payout_approvals (workspace_id, created_at DESC, payout_id DESC);
