-- Payouts: one row per payout, its holds in the ledger, its processing as durable jobs.

CREATE TABLE payouts (
  id                 uuid PRIMARY KEY,
  workspace_id       uuid NOT NULL REFERENCES workspaces (id),
  account_id         uuid NOT NULL REFERENCES accounts (id),
  client_ref         text NOT NULL,
  status             text NOT NULL CHECK (status IN ('created', 'queued', 'processing', 'paid', 'failed', 'cancelled')),
  currency           text NOT NULL,
  amount_minor       numeric(38, 0) NOT NULL CHECK (amount_minor > 0),
  fee_minor          numeric(38, 0) NOT NULL DEFAULT 0 CHECK (fee_minor >= 0),
  route              text NOT NULL,
  provider           text NOT NULL,
  beneficiary_id     uuid,
  beneficiary        jsonb NOT NULL,
  sender             jsonb,
  quote_id           uuid,
  funding_currency   text NOT NULL,
  funding_minor      numeric(38, 0) NOT NULL,
  purpose            text,
  reference          text,
  metadata           jsonb,
  hold_transfer_id   uuid,
  fee_transfer_id    uuid,
  failure_reason     text,
  reverted_at        timestamptz,
  created_at         timestamptz NOT NULL DEFAULT now(),
  updated_at         timestamptz NOT NULL DEFAULT now(),
  completed_at       timestamptz,
  UNIQUE (workspace_id, client_ref)
);
CREATE INDEX payouts_page ON payouts (workspace_id, created_at DESC, id DESC);
CREATE INDEX payouts_daily ON payouts (workspace_id, currency, created_at);

-- Events that are recorded but not delivered to webhook endpoints (payout.reverted, per the spec).
ALTER TABLE events ADD COLUMN deliverable boolean NOT NULL DEFAULT true;
