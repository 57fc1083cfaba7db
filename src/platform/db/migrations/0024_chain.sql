-- The chain connector (src/modules/chain, docs/guides/crypto-rail.md): USDC and USDT payouts as ERC-20
-- transfers from the operator's hot wallet, and deposit addresses watched for Transfer logs.

-- One nonce sequence per hot wallet and chain: the row is locked while nonces are taken, so two
-- workers never take the same one and nonces are handed out without gaps.
CREATE TABLE chain_nonces (
  chain       text NOT NULL,
  address     text NOT NULL,
  next_nonce  bigint NOT NULL CHECK (next_nonce >= 0),
  PRIMARY KEY (chain, address)
);

-- A payout handed to the chain connector, from acceptance to its end on chain.
--   refused: no configured chain pays its network (failed on the next look);
--   accepted: waiting for a nonce; signed: its transaction recorded, maybe not broadcast yet;
--   sent: broadcast (and re-broadcast until mined); confirmed: mined with enough confirmations, paid;
--   failed: reverted on chain (the payout failed, funds released); cancelled: the payout ended before it was signed.
CREATE TABLE chain_payouts (
  payout_id     uuid PRIMARY KEY REFERENCES payouts (id),
  chain         text NOT NULL,
  currency      text NOT NULL,
  token         text NOT NULL,
  to_address    text NOT NULL,
  amount_minor  numeric(78, 0) NOT NULL CHECK (amount_minor > 0),
  status        text NOT NULL CHECK (status IN ('refused', 'accepted', 'signed', 'sent', 'confirmed', 'failed', 'cancelled')),
  from_address  text,
  nonce         bigint,
  -- The transaction of this payout last seen mined (whichever of its versions), and its block.
  mined_hash    text,
  mined_block   bigint,
  failure_reason text,
  created_at    timestamptz NOT NULL DEFAULT now(),
  updated_at    timestamptz NOT NULL DEFAULT now(),
  CHECK ((nonce IS NULL) = (status IN ('refused', 'accepted', 'cancelled')) OR (status = 'failed' AND nonce IS NULL))
);
CREATE INDEX chain_payouts_open ON chain_payouts (chain, status, created_at) WHERE status IN ('accepted', 'signed', 'sent');
-- A nonce belongs to one payout: what the row lock on chain_nonces promises, kept by the schema too.
CREATE UNIQUE INDEX chain_payouts_nonce ON chain_payouts (chain, from_address, nonce) WHERE nonce IS NOT NULL;

-- Every signed version of a payout's transaction (the first and each fee replacement at the same
-- nonce), recorded before it is broadcast: a restart broadcasts these bytes again, never signs anew.
CREATE TABLE chain_transactions (
  hash                      text PRIMARY KEY,
  payout_id                 uuid NOT NULL REFERENCES chain_payouts (payout_id),
  chain                     text NOT NULL,
  nonce                     bigint NOT NULL,
  raw                       text NOT NULL,
  max_fee_per_gas           numeric(78, 0) NOT NULL,
  max_priority_fee_per_gas  numeric(78, 0) NOT NULL,
  signed_at                 timestamptz NOT NULL DEFAULT now(),
  sent_at                   timestamptz
);
CREATE INDEX chain_transactions_payout ON chain_transactions (payout_id, signed_at);

-- The deposit watcher's place per chain: the next block to scan for Transfer logs.
CREATE TABLE chain_checkpoints (
  chain       text PRIMARY KEY,
  next_block  bigint NOT NULL CHECK (next_block >= 0),
  updated_at  timestamptz NOT NULL DEFAULT now()
);

-- The derivation index of each owner (workspace master account or sub-account) that has a deposit
-- address: m/44'/60'/0'/0/<index> under each chain's deposit wallet.
CREATE SEQUENCE chain_deposit_index MINVALUE 0 START WITH 0;
CREATE TABLE chain_deposit_owners (
  account_id        uuid PRIMARY KEY REFERENCES accounts (id),
  workspace_id      uuid NOT NULL REFERENCES workspaces (id),
  derivation_index  integer NOT NULL UNIQUE DEFAULT nextval('chain_deposit_index'),
  created_at        timestamptz NOT NULL DEFAULT now()
);

-- Each owner's address per chain (lower-case), as derived.
CREATE TABLE chain_deposit_addresses (
  chain         text NOT NULL,
  address       text NOT NULL,
  account_id    uuid NOT NULL REFERENCES chain_deposit_owners (account_id),
  workspace_id  uuid NOT NULL REFERENCES workspaces (id),
  PRIMARY KEY (chain, address),
  UNIQUE (chain, account_id)
);

-- Every Transfer log to a deposit address the watcher took, once per (chain, txHash, logIndex):
-- credited (with its deposit), or held for the operator (a token Corridor does not take, or a
-- currency the owner has no virtual account in), never credited.
CREATE TABLE chain_deposits (
  chain         text NOT NULL,
  tx_hash       text NOT NULL,
  log_index     integer NOT NULL,
  block_number  bigint NOT NULL,
  token         text NOT NULL,
  currency      text,
  from_address  text NOT NULL,
  to_address    text NOT NULL,
  amount_minor  numeric(78, 0) NOT NULL,
  account_id    uuid NOT NULL,
  workspace_id  uuid NOT NULL,
  status        text NOT NULL CHECK (status IN ('credited', 'held')),
  deposit_id    uuid,
  reason        text,
  created_at    timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (chain, tx_hash, log_index)
);
CREATE INDEX chain_deposits_held ON chain_deposits (created_at) WHERE status = 'held';
