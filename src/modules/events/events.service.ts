import type { Tx } from '../../db/db.js';
import { newEventId } from '../../lib/ids.js';

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
  const id = newEventId();
  await tx.query('INSERT INTO events (id, workspace_id, account_id, type, data, test, deliverable) VALUES ($1, $2, $3, $4, $5, $6, $7)', [
    id,
    event.workspaceId,
    event.accountId ?? null,
    event.type,
    JSON.stringify(event.data),
    event.test ?? false,
    event.deliverable ?? true,
  ]);
  return id;
}
