-- The ClearBank connector (src/connectors/clearbank): GBP Faster Payments over a UK bank's API.
-- Payouts handed over to it; the batches (at most 10 payments each) that carry them, each recorded
-- with its X-Request-Id and the exact body before it is sent, so a crash re-sends the same request,
-- never a new one; the bank's webhooks, each taken in once by its identity (type and transaction),
-- with what could not be applied kept for the operator. Rows are never deleted.

SET LOCAL lock_timeout = '5s';
SET LOCAL statement_timeout = '60s';

CREATE TABLE clearbank_batches (
  id             uuid PRIMARY KEY,
  request_id     text NOT NULL UNIQUE,
  -- The JSON body as sent, sealed (it names payees and their accounts).
  body           text NOT NULL,
  payments       bigint NOT NULL,
  -- recorded: waiting to be sent (or re-sent, the same body and X-Request-Id); answered: the bank
  -- answered for each payment.
  status         text NOT NULL CHECK (status IN ('recorded', 'answered')),
  http_status    bigint,
  last_error     text,
  last_error_at  timestamptz,
  created_at     timestamptz NOT NULL DEFAULT now(),
  answered_at    timestamptz
);
CREATE INDEX clearbank_batches_recorded ON clearbank_batches (created_at) WHERE status = 'recorded';

CREATE TABLE clearbank_payments (
  payout_id      uuid PRIMARY KEY REFERENCES payouts (id),
  workspace_id   uuid NOT NULL REFERENCES workspaces (id),
  amount_minor   numeric(38, 0) NOT NULL,
  end_to_end_id  text NOT NULL UNIQUE,
  -- The payee, its sort code and account number and the reference, sealed: personal data.
  instruction    text NOT NULL,
  -- pending: waiting for a batch; batched: in a recorded batch; accepted: the bank took it;
  -- refused: the bank refused it in its answer; settled, rejected, returned: what its webhooks said;
  -- held: the operator's (held_reason); released: cancelled before a batch.
  status         text NOT NULL CHECK (status IN ('pending', 'batched', 'accepted', 'refused', 'settled', 'rejected', 'returned', 'held', 'released')),
  batch_id       uuid REFERENCES clearbank_batches (id),
  reason_code    text,
  held_reason    text,
  transaction_id text,
  accepted_at    timestamptz NOT NULL DEFAULT now(),
  sent_at        timestamptz,
  updated_at     timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX clearbank_payments_pending ON clearbank_payments (accepted_at, payout_id) WHERE status = 'pending';
CREATE INDEX clearbank_payments_batch ON clearbank_payments (batch_id);

CREATE TABLE clearbank_webhooks (
  id             uuid PRIMARY KEY,
  -- Type and TransactionId (the bank's Nonce is random per delivery, not an identity).
  identity       text NOT NULL UNIQUE,
  type           text NOT NULL,
  end_to_end_id  text,
  payout_id      uuid,
  -- applied: it moved its payout; unchanged: its payout had already moved; exception: nothing
  -- moved, for the operator (reason).
  outcome        text NOT NULL CHECK (outcome IN ('applied', 'unchanged', 'exception')),
  reason         text,
  body           text NOT NULL,
  received_at    timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX clearbank_webhooks_exceptions ON clearbank_webhooks (received_at DESC) WHERE outcome = 'exception';
