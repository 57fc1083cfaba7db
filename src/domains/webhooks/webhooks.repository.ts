import type { Sql } from '../../platform/db/db.js';
import { maybeOne, one } from '../../platform/db/db.js';
import { listFilters, paginate, type PageRequest } from '../../platform/db/pagination.js';

/** All SQL of the webhooks module: endpoints, deliveries, and turning the event outbox into deliveries. */

export interface EndpointRow {
  id: string;
  workspace_id: string;
  url: string;
  description: string | null;
  event_types: string[] | null;
  status: 'enabled' | 'disabled';
  secret_encrypted: string;
  /** Ed25519 public key (`whpk_…`) when the endpoint opted in to `v1a` signatures. */
  signing_public_key: string | null;
  created_at: Date;
  updated_at: Date;
}

export interface AttemptRecord {
  number: number;
  at: string;
  responseStatus: number | null;
  durationMs: number;
  error: string | null;
  responseExcerpt: string | null;
}

export interface DeliveryRow {
  id: string;
  workspace_id: string;
  endpoint_id: string;
  event_id: string;
  event_type: string;
  status: 'pending' | 'succeeded' | 'failed';
  attempt_count: number;
  attempts: AttemptRecord[];
  next_attempt_at: Date | null;
  created_at: Date;
}

export const endpointColumns = 'id, workspace_id, url, description, event_types, status, secret_encrypted, signing_public_key, created_at, updated_at';
/** A pending delivery without next_attempt_at is in its first attempt (dispatched leased): it was due at its creation. */
const nextAttemptColumn = "COALESCE(next_attempt_at, CASE WHEN status = 'pending' THEN created_at END) AS next_attempt_at";
export const deliveryColumns = `id, workspace_id, endpoint_id, event_id, event_type, status, attempt_count, attempts, ${nextAttemptColumn}, created_at`;
/** The list view leaves each attempt's response excerpt out (up to 4 KiB each); the single read has it. */
export const deliveryListColumns = `id, workspace_id, endpoint_id, event_id, event_type, status, attempt_count,
  COALESCE((SELECT jsonb_agg(a - 'responseExcerpt' ORDER BY (a->>'number')::int) FROM jsonb_array_elements(attempts) a), '[]'::jsonb) AS attempts,
  ${nextAttemptColumn}, created_at`;

/** The signing material of a delivery's endpoint, as the dispatch and the claim read it (`w`: the endpoint). */
const signingColumns = (w: string): string =>
  `${w}.secret_encrypted, CASE WHEN ${w}.previous_secret_until > now() THEN ${w}.previous_secret_encrypted END AS previous_secret_encrypted, ${w}.signing_key_encrypted`;

export async function insertEndpoint(
  sql: Sql,
  e: { id: string; workspaceId: string; url: string; description: string | null; eventTypes: string[] | null; secretEncrypted: string; signingKey: SigningKeyWrite | null },
): Promise<EndpointRow> {
  return one<EndpointRow>(
    sql,
    `INSERT INTO webhook_endpoints (id, workspace_id, url, description, event_types, secret_encrypted, signing_key_encrypted, signing_public_key)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8) RETURNING ${endpointColumns}`,
    [e.id, e.workspaceId, e.url, e.description, e.eventTypes, e.secretEncrypted, e.signingKey?.privateKeyEncrypted ?? null, e.signingKey?.publicKey ?? null],
  );
}

export async function countEndpoints(sql: Sql, workspaceId: string): Promise<number> {
  const row = await one<{ n: number }>(sql, 'SELECT count(*)::int AS n FROM webhook_endpoints WHERE workspace_id = $1', [workspaceId]);
  return row.n;
}

export async function findEndpoint(sql: Sql, workspaceId: string, id: string): Promise<EndpointRow | undefined> {
  return maybeOne<EndpointRow>(sql, `SELECT ${endpointColumns} FROM webhook_endpoints WHERE workspace_id = $1 AND id = $2`, [workspaceId, id]);
}

export async function updateEndpoint(
  sql: Sql,
  workspaceId: string,
  id: string,
  change: {
    url?: string;
    description?: string | null;
    eventTypes?: string[] | null;
    status?: 'enabled' | 'disabled';
    /** A new secret; with `graceSeconds`, the one it replaces keeps signing that long beside it. */
    secretEncrypted?: string;
    graceSeconds?: number;
    /** A new Ed25519 key, or null to stop `v1a` signatures. */
    signingKey?: SigningKeyWrite | null;
  },
): Promise<(EndpointRow & { previous_secret_until: Date | null }) | undefined> {
  return maybeOne<EndpointRow & { previous_secret_until: Date | null }>(
    sql,
    `UPDATE webhook_endpoints
        SET url = CASE WHEN $3 THEN $4 ELSE url END,
            description = CASE WHEN $5 THEN $6 ELSE description END,
            event_types = CASE WHEN $7 THEN $8::text[] ELSE event_types END,
            status = CASE WHEN $9 THEN $10 ELSE status END,
            secret_encrypted = CASE WHEN $11 THEN $12 ELSE secret_encrypted END,
            previous_secret_encrypted = CASE WHEN NOT $11 THEN previous_secret_encrypted WHEN $13::int > 0 THEN secret_encrypted END,
            previous_secret_until = CASE WHEN NOT $11 THEN previous_secret_until WHEN $13::int > 0 THEN now() + make_interval(secs => $13::int) END,
            signing_key_encrypted = CASE WHEN $14 THEN $15 ELSE signing_key_encrypted END,
            signing_public_key = CASE WHEN $14 THEN $16 ELSE signing_public_key END,
            updated_at = now()
      WHERE workspace_id = $1 AND id = $2 RETURNING ${endpointColumns}, previous_secret_until`,
    [
      workspaceId,
      id,
      change.url !== undefined,
      change.url ?? null,
      change.description !== undefined,
      change.description ?? null,
      change.eventTypes !== undefined,
      change.eventTypes ?? null,
      change.status !== undefined,
      change.status ?? null,
      change.secretEncrypted !== undefined,
      change.secretEncrypted ?? null,
      change.graceSeconds ?? 0,
      change.signingKey !== undefined,
      change.signingKey?.privateKeyEncrypted ?? null,
      change.signingKey?.publicKey ?? null,
    ],
  );
}

/** An endpoint's Ed25519 key as stored: the private key sealed, the public key as shown. */
export interface SigningKeyWrite {
  privateKeyEncrypted: string;
  publicKey: string;
}

export async function deleteEndpoint(sql: Sql, workspaceId: string, id: string): Promise<boolean> {
  const rows = await sql.query('DELETE FROM webhook_endpoints WHERE workspace_id = $1 AND id = $2 RETURNING id', [workspaceId, id]);
  return rows.length === 1;
}

/** A delivery of one event to one endpoint, due now (the test operation). */
export async function insertDelivery(
  sql: Sql,
  d: { id: string; workspaceId: string; endpointId: string; eventId: string; eventType: string },
): Promise<DeliveryRow> {
  return one<DeliveryRow>(
    sql,
    `INSERT INTO webhook_deliveries (id, workspace_id, endpoint_id, event_id, event_type, next_attempt_at)
     VALUES ($1, $2, $3, $4, $5, now()) RETURNING ${deliveryColumns}`,
    [d.id, d.workspaceId, d.endpointId, d.eventId, d.eventType],
  );
}

/**
 * Makes a delivery due at once: a finished one (succeeded or failed) gets one more attempt, numbered
 * after the last; a pending one waiting for its next scheduled attempt has that attempt now ("retry
 * now"). Either is signed with the endpoint's current secret when sent. Undefined when an attempt of
 * the delivery is under way (leased to a worker, or its first attempt not yet recorded).
 */
export async function requeueDelivery(sql: Sql, workspaceId: string, endpointId: string, id: string): Promise<DeliveryRow | undefined> {
  return maybeOne<DeliveryRow>(
    sql,
    `UPDATE webhook_deliveries SET status = 'pending', next_attempt_at = now(), locked_by = NULL, locked_until = NULL, updated_at = now()
      WHERE workspace_id = $1 AND endpoint_id = $2 AND id = $3
        AND (status IN ('succeeded', 'failed') OR (status = 'pending' AND next_attempt_at > now() AND (locked_until IS NULL OR locked_until <= now())))
     RETURNING ${deliveryColumns}`,
    [workspaceId, endpointId, id],
  );
}

export async function findDelivery(sql: Sql, workspaceId: string, endpointId: string, id: string): Promise<DeliveryRow | undefined> {
  return maybeOne<DeliveryRow>(
    sql,
    `SELECT ${deliveryColumns} FROM webhook_deliveries WHERE workspace_id = $1 AND endpoint_id = $2 AND id = $3`,
    [workspaceId, endpointId, id],
  );
}

/** The workspace's deliveries of some events (every endpoint, every attempt without its response excerpt), oldest first. */
export async function deliveriesOfEvents(sql: Sql, workspaceId: string, eventIds: readonly string[], limit: number): Promise<DeliveryRow[]> {
  return sql.query<DeliveryRow>(
    `SELECT ${deliveryListColumns} FROM webhook_deliveries
      WHERE workspace_id = $1 AND event_id = ANY($2::text[])
      ORDER BY created_at, id LIMIT $3`,
    [workspaceId, eventIds, limit],
  );
}

/**
 * How a dispatching worker takes the deliveries it creates: leased to it at once (until `leaseMs`
 * from their insert), so that it sends them without claiming them. At most `free` more for each
 * endpoint named (`depth` for the others) and `room` in all; the rest are created due now, for any
 * worker's claim.
 */
export interface DispatchLease {
  workerId: string;
  leaseMs: number;
  free: { endpoint_id: string; free: number }[];
  depth: number;
  room: number;
}

export interface Dispatched {
  /** Outbox events taken. */
  events: number;
  /** The endpoints of the deliveries created due (not leased). */
  endpointIds: string[];
  /** The deliveries created leased to the dispatching worker, with what their first attempt sends. */
  leased: ClaimedDelivery[];
  /** The webhook_leases row listing them (null when none): deleted once each has its outcome or is handed back. */
  leaseId: string | null;
}

/**
 * Turns up to `batchMax` events of the outbox (oldest first) into one delivery per subscribed, enabled
 * endpoint of the event's workspace that existed when the event happened, and takes them out of the
 * outbox, in one statement. An event recorded as not deliverable (payout.reverted, per the spec)
 * never enters the outbox. Outbox rows are taken FOR UPDATE SKIP LOCKED, so concurrent workers split
 * it; the unique (event_id, endpoint_id) makes a second creation impossible whatever happens.
 *
 * With `lease`, the deliveries the worker has room for are created leased to it and returned with
 * their event and endpoint, so a delivery is one insert and one outcome write (no claim between):
 * it is recorded (committed) before the worker sends it. Until its outcome it has no next_attempt_at
 * (it is outside the due index, so a successful outcome is a HOT update), and a webhook_leases row
 * lists it: if the worker dies first, recoverExpiredLeases makes it due when its lease ends.
 */
export async function dispatchEvents(sql: Sql, batchMax: number, lease?: DispatchLease): Promise<Dispatched> {
  const rows = await sql.query<ClaimedDelivery & { events: number; endpoint_ids: string[] | null; lease_id: string | null }>(
    `WITH batch AS (
       SELECT seq FROM event_outbox ORDER BY seq LIMIT $1 FOR UPDATE SKIP LOCKED
     ), taken AS (
       DELETE FROM event_outbox o USING batch b WHERE o.seq = b.seq RETURNING o.seq, o.event_id
     ), ev AS MATERIALIZED (
       -- The taken events by their key, whatever the planner guesses of them (else it may read every
       -- event of a workspace since its endpoint's creation and hash them).
       SELECT e.id, e.workspace_id, e.type, e.created_at, e.test, e.data, e.deliverable
         FROM events e WHERE e.id = ANY (ARRAY(SELECT event_id FROM taken))
     ), planned AS (
       SELECT gen_random_uuid() AS id, t.seq, e.workspace_id, w.id AS endpoint_id, e.id AS event_id, e.type AS event_type,
              e.created_at AS event_created_at, e.test AS event_test, e.data AS event_data, w.url, ${signingColumns('w')},
              row_number() OVER (PARTITION BY w.id ORDER BY t.seq) AS k
         FROM taken t
         JOIN ev e ON e.id = t.event_id
         JOIN webhook_endpoints w ON e.deliverable AND w.workspace_id = e.workspace_id AND w.status = 'enabled'
          AND w.created_at <= e.created_at AND (w.event_types IS NULL OR e.type = ANY (w.event_types))
     ), fitting AS (
       SELECT p.*, $2::text IS NOT NULL AND p.k <= COALESCE(a.free, $3::int) AS fits
         FROM planned p LEFT JOIN jsonb_to_recordset($4::jsonb) AS a(endpoint_id uuid, free int) ON a.endpoint_id = p.endpoint_id
     ), chosen AS (
       SELECT f.*, f.fits AND row_number() OVER (PARTITION BY f.fits ORDER BY f.seq, f.endpoint_id) <= $5::int AS leased FROM fitting f
     ), created AS (
       INSERT INTO webhook_deliveries (id, workspace_id, endpoint_id, event_id, event_type, next_attempt_at, locked_by, locked_until)
       SELECT id, workspace_id, endpoint_id, event_id, event_type, CASE WHEN NOT leased THEN now() END, CASE WHEN leased THEN $2::text END,
              CASE WHEN leased THEN clock_timestamp() + make_interval(secs => $6::double precision / 1000) END
         FROM chosen
       ON CONFLICT (event_id, endpoint_id) DO NOTHING
       RETURNING id, endpoint_id, locked_by, locked_until
     ), lease AS (
       INSERT INTO webhook_leases (worker_id, until, delivery_ids)
       SELECT $2::text, max(locked_until), array_agg(id) FROM created WHERE locked_by IS NOT NULL HAVING count(*) > 0
       RETURNING id
     )
     SELECT s.events, s.endpoint_ids, s.lease_id, l.*
       FROM (SELECT (SELECT count(*) FROM taken)::int AS events,
                    (SELECT array_agg(DISTINCT endpoint_id) FROM created WHERE locked_by IS NULL) AS endpoint_ids,
                    (SELECT id::text FROM lease) AS lease_id) s
       LEFT JOIN LATERAL (
         SELECT c.id, c.endpoint_id, 0 AS attempt_count, h.event_id, h.event_type, h.event_created_at, h.event_test,
                h.event_data::text AS event_data, h.url, h.secret_encrypted, h.previous_secret_encrypted, h.signing_key_encrypted
           FROM created c JOIN chosen h ON h.id = c.id WHERE c.locked_by IS NOT NULL ORDER BY h.seq, h.endpoint_id) l ON true`,
    [batchMax, lease?.workerId ?? null, lease?.depth ?? 0, JSON.stringify(lease?.free ?? []), lease?.room ?? 0, lease?.leaseMs ?? 0],
  );
  const first = rows[0];
  const leased: ClaimedDelivery[] = [];
  for (const { events: _events, endpoint_ids: _endpointIds, lease_id: _leaseId, ...d } of rows) if (d.id) leased.push(d);
  return { events: first?.events ?? 0, endpointIds: first?.endpoint_ids ?? [], leased, leaseId: first?.lease_id ?? null };
}

/**
 * The enabled endpoints that have pending deliveries with a next attempt scheduled (due now or later,
 * or leased by a claim), in id order after `afterId`, at most `limit`: a skip scan of the due index,
 * one probe per endpoint however many deliveries each has.
 */
export async function endpointsWithPendingDeliveries(sql: Sql, afterId: string, limit: number): Promise<string[]> {
  const rows = await sql.query<{ endpoint_id: string }>(
    `WITH RECURSIVE walk AS (
       (SELECT endpoint_id, 1 AS n FROM webhook_deliveries
         WHERE next_attempt_at IS NOT NULL AND endpoint_id > $1::uuid ORDER BY endpoint_id LIMIT 1)
       UNION ALL
       SELECT (SELECT d.endpoint_id FROM webhook_deliveries d
                WHERE d.next_attempt_at IS NOT NULL AND d.endpoint_id > w.endpoint_id ORDER BY d.endpoint_id LIMIT 1), w.n + 1
         FROM walk w WHERE w.endpoint_id IS NOT NULL AND w.n < $2
     )
     SELECT w.endpoint_id FROM walk w JOIN webhook_endpoints e ON e.id = w.endpoint_id AND e.status = 'enabled'
      ORDER BY w.endpoint_id`,
    [afterId, limit],
  );
  return rows.map((r) => r.endpoint_id);
}

export interface ClaimedDelivery {
  id: string;
  endpoint_id: string;
  attempt_count: number;
  event_id: string;
  event_type: string;
  event_created_at: Date;
  event_test: boolean;
  /** The event's data as JSON text, put into the envelope as it is. */
  event_data: string;
  url: string;
  secret_encrypted: string;
  /** The rotated-out secret while its grace lasts, else null. */
  previous_secret_encrypted: string | null;
  /** The sealed Ed25519 key when the endpoint opted in to `v1a` signatures, else null. */
  signing_key_encrypted: string | null;
}

/**
 * Takes due deliveries of the given endpoints, at most `free` of each endpoint's and `total` in all,
 * by leasing them to `workerId` until `leaseMs` from now. FOR UPDATE SKIP LOCKED keeps concurrent
 * workers apart; a worker that dies leaves its rows due again when the lease ends.
 */
export async function claimDueDeliveries(
  sql: Sql,
  workerId: string,
  allowance: { endpoint_id: string; free: number }[],
  total: number,
  leaseMs: number,
): Promise<ClaimedDelivery[]> {
  return sql.query<ClaimedDelivery>(
    `WITH allowance AS (
       SELECT * FROM jsonb_to_recordset($1::jsonb) AS a(endpoint_id uuid, free int)
     ), picked AS (
       SELECT c.id FROM allowance a
       CROSS JOIN LATERAL (
         SELECT d.id FROM webhook_deliveries d
          WHERE d.endpoint_id = a.endpoint_id AND d.status = 'pending' AND d.next_attempt_at <= now()
            AND (d.locked_until IS NULL OR d.locked_until <= now())
          ORDER BY d.next_attempt_at LIMIT a.free FOR UPDATE SKIP LOCKED) c
       LIMIT $2
     )
     UPDATE webhook_deliveries d
        SET locked_until = clock_timestamp() + make_interval(secs => $3::double precision / 1000), locked_by = $4
       FROM picked p, events ev, webhook_endpoints e
      WHERE d.id = p.id AND ev.id = d.event_id AND e.id = d.endpoint_id AND e.status = 'enabled'
     RETURNING d.id, d.endpoint_id, d.attempt_count, d.event_id, d.event_type, ev.created_at AS event_created_at,
               ev.test AS event_test, ev.data::text AS event_data, e.url, ${signingColumns('e')}`,
    [JSON.stringify(allowance), total, leaseMs, workerId],
  );
}

export interface AttemptWrite {
  id: string;
  number: number;
  status: 'pending' | 'succeeded' | 'failed';
  next_attempt_at: string | null;
  attempt: AttemptRecord;
}

/**
 * Records finished attempts in one statement. Only the lease holder's write for the attempt it made
 * counts: a worker whose lease ran out (and whose delivery another worker took) changes nothing.
 * `doneLeases`: the worker's webhook_leases rows whose every delivery has its outcome with these.
 * A success after a dispatched first attempt changes no indexed column (next_attempt_at stays NULL):
 * a HOT update.
 */
export async function recordAttempts(sql: Sql, workerId: string, writes: AttemptWrite[], doneLeases: readonly string[] = []): Promise<number> {
  const rows = await sql.query(
    `WITH done AS (DELETE FROM webhook_leases WHERE id = ANY ($4::bigint[]) AND worker_id = $1)
     UPDATE webhook_deliveries d
        SET status = v.status, attempt_count = v.number, attempts = d.attempts || jsonb_build_array(v.attempt),
            next_attempt_at = v.next_attempt_at, locked_by = NULL, locked_until = NULL, updated_at = now()
       FROM jsonb_to_recordset($2::jsonb) AS v(id uuid, number int, status text, next_attempt_at timestamptz, attempt jsonb)
      WHERE d.id = ANY ($3::uuid[]) -- the ids again, as an array: the primary key drives the update, however many are pending
        AND d.id = v.id AND d.locked_by = $1 AND d.attempt_count = v.number - 1 AND d.status = 'pending'
     RETURNING d.id`,
    [workerId, JSON.stringify(writes), writes.map((w) => w.id), doneLeases],
  );
  return rows.length;
}

/**
 * Hands back deliveries a worker took but never attempted (stopping, or more than it may hold): due
 * again at once, for any worker. `doneLeases` as for recordAttempts.
 */
export async function releaseDeliveries(sql: Sql, workerId: string, ids: string[], doneLeases: readonly string[] = []): Promise<void> {
  await sql.query(
    `WITH done AS (DELETE FROM webhook_leases WHERE id = ANY ($3::bigint[]) AND worker_id = $1)
     UPDATE webhook_deliveries SET locked_by = NULL, locked_until = NULL, next_attempt_at = COALESCE(next_attempt_at, now())
      WHERE id = ANY($2::uuid[]) AND locked_by = $1 AND status = 'pending'`,
    [workerId, ids, doneLeases],
  );
}

/**
 * Ends at most `limit` webhook_leases rows whose lease has ended (their worker died, or failed to
 * record), making their deliveries still without an outcome due at once, for any worker; returns
 * the endpoints of those. A delivery recorded, handed back or claimed since is left as it is.
 */
export async function recoverExpiredLeases(sql: Sql, limit: number): Promise<string[]> {
  const rows = await sql.query<{ endpoint_id: string }>(
    `WITH expired AS (
       DELETE FROM webhook_leases WHERE id IN (SELECT id FROM webhook_leases WHERE until <= now() LIMIT $1 FOR UPDATE SKIP LOCKED)
       RETURNING worker_id, delivery_ids
     ), leased AS (
       SELECT worker_id, unnest(delivery_ids) AS id FROM expired
     ), due AS (
       UPDATE webhook_deliveries d SET next_attempt_at = now(), locked_by = NULL, locked_until = NULL, updated_at = now()
         FROM leased l
        WHERE d.id = ANY (ARRAY(SELECT id FROM leased)) AND d.id = l.id
          AND d.locked_by = l.worker_id AND d.status = 'pending' AND d.next_attempt_at IS NULL
       RETURNING d.endpoint_id
     )
     SELECT DISTINCT endpoint_id FROM due`,
    [limit],
  );
  return rows.map((r) => r.endpoint_id);
}

/** Retention: deletes at most `limit` finished deliveries (succeeded or failed) created before `before`. */
export async function deleteFinishedDeliveriesBefore(sql: Sql, before: Date, limit: number): Promise<number> {
  const rows = await sql.query(
    `DELETE FROM webhook_deliveries WHERE id = ANY(ARRAY(
       SELECT id FROM webhook_deliveries WHERE created_at < $1 AND status <> 'pending' LIMIT $2 FOR UPDATE SKIP LOCKED))
     RETURNING 1`,
    [before, limit],
  );
  return rows.length;
}

/** A workspace's endpoints, newest first. */
export function listEndpoints<Item>(sql: Sql, workspaceId: string, page: PageRequest, map: (row: EndpointRow) => Item) {
  return paginate(sql, page, { object: 'webhook_endpoint.list', from: `SELECT ${endpointColumns} FROM webhook_endpoints`, where: ['workspace_id = $1'], params: [workspaceId], map });
}

/** An endpoint's deliveries newest first, by status and event type. */
export function listDeliveries<Item>(
  sql: Sql,
  workspaceId: string,
  endpointId: string,
  f: PageRequest & { status?: string | undefined; eventType?: string | undefined; eventId?: string | undefined },
  map: (row: DeliveryRow) => Item,
) {
  const { where, params, add } = listFilters();
  add('workspace_id = ?', workspaceId);
  add('endpoint_id = ?', endpointId);
  if (f.status) add('status = ?', f.status);
  if (f.eventType) add('event_type = ?', f.eventType);
  // The unique (event_id, endpoint_id) index finds it.
  if (f.eventId) add('event_id = ?', f.eventId);
  return paginate(sql, f, { object: 'webhook_delivery.list', from: `SELECT ${deliveryListColumns} FROM webhook_deliveries`, where, params, map });
}

/** An enabled endpoint whose attempts have failed since its last successful delivery. */
export interface FailingEndpoint {
  endpointId: string;
  workspaceId: string;
  url: string;
  failedAttempts: number;
}

/**
 * Enabled endpoints with at least `attemptsMin` failed attempts since their last successful
 * delivery (the attempts of the deliveries created after it that are still pending or failed).
 */
export async function failingEndpoints(sql: Sql, attemptsMin: number): Promise<FailingEndpoint[]> {
  return sql.query<FailingEndpoint>(
    `SELECT e.id AS "endpointId", e.workspace_id AS "workspaceId", e.url, sum(d.attempt_count)::int AS "failedAttempts"
       FROM webhook_endpoints e
       JOIN webhook_deliveries d ON d.endpoint_id = e.id AND d.status <> 'succeeded' AND d.attempt_count > 0
      WHERE e.status = 'enabled'
        AND d.created_at > COALESCE((SELECT max(s.created_at) FROM webhook_deliveries s WHERE s.endpoint_id = e.id AND s.status = 'succeeded'), '-infinity')
      GROUP BY e.id HAVING sum(d.attempt_count) >= $1 ORDER BY e.id`,
    [attemptsMin],
  );
}
