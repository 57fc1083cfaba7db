import type { Sql, Tx } from '../../platform/db/db.js';
import { notFound } from '../../platform/lib/errors.js';
import { newEventId } from '../../platform/lib/ids.js';
import * as repo from './events.repository.js';
import { eventsAboutObject, findEvent, type EventFilters, type EventRow } from './events.repository.js';

/** The live stream's cursors: where a reconnecting client's Last-Event-ID left off, or the stream's end now. */
export { currentStreamCursor, findStreamCursor, type StreamEventRow } from './events.repository.js';

export interface NewEvent {
  workspaceId: string;
  /** The sub-account the event concerns, when not the workspace's own. */
  accountId?: string | undefined;
  type: string;
  data: Record<string, unknown>;
  test?: boolean;
  /** False for events that are recorded but not delivered to webhook endpoints (payout.reverted). */
  deliverable?: boolean;
}

/**
 * Writes an event to the outbox inside the caller's transaction, so it exists exactly when the
 * change it describes does. Delivery to webhook endpoints reads the outbox afterwards.
 */
export async function recordEvent(tx: Tx, event: NewEvent): Promise<string> {
  return (await recordEvents(tx, [event]))[0] as string;
}

/** Writes many events to the outbox with one statement, in the caller's transaction, in order. */
export async function recordEvents(tx: Tx, events: readonly NewEvent[]): Promise<string[]> {
  if (events.length === 0) return [];
  const ids = events.map(() => newEventId());
  await repo.insertEvents(tx, events.map((e, i) => ({ ...e, id: ids[i] as string })));
  return ids;
}

/** The API view of an event: the webhook envelope, plus the sub-account it concerns (null: the workspace's own). */
export function eventView(row: EventRow) {
  return { id: row.id, type: row.type, createdAt: row.created_at.toISOString(), test: row.test, data: row.data, accountId: row.account_id };
}

export async function getEvent(sql: Sql, workspaceId: string, id: string, accountId?: string): Promise<EventRow> {
  const row = await findEvent(sql, workspaceId, id, accountId);
  if (!row) throw notFound('Event');
  return row;
}

/** Marks an event handed to the webhook deliveries (the dispatcher's mark). */
export const markEventDispatched = repo.markEventDispatched;

/** Removes at most `limit` events older than `before` (retention); answers how many. */
export const deleteEventsBefore = repo.deleteEventsBefore;

/**
 * The events about one object of the workspace (a payout's moves), oldest first, at most `limit`;
 * `deliverable` false for one recorded but never delivered nor served by the events API (payout.reverted).
 */
export async function eventsAbout(sql: Sql, workspaceId: string, object: { id: string; createdAt: Date }, limit: number) {
  return (await eventsAboutObject(sql, workspaceId, object.id, object.createdAt, limit)).map((row) => ({ ...eventView(row), deliverable: row.deliverable }));
}

/**
 * The workspace's events newest first (with `accountId`, those of that sub-account), by type and by
 * time: `createdFrom` inclusive, `createdTo` exclusive. Only deliverable events: this is the feed the
 * webhooks carry, to catch up from.
 */
export function listEvents(
  sql: Sql,
  workspaceId: string,
  query: EventFilters,
) {
  return repo.listEvents(sql, workspaceId, query, eventView);
}
