import type { JobHandler } from '../../platform/jobs/runner.js';
import { expireApproval } from './approvals.service.js';

/**
 * A payout's approval window ended: still waiting, it is cancelled and its held funds return (once,
 * whatever else runs at the same moment); decided meanwhile, nothing happens. A window not over yet
 * (by the database's clock) runs again then.
 */
export const approvalExpiryJob: JobHandler = async (ctx, job) => ctx.db.tx((tx) => expireApproval(ctx, tx, String(job.payload.payoutId)));
