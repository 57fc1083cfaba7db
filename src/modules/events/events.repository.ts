import type { Sql } from '../../db/db.js';
import { maybeOne } from '../../db/db.js';

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

/** Marks an event as already turned into its deliveries, so the outbox dispatcher leaves it alone. */
export async function markEventDispatched(sql: Sql, id: string): Promise<void> {
  await sql.query('UPDATE events SET dispatched_at = now() WHERE id = $1', [id]);
}
