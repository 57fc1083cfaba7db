-- Alerts that reach a person (issue 36, point 2): the conditions the operator sets, the alerts they
-- open and close, and the notifications that carry them (by email and by signed webhook), recorded
-- before they are sent.

-- Never wait long behind another transaction's lock (the migration fails and is retried at the next start).
SET LOCAL lock_timeout = '5s';
SET LOCAL statement_timeout = '60s';

-- A condition: a source (src/modules/alerts/alert-sources.ts) and the threshold past which what it
-- finds is an alert, narrowed by a filter the source understands ({"connector":"bank","status":"processing"}).
-- Each registered source gets a condition of its own name with its default threshold the first time
-- the alerts are evaluated; the operator changes thresholds, adds narrower conditions, or disables one.
CREATE TABLE IF NOT EXISTS alert_conditions (
  id          text PRIMARY KEY CHECK (id ~ '^[a-z0-9][a-z0-9._-]{0,63}$'),
  source      text NOT NULL,
  threshold   numeric NOT NULL CHECK (threshold >= 0),
  filter      jsonb NOT NULL DEFAULT '{}',
  enabled     boolean NOT NULL DEFAULT true,
  updated_by  text NOT NULL,
  created_at  timestamptz NOT NULL DEFAULT now(),
  updated_at  timestamptz NOT NULL DEFAULT now()
);

-- An alert: what a condition found about one subject (a connector and state, an endpoint, a list),
-- open from the evaluation that first found it to the first that no longer does. At most one open
-- alert per condition and subject: it opens once.
CREATE TABLE IF NOT EXISTS alerts (
  id            uuid PRIMARY KEY,
  condition_id  text NOT NULL REFERENCES alert_conditions (id),
  source        text NOT NULL,
  subject       text NOT NULL,
  summary       text NOT NULL,
  details       jsonb NOT NULL DEFAULT '{}',
  opened_at     timestamptz NOT NULL DEFAULT now(),
  closed_at     timestamptz,
  CHECK (closed_at IS NULL OR closed_at >= opened_at)
);
CREATE UNIQUE INDEX IF NOT EXISTS alerts_open ON alerts (condition_id, subject) WHERE closed_at IS NULL;
CREATE INDEX IF NOT EXISTS alerts_page ON alerts (opened_at DESC, id DESC);

-- A message to a person: the operator (workspace_id NULL) or, later, a workspace's people. Written in
-- the transaction of what it tells (an alert opened or closed) with the exact bytes it sends (the
-- webhook body, the e-mail's Message-ID), then sent by a worker, again identically after a crash:
-- receivers tell a repeat by its id.
CREATE TABLE IF NOT EXISTS notifications (
  id               uuid PRIMARY KEY,
  workspace_id     uuid REFERENCES workspaces (id),
  channel          text NOT NULL CHECK (channel IN ('email', 'webhook')),
  recipient        text NOT NULL,
  topic            text NOT NULL,
  subject          text NOT NULL,
  body             text NOT NULL,
  message_id       text NOT NULL,
  status           text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'sent', 'failed')),
  attempts         bigint NOT NULL DEFAULT 0 CHECK (attempts >= 0),
  next_attempt_at  timestamptz,
  last_error       text,
  sent_at          timestamptz,
  created_at       timestamptz NOT NULL DEFAULT now(),
  CHECK ((status = 'pending') = (next_attempt_at IS NOT NULL))
);
CREATE INDEX IF NOT EXISTS notifications_due ON notifications (next_attempt_at) WHERE status = 'pending';
CREATE INDEX IF NOT EXISTS notifications_page ON notifications (created_at DESC, id DESC);
