import type { AppContext } from '../../platform/context.js';
import { countPayoutMoves, metrics } from '../../platform/observability/metrics.js';
import type { Tx } from '../../platform/db/db.js';
import { conflict, notFound } from '../../platform/lib/errors.js';
import { assert } from '../../platform/lib/assert.js';
import { enqueueMany, type NewJob, LIFECYCLE_JOB_ATTEMPTS_MAX } from '../../platform/jobs/queue.js';
import { recordEvents, type NewEvent } from '../events/events.service.js';
import { ledger } from '../ledger/ledger.service.js';
import { payoutEventData } from './payouts.read.js';
import { findPayout } from './payouts.repository.js';
import * as stepsRepo from './payouts.steps.repository.js';
import type { StatusChange } from './payouts.steps.repository.js';
import { findPayoutById, type PayoutCoreRow, type PayoutRow, type RailReferences } from './payouts.repository.js';
import { MOVE_EVENT, MOVE_FROM, MOVE_TARGET, canMove, type PayoutMove } from './payouts.transitions.js';
import { assertCapability, type Caller } from '../accounts/caller.js';
import { appendAudit, attributed } from '../../controls/audit/audit.service.js';
import { assertWorkspaceRight } from '../users/rights.js';

export const PAYOUT_STEP_JOB = 'payout.step';

export { payoutEventData };

/** The system account a payout's hold credits: the FX desk when a quote funds it, else the rail's clearing. */
function holdCounterparty(row: PayoutCoreRow) {
  return row.quote_id ? { system: 'fx_desk' as const } : { system: 'provider_clearing' as const, code: row.route };
}

/** Whether a move posts to the ledger (and so locks the payout's balance); `process` does not. */
export function movePostsToLedger(move: PayoutMove): boolean {
  return move !== 'process';
}

/**
 * Whether a move posts to the customer's balance beyond resolving its holds (`revert` credits it
 * back), so that a batch with it locks its balances up front, in id order (lockCustomerBalances).
 * A batch without one needs no such lock: resolving holds locks the balances it settles in id order
 * itself, last in the transaction (`applyMoves`).
 */
export function moveLocksBalancesFirst(move: PayoutMove): boolean {
  return move === 'revert';
}

type Resolution = { transferId: string; to: 'posted' | 'voided' };

/** The pending transfers (amount and fee holds) a move posts or voids; resolved for a whole batch of moves at once. */
function resolutionsForMove(row: PayoutCoreRow, move: PayoutMove): Resolution[] {
  const holds = [row.hold_transfer_id, row.fee_transfer_id].filter((id): id is string => id !== null);
  if (move === 'pay') return holds.map((transferId) => ({ transferId, to: 'posted' }));
  if (move === 'fail' || move === 'cancel') return holds.map((transferId) => ({ transferId, to: 'voided' }));
  return [];
}

/** The posted transfers of a move beyond its holds (the FX desk's delivery, a revert's credits back), in the transaction of the move. */
async function transfersForMove(tx: Tx, row: PayoutCoreRow, move: PayoutMove, bankChargesMinor = 0n): Promise<void> {
  if (!movePostsToLedger(move)) return;
  const customer = { customer: row.account_id, workspaceId: row.workspace_id };
  switch (move) {
    case 'process':
      return;
    case 'pay':
      if (row.quote_id) {
        // The FX desk delivers the payout currency to the rail.
        await ledger.transfer(tx, {
          debit: { system: 'fx_desk' },
          credit: { system: 'provider_clearing', code: row.route },
          currency: row.currency,
          amountMinor: BigInt(row.amount_minor),
          reference: { type: 'payout', id: row.id },
        });
      }
      return;
    case 'fail':
    case 'cancel':
      return;
    case 'revert': {
      // Paid, then rejected downstream: the money comes back to the balance it left.
      if (row.quote_id) {
        await ledger.transfer(tx, {
          debit: { system: 'provider_clearing', code: row.route },
          credit: { system: 'fx_desk' },
          currency: row.currency,
          amountMinor: BigInt(row.amount_minor),
          reference: { type: 'payout', id: row.id },
        });
      }
      await ledger.transfer(tx, {
        debit: holdCounterparty(row),
        credit: customer,
        currency: row.funding_currency,
        amountMinor: BigInt(row.funding_minor),
        reference: { type: 'payout', id: row.id },
        description: 'Payout reverted',
      });
      if (BigInt(row.fee_minor) > 0n) {
        await ledger.transfer(tx, {
          debit: { system: 'fee_revenue' },
          credit: customer,
          currency: row.funding_currency,
          amountMinor: BigInt(row.fee_minor),
          reference: { type: 'payout', id: row.id },
          description: 'Payout fee returned',
        });
      }
      if (bankChargesMinor > 0n) {
        // The money came back net of the banks' charges: the operator bears them, as a bank fee.
        await ledger.transfer(tx, {
          debit: { system: 'bank_fees' },
          credit: { system: 'provider_clearing', code: row.route },
          currency: row.currency,
          amountMinor: bankChargesMinor,
          reference: { type: 'payout', id: row.id },
          description: 'Bank charges taken from the return',
        });
      }
      return;
    }
  }
}

/** A move asked of one payout, as its caller read it. */
export interface MoveRequest {
  row: PayoutCoreRow;
  move: PayoutMove;
  failureReason?: string | undefined;
  /** What the rail said of it (a connector's report): its reject or return reason, its references. */
  returnReason?: { code: string; description: string } | undefined;
  rail?: RailReferences | undefined;
  /** A revert net of the banks' charges: the charges, booked as the operator's bank fee (PayoutOutcome.bankChargesMinor). */
  bankChargesMinor?: bigint | undefined;
}

/**
 * Applies a move to a payout as one compare-and-set with its ledger posting and its event, in the
 * caller's transaction. Returns undefined when the payout is no longer in a state the move starts
 * from (someone else moved it first).
 */
export async function applyMove(tx: Tx, row: PayoutRow, move: PayoutMove, failureReason?: string): Promise<PayoutRow | undefined> {
  const [moved] = await applyMoves(tx, [{ row, move, failureReason }]);
  // No move changes a screening: the payout's answer keeps the one read with it. A recipient check still
  // open is withdrawn by a cancel or a fail (withdrawOpenControls), and answered so.
  const check = row.recipient_check;
  const withdrawn = moved && check && (check.status === 'pending' || check.status === 'held') && (moved.status === 'cancelled' || moved.status === 'failed');
  return moved && { ...moved, screening: row.screening, recipient_check: withdrawn ? { ...check, status: 'withdrawn', decided_by: 'system', decided_at: moved.updated_at } : check };
}

/**
 * Applies moves to many payouts (one each) in the caller's transaction: the compare-and-sets in one
 * statement, any ledger posting of a move beyond its holds (quote-funded or reverted payouts), their
 * events in one statement, then `beforeLedger` (the caller's own writes, given the results), and last
 * the holds they post or void in one statement of the ledger, which locks the balances it settles
 * (in id order) so they stay locked only from there to the commit: payout creation waits on them.
 * Returns, for each request in order, the payout as moved, or undefined where it was no longer in a
 * state the move starts from. A single move is a batch of one (`applyMove`).
 */
export async function applyMoves(
  tx: Tx,
  requests: readonly MoveRequest[],
  options: { beforeLedger?: (moved: readonly (PayoutCoreRow | undefined)[]) => Promise<void> } = {},
): Promise<(PayoutCoreRow | undefined)[]> {
  assert(new Set(requests.map((r) => r.row.id)).size === requests.length, 'one move per payout in a batch');
  const changes: StatusChange[] = [];
  for (const { row, move, failureReason, returnReason, rail } of requests) {
    if (!MOVE_FROM[move].includes(row.status)) continue;
    const to = MOVE_TARGET[move];
    assert(canMove(row.status, to), `payout transition ${row.status} → ${to} is in the table`);
    changes.push({
      id: row.id,
      from: row.status,
      to,
      failureReason: move === 'fail' || move === 'revert' ? (failureReason ?? 'failed') : null,
      completed: move === 'pay',
      reverted: move === 'revert',
      returnReason: returnReason ?? null,
      rail: rail ?? null,
    });
  }
  const movedById = new Map((await stepsRepo.moveStatuses(tx, changes)).map((moved) => [moved.id, moved]));
  const results = requests.map(({ row }) => movedById.get(row.id));
  countPayoutMoves(metrics.payoutsMoved, results);
  await withdrawOpenControls(tx, changes.filter((c) => movedById.has(c.id)));
  const events: NewEvent[] = [];
  for (const [i, { row, move, bankChargesMinor }] of requests.entries()) {
    const moved = results[i];
    if (!moved) continue;
    await transfersForMove(tx, row, move, bankChargesMinor);
    events.push({
      workspaceId: moved.workspace_id,
      accountId: moved.account_id === moved.workspace_id ? undefined : moved.account_id,
      type: MOVE_EVENT[move],
      data: payoutEventData(moved),
      deliverable: move !== 'revert', // the spec: payout.reverted is recorded but not yet delivered
    });
  }
  await recordEvents(tx, events);
  await options.beforeLedger?.(results);
  await ledger.resolveMany(
    tx,
    requests.flatMap(({ row, move }, i) => (results[i] ? resolutionsForMove(row, move) : [])),
  );
  return results;
}

/** What a control holding a payout back waits for, as a refusal names it. */
const CONTROL_WAITS: Record<stepsRepo.PayoutControl, string> = {
  screening: 'sanctions screening (an operator releases or rejects it)',
  approval: 'its approval (someone other than its creator approves or rejects it)',
  recipient_check: "its recipient check (the rail's answer, then the workspace confirms or cancels a payout whose name did not match)",
};

/**
 * A payout that left `queued` (or `created`) cancelled or failed: the controls still holding it (a
 * screening hold, a pending approval) are withdrawn, keeping their evidence, each with an audit entry,
 * in the move's transaction. A decision of a control ends the control before it moves the payout, so
 * only the others are withdrawn.
 */
async function withdrawOpenControls(tx: Tx, changes: readonly StatusChange[]): Promise<void> {
  const ended = changes.filter((c) => (c.from === 'queued' || c.from === 'created') && (c.to === 'cancelled' || c.to === 'failed'));
  const withdrawn = await stepsRepo.withdrawControls(tx, ended.map((c) => ({ id: c.id, status: c.to })));
  for (const w of withdrawn) {
    const to = ended.find((c) => c.id === w.payout_id)?.to;
    await appendAudit(tx, {
      operatorKeyId: null,
      actor: 'system',
      method: 'POST',
      path: `/v1/payouts/${w.payout_id}/${w.control}/withdraw`,
      statusCode: 200,
      requestId: `payout.${to ?? 'moved'}`,
      workspaceId: w.workspace_id,
      body: { change: `payout.${w.control}.withdrawn`, payoutId: w.payout_id, reason: `The payout was ${to ?? 'moved'} meanwhile` },
    });
  }
}

/**
 * A move forward (process, pay) of a payout a control still holds back is refused, naming the
 * control (409 PAYOUT_HELD): only the control's decision lets it proceed. Cancel and fail stay allowed.
 */
async function refuseWhileHeld(tx: Tx, row: PayoutRow, move: PayoutMove): Promise<void> {
  if ((move !== 'process' && move !== 'pay') || (row.status !== 'queued' && row.status !== 'created')) return;
  const controls = await stepsRepo.heldBy(tx, row.id);
  if (controls.length === 0) return;
  throw conflict('PAYOUT_HELD', `This payout is held by ${controls.map((c) => CONTROL_WAITS[c]).join(' and by ')}: it cannot be moved to ${MOVE_TARGET[move]} until then (cancel or fail it to stop it)`);
}

/** As the provider (operator API and console): a move on any workspace's payout. */
export function moveAnyPayout(ctx: AppContext, tx: Tx, id: string, move: PayoutMove, failureReason?: string): Promise<PayoutRow> {
  return requestMove(ctx, tx, async () => attributed(await findPayoutById(tx, id)), move, failureReason);
}

/** A move asked for through the API (cancel, sandbox, operator): 404 unknown, 409 from a state it cannot start from. */
export async function requestMove(
  ctx: AppContext,
  tx: Tx,
  find: () => Promise<PayoutRow | undefined>,
  move: PayoutMove,
  failureReason?: string,
): Promise<PayoutRow> {
  const row = await find();
  if (!row) throw notFound('Payout');
  if (move === 'cancel' && row.status === 'processing' && !ctx.connectors.get(row.provider).canCancelProcessing()) {
    throw conflict('PAYOUT_NOT_CANCELLABLE', 'The provider can no longer cancel this payout');
  }
  await refuseWhileHeld(tx, row, move);
  const connector = ctx.connectors.get(row.provider);
  if ((move === 'cancel' || move === 'fail') && row.status === 'queued' && connector.release && !(await connector.release(tx, row.id))) {
    throw conflict('PAYOUT_NOT_CANCELLABLE', 'The payout is already on its way to the rail and can no longer be stopped');
  }
  const moved = await applyMove(tx, row, move, failureReason);
  // A cancel refused for the payout's state says so with the code the catalogue documents for it.
  if (!moved && move === 'cancel') throw conflict('PAYOUT_NOT_CANCELLABLE', `A payout in status ${row.status} cannot be cancelled${row.status === 'paid' ? ': a paid payout is final' : ''}`);
  if (!moved) throw conflict('INVALID_PAYOUT_STATE', `A payout in status ${row.status} cannot be moved to ${MOVE_TARGET[move]} this way`);
  return moved;
}

/** The caller cancels its workspace's payout (API and dashboard): refused while the payouts capability is off. */
export async function cancelOwnPayout(ctx: AppContext, tx: Tx, caller: Pick<Caller, 'workspaceId' | 'workspace' | 'role'>, id: string): Promise<PayoutRow> {
  assertWorkspaceRight(caller, 'pay');
  assertCapability(caller.workspace, 'payouts');
  return moveOwnPayout(ctx, tx, caller.workspaceId, id, 'cancel');
}

/** A move of a workspace's own payout (cancel, or a sandbox simulation): another workspace's payout is a 404. */
export function moveOwnPayout(ctx: AppContext, tx: Tx, workspaceId: string, id: string, move: PayoutMove, failureReason?: string): Promise<PayoutRow> {
  return requestMove(ctx, tx, () => findPayout(tx, workspaceId, id), move, failureReason);
}

/** The payload key of a step job's payouts: a step job carries the payouts whose next look is due at one time. */
export const STEP_JOB_PAYOUTS = 'payoutIds';

/**
 * The jobs of the provider's next looks at payouts, each in its `inMs`: one job for the payouts due
 * at the same time (a creation batch, a step batch), of at most `perJob` payouts, rather than a row
 * per payout. A job taken whose transaction fails is split into a job per payout (jobs/runner.ts),
 * so one bad payout still fails alone.
 */
export function stepJobs(steps: readonly { payoutId: string; inMs: number }[], perJob: number): NewJob[] {
  const byTime = new Map<number, string[]>();
  for (const { payoutId, inMs } of steps) byTime.set(inMs, [...(byTime.get(inMs) ?? []), payoutId]);
  const now = Date.now();
  return [...byTime].flatMap(([inMs, ids]) =>
    Array.from({ length: Math.ceil(ids.length / perJob) }, (_, i) => ({
      kind: PAYOUT_STEP_JOB,
      payload: { [STEP_JOB_PAYOUTS]: ids.slice(i * perJob, (i + 1) * perJob) },
      runAt: new Date(now + inMs),
      maxAttempts: LIFECYCLE_JOB_ATTEMPTS_MAX,
    })),
  );
}

/** The payouts a step job names (a job of an earlier version names one, as `payoutId`). */
export function stepJobPayouts(payload: Record<string, unknown>): string[] {
  const ids = payload[STEP_JOB_PAYOUTS];
  return Array.isArray(ids) ? ids.map(String) : [String(payload.payoutId)];
}

/** Schedules the provider's next look at a payout, in the caller's transaction. */
export async function scheduleStep(tx: Tx, payoutId: string, inMs: number): Promise<void> {
  await enqueueMany(tx, stepJobs([{ payoutId, inMs }], 1));
}

/**
 * Locks the payout a control is about to decide, before anything else of the decision: a cancel or a
 * move takes the payout's row first and then the control's (withdrawing it), so a decision does the same.
 */
export function lockForDecision(tx: Tx, payoutId: string): Promise<void> {
  return stepsRepo.lockPayout(tx, payoutId);
}

/**
 * After a control's decision (a screening release, an approval): schedules the payout's first step
 * unless another control still holds it, in the caller's transaction. The decision is written first,
 * so the last one to decide schedules the step, once.
 */
export async function proceedUnlessHeld(ctx: AppContext, tx: Tx, payout: Pick<PayoutRow, 'id' | 'provider'>): Promise<boolean> {
  if (await stepsRepo.isHeldBack(tx, payout.id)) return false;
  await scheduleStep(tx, payout.id, ctx.connectors.get(payout.provider).firstStepMs());
  return true;
}
