import type { AppContext } from '../../platform/context.js';
import type { Tx } from '../../platform/db/db.js';
import type { AsyncConnector } from '../../connectors/connector.js';
import { lockCustomerBalances } from '../ledger/ledger.service.js';
import { applyMoves, movePostsToLedger, type MoveRequest } from './payouts.lifecycle.js';
import type { PayoutCoreRow, RailReferences } from './payouts.repository.js';
import { findPayoutsByIds, findSealedParties } from './payouts.steps.repository.js';
import type { PayoutStatus } from './payouts.transitions.js';

/** What a connector learned of a payout from its rail (a bank's status file, a chain's receipt). */
export interface PayoutOutcome {
  payoutId: string;
  move: 'process' | 'pay' | 'fail' | 'revert';
  failureReason?: string;
  /** The rail's reject or return reason: an ISO 20022 code and its text. */
  returnReason?: { code: string; description: string };
  /** The rail's references, merged into what the payout already has. */
  rail?: RailReferences;
  /**
   * A revert whose money came back net of the charges the banks on the way took (in minor units of the
   * payout's currency): the payout is reverted in full to the workspace all the same, and the charges
   * are the operator's bank fee (the ledger's bank_fees account pays them to the rail's clearing).
   */
  bankChargesMinor?: bigint;
}

export interface OutcomeResult {
  payoutId: string;
  /** False when the payout is unknown or no longer in a state the move starts from: nothing changed. */
  applied: boolean;
  /** The payout's status after the report (undefined: no such payout). */
  status: PayoutStatus | undefined;
}

/**
 * Applies what connectors report, in the caller's transaction (so an inbound file and all its moves
 * are one fact): each move as a compare-and-set with its ledger postings and its event
 * (`applyMoves`), its reason and references stored on the payout. A move from a state it cannot start
 * from is answered `applied: false`, never thrown, so a repeated or late report changes nothing.
 * The balances the moves post to are locked first, in the order payout creation locks them.
 */
export async function reportPayoutOutcomes(_ctx: AppContext, tx: Tx, outcomes: readonly PayoutOutcome[]): Promise<OutcomeResult[]> {
  const ids = [...new Set(outcomes.map((o) => o.payoutId))];
  const rows = new Map((await findPayoutsByIds(tx, ids)).map((row) => [row.id, row]));
  const requests: MoveRequest[] = [];
  const requestOf = new Map<number, number>();
  const seen = new Set<string>();
  for (const [i, o] of outcomes.entries()) {
    const row = rows.get(o.payoutId);
    // One move per payout per report; a second outcome for the same payout in one report waits for the next.
    if (!row || seen.has(row.id)) continue;
    seen.add(row.id);
    requestOf.set(i, requests.length);
    requests.push({ row, move: o.move, failureReason: o.failureReason, returnReason: o.returnReason, rail: o.rail, bankChargesMinor: o.bankChargesMinor });
  }
  const balances = requests.filter(({ move }) => movePostsToLedger(move)).map(({ row }) => ({ accountId: row.account_id, currency: row.funding_currency }));
  if (balances.length > 0) await lockCustomerBalances(tx, balances);
  const moved = await applyMoves(tx, requests);
  return outcomes.map((o, i) => {
    const k = requestOf.get(i);
    const after: PayoutCoreRow | undefined = k === undefined ? undefined : moved[k];
    return { payoutId: o.payoutId, applied: after !== undefined, status: after?.status ?? rows.get(o.payoutId)?.status };
  });
}

/**
 * Hands queued payouts to their async connector, in the step's transaction: their recipient and
 * sender opened, for the connector to record in its own tables. `accept` must take a payout handed
 * over twice (a step run again) as once.
 */
export async function handOver(ctx: AppContext, tx: Tx, connector: AsyncConnector, rows: readonly PayoutCoreRow[]): Promise<void> {
  const parties = new Map((await findSealedParties(tx, rows.map((row) => row.id))).map((p) => [p.id, p]));
  await connector.accept(
    tx,
    rows.map((row) => {
      const sealed = parties.get(row.id);
      const beneficiary = sealed ? ctx.box.openJson<Record<string, unknown>>(sealed.beneficiary) : {};
      return {
        id: row.id,
        workspaceId: row.workspace_id,
        accountId: row.account_id,
        clientRef: row.client_ref,
        amountMinor: BigInt(row.amount_minor),
        currency: row.currency,
        route: row.route,
        rail: row.catalog_rail,
        beneficiary,
        sender: sealed?.sender ? ctx.box.openJson<Record<string, unknown>>(sealed.sender) : null,
        fundingCurrency: row.funding_currency,
        reference: row.reference,
      };
    }),
  );
}
