-- One email is one person who can sign in, but an invitation does not claim its email until it is
-- accepted: a workspace admin inviting an email that already belongs to another workspace's user or
-- to an operator gets the same answer as for a fresh email (the dashboard must not tell who uses an
-- email elsewhere), and that invitation cannot be accepted while the email is taken.
-- Each owner (a workspace, or the operators: no workspace) lists an email at most once.
ALTER TABLE dashboard_users DROP CONSTRAINT dashboard_users_email_digest_key;
CREATE UNIQUE INDEX dashboard_users_email_claimed ON dashboard_users (email_digest) WHERE status <> 'invited';
CREATE UNIQUE INDEX dashboard_users_owner_email ON dashboard_users (COALESCE(workspace_id, '00000000-0000-0000-0000-000000000000'::uuid), email_digest);
