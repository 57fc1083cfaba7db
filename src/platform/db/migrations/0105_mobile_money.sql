-- The mobile-money connector (src/connectors/mobile-money): payouts handed to an operator or
-- aggregator over the GSMA Mobile Money API v1.2. Each disbursement request is recorded (its body
-- sealed, its correlation id the payout's id) before it is sent, so a crash re-sends the same request
-- and never makes a second one; every callback is recorded by its content hash and applied once, and
-- one for a correlation id Corridor never sent is kept for the operator. Rows are never deleted.

SET LOCAL lock_timeout = '5s';
SET LOCAL statement_timeout = '60s';

CREATE TABLE momo_payouts (
  payout_id             uuid PRIMARY KEY REFERENCES payouts (id),
  workspace_id          uuid NOT NULL REFERENCES workspaces (id),
  -- The X-CorrelationID of the disbursement request: the payout's id, stable across re-sends.
  correlation_id        uuid NOT NULL UNIQUE,
  -- The request as it leaves (JSON body text and the callback URL), sealed: personal data.
  request               text NOT NULL,
  -- recorded: not yet known to the provider; sent: the provider has it; completed, failed, reversed:
  -- its outcome; held: it cannot be sent (the operator fails it); released: let go before it left.
  status                text NOT NULL CHECK (status IN ('recorded', 'sent', 'completed', 'failed', 'reversed', 'held', 'released')),
  held_reason           text,
  server_correlation_id text,
  transaction_reference text,
  -- Sends begun (counted before each request leaves): above one, the provider is asked first.
  attempts              bigint NOT NULL DEFAULT 0,
  -- When to ask the provider if no callback has come by then.
  poll_at               timestamptz,
  last_error            text,
  last_error_at         timestamptz,
  created_at            timestamptz NOT NULL DEFAULT now(),
  updated_at            timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX momo_payouts_poll ON momo_payouts (poll_at) WHERE status = 'sent';

-- Every callback the endpoint took in (authenticated or not), once by its content hash.
CREATE TABLE momo_callbacks (
  id              uuid PRIMARY KEY,
  correlation_id  text NOT NULL,
  content_sha256  text NOT NULL,
  -- applied: it moved its payout; unchanged: it said what was known; unknown: no such correlation id
  -- (kept for the operator, alerted); refused: it failed authentication (kept without its body).
  outcome         text NOT NULL CHECK (outcome IN ('applied', 'unchanged', 'unknown', 'refused')),
  reason          text,
  body            text,
  received_at     timestamptz NOT NULL DEFAULT now()
);
CREATE UNIQUE INDEX momo_callbacks_once ON momo_callbacks (correlation_id, content_sha256) WHERE outcome <> 'refused';
CREATE INDEX momo_callbacks_unknown ON momo_callbacks (received_at) WHERE outcome = 'unknown';
