import type { AppContext } from '../context.js';
import { deleteExpiredIdempotencyKeys } from '../http/idempotency.js';
import { payoutStepJob } from '../modules/payouts/payouts.jobs.js';
import { PAYOUT_STEP_JOB } from '../modules/payouts/payouts.lifecycle.js';
import { JobRunner, type JobHandler, type Recurring } from './runner.js';

/** Every job kind and its handler. Modules add theirs here. */
export const jobHandlers: ReadonlyMap<string, JobHandler> = new Map<string, JobHandler>([
  [
    'idempotency.cleanup',
    async (ctx) => {
      await deleteExpiredIdempotencyKeys(ctx);
    },
  ],
  [PAYOUT_STEP_JOB, payoutStepJob],
]);

export const recurringJobs: readonly Recurring[] = [{ kind: 'idempotency.cleanup', everyMs: 15 * 60_000 }];

export function createRunner(ctx: AppContext): JobRunner {
  return new JobRunner(ctx, jobHandlers, recurringJobs);
}
