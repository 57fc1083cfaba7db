-- Retention (src/jobs/retention.ts) deletes old rows in bounded batches. These indexes find them
-- without reading whole tables: BRIN on the creation time (a few pages, next to free on insert,
-- rows arrive in time order), and the delivery -> event reference, which deleting an event checks
-- (its foreign key) and which retention reads to keep an event while a delivery of it is kept.
CREATE INDEX events_created_brin ON events USING brin (created_at);
CREATE INDEX webhook_deliveries_created_brin ON webhook_deliveries USING brin (created_at);
CREATE INDEX webhook_deliveries_event ON webhook_deliveries (event_id);
CREATE INDEX fx_quotes_created_brin ON fx_quotes USING brin (created_at);
CREATE INDEX jobs_failed ON jobs (updated_at) WHERE status = 'failed';
