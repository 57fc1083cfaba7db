-- Each connector's health as its jobs and loops last saw it (src/connectors/health.ts): the last call
-- or poll that ended well, the last file it delivered, and the last error with its time. One row per
-- connector name, upserted; the backlog is read from the payouts themselves.
CREATE TABLE connector_health (
  connector text PRIMARY KEY,
  last_success_at timestamptz,
  last_file_at timestamptz,
  last_error text,
  last_error_at timestamptz
);
