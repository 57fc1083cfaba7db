-- FX: quotes (single use, locked to one intent, expiring) and the conversions that consume them.
-- Amounts are integers in minor units of their currency (numeric(38,0)), as in the ledger.
-- Rates are exact decimal strings: `rate` is toCurrency per 1 fromCurrency, all-in (mid less the spread).

CREATE TABLE fx_quotes (
  id                uuid PRIMARY KEY,
  workspace_id      uuid NOT NULL REFERENCES workspaces (id),
  -- the account acted on when the quote was made (master or sub); only it may consume the quote
  account_id        uuid NOT NULL REFERENCES accounts (id),
  intent            text NOT NULL CHECK (intent IN ('payout', 'conversion')),
  from_currency     text NOT NULL,
  to_currency       text NOT NULL,
  from_amount_minor numeric(38, 0) NOT NULL CHECK (from_amount_minor > 0),
  to_amount_minor   numeric(38, 0) NOT NULL CHECK (to_amount_minor > 0),
  fee_minor         numeric(38, 0) NOT NULL DEFAULT 0 CHECK (fee_minor >= 0),
  -- which amount the caller fixed: the other one was derived from it at `rate`
  fixed_side        text NOT NULL CHECK (fixed_side IN ('from', 'to')),
  rate              text NOT NULL,
  mid_rate          text NOT NULL,
  spread_bps        integer NOT NULL CHECK (spread_bps >= 0 AND spread_bps < 10000),
  -- open until consumed once (compare-and-set to used); an open quote past expires_at reads as expired
  status            text NOT NULL DEFAULT 'open' CHECK (status IN ('open', 'used')),
  expires_at        timestamptz NOT NULL,
  used_at           timestamptz,
  used_by_type      text,
  used_by_id        text,
  created_at        timestamptz NOT NULL DEFAULT now(),
  CHECK (from_currency <> to_currency),
  CHECK ((status = 'used') = (used_at IS NOT NULL))
);
CREATE INDEX fx_quotes_account_page ON fx_quotes (workspace_id, account_id, created_at DESC, id DESC);

CREATE TABLE fx_conversions (
  id                uuid PRIMARY KEY,
  workspace_id      uuid NOT NULL REFERENCES workspaces (id),
  account_id        uuid NOT NULL REFERENCES accounts (id),
  -- a quote funds at most one conversion
  quote_id          uuid NOT NULL UNIQUE REFERENCES fx_quotes (id),
  client_ref        text,
  from_currency     text NOT NULL,
  to_currency       text NOT NULL,
  from_amount_minor numeric(38, 0) NOT NULL CHECK (from_amount_minor > 0),
  to_amount_minor   numeric(38, 0) NOT NULL CHECK (to_amount_minor > 0),
  rate              text NOT NULL,
  status            text NOT NULL CHECK (status IN ('completed')),
  created_at        timestamptz NOT NULL DEFAULT now(),
  CHECK (from_currency <> to_currency)
);
CREATE UNIQUE INDEX fx_conversions_client_ref ON fx_conversions (workspace_id, client_ref) WHERE client_ref IS NOT NULL;
CREATE INDEX fx_conversions_account_page ON fx_conversions (workspace_id, account_id, created_at DESC, id DESC);
