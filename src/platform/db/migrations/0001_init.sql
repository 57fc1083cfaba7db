-- Foundation: tenancy, credentials, signing keys, operator access and audit,
-- idempotency, the durable job queue and the event outbox.

CREATE TABLE settings (
  key        text PRIMARY KEY,
  value      jsonb NOT NULL,
  updated_at timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE workspaces (
  id                    uuid PRIMARY KEY,
  name                  text NOT NULL CHECK (length(name) BETWEEN 1 AND 200),
  country               char(2) NOT NULL,
  status                text NOT NULL DEFAULT 'active' CHECK (status IN ('active', 'suspended')),
  enabled_currencies    text[] NOT NULL,
  disabled_capabilities text[] NOT NULL DEFAULT '{}',
  settings              jsonb NOT NULL DEFAULT '{}',
  created_at            timestamptz NOT NULL DEFAULT now(),
  updated_at            timestamptz NOT NULL DEFAULT now()
);

-- The master account of a workspace has the workspace's id; sub-accounts point to it.
CREATE TABLE accounts (
  id                uuid PRIMARY KEY,
  workspace_id      uuid NOT NULL REFERENCES workspaces (id),
  parent_account_id uuid REFERENCES accounts (id),
  account_type      text NOT NULL CHECK (account_type IN ('master', 'sub')),
  name              text NOT NULL,
  country           char(2) NOT NULL,
  status            text NOT NULL CHECK (status IN ('pending', 'active', 'suspended', 'closed')),
  client_ref        text,
  created_at        timestamptz NOT NULL DEFAULT now(),
  updated_at        timestamptz NOT NULL DEFAULT now(),
  CHECK ((account_type = 'master') = (parent_account_id IS NULL))
);
CREATE UNIQUE INDEX accounts_client_ref ON accounts (workspace_id, client_ref) WHERE client_ref IS NOT NULL;
CREATE INDEX accounts_workspace_page ON accounts (workspace_id, created_at DESC, id DESC);

CREATE TABLE credentials (
  client_id    uuid PRIMARY KEY,
  workspace_id uuid NOT NULL REFERENCES workspaces (id),
  secret_hash  text NOT NULL,
  scopes       text[] NOT NULL,
  status       text NOT NULL DEFAULT 'active' CHECK (status IN ('active', 'revoked')),
  label        text,
  created_at   timestamptz NOT NULL DEFAULT now(),
  updated_at   timestamptz NOT NULL DEFAULT now(),
  last_used_at timestamptz
);
CREATE INDEX credentials_workspace ON credentials (workspace_id, created_at DESC, client_id DESC);

CREATE TABLE signing_keys (
  kid                   text PRIMARY KEY,
  alg                   text NOT NULL,
  public_jwk            jsonb NOT NULL,
  private_jwk_encrypted text NOT NULL,
  created_at            timestamptz NOT NULL DEFAULT now(),
  retired_at            timestamptz
);

CREATE TABLE operator_keys (
  id         uuid PRIMARY KEY,
  key_hash   text NOT NULL,
  label      text,
  created_at timestamptz NOT NULL DEFAULT now(),
  revoked_at timestamptz
);

CREATE TABLE operator_audit_log (
  id           uuid PRIMARY KEY,
  at           timestamptz NOT NULL DEFAULT now(),
  operator_key uuid,
  method       text NOT NULL,
  path         text NOT NULL,
  status_code  integer NOT NULL,
  request_id   text NOT NULL,
  workspace_id uuid,
  body         jsonb
);
CREATE INDEX operator_audit_log_page ON operator_audit_log (at DESC, id DESC);

CREATE TABLE idempotency_keys (
  workspace_id  uuid NOT NULL,
  key           text NOT NULL,
  fingerprint   text NOT NULL,
  status_code   integer NOT NULL,
  response_body text NOT NULL,
  content_type  text NOT NULL,
  created_at    timestamptz NOT NULL DEFAULT now(),
  expires_at    timestamptz NOT NULL,
  PRIMARY KEY (workspace_id, key)
);
CREATE INDEX idempotency_keys_expiry ON idempotency_keys (expires_at);

-- Durable background work, claimed with FOR UPDATE SKIP LOCKED by any number of workers.
CREATE TABLE jobs (
  id           bigserial PRIMARY KEY,
  kind         text NOT NULL,
  payload      jsonb NOT NULL DEFAULT '{}',
  unique_key   text,
  status       text NOT NULL DEFAULT 'queued' CHECK (status IN ('queued', 'running', 'failed')),
  run_at       timestamptz NOT NULL DEFAULT now(),
  attempts     integer NOT NULL DEFAULT 0,
  max_attempts integer NOT NULL CHECK (max_attempts > 0),
  locked_until timestamptz,
  locked_by    text,
  last_error   text,
  created_at   timestamptz NOT NULL DEFAULT now(),
  updated_at   timestamptz NOT NULL DEFAULT now()
);
CREATE UNIQUE INDEX jobs_unique_key ON jobs (unique_key) WHERE status <> 'failed';
CREATE INDEX jobs_due ON jobs (run_at) WHERE status = 'queued';
CREATE INDEX jobs_leased ON jobs (locked_until) WHERE status = 'running';

-- The event outbox: written in the transaction of the change it describes.
CREATE TABLE events (
  id           text PRIMARY KEY,
  seq          bigserial UNIQUE,
  workspace_id uuid NOT NULL REFERENCES workspaces (id),
  account_id   uuid,
  type         text NOT NULL,
  data         jsonb NOT NULL,
  test         boolean NOT NULL DEFAULT false,
  created_at   timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX events_workspace_page ON events (workspace_id, created_at DESC, id DESC);
