-- Less PostgreSQL work per paid payout (issue 26; the counts before and after are in
-- docs/benchmarks.md). Every commit stays durable: nothing here is unlogged or asynchronous.

-- The webhook outbox becomes a table of its own. An event used to be marked dispatched by an update
-- of its row, and the partial index that found undispatched events (events_undispatched) made that
-- update non-HOT: a second copy of the event's data and a new entry in each of its seven indexes,
-- for every event. Now an event to deliver gets a small outbox row in its transaction (one index
-- entry), which the dispatcher deletes when it turns the event into its deliveries; the event row
-- is never updated. An event recorded as not deliverable gets no outbox row.
CREATE TABLE event_outbox (
  seq          bigint PRIMARY KEY,        -- the event's seq: the dispatcher takes the oldest first
  workspace_id uuid NOT NULL,             -- the event's (the outbox is colocated with its events)
  event_id     text NOT NULL
);
INSERT INTO event_outbox (seq, workspace_id, event_id)
SELECT seq, workspace_id, id FROM events WHERE dispatched_at IS NULL AND deliverable;
DROP INDEX events_undispatched;
ALTER TABLE events DROP COLUMN dispatched_at;
-- seq is a sequence's value: unique by construction, and no read looks an event up by it alone (the
-- stream pages by (workspace_id, tx_id, seq), the outbox has its own key), so its unique index was
-- written by every event for nothing.
ALTER TABLE events DROP CONSTRAINT events_seq_key;

-- Jobs without a unique key (payout steps) took an entry in the unique-key index all the same (a
-- NULL key is indexed): the index now holds only the keys it keeps unique. Callers say
-- ON CONFLICT (unique_key) WHERE unique_key IS NOT NULL AND status <> 'failed' (src/jobs/queue.ts).
DROP INDEX jobs_unique_key;
CREATE UNIQUE INDEX jobs_unique_key ON jobs (unique_key) WHERE unique_key IS NOT NULL AND status <> 'failed';

-- A delivery's unique key leads with the event, so the same index finds an event's deliveries (the
-- payout timeline, retention) and the index that did only that (webhook_deliveries_event, 0007) goes:
-- one index entry fewer for each delivery written and each non-HOT update of one.
-- ON CONFLICT (endpoint_id, event_id) names the same columns, so the dispatcher is unchanged.
ALTER TABLE webhook_deliveries ADD CONSTRAINT webhook_deliveries_event_endpoint UNIQUE (event_id, endpoint_id);
ALTER TABLE webhook_deliveries DROP CONSTRAINT webhook_deliveries_endpoint_id_event_id_key;
DROP INDEX webhook_deliveries_event;

-- Room on each page for the next version of rows that move soon after they are written, so their
-- updates are HOT (no index entry, the page pruned in place): a payout moves twice on its way to
-- paid (status and times, no indexed column), a hold is posted or voided once, and a balance row
-- is updated by every batch that touches it. Applies to pages written from now on.
ALTER TABLE payouts SET (fillfactor = 70);
ALTER TABLE ledger_transfers SET (fillfactor = 85);
ALTER TABLE ledger_accounts SET (fillfactor = 50);
