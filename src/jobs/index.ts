import type { AppContext } from '../context.js';
import { approvalExpiryJob } from '../modules/approvals/approvals.jobs.js';
import { APPROVAL_EXPIRY_JOB } from '../modules/approvals/approvals.service.js';
import { deleteExpiredIdempotencyKeys } from '../modules/idempotency/idempotency.service.js';
import { BANK_CUTOFF_JOB, BANK_POLL_JOB, BANK_UPLOAD_JOB } from '../modules/bank/bank.service.js';
import { bankCutoffJob, bankPollJob, bankUploadJob } from '../modules/bank/bank.jobs.js';
import { payoutStepJobs } from '../modules/payouts/payouts.jobs.js';
import { orderDeadlineJob } from '../modules/orders/orders.jobs.js';
import { ORDER_DEADLINE_JOB } from '../modules/orders/orders.lifecycle.js';
import { PAYOUT_STEP_JOB } from '../modules/payouts/payouts.lifecycle.js';
import { deleteExpiredUploads } from '../modules/storage/uploads.service.js';
import { WebhookEngine } from '../modules/webhooks/delivery-engine.js';
import { ChainWorker } from '../modules/chain/chain.worker.js';
import { RETENTION_JOB, retentionSweep } from './retention.js';
import { rescreenBeneficiariesJob } from '../modules/screening/screening.jobs.js';
import { SCREENING_RESCREEN_JOB } from '../modules/screening/screening.service.js';
import { alertsEvaluateJob } from '../modules/alerts/alerts.jobs.js';
import { ALERTS_EVALUATE_JOB } from '../modules/alerts/alerts.service.js';
import { notificationsSendJob } from '../modules/notifications/notifications.jobs.js';
import { NOTIFICATIONS_SEND_JOB } from '../modules/notifications/notifications.service.js';
import { JobRunner, type AnyJobHandler, type Recurring } from './runner.js';

/** Every job kind and its handler. Modules add theirs here. */
export const jobHandlers: ReadonlyMap<string, AnyJobHandler> = new Map<string, AnyJobHandler>([
  [
    'idempotency.cleanup',
    async (ctx) => {
      await deleteExpiredIdempotencyKeys(ctx);
    },
  ],
  [PAYOUT_STEP_JOB, payoutStepJobs],
  [ORDER_DEADLINE_JOB, orderDeadlineJob],
  [APPROVAL_EXPIRY_JOB, approvalExpiryJob],
  [RETENTION_JOB, retentionSweep],
  [SCREENING_RESCREEN_JOB, rescreenBeneficiariesJob],
  [BANK_CUTOFF_JOB, bankCutoffJob],
  [BANK_UPLOAD_JOB, bankUploadJob],
  [BANK_POLL_JOB, bankPollJob],
  [ALERTS_EVALUATE_JOB, alertsEvaluateJob],
  [NOTIFICATIONS_SEND_JOB, notificationsSendJob],
  [
    'uploads.cleanup',
    async (ctx) => {
      await deleteExpiredUploads(ctx.db);
    },
  ],
]);

export const recurringJobs: readonly Recurring[] = [
  { kind: 'idempotency.cleanup', everyMs: 15 * 60_000 },
  // Deletes rows past their retention (config.retention); runs again at once while a backlog is left.
  { kind: RETENTION_JOB, everyMs: 10 * 60_000 },
  { kind: 'uploads.cleanup', everyMs: 15 * 60_000 },
  // Makes sure the bank connector's outbox poll is scheduled; the poll itself runs every "bank".pollSeconds.
  { kind: BANK_POLL_JOB, everyMs: 60_000 },
  // Makes sure the alert evaluation is scheduled; it then runs every ALERT_EVALUATE_MS.
  { kind: ALERTS_EVALUATE_JOB, everyMs: 60_000 },
  // Retries the notifications whose first attempt failed (new ones schedule a send job themselves).
  { kind: NOTIFICATIONS_SEND_JOB, everyMs: 60_000 },
];

/**
 * A worker's jobs, with the webhook delivery engine beside them (its queue is the webhook_deliveries
 * table) and the chain connector's looks at its chains when one is configured.
 */
class WorkerRunner extends JobRunner {
  private readonly webhooks: WebhookEngine;
  private readonly chains: ChainWorker;
  constructor(ctx: AppContext) {
    super(ctx, jobHandlers, recurringJobs);
    this.webhooks = new WebhookEngine(ctx);
    this.chains = new ChainWorker(ctx);
  }
  override start(): void {
    super.start();
    this.webhooks.start();
    this.chains.start();
  }
  override async stop(): Promise<void> {
    await Promise.all([super.stop(), this.webhooks.stop(), this.chains.stop()]);
  }
}

export function createRunner(ctx: AppContext): JobRunner {
  return new WorkerRunner(ctx);
}
