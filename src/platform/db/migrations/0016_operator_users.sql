-- Operator users: the operator's staff sign in to the console with their own email, password and
-- optional second factor, beside the operator key. They are kept with the dashboard's users (one
-- invitation, password and TOTP path for both), with no workspace and the role `operator`.
ALTER TABLE dashboard_users ALTER COLUMN workspace_id DROP NOT NULL;
ALTER TABLE dashboard_users DROP CONSTRAINT dashboard_users_role_check;
ALTER TABLE dashboard_users ADD CONSTRAINT dashboard_users_role_check CHECK (role IN ('admin', 'viewer', 'operator'));
ALTER TABLE dashboard_users ADD CONSTRAINT dashboard_users_owner_check CHECK ((workspace_id IS NULL) = (role = 'operator'));
CREATE INDEX dashboard_users_operators ON dashboard_users (created_at DESC, id DESC) WHERE workspace_id IS NULL;

-- A console session is opened by an operator key or by an operator user; a dashboard session by a workspace's user.
ALTER TABLE web_sessions DROP CONSTRAINT web_sessions_check;
ALTER TABLE web_sessions DROP CONSTRAINT web_sessions_check1;
ALTER TABLE web_sessions ADD CONSTRAINT web_sessions_owner_check CHECK (
  (area = 'dashboard' AND user_id IS NOT NULL AND operator_key_id IS NULL)
  OR (area = 'console' AND (user_id IS NULL) <> (operator_key_id IS NULL))
);
