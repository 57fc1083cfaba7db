-- Dashboard users and web sessions (dashboard and operator console).
-- A user belongs to one workspace with one role. The email is personal data: it is kept encrypted,
-- and found by its HMAC digest. An invitation is a single-use link whose token is stored as a digest.
CREATE TABLE dashboard_users (
  id                    uuid PRIMARY KEY,
  workspace_id          uuid NOT NULL REFERENCES workspaces (id),
  email_digest          text NOT NULL UNIQUE,
  email_encrypted       text NOT NULL,
  role                  text NOT NULL CHECK (role IN ('admin', 'viewer')),
  status                text NOT NULL CHECK (status IN ('invited', 'active', 'disabled')),
  password_hash         text,
  totp_secret_encrypted text,
  totp_last_step        bigint,
  invitation_digest     text UNIQUE,
  invitation_expires_at timestamptz,
  created_at            timestamptz NOT NULL DEFAULT now(),
  updated_at            timestamptz NOT NULL DEFAULT now(),
  CHECK (status <> 'active' OR password_hash IS NOT NULL)
);
CREATE INDEX dashboard_users_workspace ON dashboard_users (workspace_id, created_at DESC, id DESC);

-- A session is found by the digest of its cookie's token. `area` says which face it opens: a
-- dashboard user's workspace, or the operator console (signed in with an operator key).
CREATE TABLE web_sessions (
  id_digest              text PRIMARY KEY,
  area                   text NOT NULL CHECK (area IN ('dashboard', 'console')),
  user_id                uuid REFERENCES dashboard_users (id) ON DELETE CASCADE,
  operator_key_id        uuid REFERENCES operator_keys (id) ON DELETE CASCADE,
  second_factor_pending  boolean NOT NULL DEFAULT false,
  created_at             timestamptz NOT NULL DEFAULT now(),
  last_seen_at           timestamptz NOT NULL DEFAULT now(),
  expires_at             timestamptz NOT NULL,
  CHECK ((area = 'dashboard') = (user_id IS NOT NULL)),
  CHECK ((area = 'console') = (operator_key_id IS NOT NULL))
);
CREATE INDEX web_sessions_user ON web_sessions (user_id);
CREATE INDEX web_sessions_expiry ON web_sessions (expires_at);

-- Who did it, beside the operator key: `user:<id>` for a dashboard user's change.
ALTER TABLE operator_audit_log ADD COLUMN actor text;
