-- The bank connector's outbound side (src/modules/bank): the payouts handed over to it, and the
-- pain.001 files they leave in. A file is recorded (bytes, SHA-256, MsgId) before it is uploaded, so
-- a crash between upload and record never sends its payouts twice: on resume the remote listing says
-- whether it arrived. Rows are never deleted: a MsgId is never reused.

CREATE TABLE bank_files (
  id                uuid PRIMARY KEY,
  msg_id            text NOT NULL UNIQUE,
  file_name         text NOT NULL UNIQUE,
  debtor_account    text NOT NULL,
  scheme            text NOT NULL CHECK (scheme IN ('sepa', 'swift')),
  message           text NOT NULL,
  -- The file's bytes, sealed with the encryption key (they name beneficiaries); sha256 of the plain bytes.
  content           text NOT NULL,
  sha256            text NOT NULL,
  byte_size         integer NOT NULL,
  nb_of_txs         integer NOT NULL,
  ctrl_sum          numeric(38, 5) NOT NULL,
  -- recorded: waiting for upload; delivered: in the bank's inbox under its name; invalid: failed its
  -- schema and never leaves (its payouts are held for the operator).
  status            text NOT NULL CHECK (status IN ('recorded', 'delivered', 'invalid')),
  validation_error  text,
  -- The last failed delivery attempt (host key mismatch, connection refused…), shown to the operator.
  last_error        text,
  last_error_at     timestamptz,
  created_at        timestamptz NOT NULL DEFAULT now(),
  delivered_at      timestamptz
);
CREATE INDEX bank_files_page ON bank_files (created_at DESC, id DESC);

CREATE TABLE bank_payouts (
  payout_id         uuid PRIMARY KEY REFERENCES payouts (id),
  workspace_id      uuid NOT NULL REFERENCES workspaces (id),
  route             text NOT NULL,
  scheme            text CHECK (scheme IN ('sepa', 'swift')),
  -- The id of the configured bank account debited (none: no account in the funding currency).
  debtor_account    text,
  currency          text NOT NULL,
  amount_minor      numeric(38, 0) NOT NULL,
  -- The payout id without dashes (ISO's 35-character limit), see bank.instructions.ts.
  end_to_end_id     text NOT NULL UNIQUE,
  uetr              uuid UNIQUE,
  -- What the file needs of the payout (recipient, sender, reference), sealed: personal data.
  instruction       text NOT NULL,
  -- pending: waiting for its cut-off; filed: in a recorded file; delivered: its file is in the bank's
  -- inbox; held: in the operator's queue (held_reason says why: the validator's message…); released:
  -- cancelled or failed before it was filed (it is in no file).
  status            text NOT NULL CHECK (status IN ('pending', 'filed', 'delivered', 'held', 'released')),
  file_id           uuid REFERENCES bank_files (id),
  -- The payment information block (PmtInfId) of its file, which a bank's group or block rejection names.
  pmt_inf_id        text,
  held_reason       text,
  accepted_at       timestamptz NOT NULL DEFAULT now(),
  updated_at        timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX bank_payouts_pending ON bank_payouts (debtor_account, scheme, accepted_at, payout_id) WHERE status = 'pending';
CREATE INDEX bank_payouts_file ON bank_payouts (file_id);
CREATE INDEX bank_payouts_held ON bank_payouts (updated_at DESC, payout_id DESC) WHERE status = 'held';
