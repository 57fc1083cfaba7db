-- Sign-in for companies: a workspace's users may sign in to the dashboard through the company's
-- OpenID Connect provider (src/domains/users/company-sign-in.service.ts). One provider per
-- workspace; its client secret is kept encrypted like every other secret. A user signed in this
-- way may have no password (they never use one), so an active user no longer needs a password hash.

SET LOCAL lock_timeout = '5s';
SET LOCAL statement_timeout = '60s';

ALTER TABLE dashboard_users DROP CONSTRAINT dashboard_users_check;

CREATE TABLE workspace_identity_providers (
  workspace_id            uuid PRIMARY KEY REFERENCES workspaces (id),
  -- The provider's issuer (its discovery document is at <issuer>/.well-known/openid-configuration).
  issuer                  text NOT NULL,
  client_id               text NOT NULL,
  client_secret_encrypted text NOT NULL,
  -- The company's email domain: a person types their email, and its domain names the workspace and
  -- provider; a provider may only vouch for emails of this domain. One workspace per domain.
  email_domain            text NOT NULL UNIQUE,
  -- The claim the role is read from, and which of its values give which role: [value, role] pairs,
  -- in order (the first value the person has wins).
  role_claim              text NOT NULL,
  role_map                jsonb NOT NULL,
  created_at              timestamptz NOT NULL DEFAULT now(),
  updated_at              timestamptz NOT NULL DEFAULT now()
);
