-- Idempotency-Keys are scoped to who sends them: a workspace (the API), or an operator principal
-- (the operator API's key, or the console's session: its operator key or operator user). The same
-- key string in two scopes names two requests.
ALTER TABLE idempotency_keys RENAME COLUMN workspace_id TO owner_id;
ALTER TABLE idempotency_keys ADD COLUMN scope text NOT NULL DEFAULT 'workspace' CHECK (scope IN ('workspace', 'operator'));
ALTER TABLE idempotency_keys DROP CONSTRAINT idempotency_keys_pkey;
ALTER TABLE idempotency_keys ADD PRIMARY KEY (scope, owner_id, key);
