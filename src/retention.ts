import type { AppContext } from './platform/context.js';
import type { Sql } from './platform/db/db.js';
import { deleteEventsBefore } from './domains/events/events.service.js';
import { deleteSpentQuotesBefore } from './domains/fx/fx.service.js';
import { deleteAuditBefore } from './controls/operator/operator.service.js';
import { deleteSessionsEndedBefore } from './domains/users/sessions.service.js';
import { deleteFinishedDeliveriesBefore } from './domains/webhooks/webhooks.service.js';
import { deleteFailedJobsBefore } from './platform/jobs/queue.js';
import { deleteRequestLogsBefore } from './controls/request-logs/request-logs.service.js';
import { deleteCallbacksBefore } from './connectors/mobile-money/service.js';

export const RETENTION_JOB = 'retention.sweep';

/** How soon a run that left a backlog runs again (the pause lets other work at the tables). */
const BACKLOG_PAUSE_MS = 1000;
const DAY_MS = 86_400_000;

interface Sweep {
  table: string;
  days: (ctx: AppContext) => number;
  /** Deletes at most `limit` rows older than `before`, in one statement; returns how many. */
  deleteBefore: (sql: Sql, before: Date, limit: number) => Promise<number>;
}

/** In foreign-key order: deliveries before the events they reference. */
const SWEEPS: readonly Sweep[] = [
  { table: 'webhook_deliveries', days: (ctx) => ctx.config.retention.webhookDeliveriesDays, deleteBefore: deleteFinishedDeliveriesBefore },
  { table: 'events', days: (ctx) => ctx.config.retention.eventsDays, deleteBefore: deleteEventsBefore },
  { table: 'fx_quotes', days: (ctx) => ctx.config.retention.fxQuotesDays, deleteBefore: deleteSpentQuotesBefore },
  { table: 'jobs', days: (ctx) => ctx.config.retention.failedJobsDays, deleteBefore: deleteFailedJobsBefore },
  // Dashboard and console sessions a day after they ended (idle or expired): nothing reads them then.
  { table: 'web_sessions', days: () => 1, deleteBefore: deleteSessionsEndedBefore },
  { table: 'request_logs', days: (ctx) => ctx.config.retention.requestLogsDays, deleteBefore: deleteRequestLogsBefore },
  // Mobile-money callbacks that moved nothing: refused (anyone can send to the callback URL, so these
  // may be many) and unknown correlation ids. Both were alerted when they came in.
  { table: 'momo_callbacks (refused)', days: (ctx) => ctx.config.retention.unappliedCallbacksDays, deleteBefore: (sql, before, limit) => deleteCallbacksBefore(sql, 'refused', before, limit) },
  { table: 'momo_callbacks (unknown)', days: (ctx) => ctx.config.retention.unappliedCallbacksDays, deleteBefore: (sql, before, limit) => deleteCallbacksBefore(sql, 'unknown', before, limit) },
  { table: 'operator_audit_log', days: (ctx) => ctx.config.retention.auditLogDays, deleteBefore: deleteAuditBefore },
];

/**
 * One run of the recurring retention job: per table, statements of at most `batchRows` rows, each
 * its own short transaction (rows taken with SKIP LOCKED, so nothing waits on it), at most
 * `statementsPerRunMax` of them. A table with rows left makes the job run again after a short pause
 * instead of at its next interval.
 *
 * Each statement has one shape, `DELETE ... WHERE id = ANY(ARRAY(SELECT id ... LIMIT n FOR UPDATE
 * SKIP LOCKED))`: the batch is chosen first (found through a BRIN index on the creation time) and
 * deleted by primary key; a NOT EXISTS guard ends in OFFSET 0 so PostgreSQL probes the referencing
 * index per candidate rather than hashing the whole referencing table (EXPLAIN on 200,000 events:
 * 27 ms per batch of 1,000 instead of 110 ms, and no longer proportional to the referencing table).
 */
export async function retentionSweep(ctx: AppContext): Promise<Date | void> {
  const { batchRows, statementsPerRunMax } = ctx.config.retention;
  const deleted: Record<string, number> = {};
  let backlog = false;
  for (const sweep of SWEEPS) {
    const days = sweep.days(ctx);
    if (days === 0) continue;
    const before = new Date(Date.now() - days * DAY_MS);
    let total = 0;
    let statements = 0;
    for (let n = batchRows; n === batchRows; statements++) {
      if (statements === statementsPerRunMax) {
        backlog = true;
        break;
      }
      n = await sweep.deleteBefore(ctx.db, before, batchRows);
      total += n;
    }
    if (total > 0) deleted[sweep.table] = total;
  }
  if (Object.keys(deleted).length > 0) ctx.log.info({ deleted, backlog }, 'retention: deleted old rows');
  return backlog ? new Date(Date.now() + BACKLOG_PAUSE_MS) : undefined;
}
