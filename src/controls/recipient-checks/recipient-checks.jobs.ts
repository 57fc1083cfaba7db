import type { JobHandler } from '../../platform/jobs/runner.js';
import { runRecipientCheck } from './recipient-checks.service.js';

/**
 * A payout's recipient check: asks the rail outside any transaction and records its answer. A rail
 * that fails or is slow throws here, and the runner tries again with backoff; the last attempt
 * records `unavailable` and the workspace decides.
 */
export const recipientCheckJob: JobHandler = async (ctx, job) => runRecipientCheck(ctx, String(job.payload.payoutId), job);
