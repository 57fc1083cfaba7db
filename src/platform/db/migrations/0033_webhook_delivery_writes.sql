-- A webhook delivery written once and then once more with its outcome (issue 26, docs/benchmarks.md).
-- Every commit stays durable: nothing here is unlogged or asynchronous.
--
-- The dispatcher now creates the deliveries its worker has room for already leased to that worker,
-- which sends them at once: no claim between the insert and the attempt. Such a delivery, during
-- its first attempt, is pending with no next_attempt_at, so it is outside the due index; its outcome
-- then changes no indexed column when it succeeds (status is no longer part of an index predicate),
-- and is a HOT update: no new entry in any index. A failed first attempt sets next_attempt_at and
-- enters the due index, as before.
--
-- A worker killed during such a first attempt: its leases are listed in webhook_leases, one row per
-- dispatched batch, deleted with the outcome write that completes the batch. A row whose lease has
-- ended makes its deliveries still without an outcome due at once (any worker's claim loop does it),
-- so they are due again when their lease ends, as a claimed delivery is.
CREATE TABLE webhook_leases (
  id           bigserial PRIMARY KEY,
  worker_id    text NOT NULL,            -- the worker the deliveries are leased to
  until        timestamptz NOT NULL,     -- the end of their lease
  delivery_ids uuid[] NOT NULL
);

-- Pending and due: next_attempt_at set. Pending without it: a first attempt under way (leased).
ALTER TABLE webhook_deliveries DROP CONSTRAINT webhook_deliveries_check;
ALTER TABLE webhook_deliveries ADD CONSTRAINT webhook_deliveries_final_not_due CHECK (status = 'pending' OR next_attempt_at IS NULL);
DROP INDEX webhook_deliveries_due;
CREATE INDEX webhook_deliveries_due ON webhook_deliveries (endpoint_id, next_attempt_at) WHERE next_attempt_at IS NOT NULL;
-- Room on each page for the outcome's version of the row (with its attempt), so that it stays HOT.
ALTER TABLE webhook_deliveries SET (fillfactor = 40);

-- A delivery's event exists by construction: the dispatcher creates deliveries only for the events it
-- takes out of the outbox in the same statement (the test operation, for the event of its own
-- transaction), and retention deletes an event only once no delivery names it (and it is out of the
-- outbox). The foreign key checked it again for every delivery, locking the event's row (a WAL
-- record and a dirtied page of events per delivery).
ALTER TABLE webhook_deliveries DROP CONSTRAINT webhook_deliveries_event_id_fkey;
