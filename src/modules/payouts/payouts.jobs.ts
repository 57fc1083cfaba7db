import type { JobHandler } from '../../jobs/runner.js';
import { completeJob } from '../../jobs/queue.js';
import { formatAmount } from '../../lib/money.js';
import { payoutProviderFor } from '../../providers/index.js';
import { findPayoutById } from './payouts.repository.js';
import { applyMove, scheduleStep } from './payouts.lifecycle.js';

/**
 * One provider step of a payout: read it, ask its provider what comes next, apply that move and
 * schedule the next look, and retire this job, all in one transaction. A crash before commit
 * leaves the job to run again; after commit, the work and the job's end are one fact.
 */
export const payoutStepJob: JobHandler = async (ctx, job) => {
  const payoutId = String(job.payload.payoutId);
  await ctx.db.tx(async (tx) => {
    const row = await findPayoutById(tx, payoutId);
    await completeJob(tx, job.id);
    if (!row) return;
    const provider = payoutProviderFor(ctx.config, row.provider);
    const step = provider.nextStep({
      status: row.status,
      amount: formatAmount(BigInt(row.amount_minor), row.currency),
      currency: row.currency,
      reverted: row.reverted_at !== null,
    });
    if (step.move !== 'none') {
      const moved = await applyMove(tx, row, step.move, step.failureReason);
      if (!moved) return; // moved by someone else meanwhile; their move decides what follows
    }
    if (step.nextInMs !== null) await scheduleStep(tx, payoutId, step.nextInMs);
  });
};
