-- Roles (issue 37, point 5). A workspace's users are admin, finance, approver, developer or viewer;
-- the operator's users are administrator, compliance, finance or support. Existing users keep what
-- they could do: admin and viewer stay as they are; an operator user (role `operator`, who could do
-- everything) becomes an administrator. What each role may do is src/domains/users/rights.ts. The
-- new check is added NOT VALID here and validated in 0190, in its own transaction.
SET LOCAL lock_timeout = '5s';
SET LOCAL statement_timeout = '60s';
ALTER TABLE dashboard_users DROP CONSTRAINT dashboard_users_owner_check;
ALTER TABLE dashboard_users DROP CONSTRAINT dashboard_users_role_check;
UPDATE dashboard_users SET role = 'administrator' WHERE workspace_id IS NULL AND role = 'operator';
ALTER TABLE dashboard_users ADD CONSTRAINT dashboard_users_role_check CHECK (
  (workspace_id IS NOT NULL AND role IN ('admin', 'finance', 'approver', 'developer', 'viewer'))
  OR (workspace_id IS NULL AND role IN ('administrator', 'compliance', 'finance', 'support'))
) NOT VALID;
