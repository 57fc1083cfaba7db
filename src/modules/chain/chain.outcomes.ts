import type { AppContext } from '../../context.js';
import type { Tx } from '../../db/db.js';
import { DomainError } from '../../lib/errors.js';
import { moveAnyPayout } from '../payouts/payouts.lifecycle.js';

/**
 * What the chain connector reports about its payouts, in the shape of the connectors' outcome report
 * (CONNECTORS.md: reportPayoutOutcomes). Until that lands, each outcome is applied as the operator's
 * move is (compare-and-set with its ledger postings and event); a move from a state it cannot start
 * from is reported back as not applied.
 */
export interface PayoutOutcome {
  payoutId: string;
  move: 'process' | 'pay' | 'fail';
  failureReason?: string;
  rail?: { txHash?: string; chain?: string };
}

export async function reportOutcomes(ctx: AppContext, tx: Tx, outcomes: readonly PayoutOutcome[]): Promise<{ payoutId: string; applied: boolean; status: string }[]> {
  const results: { payoutId: string; applied: boolean; status: string }[] = [];
  for (const o of outcomes) {
    try {
      const moved = await moveAnyPayout(ctx, tx, o.payoutId, o.move, o.failureReason);
      results.push({ payoutId: o.payoutId, applied: true, status: moved.status });
    } catch (err) {
      if (!(err instanceof DomainError) || err.category !== 'conflict') throw err;
      results.push({ payoutId: o.payoutId, applied: false, status: /in status (\w+)/.exec(err.message)?.[1] ?? 'unknown' });
    }
  }
  return results;
}
