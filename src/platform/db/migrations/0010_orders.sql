-- Trade-desk orders (spec §Order, §States and transitions / Order; DESIGN §4 Orders): one row per order,
-- its settlement (when funded by a transfer in) in plain columns, its hold in the ledger, its deadlines as jobs.

CREATE TABLE orders (
  id                      uuid PRIMARY KEY,
  workspace_id            uuid NOT NULL REFERENCES workspaces (id),
  account_id              uuid NOT NULL REFERENCES accounts (id),
  client_ref              text,
  status                  text NOT NULL CHECK (status IN ('awaiting_funds', 'funds_received', 'executing', 'completed', 'failed', 'expired', 'cancelled')),
  funding                 text NOT NULL CHECK (funding IN ('balance', 'settlement')),
  from_currency           text NOT NULL,
  to_currency             text NOT NULL,
  from_amount_minor       numeric(38, 0) NOT NULL CHECK (from_amount_minor > 0),
  to_amount_minor         numeric(38, 0) NOT NULL CHECK (to_amount_minor > 0),
  -- fromCurrency per 1 toCurrency, all-in (a decimal string of RATE_PATTERN)
  rate                    text NOT NULL,
  beneficiary_id          uuid,
  -- the clearing rail a beneficiary delivery goes out on (null: delivered to the own balance)
  delivery_rail           text,
  hold_transfer_id        uuid,
  failure_reason          text CHECK (failure_reason IN ('execution_failed', 'review_expired')),
  uetr                    text,
  settlement_id           uuid,
  settlement_method       text CHECK (settlement_method IN ('bank_transfer', 'crypto')),
  settlement_reference    text,
  settlement_status       text CHECK (settlement_status IN ('pending', 'proof_submitted', 'received', 'expired', 'cancelled')),
  settlement_instructions jsonb,
  proof_upload_key        text,
  proof_submitted_at      timestamptz,
  funding_deadline_at     timestamptz NOT NULL,
  execution_deadline_at   timestamptz,
  funded_at               timestamptz,
  completed_at            timestamptz,
  created_at              timestamptz NOT NULL DEFAULT now(),
  updated_at              timestamptz NOT NULL DEFAULT now(),
  CHECK ((funding = 'settlement') = (settlement_id IS NOT NULL))
);
CREATE UNIQUE INDEX orders_client_ref ON orders (workspace_id, client_ref) WHERE client_ref IS NOT NULL;
CREATE INDEX orders_page ON orders (workspace_id, created_at DESC, id DESC);
