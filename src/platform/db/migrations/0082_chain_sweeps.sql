-- Sweeps of deposit addresses into the hot wallet (docs/guides/crypto-rail.md, "Sweeping"): recorded
-- with every signed byte before anything is sent (the EIP-3009 authorisation and the gas wallet's relay
-- transaction for USDC; the gas wallet's top-up and the deposit address's transfer for USDT), and
-- re-sent as recorded after a crash. At most one open sweep per deposit address and token.
SET lock_timeout = '5s';
SET statement_timeout = '30s';
CREATE TABLE chain_sweeps (
  id              uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  chain           text NOT NULL,
  currency        text NOT NULL,
  token           text NOT NULL,
  from_address    text NOT NULL,
  to_address      text NOT NULL,
  amount_units    numeric(78, 0) NOT NULL CHECK (amount_units > 0),
  method          text NOT NULL CHECK (method IN ('authorization', 'top_up')),
  status          text NOT NULL CHECK (status IN ('signed', 'topped_up', 'sent', 'confirmed', 'failed')),
  authorization_data jsonb,
  top_up_hash     text,
  top_up_raw      text,
  tx_hash         text NOT NULL,
  tx_raw          text NOT NULL,
  block_number    bigint,
  error           text,
  created_at      timestamptz NOT NULL DEFAULT now(),
  updated_at      timestamptz NOT NULL DEFAULT now(),
  confirmed_at    timestamptz
);
CREATE UNIQUE INDEX chain_sweeps_open ON chain_sweeps (chain, from_address, token) WHERE status IN ('signed', 'topped_up', 'sent');
CREATE INDEX chain_sweeps_by_chain ON chain_sweeps (chain, created_at DESC);
RESET lock_timeout;
RESET statement_timeout;
