-- The Paystack connector (src/connectors/paystack): NGN bank transfers to NUBAN accounts over a
-- Paystack-shaped aggregator. Its transfer recipients (one per beneficiary account, kept), the
-- transfers it makes (one per payout, its reference derived from the payout's id and recorded at
-- hand-over, before any call, so a retry or a restart re-sends the same reference and never pays
-- twice), the webhooks it took in (each by the hash of its raw body, applied once), what it could not
-- apply (for the operator), and the provider balance last read. Rows are never deleted.

SET LOCAL lock_timeout = '5s';
SET LOCAL statement_timeout = '60s';

CREATE TABLE paystack_recipients (
  workspace_id     uuid NOT NULL REFERENCES workspaces (id),
  bank_code        text NOT NULL,
  account_number   text NOT NULL,
  recipient_code   text NOT NULL,
  created_at       timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (workspace_id, bank_code, account_number)
);

CREATE TABLE paystack_transfers (
  payout_id        uuid PRIMARY KEY REFERENCES payouts (id),
  workspace_id     uuid NOT NULL REFERENCES workspaces (id),
  amount_minor     numeric(38, 0) NOT NULL,
  -- The transfer's reference at Paystack: derived from the payout's id, fixed at hand-over.
  reference        text NOT NULL UNIQUE,
  -- What the recipient and the transfer need of the payout (name, account, bank code, narration), sealed: personal data.
  instruction      text NOT NULL,
  -- pending: waiting to be sent; awaiting_balance: the provider balance does not cover it (kept in
  -- the queue, sent when it does); sending: the call may have reached Paystack (a retry verifies by
  -- reference first); sent: Paystack has it; success, failed, reversed: its outcome applied; held:
  -- the operator's (held_reason); released: let go before it was sent.
  status           text NOT NULL CHECK (status IN ('pending', 'awaiting_balance', 'sending', 'sent', 'success', 'failed', 'reversed', 'held', 'released')),
  recipient_code   text,
  transfer_code    text,
  held_reason      text,
  failure_reason   text,
  attempts         bigint NOT NULL DEFAULT 0,
  last_error       text,
  accepted_at      timestamptz NOT NULL DEFAULT now(),
  sent_at          timestamptz,
  updated_at       timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX paystack_transfers_open ON paystack_transfers (status, updated_at) WHERE status IN ('pending', 'awaiting_balance', 'sending', 'sent');

CREATE TABLE paystack_webhooks (
  sha256           text PRIMARY KEY,
  event            text NOT NULL,
  reference        text,
  outcome          text NOT NULL,
  received_at      timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE paystack_exceptions (
  id               uuid PRIMARY KEY,
  source           text NOT NULL,
  reference        text,
  payout_id        uuid,
  reason           text NOT NULL,
  created_at       timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX paystack_exceptions_page ON paystack_exceptions (created_at DESC, id DESC);

-- The provider's balance as last read (one row per currency).
CREATE TABLE paystack_balances (
  currency         text PRIMARY KEY,
  balance_minor    numeric(38, 0) NOT NULL,
  read_at          timestamptz NOT NULL
);
