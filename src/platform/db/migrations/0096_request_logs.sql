-- Request logs (issue 38, point 7): a workspace's recent API requests, for the dashboard's Request
-- logs page and `corridor logs tail`. Written in batches by the API process (never one insert per
-- request on its path), bodies already redacted (no secret, no personal data), and deleted by the
-- retention job after RETENTION_REQUEST_LOGS_DAYS.

SET LOCAL lock_timeout = '5s';
SET LOCAL statement_timeout = '60s';

CREATE TABLE IF NOT EXISTS request_logs (
  id               uuid PRIMARY KEY,
  workspace_id     uuid NOT NULL,
  -- The sub-account acted on (Service-Account-Id), else the workspace's master account.
  account_id       uuid NOT NULL,
  request_id       text NOT NULL,
  method           text NOT NULL,
  -- The path and query, credential-like query values redacted.
  path             text NOT NULL,
  status           bigint NOT NULL CHECK (status BETWEEN 100 AND 599),
  duration_ms      bigint NOT NULL CHECK (duration_ms >= 0),
  idempotency_key  text,
  -- The credential's client id, or dashboard:<user id>.
  caller           text NOT NULL,
  request_body     jsonb,
  response_body    jsonb,
  -- When the request arrived.
  created_at       timestamptz NOT NULL
);
-- A workspace's requests newest first (the page and the tail), and the retention sweep's range.
CREATE INDEX IF NOT EXISTS request_logs_page ON request_logs (workspace_id, created_at DESC, id DESC);
CREATE INDEX IF NOT EXISTS request_logs_created_brin ON request_logs USING brin (created_at);
