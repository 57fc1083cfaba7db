-- The double-entry ledger, modelled on TigerBeetle's accounts and two-phase transfers.
-- Amounts are integers in minor units of the account's currency (numeric(38,0)).

CREATE TABLE ledger_accounts (
  id               uuid PRIMARY KEY,
  kind             text NOT NULL CHECK (kind IN ('customer', 'provider_clearing', 'fee_revenue', 'fx_desk',
                                                 'deposit_suspense', 'operator_adjustments', 'sandbox_funding')),
  -- customer accounts: the workspace and the account (master or sub) whose money this is
  workspace_id     uuid REFERENCES workspaces (id),
  account_id       uuid REFERENCES accounts (id),
  -- system accounts: a qualifier such as the rail of a provider clearing account
  code             text NOT NULL DEFAULT '',
  currency         text NOT NULL,
  -- Running balances are kept on customer accounts only (the ones that must never overdraw);
  -- system accounts' balances are the sums of their transfers, so no system row is ever hot.
  debits_posted    numeric(38, 0) NOT NULL DEFAULT 0,
  credits_posted   numeric(38, 0) NOT NULL DEFAULT 0,
  debits_pending   numeric(38, 0) NOT NULL DEFAULT 0,
  credits_pending  numeric(38, 0) NOT NULL DEFAULT 0,
  last_transfer_at timestamptz,
  created_at       timestamptz NOT NULL DEFAULT now(),
  CHECK ((kind = 'customer') = (account_id IS NOT NULL AND workspace_id IS NOT NULL)),
  CHECK (debits_posted >= 0 AND credits_posted >= 0 AND debits_pending >= 0 AND credits_pending >= 0),
  -- A customer's available balance never goes below zero.
  CHECK (kind <> 'customer' OR debits_posted + debits_pending <= credits_posted)
);
CREATE UNIQUE INDEX ledger_accounts_customer ON ledger_accounts (account_id, currency) WHERE kind = 'customer';
CREATE UNIQUE INDEX ledger_accounts_system ON ledger_accounts (kind, code, currency) WHERE kind <> 'customer';

CREATE TABLE ledger_transfers (
  id                uuid PRIMARY KEY,
  currency          text NOT NULL,
  debit_account_id  uuid NOT NULL REFERENCES ledger_accounts (id),
  credit_account_id uuid NOT NULL REFERENCES ledger_accounts (id),
  amount_minor      numeric(38, 0) NOT NULL CHECK (amount_minor > 0),
  -- posted directly; or pending, then posted or voided exactly once
  status            text NOT NULL CHECK (status IN ('posted', 'pending', 'voided')),
  two_phase         boolean NOT NULL,
  resolved_at       timestamptz,
  reference_type    text NOT NULL,
  reference_id      text,
  description       text,
  created_at        timestamptz NOT NULL DEFAULT now(),
  CHECK (debit_account_id <> credit_account_id),
  CHECK (two_phase OR status = 'posted'),
  CHECK ((status = 'pending') = (two_phase AND resolved_at IS NULL))
);
CREATE INDEX ledger_transfers_debit ON ledger_transfers (debit_account_id, created_at DESC, id DESC);
CREATE INDEX ledger_transfers_credit ON ledger_transfers (credit_account_id, created_at DESC, id DESC);
CREATE INDEX ledger_transfers_reference ON ledger_transfers (reference_type, reference_id);

-- System accounts exist from the start, with ids derived from what they are (see systemAccountId),
-- so a transfer never has to create one. Provider clearing accounts are per rail.
INSERT INTO ledger_accounts (id, kind, code, currency)
SELECT (substr(h, 1, 8) || '-' || substr(h, 9, 4) || '-4' || substr(h, 14, 3) || '-8' || substr(h, 18, 3) || '-' || substr(h, 21, 12))::uuid,
       kind, code, currency
  FROM (
    SELECT kind, code, currency,
           encode(sha256(convert_to('corridor:system:' || kind || ':' || code || ':' || currency, 'UTF8')), 'hex') AS h
      FROM (VALUES ('provider_clearing', 'sepa_inst'), ('provider_clearing', 'sepa_credit'), ('provider_clearing', 'bank_transfer'),
                   ('provider_clearing', 'ach'), ('provider_clearing', 'fedwire'), ('provider_clearing', 'swift'),
                   ('provider_clearing', 'crypto'), ('provider_clearing', 'mobile_money'), ('provider_clearing', 'international'),
                   ('fee_revenue', ''), ('fx_desk', ''), ('deposit_suspense', ''), ('operator_adjustments', ''), ('sandbox_funding', ''))
           AS k(kind, code)
     CROSS JOIN (VALUES ('EUR'), ('USD'), ('GBP'), ('USDC'), ('NGN'), ('USDT'), ('XOF'), ('XAF'), ('GHS'),
                        ('ZMW'), ('MZN'), ('MWK'), ('EGP')) AS c(currency)
  ) seeded;
