-- Receiving money (spec §Other resources, §States and transitions / Virtual account and Deposit; DESIGN §4).

-- One virtual account per owner (the workspace's master account or a sub-account) and currency.
-- Bank details are sealed (lib/crypto-box) and read only by GET /v1/virtual-accounts.
CREATE TABLE virtual_accounts (
  id              uuid PRIMARY KEY,
  workspace_id    uuid NOT NULL REFERENCES workspaces (id),
  account_id      uuid NOT NULL REFERENCES accounts (id),
  currency        text NOT NULL,
  status          text NOT NULL CHECK (status IN ('pending', 'active', 'failed')),
  issuer          text NOT NULL,
  bank_details    text,
  failure_reason  text,
  deactivated_at  timestamptz,
  created_at      timestamptz NOT NULL DEFAULT now(),
  updated_at      timestamptz NOT NULL DEFAULT now(),
  UNIQUE (account_id, currency),
  CHECK ((status = 'active') = (bank_details IS NOT NULL))
);
CREATE INDEX virtual_accounts_page ON virtual_accounts (workspace_id, account_id, created_at DESC, id DESC);

-- The issuer's last refusal of a request per owner and currency: a repeat within the memo window
-- (spec §Limits: 10 minutes) is answered from it without asking the issuer again.
CREATE TABLE virtual_account_refusals (
  account_id    uuid NOT NULL REFERENCES accounts (id),
  currency      text NOT NULL,
  workspace_id  uuid NOT NULL REFERENCES workspaces (id),
  code          text NOT NULL,
  detail        text NOT NULL,
  refused_at    timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (account_id, currency)
);

CREATE TABLE deposits (
  id                  uuid PRIMARY KEY,
  workspace_id        uuid NOT NULL REFERENCES workspaces (id),
  account_id          uuid NOT NULL REFERENCES accounts (id),
  virtual_account_id  uuid REFERENCES virtual_accounts (id),
  client_ref          text NOT NULL,
  rail                text NOT NULL,
  currency            text NOT NULL,
  status              text NOT NULL CHECK (status IN ('pending', 'processing', 'completed', 'failed', 'in_review', 'refunding', 'refunded')),
  amount_minor        numeric(38, 0) NOT NULL CHECK (amount_minor > 0),
  fee_minor           numeric(38, 0) NOT NULL DEFAULT 0 CHECK (fee_minor >= 0),
  -- The pending transfers from the deposit suspense (to the balance, to fee revenue), posted when the
  -- deposit completes and voided when it fails first; null when the amount is 0.
  credit_transfer_id  uuid,
  fee_transfer_id     uuid,
  -- Set when the credit landed on the balance (and kept on a deposit that took it back).
  credited_at         timestamptz,
  credit_reversed_at  timestamptz,
  failure_reason      text,
  created_at          timestamptz NOT NULL DEFAULT now(),
  updated_at          timestamptz NOT NULL DEFAULT now(),
  completed_at        timestamptz,
  CHECK (fee_minor <= amount_minor)
);
CREATE INDEX deposits_page ON deposits (workspace_id, created_at DESC, id DESC);
CREATE INDEX deposits_virtual_account ON deposits (virtual_account_id, created_at DESC, id DESC);
