import type { AppContext } from './platform/context.js';
import { approvalExpiryJob } from './controls/approvals/approvals.jobs.js';
import { recipientCheckJob } from './controls/recipient-checks/recipient-checks.jobs.js';
import { RECIPIENT_CHECK_JOB } from './controls/recipient-checks/recipient-checks.service.js';
import { APPROVAL_EXPIRY_JOB } from './controls/approvals/approvals.service.js';
import { deleteExpiredIdempotencyKeys } from './platform/idempotency/idempotency.service.js';
import { payoutStepJobs } from './domains/payouts/payouts.jobs.js';
import { orderDeadlineJob } from './domains/orders/orders.jobs.js';
import { ORDER_DEADLINE_JOB } from './domains/orders/orders.lifecycle.js';
import { PAYOUT_STEP_JOB } from './domains/payouts/payouts.lifecycle.js';
import { deleteExpiredUploads } from './platform/storage/uploads.service.js';
import { WebhookEngine } from './domains/webhooks/delivery-engine.js';
import type { ConnectorWorker } from './connectors/definition.js';
import { HealthRecorder } from './connectors/health.js';
import { registryOf } from './connectors/registry.js';
import { RETENTION_JOB, retentionSweep } from './retention.js';
import { rescreenBeneficiariesJob } from './controls/screening/screening.jobs.js';
import { SCREENING_RESCREEN_JOB } from './controls/screening/screening.service.js';
import { alertsEvaluateJob } from './controls/alerts/alerts.jobs.js';
import { ALERTS_EVALUATE_JOB } from './controls/alerts/alerts.service.js';
import { notificationsSendJob } from './controls/notifications/notifications.jobs.js';
import { NOTIFICATIONS_SEND_JOB } from './controls/notifications/notifications.service.js';
import { JobRunner, type AnyJobHandler, type Recurring } from './platform/jobs/runner.js';

/** Every job kind of the platform and its handler. Modules add theirs here; connectors declare theirs in their definition. */
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
  [RECIPIENT_CHECK_JOB, recipientCheckJob],
  [RETENTION_JOB, retentionSweep],
  [SCREENING_RESCREEN_JOB, rescreenBeneficiariesJob],
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
  // Makes sure the alert evaluation is scheduled; it then runs every ALERT_EVALUATE_MS.
  { kind: ALERTS_EVALUATE_JOB, everyMs: 60_000 },
  // Retries the notifications whose first attempt failed (new ones schedule a send job themselves).
  { kind: NOTIFICATIONS_SEND_JOB, everyMs: 60_000 },
];

/** A connector's loop in a worker: one tick, then the next `everyMs` after it ends; a failed tick is logged and tried again on the next. */
class WorkerLoop {
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;

  constructor(
    private readonly ctx: AppContext,
    private readonly worker: ConnectorWorker,
  ) {}

  start(): void {
    if (this.timer !== undefined) return;
    const loop = () => {
      this.running = this.worker
        .tick()
        .catch((err: unknown) => this.ctx.log.warn({ worker: this.worker.name, err: err instanceof Error ? err.message.split('\n')[0] : String(err) }, 'connector loop failed; tried again on the next'))
        .finally(() => {
          if (this.timer !== undefined) this.timer = setTimeout(loop, this.worker.everyMs);
        });
    };
    this.timer = setTimeout(loop, 0);
  }

  async stop(): Promise<void> {
    const timer = this.timer;
    this.timer = undefined;
    if (timer) clearTimeout(timer);
    await this.running;
  }
}

/**
 * A worker's jobs: the platform's and those of the connectors present (each recording its
 * connector's health), with the webhook delivery engine beside them (its queue is the
 * webhook_deliveries table) and the connectors' loops (a chain's looks at its node).
 */
class WorkerRunner extends JobRunner {
  private readonly webhooks: WebhookEngine;
  private readonly loops: WorkerLoop[];
  constructor(ctx: AppContext) {
    const registry = registryOf(ctx.connectors);
    const health = new HealthRecorder(ctx.db);
    super(ctx, new Map([...jobHandlers, ...registry.jobHandlers(health)]), [...recurringJobs, ...registry.recurring()]);
    this.webhooks = new WebhookEngine(ctx);
    this.loops = registry.workers(ctx, health).map((w) => new WorkerLoop(ctx, w));
  }
  override start(): void {
    super.start();
    this.webhooks.start();
    for (const loop of this.loops) loop.start();
  }
  override async stop(): Promise<void> {
    await Promise.all([super.stop(), this.webhooks.stop(), ...this.loops.map((loop) => loop.stop())]);
  }
}

export function createRunner(ctx: AppContext): JobRunner {
  return new WorkerRunner(ctx);
}
