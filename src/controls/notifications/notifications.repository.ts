import type { Sql } from '../../platform/db/db.js';
import { listFilters, paginate, type PageRequest } from '../../platform/db/pagination.js';

export type Channel = 'email' | 'webhook';

export interface NotificationRow {
  id: string;
  workspace_id: string | null;
  channel: Channel;
  recipient: string;
  topic: string;
  subject: string;
  body: string;
  message_id: string;
  status: 'pending' | 'sent' | 'failed';
  attempts: number;
  last_error: string | null;
  sent_at: Date | null;
  created_at: Date;
}

export type NewNotification = Pick<NotificationRow, 'id' | 'workspace_id' | 'channel' | 'recipient' | 'topic' | 'subject' | 'body' | 'message_id'>;

const COLUMNS = 'id, workspace_id, channel, recipient, topic, subject, body, message_id, status, attempts::int AS attempts, last_error, sent_at, created_at';

export async function insertNotifications(sql: Sql, rows: readonly NewNotification[]): Promise<void> {
  if (rows.length === 0) return;
  await sql.query(
    `INSERT INTO notifications (id, workspace_id, channel, recipient, topic, subject, body, message_id, next_attempt_at)
     SELECT n.id, n.workspace_id, n.channel, n.recipient, n.topic, n.subject, n.body, n.message_id, now()
       FROM jsonb_to_recordset($1::jsonb) AS n(id uuid, workspace_id uuid, channel text, recipient text, topic text, subject text, body text, message_id text)`,
    [JSON.stringify(rows)],
  );
}

/**
 * Takes up to `limit` due notifications for one attempt each: their attempt is counted and they are
 * not due again before `leaseMs` (a worker that dies mid-send leaves them to be sent again then).
 */
export async function takeDue(sql: Sql, limit: number, leaseMs: number): Promise<NotificationRow[]> {
  return sql.query<NotificationRow>(
    `UPDATE notifications SET attempts = attempts + 1, next_attempt_at = now() + make_interval(secs => $2::float8 / 1000)
      WHERE id IN (SELECT id FROM notifications WHERE status = 'pending' AND next_attempt_at <= now()
                    ORDER BY next_attempt_at LIMIT $1 FOR UPDATE SKIP LOCKED)
      RETURNING ${COLUMNS}`,
    [limit, leaseMs],
  );
}

export async function markSent(sql: Sql, id: string): Promise<void> {
  await sql.query(`UPDATE notifications SET status = 'sent', sent_at = now(), next_attempt_at = NULL, last_error = NULL WHERE id = $1 AND status = 'pending'`, [id]);
}

/** A failed attempt: due again after `retryMs`, or failed for good (`retryMs` null). */
export async function markAttemptFailed(sql: Sql, id: string, error: string, retryMs: number | null): Promise<void> {
  await sql.query(
    `UPDATE notifications
        SET last_error = $2,
            status = CASE WHEN $3::float8 IS NULL THEN 'failed' ELSE 'pending' END,
            next_attempt_at = CASE WHEN $3::float8 IS NULL THEN NULL ELSE now() + make_interval(secs => $3::float8 / 1000) END
      WHERE id = $1 AND status = 'pending'`,
    [id, error.slice(0, 1000), retryMs],
  );
}

export function listNotifications<Item>(sql: Sql, f: PageRequest & { topicPrefix?: string | undefined }, map: (row: NotificationRow) => Item) {
  const { where, params, add } = listFilters();
  add('workspace_id IS NULL');
  if (f.topicPrefix) add("topic LIKE ? || '%'", f.topicPrefix);
  return paginate(sql, f, { object: 'notification.list', from: `SELECT ${COLUMNS} FROM notifications`, where, params, map });
}
