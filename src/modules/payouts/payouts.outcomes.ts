// TEMPORARY (h21-out): a stand-in for the lead's payouts.outcomes.ts (CONNECTORS.md) until the
// "Connectors:" commit lands on main; the merge takes the lead's file.
import type { AppContext } from '../../context.js';
import type { Tx } from '../../db/db.js';
import { applyMoves } from './payouts.lifecycle.js';
import { findPayoutsByIds } from './payouts.steps.repository.js';

export type PayoutOutcome = {
  payoutId: string;
  move: 'process' | 'pay' | 'fail' | 'revert';
  failureReason?: string;
  returnReason?: { code: string; description: string };
  rail?: { uetr?: string; txHash?: string; chain?: string };
};

export async function reportPayoutOutcomes(_ctx: AppContext, tx: Tx, outcomes: PayoutOutcome[]): Promise<{ payoutId: string; applied: boolean; status: string }[]> {
  const rows = new Map((await findPayoutsByIds(tx, outcomes.map((o) => o.payoutId))).map((r) => [r.id, r]));
  const requests = outcomes.flatMap((o) => {
    const row = rows.get(o.payoutId);
    return row ? [{ row, move: o.move, failureReason: o.failureReason }] : [];
  });
  const moved = await applyMoves(tx, requests);
  return requests.map((r, i) => ({ payoutId: r.row.id, applied: moved[i] !== undefined, status: moved[i]?.status ?? r.row.status }));
}
