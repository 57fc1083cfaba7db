import type { JobHandler } from '../../platform/jobs/runner.js';
import { applyMove } from './orders.lifecycle.js';
import { findOrderById } from './orders.repository.js';

/**
 * An order's deadline came: `funding` expires an order still awaiting funds at fundingDeadlineAt
 * (order.expired); `execution` fails a funded order the desk has not completed by
 * executionDeadlineAt with `review_expired` (order.failed, held funds returned). An order already
 * moved on is left alone; a deadline not yet reached (the window was moved) runs again then.
 */
export const orderDeadlineJob: JobHandler = async (ctx, job) => {
  const orderId = String(job.payload.orderId);
  const deadline = job.payload.deadline === 'execution' ? 'execution' : 'funding';
  return ctx.db.tx(async (tx) => {
    const row = await findOrderById(tx, orderId);
    if (!row) return undefined;
    const due = deadline === 'funding' ? row.funding_deadline_at : row.execution_deadline_at;
    const applies = deadline === 'funding' ? row.status === 'awaiting_funds' : row.status === 'funds_received' || row.status === 'executing';
    if (!applies || !due) return undefined;
    if (due.getTime() > Date.now()) return due;
    await applyMove(ctx, tx, row, deadline === 'funding' ? 'expire' : 'review-expire');
    return undefined;
  });
};
