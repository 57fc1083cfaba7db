import type { AppContext } from '../../platform/context.js';
import type { Tx } from '../../platform/db/db.js';
import type { JobTxHandler } from '../../platform/jobs/runner.js';
import { enqueueMany, type Job } from '../../platform/jobs/queue.js';
import { formatAmount } from '../../platform/lib/money.js';
import { isAsyncConnector, type AsyncConnector } from '../../connectors/connector.js';
import { lockCustomerBalances } from '../ledger/ledger.service.js';
import { applyMoves, moveLocksBalancesFirst, movePostsToLedger, STEP_JOB_PAYOUTS, stepJobPayouts, stepJobs, type MoveRequest } from './payouts.lifecycle.js';
import { findPayoutsByIds } from './payouts.steps.repository.js';
import { handOver } from './payouts.outcomes.js';

/**
 * Provider steps of many payouts in the transaction that took their jobs (deleted there: a crash or
 * a rollback before the commit leaves every job due again; after the commit, the work and the jobs'
 * end are one fact): read the payouts with one statement, hand the queued payouts of an async
 * connector over to it (`accept`), ask each stepping connector what comes next, and apply the moves
 * (`applyMoves`: the compare-and-sets in one statement, the events in one, the next looks scheduled
 * with one, and last the holds resolved with one, which locks the balances it settles until the
 * commit). A batch with a move that posts to a balance beyond its holds (a revert) locks those
 * balances first instead. Two jobs for one payout in a batch step it once.
 */
async function stepPayouts(ctx: AppContext, tx: Tx, jobs: Job[]): Promise<void> {
  const rows = await findPayoutsByIds(tx, [...new Set(jobs.flatMap((job) => stepJobPayouts(job.payload)))]);
  const handedOver = new Map<AsyncConnector, typeof rows>();
  for (const row of rows) {
    const connector = ctx.connectors.get(row.provider);
    if (isAsyncConnector(connector) && row.status === 'queued') handedOver.set(connector, [...(handedOver.get(connector) ?? []), row]);
  }
  for (const [connector, queued] of handedOver) await handOver(ctx, tx, connector, queued);
  const planned = rows.map((row) => ({
    row,
    step: ctx.connectors.get(row.provider).nextStep({
      status: row.status,
      amount: formatAmount(BigInt(row.amount_minor), row.currency),
      currency: row.currency,
      reverted: row.reverted_at !== null,
    }),
  }));
  const moving = planned.flatMap(({ row, step }): MoveRequest[] => (step.move === 'none' ? [] : [{ row, move: step.move, failureReason: step.failureReason }]));
  // A batch with a revert locks the balances its moves post to up front, in the order payout creation
  // locks them (by ledger account id), so a batch of steps and a batch of new payouts never deadlock.
  if (moving.some(({ move }) => moveLocksBalancesFirst(move))) {
    const balances = moving.filter(({ move }) => movePostsToLedger(move)).map(({ row }) => ({ accountId: row.account_id, currency: row.funding_currency }));
    await lockCustomerBalances(tx, balances);
  }
  await applyMoves(tx, moving, {
    beforeLedger: async (moved) => {
      // A payout moved by someone else meanwhile: their move decides what follows.
      const lost = new Set(moving.filter((_, i) => !moved[i]).map(({ row }) => row.id));
      await enqueueMany(
        tx,
        stepJobs(
          planned.flatMap(({ row, step }) => (step.nextInMs === null || lost.has(row.id) ? [] : [{ payoutId: row.id, inMs: step.nextInMs }])),
          ctx.config.limits.jobHandlerBatchMax,
        ),
      );
    },
  });
}

/**
 * `payout.step` jobs, taken (and ended) in the transaction of the steps, up to jobHandlerBatchMax at
 * once (JobTxHandler): no claim is written for them. When a batch's transaction fails, the runner
 * runs each job again in a transaction of its own, so one bad payout fails only its own job.
 */
export const payoutStepJobs: JobTxHandler = { inTx: stepPayouts, itemsKey: STEP_JOB_PAYOUTS };
