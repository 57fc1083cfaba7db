-- ClearBank's end-of-day statements (camt.053 from its Customer Statements API) fed into the same
-- reconciliation as the bank connector's: each UTC day asked for once (POST /v1/statementrequests,
-- recorded with its X-Request-Id before it is sent, so a retry asks the same), each statement the
-- bank says is ready (its Statements.ReadyForDownload webhook) recorded by its MessageId and fetched
-- page by page into bank_inbound_files, where its hash and message id apply it once. The movements
-- ClearBank's webhooks book (a payment settled, a return) come from no file: bank_movements.file_id
-- is null for them. Rows are never deleted.

SET LOCAL lock_timeout = '5s';
SET LOCAL statement_timeout = '60s';

-- Corridor's own code is the only reader of bank_movements.file_id (MovementRow.file_id is nullable).
-- squawk-ignore ban-drop-not-null
ALTER TABLE bank_movements ALTER COLUMN file_id DROP NOT NULL;

CREATE TABLE clearbank_statement_requests (
  -- The UTC day asked for: the statement covers [day 00:00:00Z, next day 00:00:00Z).
  statement_day  date PRIMARY KEY,
  request_id     text NOT NULL UNIQUE,
  -- recorded: to be sent (or sent again, the same X-Request-Id); requested: the bank accepted it (202).
  status         text NOT NULL CHECK (status IN ('recorded', 'requested')),
  last_error     text,
  created_at     timestamptz NOT NULL DEFAULT now(),
  requested_at   timestamptz
);

CREATE TABLE clearbank_statements (
  -- CAMT053_<from>_<to>_<8 characters>: the statement's MsgId, as the webhook names it.
  message_id     text PRIMARY KEY,
  total_pages    bigint NOT NULL CHECK (total_pages BETWEEN 1 AND 1000),
  -- ready: to be fetched; taken: every page taken in (applied, or known by its hash).
  status         text NOT NULL CHECK (status IN ('ready', 'taken')),
  last_error     text,
  received_at    timestamptz NOT NULL DEFAULT now(),
  taken_at       timestamptz
);
