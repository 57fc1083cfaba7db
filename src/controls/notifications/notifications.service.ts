import type { FastifyBaseLogger } from 'fastify';
import type { Config } from '../../platform/config.js';
import type { Sql } from '../../platform/db/db.js';
import type { PageRequest } from '../../platform/db/pagination.js';
import { enqueue } from '../../platform/jobs/queue.js';
import { newId } from '../../platform/lib/ids.js';
import * as repo from './notifications.repository.js';
import type { Senders } from './senders.js';

export const NOTIFICATIONS_SEND_JOB = 'notifications.send';

/** How long a taken notification is left to its sender before it is due again. */
const SEND_LEASE_MS = 120_000;

/** What to tell: a topic (`alert.opened`), a one-line subject, the text of an e-mail and the JSON a webhook carries. */
export interface Message {
  topic: string;
  subject: string;
  text: string;
  /** The `data` of the webhook body. */
  data: Record<string, unknown>;
}

/**
 * Records a message to the operator, in the caller's transaction: one notification per e-mail
 * address and one for the webhook URL the operator configured, each with the exact bytes it will
 * send, and a send job. Workspace people get theirs the same way (`workspace_id` set) once their
 * recipients are known.
 */
export async function notifyOperator(tx: Sql, config: Config, message: Message): Promise<number> {
  const rows: repo.NewNotification[] = [];
  const base = { workspace_id: null, topic: message.topic, subject: message.subject };
  for (const address of config.alerts.emailTo) {
    const id = newId();
    rows.push({ ...base, id, channel: 'email', recipient: address, body: message.text, message_id: `<${id}@corridor>` });
  }
  if (config.alerts.webhookUrl) {
    const id = newId();
    const body = JSON.stringify({ id, object: 'notification', type: message.topic, subject: message.subject, data: message.data });
    rows.push({ ...base, id, channel: 'webhook', recipient: config.alerts.webhookUrl, body, message_id: id });
  }
  await repo.insertNotifications(tx, rows);
  if (rows.length > 0) await enqueue(tx, { kind: NOTIFICATIONS_SEND_JOB, uniqueKey: NOTIFICATIONS_SEND_JOB, maxAttempts: 3 });
  return rows.length;
}

/** Backoff after the n-th failed attempt: 30 s doubling, at most an hour. */
export const retryDelayMs = (attempt: number): number => Math.min(30_000 * 2 ** Math.max(0, attempt - 1), 3_600_000);

/**
 * Sends every due notification, a batch at a time, until none is due: each taken (its attempt
 * counted) and committed before it is sent, then marked sent, or due again with backoff, or failed
 * after NOTIFICATION_ATTEMPTS_MAX attempts. Answers how many were sent.
 */
export async function sendDue(db: Sql, config: Config, senders: Senders, log: FastifyBaseLogger): Promise<number> {
  const { notificationBatchMax, notificationAttemptsMax } = config.alerts;
  let sent = 0;
  for (let batches = 0; batches < 100; batches++) {
    const due = await repo.takeDue(db, notificationBatchMax, SEND_LEASE_MS);
    for (const n of due) {
      try {
        await senders.send(n);
        await repo.markSent(db, n.id);
        sent++;
      } catch (err) {
        const error = err instanceof Error ? err.message : String(err);
        log.warn({ notificationId: n.id, channel: n.channel, attempt: n.attempts, error }, 'notification not sent');
        await repo.markAttemptFailed(db, n.id, error, n.attempts >= notificationAttemptsMax ? null : retryDelayMs(n.attempts));
      }
    }
    if (due.length < notificationBatchMax) break;
  }
  return sent;
}

export function notificationView(row: repo.NotificationRow) {
  return {
    id: row.id,
    object: 'notification' as const,
    channel: row.channel,
    recipient: row.recipient,
    topic: row.topic,
    subject: row.subject,
    status: row.status,
    attempts: row.attempts,
    lastError: row.last_error,
    sentAt: row.sent_at?.toISOString() ?? null,
    createdAt: row.created_at.toISOString(),
  };
}

export function listOperatorNotifications(sql: Sql, page: PageRequest & { topicPrefix?: string | undefined }) {
  return repo.listNotifications(sql, page, notificationView);
}
