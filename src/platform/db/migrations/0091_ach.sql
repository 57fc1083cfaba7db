-- The ACH connector (src/connectors/ach): payouts handed over to it, the NACHA files they leave in
-- (recorded, bytes sealed, before upload, so a crash between upload and record never sends twice),
-- the files the ODFI sends back (returns, notifications of change), each taken in once by its hash,
-- and what they could not apply, for the operator. Rows are never deleted.

SET LOCAL lock_timeout = '5s';
SET LOCAL statement_timeout = '60s';

CREATE TABLE ach_files (
  id               uuid PRIMARY KEY,
  file_name        text NOT NULL UNIQUE,
  id_modifier      text NOT NULL,
  effective_date   date NOT NULL,
  same_day         boolean NOT NULL,
  content          text NOT NULL,
  sha256           text NOT NULL,
  byte_size        bigint NOT NULL,
  entry_count      bigint NOT NULL,
  entry_hash       text NOT NULL,
  total_debit      numeric(38, 0) NOT NULL,
  total_credit     numeric(38, 0) NOT NULL,
  status           text NOT NULL CHECK (status IN ('recorded', 'delivered')),
  last_error       text,
  last_error_at    timestamptz,
  created_at       timestamptz NOT NULL DEFAULT now(),
  delivered_at     timestamptz
);
CREATE INDEX ach_files_page ON ach_files (created_at DESC, id DESC);

-- Trace numbers' last seven digits: unique per ODFI while the sequence runs through ten million.
CREATE SEQUENCE ach_trace_seq MINVALUE 1 MAXVALUE 9999999 CYCLE;

CREATE TABLE ach_payouts (
  payout_id        uuid PRIMARY KEY REFERENCES payouts (id),
  workspace_id     uuid NOT NULL REFERENCES workspaces (id),
  amount_minor     numeric(38, 0) NOT NULL,
  -- What the entry needs of the payout (recipient, account, reference), sealed: personal data.
  instruction      text NOT NULL,
  -- pending: waiting for its cut-off; filed: in a recorded file; delivered: its file is at the ODFI;
  -- settled: its effective date passed (paid); returned: a return came back; held: the operator's
  -- (held_reason); released: cancelled before it was filed.
  status           text NOT NULL CHECK (status IN ('pending', 'filed', 'delivered', 'settled', 'returned', 'held', 'released')),
  file_id          uuid REFERENCES ach_files (id),
  trace_number     text,
  held_reason      text,
  accepted_at      timestamptz NOT NULL DEFAULT now(),
  updated_at       timestamptz NOT NULL DEFAULT now(),
  UNIQUE (file_id, trace_number)
);
CREATE INDEX ach_payouts_pending ON ach_payouts (accepted_at, payout_id) WHERE status = 'pending';
CREATE INDEX ach_payouts_trace ON ach_payouts (trace_number);
CREATE INDEX ach_payouts_file ON ach_payouts (file_id);

CREATE TABLE ach_inbound_files (
  id           uuid PRIMARY KEY,
  name         text NOT NULL,
  sha256       text NOT NULL UNIQUE,
  status       text NOT NULL CHECK (status IN ('processed', 'refused')),
  reason       text,
  returns      bigint NOT NULL DEFAULT 0,
  changes      bigint NOT NULL DEFAULT 0,
  exceptions   bigint NOT NULL DEFAULT 0,
  received_at  timestamptz NOT NULL DEFAULT now(),
  CHECK ((status = 'refused') = (reason IS NOT NULL))
);

-- What an inbound file said that Corridor applied nothing for (a dishonored or contested return, a
-- return or change of a trace number Corridor never sent): the code, its words, who must act.
CREATE TABLE ach_exceptions (
  id             uuid PRIMARY KEY,
  file_id        uuid NOT NULL REFERENCES ach_inbound_files (id),
  code           text NOT NULL,
  reason         text NOT NULL,
  actor          text NOT NULL CHECK (actor IN ('beneficiary', 'workspace', 'operator')),
  trace_number   text,
  payout_id      uuid,
  created_at     timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX ach_exceptions_page ON ach_exceptions (created_at DESC, id DESC);
