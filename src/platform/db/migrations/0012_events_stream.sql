-- The live event stream (GET /v1/events/stream).
--
-- seq is allocated when an event is inserted, not when its transaction commits: an event with a
-- lower seq can become visible after one with a higher seq. A stream that resumed "after seq N"
-- could skip it. tx_id, the inserting transaction's id, fixes an order that is safe to resume in:
-- the stream reads only events whose transaction is older than every transaction still running
-- (pg_snapshot_xmin), ordered by (tx_id, seq); anything that commits later has a larger tx_id.
ALTER TABLE events ADD COLUMN tx_id xid8 NOT NULL DEFAULT pg_current_xact_id();
CREATE INDEX events_stream ON events (workspace_id, tx_id, seq);

-- Each committed insert wakes the streams of its workspaces in every API process (NOTIFY is
-- delivered at commit, and not at all on rollback). The streams catch up by query, so a lost
-- notification only delays them until their next poll.
CREATE FUNCTION corridor_events_notify() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_notify('corridor_events', w) FROM (SELECT DISTINCT workspace_id::text AS w FROM inserted) s;
  RETURN NULL;
END
$$;
CREATE TRIGGER events_notify AFTER INSERT ON events REFERENCING NEW TABLE AS inserted
  FOR EACH STATEMENT EXECUTE FUNCTION corridor_events_notify();
