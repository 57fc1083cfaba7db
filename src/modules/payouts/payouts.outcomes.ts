import type { AppContext } from '../../context.js';
import type { Tx } from '../../db/db.js';
import { lockCustomerBalances } from '../ledger/ledger.service.js';
import { applyMoves, movePostsToLedger, type MoveRequest } from './payouts.lifecycle.js';
import { findPayoutsByIds } from './payouts.steps.repository.js';

/*
 * STAND-IN written by h21-in against the signature in CONNECTORS.md until the lead's "Connectors:"
 * commit lands on main; that commit's payouts.outcomes.ts replaces this file whole on merge. This one
 * applies the moves (compare-and-set, ledger, events) but does not store returnReason or rail details
 * (their columns come with the lead's migration 0021).
 */

export type PayoutOutcome = {
  payoutId: string;
  move: 'process' | 'pay' | 'fail' | 'revert';
  failureReason?: string;
  returnReason?: { code: string; description: string };
  rail?: { uetr?: string; txHash?: string; chain?: string };
};

export async function reportPayoutOutcomes(_ctx: AppContext, tx: Tx, outcomes: readonly PayoutOutcome[]): Promise<{ payoutId: string; applied: boolean; status: string }[]> {
  const rows = new Map((await findPayoutsByIds(tx, [...new Set(outcomes.map((o) => o.payoutId))])).map((r) => [r.id, r]));
  const requests: MoveRequest[] = [];
  for (const o of outcomes) {
    const row = rows.get(o.payoutId);
    if (row) requests.push({ row, move: o.move, failureReason: o.failureReason });
  }
  const balances = requests.filter(({ move }) => movePostsToLedger(move)).map(({ row }) => ({ accountId: row.account_id, currency: row.funding_currency }));
  if (balances.length > 0) await lockCustomerBalances(tx, balances);
  const moved = await applyMoves(tx, requests);
  const byId = new Map(requests.map((r, i) => [r.row.id, moved[i]]));
  return outcomes.map((o) => {
    const after = byId.get(o.payoutId);
    return { payoutId: o.payoutId, applied: after !== undefined, status: after?.status ?? rows.get(o.payoutId)?.status ?? 'unknown' };
  });
}
