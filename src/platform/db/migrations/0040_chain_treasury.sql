-- The crypto rail with real tokens (issue 39; docs/guides/crypto-rail.md): the issuer's checks before
-- signing, nonce conflicts the operator resolves, a circuit breaker per chain, and what was delivered.

-- conflict: the payout's nonce was taken on chain by a transaction that is not one of ours (the hot
-- wallet was used outside Corridor) and none of its versions was mined; it stays processing, funds
-- held, until the operator re-signs it at a fresh nonce or cancels it.
ALTER TABLE chain_payouts DROP CONSTRAINT chain_payouts_status_check;
ALTER TABLE chain_payouts ADD CONSTRAINT chain_payouts_status_check
  CHECK (status IN ('refused', 'accepted', 'signed', 'sent', 'conflict', 'confirmed', 'failed', 'cancelled'));
-- What the recipient's Transfer log says arrived (below amount_minor on a token that charges a fee),
-- and the node's own words on the last refusal, revert or conflict.
ALTER TABLE chain_payouts ADD COLUMN delivered_minor numeric(78, 0);
ALTER TABLE chain_payouts ADD COLUMN error_detail text;
DROP INDEX chain_payouts_open;
CREATE INDEX chain_payouts_open ON chain_payouts (chain, status, created_at) WHERE status IN ('accepted', 'signed', 'sent', 'conflict');

-- One circuit breaker per chain. open: no payout of the chain is signed (accepted ones are held, not
-- failed) until the operator resumes it. streak_reason/streak_count: the same refusal or revert in a
-- row; it opens at the chain's breakerThreshold (and at once on nonce drift, a paused token or a
-- frozen hot wallet).
CREATE TABLE chain_breakers (
  chain          text PRIMARY KEY,
  open           boolean NOT NULL DEFAULT false,
  reason         text,
  detail         text,
  opened_at      timestamptz,
  streak_reason  text,
  streak_count   integer NOT NULL DEFAULT 0,
  updated_at     timestamptz NOT NULL DEFAULT now()
);
