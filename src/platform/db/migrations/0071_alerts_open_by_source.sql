-- corridor:outside-transaction
-- The open alerts per source (the metrics endpoint's corridor_alerts_open, the console's list), built
-- without blocking writes: this migration runs outside a transaction (src/db/migrate.ts), so on
-- PostgreSQL the index is built CONCURRENTLY; a build that fails leaves no invalid index behind.
SET lock_timeout = '5s';
SET statement_timeout = 0;
CREATE INDEX CONCURRENTLY IF NOT EXISTS alerts_open_by_source ON alerts (source) WHERE closed_at IS NULL;
RESET lock_timeout;
RESET statement_timeout;
