-- The Paystack connector's dedicated virtual accounts (NGN accounts the operator issues through
-- Paystack, POST /operator/v1/paystack/dedicated-accounts) and the credits Paystack reports on them
-- (`charge.success` on a dedicated account), each recorded by its reference in the transaction that
-- credits it, so a repeated or replayed webhook credits nothing twice. Rows are never deleted.

SET LOCAL lock_timeout = '5s';
SET LOCAL statement_timeout = '60s';

CREATE TABLE paystack_dedicated_accounts (
  virtual_account_id    uuid PRIMARY KEY REFERENCES virtual_accounts (id),
  workspace_id          uuid NOT NULL REFERENCES workspaces (id),
  -- The NUBAN payers send to: what a charge.success names (authorization.receiver_bank_account_number).
  account_number        text NOT NULL UNIQUE,
  -- Paystack's ids of the account and of its customer.
  dedicated_account_id  bigint NOT NULL UNIQUE,
  customer_code         text NOT NULL,
  bank_slug             text NOT NULL,
  created_at            timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE paystack_charges (
  -- The charge's reference at Paystack: a credit is taken in once by it.
  reference             text PRIMARY KEY,
  -- The owner when matched; null for a charge that matched no dedicated account (an exception).
  workspace_id          uuid REFERENCES workspaces (id),
  account_number        text,
  amount_minor          numeric(38, 0) NOT NULL,
  deposit_id            uuid,
  -- received: claimed, being applied in the same transaction; credited: a deposit landed; exception: on the operator's exceptions list with its reason.
  outcome               text NOT NULL CHECK (outcome IN ('received', 'credited', 'exception')),
  received_at           timestamptz NOT NULL DEFAULT now()
);
