-- The role check 0189 set for the new roles, validated apart from the transaction that added it.
SET LOCAL lock_timeout = '5s';
SET LOCAL statement_timeout = '60s';
ALTER TABLE dashboard_users VALIDATE CONSTRAINT dashboard_users_role_check;
