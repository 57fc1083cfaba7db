import type { AppContext } from '../../context.js';
import type { Sql, Tx } from '../../db/db.js';
import type { JobBatchHandler } from '../../jobs/runner.js';
import { completeJobs, enqueueMany, type Job, type NewJob } from '../../jobs/queue.js';
import { formatAmount } from '../../lib/money.js';
import { payoutProviderFor } from '../../providers/index.js';
import { lockCustomersAvailable } from '../ledger/ledger.repository.js';
import { PAYOUT_COLUMNS, type PayoutRow } from './payouts.repository.js';
import { applyMove, stepJob } from './payouts.lifecycle.js';

/**
 * The payouts of a batch of step jobs, in one statement, in id order (the order their rows are then
 * locked in). Kept beside its only caller while payouts.repository.ts is being rebuilt.
 */
async function findPayoutsForStep(sql: Sql, ids: string[]): Promise<PayoutRow[]> {
  return sql.query<PayoutRow>(`SELECT ${PAYOUT_COLUMNS} FROM payouts WHERE id = ANY($1::uuid[]) ORDER BY id`, [ids]);
}

/**
 * Provider steps of many payouts in one transaction: read them with one statement, retire their
 * jobs with one, then for each ask its provider what comes next and apply that move (compare-and-set,
 * ledger and event, through `applyMove`), and schedule the next looks with one statement. A crash
 * before commit leaves every job to run again; after commit, the work and the jobs' end are one fact.
 * Two jobs for one payout in a batch step it once.
 */
async function stepPayouts(ctx: AppContext, tx: Tx, jobs: Job[]): Promise<void> {
  const rows = await findPayoutsForStep(tx, [...new Set(jobs.map((job) => String(job.payload.payoutId)))]);
  // The balances these moves settle, locked up front in the order payout creation locks them (by
  // ledger account id), so a batch of steps and a batch of new payouts never deadlock.
  await lockCustomersAvailable(
    tx,
    rows.map((row) => ({ accountId: row.account_id, currency: row.funding_currency })),
  );
  await completeJobs(
    tx,
    jobs.map((job) => job.id),
  );
  const next: NewJob[] = [];
  for (const row of rows) {
    const provider = payoutProviderFor(ctx.config, row.provider);
    const step = provider.nextStep({
      status: row.status,
      amount: formatAmount(BigInt(row.amount_minor), row.currency),
      currency: row.currency,
      reverted: row.reverted_at !== null,
    });
    if (step.move !== 'none') {
      const moved = await applyMove(tx, row, step.move, step.failureReason);
      if (!moved) continue; // moved by someone else meanwhile; their move decides what follows
    }
    if (step.nextInMs !== null) next.push(stepJob(row.id, step.nextInMs));
  }
  await enqueueMany(tx, next);
}

/**
 * `payout.step` jobs, a claim's worth at once. When the batch's transaction fails, each job runs
 * again in a transaction of its own, so one bad payout fails only its own job.
 */
export const payoutStepJobs: JobBatchHandler = {
  batch: async (ctx, jobs) => {
    const failures = new Map<string, unknown>();
    try {
      await ctx.db.tx((tx) => stepPayouts(ctx, tx, jobs));
      return failures;
    } catch (err) {
      if (jobs.length === 1) return failures.set((jobs[0] as Job).id, err);
    }
    for (const job of jobs) {
      try {
        await ctx.db.tx((tx) => stepPayouts(ctx, tx, [job]));
      } catch (err) {
        failures.set(job.id, err);
      }
    }
    return failures;
  },
};
