-- Beneficiaries and their payment accounts (spec §Beneficiary; DESIGN §4 Beneficiary accounts).
-- A beneficiary belongs to the workspace itself (account_id NULL) or to one of its sub-accounts.

CREATE TABLE beneficiaries (
  id                  uuid PRIMARY KEY,
  workspace_id        uuid NOT NULL REFERENCES workspaces (id),
  account_id          uuid REFERENCES accounts (id),
  type                text NOT NULL CHECK (type IN ('individual', 'business')),
  status              text NOT NULL DEFAULT 'active' CHECK (status IN ('active', 'inactive', 'suspended')),
  name                text NOT NULL CHECK (char_length(name) BETWEEN 2 AND 100),
  country             text NOT NULL CHECK (country ~ '^[A-Z]{2}$'),
  address             text CHECK (char_length(address) <= 200),
  address_line2       text CHECK (char_length(address_line2) <= 200),
  city                text CHECK (char_length(city) <= 100),
  country_subdivision text CHECK (char_length(country_subdivision) <= 50),
  date_of_birth       date,
  email               text CHECK (char_length(email) <= 254),
  middle_name         text CHECK (char_length(middle_name) <= 100),
  notes               text CHECK (char_length(notes) <= 500),
  postcode            text CHECK (char_length(postcode) <= 20),
  registration_number text CHECK (char_length(registration_number) <= 100),
  created_at          timestamptz NOT NULL DEFAULT now(),
  updated_at          timestamptz NOT NULL DEFAULT now(),
  -- a business never takes a date of birth; a registration number is a business's only
  CHECK (type = 'individual' OR date_of_birth IS NULL),
  CHECK (type = 'business' OR registration_number IS NULL)
);
CREATE INDEX beneficiaries_workspace_page ON beneficiaries (workspace_id, created_at DESC, id DESC);
CREATE INDEX beneficiaries_account_page ON beneficiaries (workspace_id, account_id, created_at DESC, id DESC);

-- The `accounts[]` items. Ids are server-assigned and stay stable across updates; an item dropped by
-- an update is marked removed (payouts may still point at it), never deleted.
CREATE TABLE beneficiary_accounts (
  id             uuid PRIMARY KEY,
  beneficiary_id uuid NOT NULL REFERENCES beneficiaries (id),
  workspace_id   uuid NOT NULL REFERENCES workspaces (id),
  position       integer NOT NULL CHECK (position >= 0),
  type           text NOT NULL CHECK (type IN ('iban', 'bank_account', 'mobile_money', 'crypto')),
  currency       text NOT NULL,
  country        text CHECK (country ~ '^[A-Z]{2}$'),
  data           jsonb NOT NULL,
  created_at     timestamptz NOT NULL DEFAULT now(),
  updated_at     timestamptz NOT NULL DEFAULT now(),
  removed_at     timestamptz
);
CREATE INDEX beneficiary_accounts_of ON beneficiary_accounts (beneficiary_id, position) WHERE removed_at IS NULL;
CREATE INDEX beneficiary_accounts_workspace ON beneficiary_accounts (workspace_id, id);
