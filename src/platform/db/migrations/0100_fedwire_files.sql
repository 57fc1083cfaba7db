-- Fedwire (issue 31, point 6): the fedwire connector (src/connectors/fedwire) leaves through the
-- same outbound record as the bank connector: its payouts in bank_payouts, its pain.001 files in
-- bank_files, each recorded before it is sent. Their scheme is 'fedwire' (USD to an ABA routing
-- number and account number, one UETR per payout). The wider checks are added NOT VALID here and
-- validated in 0101, in its own transaction (every existing row holds 'sepa' or 'swift').
SET LOCAL lock_timeout = '5s';
SET LOCAL statement_timeout = '60s';
ALTER TABLE bank_files DROP CONSTRAINT bank_files_scheme_check;
ALTER TABLE bank_files ADD CONSTRAINT bank_files_scheme_check CHECK (scheme IN ('sepa', 'swift', 'fedwire')) NOT VALID;
ALTER TABLE bank_payouts DROP CONSTRAINT bank_payouts_scheme_check;
ALTER TABLE bank_payouts ADD CONSTRAINT bank_payouts_scheme_check CHECK (scheme IN ('sepa', 'swift', 'fedwire')) NOT VALID;
