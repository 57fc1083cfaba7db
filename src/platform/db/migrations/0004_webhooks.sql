-- Signed webhooks: endpoints, one delivery per (endpoint, event) with its attempts, and the
-- outbox's dispatch mark.

-- An event is dispatched (turned into its deliveries) once, in one transaction with the deliveries.
ALTER TABLE events ADD COLUMN dispatched_at timestamptz;
UPDATE events SET dispatched_at = created_at; -- no endpoint existed before this migration
CREATE INDEX events_undispatched ON events (seq) WHERE dispatched_at IS NULL;

CREATE TABLE webhook_endpoints (
  id               uuid PRIMARY KEY,
  workspace_id     uuid NOT NULL REFERENCES workspaces (id),
  url              text NOT NULL,
  description      text,
  event_types      text[],            -- NULL: every event type
  status           text NOT NULL DEFAULT 'enabled' CHECK (status IN ('enabled', 'disabled')),
  secret_encrypted text NOT NULL,     -- the whsec_ secret, sealed with the data encryption key
  created_at       timestamptz NOT NULL DEFAULT now(),
  updated_at       timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX webhook_endpoints_workspace_page ON webhook_endpoints (workspace_id, created_at DESC, id DESC);

-- The delivery table is its own durable queue: a worker takes a due row by leasing it (locked_by,
-- locked_until; FOR UPDATE SKIP LOCKED), so a worker that dies leaves it due again when the lease
-- ends. The lease columns are not indexed, so taking a row is a HOT update (hence the fillfactor).
CREATE TABLE webhook_deliveries (
  id              uuid PRIMARY KEY,
  workspace_id    uuid NOT NULL,
  endpoint_id     uuid NOT NULL REFERENCES webhook_endpoints (id) ON DELETE CASCADE,
  event_id        text NOT NULL REFERENCES events (id),
  event_type      text NOT NULL,
  status          text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'succeeded', 'failed')),
  attempt_count   integer NOT NULL DEFAULT 0 CHECK (attempt_count >= 0),
  attempts        jsonb NOT NULL DEFAULT '[]',
  next_attempt_at timestamptz,        -- when the next attempt may start; NULL once final
  locked_by       text,               -- the worker holding the lease
  locked_until    timestamptz,        -- the end of that lease
  created_at      timestamptz NOT NULL DEFAULT now(),
  updated_at      timestamptz NOT NULL DEFAULT now(),
  UNIQUE (endpoint_id, event_id),
  CHECK ((status = 'pending') = (next_attempt_at IS NOT NULL))
) WITH (fillfactor = 80);
CREATE INDEX webhook_deliveries_due ON webhook_deliveries (endpoint_id, next_attempt_at) WHERE status = 'pending';
CREATE INDEX webhook_deliveries_page ON webhook_deliveries (endpoint_id, created_at DESC, id DESC);
