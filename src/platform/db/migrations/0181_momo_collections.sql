-- Mobile-money collections (src/connectors/mobile-money/collections.ts): a workspace asks a payer's
-- phone for money with a GSMA merchant payment initiated by the payee (a request to pay,
-- `POST /transactions/type/merchantpay`). Each request is recorded (its body sealed, its correlation
-- id the deposit's id) with its pending deposit before it is sent, so a crash re-sends the same
-- request and never makes a second one; its outcome (callback or poll) moves the deposit once.

SET LOCAL lock_timeout = '5s';
SET LOCAL statement_timeout = '60s';

CREATE TABLE momo_collections (
  deposit_id            uuid PRIMARY KEY REFERENCES deposits (id),
  workspace_id          uuid NOT NULL REFERENCES workspaces (id),
  -- The workspace's reference of the collection, once per workspace.
  client_ref            text NOT NULL,
  -- The X-CorrelationID of the request to pay: the deposit's id, stable across re-sends.
  correlation_id        uuid NOT NULL UNIQUE,
  -- The request as it leaves (JSON body text and the callback URL), sealed: the payer's phone.
  request               text NOT NULL,
  -- recorded: not yet known to the provider; sent: the provider has it (the payer is asked);
  -- completed, failed: its outcome.
  status                text NOT NULL CHECK (status IN ('recorded', 'sent', 'completed', 'failed')),
  server_correlation_id text,
  transaction_reference text,
  attempts              bigint NOT NULL DEFAULT 0,
  poll_at               timestamptz,
  last_error            text,
  last_error_at         timestamptz,
  created_at            timestamptz NOT NULL DEFAULT now(),
  updated_at            timestamptz NOT NULL DEFAULT now()
);
CREATE UNIQUE INDEX momo_collections_client_ref ON momo_collections (workspace_id, client_ref);
CREATE INDEX momo_collections_poll ON momo_collections (poll_at) WHERE status = 'sent';
