-- What the banks send back (issue 21, inbound): every file taken in once, what it posted, what it
-- could not, and the end-of-day statements reconciled against Corridor's book of each bank account.

-- Every inbound file, recorded in the transaction that applies it: its hash and its message id are
-- each taken once, so a file read twice (or the same message under another name) applies once.
-- A file that cannot be read is quarantined with the reason and applies nothing.
CREATE TABLE bank_inbound_files (
  id               uuid PRIMARY KEY,
  name             text NOT NULL,
  sha256           text NOT NULL UNIQUE,
  message_type     text,
  message_version  text,
  message_id       text,
  status           text NOT NULL CHECK (status IN ('processed', 'quarantined')),
  reason           text,
  entries          integer NOT NULL DEFAULT 0,
  exceptions       integer NOT NULL DEFAULT 0,
  received_at      timestamptz NOT NULL DEFAULT now(),
  CHECK ((status = 'quarantined') = (reason IS NOT NULL))
);
CREATE UNIQUE INDEX bank_inbound_files_message ON bank_inbound_files (message_type, message_id) WHERE status = 'processed';
CREATE INDEX bank_inbound_files_page ON bank_inbound_files (received_at DESC, id DESC);

-- Corridor's book of its bank accounts: each money movement an inbound message posted (a payout
-- debited, a deposit credited, a payout's money returned), written with the ledger postings it goes
-- with. The statements are reconciled against it.
CREATE TABLE bank_movements (
  id             uuid PRIMARY KEY,
  bank_account   text,
  file_id        uuid NOT NULL REFERENCES bank_inbound_files (id),
  message_type   text NOT NULL,
  kind           text NOT NULL CHECK (kind IN ('payout', 'deposit', 'return')),
  direction      text NOT NULL CHECK (direction IN ('debit', 'credit')),
  amount_minor   numeric(38, 0) NOT NULL CHECK (amount_minor > 0),
  currency       text NOT NULL,
  booking_date   date,
  entry_ref      text,
  end_to_end_id  text,
  object_type    text NOT NULL CHECK (object_type IN ('payout', 'deposit')),
  object_id      uuid NOT NULL,
  created_at     timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX bank_movements_day ON bank_movements (bank_account, booking_date);
CREATE INDEX bank_movements_object ON bank_movements (object_type, object_id);

-- Entries that matched nothing (an unknown EndToEndId, an amount or currency differing from the
-- payout, an IBAN that is no virtual account, a payout in no state to take the move): nothing posted,
-- shown to the operator until resolved.
CREATE TABLE bank_exceptions (
  id             uuid PRIMARY KEY,
  file_id        uuid NOT NULL REFERENCES bank_inbound_files (id),
  bank_account   text,
  message_type   text NOT NULL,
  code           text NOT NULL,
  reason         text NOT NULL,
  entry_ref      text,
  end_to_end_id  text,
  direction      text CHECK (direction IN ('debit', 'credit')),
  amount_minor   numeric(38, 0),
  currency       text,
  booking_date   date,
  status         text NOT NULL DEFAULT 'open' CHECK (status IN ('open', 'resolved')),
  resolution     text,
  resolved_by    text,
  resolved_at    timestamptz,
  created_at     timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX bank_exceptions_page ON bank_exceptions (created_at DESC, id DESC);

-- End-of-day statements (camt.053) and their lines, each line matched to a movement, unmatched, or
-- ignored by an operator with a reason.
CREATE TABLE bank_statements (
  id                  uuid PRIMARY KEY,
  file_id             uuid NOT NULL REFERENCES bank_inbound_files (id),
  bank_account        text NOT NULL,
  statement_id        text NOT NULL,
  iban                text,
  currency            text NOT NULL,
  statement_date      date NOT NULL,
  opening_minor       numeric(38, 0) NOT NULL,
  closing_minor       numeric(38, 0) NOT NULL,
  created_at          timestamptz NOT NULL DEFAULT now(),
  UNIQUE (bank_account, statement_id)
);
CREATE INDEX bank_statements_page ON bank_statements (created_at DESC, id DESC);
CREATE INDEX bank_statements_day ON bank_statements (bank_account, statement_date);

CREATE TABLE bank_statement_lines (
  id                     uuid PRIMARY KEY,
  statement_id           uuid NOT NULL REFERENCES bank_statements (id),
  seq                    integer NOT NULL,
  entry_ref              text,
  end_to_end_id          text,
  direction              text NOT NULL CHECK (direction IN ('debit', 'credit')),
  amount_minor           numeric(38, 0) NOT NULL,
  currency               text NOT NULL,
  booking_date           date,
  bank_transaction_code  text,
  description            text,
  status                 text NOT NULL CHECK (status IN ('matched', 'unmatched', 'ignored')),
  movement_id            uuid REFERENCES bank_movements (id),
  decided_by             text,
  reason                 text,
  decided_at             timestamptz,
  created_at             timestamptz NOT NULL DEFAULT now(),
  UNIQUE (statement_id, seq),
  CHECK ((status = 'matched') = (movement_id IS NOT NULL)),
  CHECK (status <> 'ignored' OR reason IS NOT NULL)
);
-- A movement is matched by one line at most.
CREATE UNIQUE INDEX bank_statement_lines_movement ON bank_statement_lines (movement_id) WHERE movement_id IS NOT NULL;
