-- The account a dashboard session acts on: null for the workspace's master account, or one of its
-- sub-accounts (as an API call with Service-Account-Id). Kept with the session, set by a form.
ALTER TABLE web_sessions ADD COLUMN acting_account_id uuid REFERENCES accounts (id) ON DELETE SET NULL;
