-- The sequence numbers a bank gives each statement of an account (camt.053 ElctrncSeqNb, and LglSeqNb,
-- the paper statement's), recorded when the statement is read, so that a gap in them is alerted
-- (bank.statement_sequence_gap). Nullable columns without a default: no table rewrite.
SET LOCAL lock_timeout = '5s';
SET LOCAL statement_timeout = '30s';
ALTER TABLE bank_statements ADD COLUMN electronic_seq numeric(18, 0);
ALTER TABLE bank_statements ADD COLUMN legal_seq numeric(18, 0);
