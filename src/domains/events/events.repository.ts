import type { Sql } from '../../platform/db/db.js';
import { maybeOne } from '../../platform/db/db.js';
import { listFilters, paginate, type PageRequest } from '../../platform/db/pagination.js';

/** SQL of the events module beyond recordEvent: reads of the outbox and its dispatch mark. */

export interface EventRow {
  id: string;
  workspace_id: string;
  account_id: string | null;
  type: string;
  data: Record<string, unknown>;
  test: boolean;
  created_at: Date;
}

export const eventColumns = 'id, workspace_id, account_id, type, data, test, created_at';

/** A deliverable event of the workspace; with `accountId`, only one concerning that sub-account. */
export async function findEvent(sql: Sql, workspaceId: string, id: string, accountId?: string): Promise<EventRow | undefined> {
  return maybeOne<EventRow>(
    sql,
    `SELECT ${eventColumns} FROM events WHERE workspace_id = $1 AND id = $2 AND deliverable AND ($3::uuid IS NULL OR account_id = $3::uuid)`,
    [workspaceId, id, accountId ?? null],
  );
}

/**
 * The workspace's events about one object (its id in the event's data), oldest first, including
 * those recorded but not delivered (payout.reverted). `since` is when the object was created: no
 * event about it is older, and it bounds the scan of the workspace's events by time.
 */
export async function eventsAboutObject(sql: Sql, workspaceId: string, objectId: string, since: Date, limit: number): Promise<(EventRow & { deliverable: boolean })[]> {
  return sql.query<EventRow & { deliverable: boolean }>(
    `SELECT ${eventColumns}, deliverable FROM events
      WHERE workspace_id = $1 AND created_at >= $3 AND data->>'id' = $2
      ORDER BY seq LIMIT $4`,
    [workspaceId, objectId, since, limit],
  );
}

/** Marks an event as already turned into its deliveries (takes it out of the outbox), so the dispatcher leaves it alone. */
export async function markEventDispatched(sql: Sql, id: string): Promise<void> {
  await sql.query('DELETE FROM event_outbox WHERE seq = (SELECT seq FROM events WHERE id = $1)', [id]);
}

/**
 * Retention: deletes at most `limit` events created before `before` that are dispatched (out of the outbox) and that no
 * webhook delivery references any more (deliveries are deleted first; their foreign key needs it).
 */
export async function deleteEventsBefore(sql: Sql, before: Date, limit: number): Promise<number> {
  const rows = await sql.query(
    `DELETE FROM events WHERE id = ANY(ARRAY(
       SELECT e.id FROM events e
        WHERE e.created_at < $1 AND NOT EXISTS (SELECT 1 FROM event_outbox o WHERE o.seq = e.seq)
          AND NOT EXISTS (SELECT 1 FROM webhook_deliveries d WHERE d.event_id = e.id OFFSET 0)
        LIMIT $2 FOR UPDATE SKIP LOCKED))
     RETURNING 1`,
    [before, limit],
  );
  return rows.length;
}

/** A place in the event stream: after the event of transaction `txId` numbered `seq` (see 0012_events_stream.sql). */
export interface StreamCursor {
  txId: string;
  seq: string;
}

/** The stream place of one event of the workspace, to resume after it (Last-Event-ID). */
export async function findStreamCursor(sql: Sql, workspaceId: string, id: string): Promise<StreamCursor | undefined> {
  return maybeOne<StreamCursor>(sql, `SELECT tx_id::text AS "txId", seq::text AS seq FROM events WHERE workspace_id = $1 AND id = $2`, [
    workspaceId,
    id,
  ]);
}

/** Now: before every event whose transaction may still be running or has not started. */
export async function currentStreamCursor(sql: Sql): Promise<StreamCursor> {
  const rows = await sql.query<{ txId: string }>('SELECT pg_snapshot_xmin(pg_current_snapshot())::text AS "txId"');
  return { txId: rows[0]?.txId ?? '0', seq: '0' };
}

export type StreamEventRow = EventRow & StreamCursor;

/**
 * The deliverable events after `cursor` in stream order, only from transactions older than every one
 * still running: an event that commits later always sorts after these, so none is ever skipped.
 * `withheld` says that committed events wait behind a transaction still running (transaction ids
 * are the whole cluster's: it may be another database's), so the caller looks again soon.
 */
export async function eventsAfter(
  sql: Sql,
  workspaceId: string,
  cursor: StreamCursor,
  filter: { accountId?: string | undefined; types?: string[] | undefined },
  limit: number,
): Promise<{ rows: StreamEventRow[]; withheld: boolean }> {
  const found = await sql.query<StreamEventRow & { settled: boolean }>(
    `SELECT ${eventColumns}, tx_id::text AS "txId", seq::text AS seq, tx_id < pg_snapshot_xmin(pg_current_snapshot()) AS settled
       FROM events
      WHERE workspace_id = $1 AND deliverable
        AND (tx_id, seq) > ($2::xid8, $3::bigint)
        AND ($4::uuid IS NULL OR account_id = $4::uuid)
        AND ($5::text[] IS NULL OR type = ANY($5::text[]))
      ORDER BY tx_id, seq LIMIT $6`,
    [workspaceId, cursor.txId, cursor.seq, filter.accountId ?? null, filter.types ?? null, limit],
  );
  // Ordered by transaction id, the settled rows come first.
  const settled = found.findIndex((row) => !row.settled);
  const rows = (settled < 0 ? found : found.slice(0, settled)).map(({ settled: _settled, ...row }) => row);
  return { rows, withheld: settled >= 0 };
}

/**
 * Writes events with one statement, in order, each deliverable one with its row in the webhook
 * outbox (`event_outbox`, see 0030_paid_payout_writes.sql): the event row itself is never updated.
 */
export async function insertEvents(
  sql: Sql,
  events: readonly { id: string; workspaceId: string; accountId?: string | undefined; type: string; data: unknown; test?: boolean | undefined; deliverable?: boolean | undefined }[],
): Promise<void> {
  await sql.query(
    `WITH inserted AS (
       INSERT INTO events (id, workspace_id, account_id, type, data, test, deliverable)
       SELECT * FROM unnest($1::text[], $2::uuid[], $3::uuid[], $4::text[], $5::jsonb[], $6::boolean[], $7::boolean[])
       RETURNING seq, workspace_id, id, deliverable)
     INSERT INTO event_outbox (seq, workspace_id, event_id) SELECT seq, workspace_id, id FROM inserted WHERE deliverable`,
    [
      events.map((e) => e.id),
      events.map((e) => e.workspaceId),
      events.map((e) => e.accountId ?? null),
      events.map((e) => e.type),
      events.map((e) => JSON.stringify(e.data)),
      events.map((e) => e.test ?? false),
      events.map((e) => e.deliverable ?? true),
    ],
  );
}

export interface EventFilters extends PageRequest {
  accountId?: string | undefined;
  type?: string | undefined;
  createdFrom?: string | undefined;
  createdTo?: string | undefined;
}

/** A workspace's deliverable events newest first, by sub-account, type and time (`createdFrom` inclusive, `createdTo` exclusive). */
export function listEvents<Item>(sql: Sql, workspaceId: string, f: EventFilters, map: (row: EventRow) => Item) {
  const { where, params, add } = listFilters();
  add('workspace_id = ?', workspaceId);
  add('deliverable');
  if (f.accountId) add('account_id = ?::uuid', f.accountId);
  if (f.type) add('type = ?', f.type);
  if (f.createdFrom) add('created_at >= ?::timestamptz', f.createdFrom);
  if (f.createdTo) add('created_at < ?::timestamptz', f.createdTo);
  return paginate(sql, f, { object: 'event.list', from: `SELECT ${eventColumns} FROM events`, where, params, map });
}

/** Subscribes a dedicated connection to the channel on which committed event inserts are announced. */
export async function listenForEvents(client: { query: (text: string) => Promise<unknown> }, channel: string): Promise<void> {
  await client.query(`LISTEN ${channel}`);
}
