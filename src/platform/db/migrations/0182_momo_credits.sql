-- Credits pushed by the mobile-money operator (src/connectors/mobile-money/credits.ts): a payer pays
-- the merchant or paybill number Corridor holds with a reference, and the operator calls Corridor
-- with the transaction. Each is recorded once by the operator's transaction reference: credited (its
-- deposit, into the virtual account the reference names) or an exception for the operator with its
-- reason (no reference, no such account, another merchant account, not completed…); never guessed.

SET LOCAL lock_timeout = '5s';
SET LOCAL statement_timeout = '60s';

CREATE TABLE momo_credits (
  transaction_reference text PRIMARY KEY,
  content_sha256        text NOT NULL,
  outcome               text NOT NULL CHECK (outcome IN ('credited', 'exception')),
  -- The workspace credited (an exception: the one its reference named, when it named one).
  workspace_id          uuid REFERENCES workspaces (id),
  deposit_id            uuid REFERENCES deposits (id),
  amount                text,
  currency              text,
  -- The payer's reference (the creditParty's consumerno) as given, at most 100 characters.
  payer_reference       text,
  reason                text,
  -- The callback's body, sealed: the payer's phone.
  body                  text NOT NULL,
  received_at           timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX momo_credits_exceptions ON momo_credits (received_at) WHERE outcome = 'exception';
