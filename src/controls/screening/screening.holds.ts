import type { AppContext } from '../../platform/context.js';
import type { Sql, Tx } from '../../platform/db/db.js';
import type { PageRequest } from '../../platform/db/pagination.js';
import { conflict, notFound } from '../../platform/lib/errors.js';
import { formatAmount } from '../../platform/lib/money.js';
import { lockForDecision, moveAnyPayout, proceedUnlessHeld } from '../../domains/payouts/payouts.lifecycle.js';
import { getPayout } from '../../domains/payouts/payouts.read.js';
import { moveAnyOrder } from '../../domains/orders/orders.lifecycle.js';
import { getAnyOrder } from '../../domains/orders/orders.read.js';
import * as repo from './screening.repository.js';
import { orderHoldData, type OrderHoldView } from './screening.service.js';
import { assertOperatorRight, type OperatorActor } from '../../domains/users/rights.js';

/**
 * The console's queue of payouts held by a sanctions hit: release lets a payout proceed (its first
 * provider step is scheduled), reject fails it with `compliance_rejected` and releases its funds (the
 * payout's own fail move: its holds are voided, once). With dual control on, a release takes two
 * different operators: the first is recorded, the second releases. A payout cancelled or failed
 * otherwise while held (by its customer, the operator, the sandbox, its approval) closes its hold as
 * `withdrawn` in that move (payouts.lifecycle.ts), evidence kept, out of the queue.
 */

export function holdData(row: repo.HoldRow) {
  return {
    payoutId: row.payout_id,
    workspaceId: row.workspace_id,
    clientRef: row.client_ref,
    amount: formatAmount(BigInt(row.amount_minor), row.currency),
    currency: row.currency,
    status: row.status,
    hits: row.hits,
    releaseApprovedBy: row.release_approved_by,
    decidedBy: row.decided_by,
    decidedAt: row.decided_at ? row.decided_at.toISOString() : null,
    createdAt: row.created_at.toISOString(),
  };
}
export type HoldView = ReturnType<typeof holdData>;

export function listHolds(sql: Sql, f: PageRequest & { status?: repo.HoldStatus | undefined; workspaceId?: string | undefined }) {
  return repo.listHolds(sql, f, holdData);
}

export async function getHold(sql: Sql, payoutId: string): Promise<HoldView> {
  const row = await repo.findHold(sql, payoutId);
  if (!row) throw notFound('Screening hold');
  return holdData(row);
}

async function heldRow(tx: Tx, payoutId: string): Promise<repo.HoldRow> {
  // The payout first (as a cancel takes it, then withdraws the hold): a cancel committed meanwhile is seen.
  await lockForDecision(tx, payoutId);
  const row = await repo.findHold(tx, payoutId, { lock: true });
  if (!row) throw notFound('Screening hold');
  if (row.status === 'withdrawn') throw conflict('SCREENING_HOLD_DECIDED', "This payout's screening hold was withdrawn: the payout was cancelled or failed meanwhile");
  if (row.status !== 'held') throw conflict('SCREENING_HOLD_DECIDED', `This payout's screening hold was already ${row.status}`);
  return row;
}

export async function readSettings(sql: Sql) {
  const row = await repo.readSettings(sql);
  return { dualControl: row.dual_control, updatedBy: row.updated_by, updatedAt: row.updated_at.toISOString() };
}

export async function updateSettings(tx: Tx, input: { dualControl: boolean }, actor: OperatorActor) {
  assertOperatorRight(actor, 'screening');
  const row = await repo.writeSettings(tx, input.dualControl, actor.name);
  return { dualControl: row.dual_control, updatedBy: row.updated_by, updatedAt: row.updated_at.toISOString() };
}

/**
 * Releases a held payout, `by` an operator (`key:<id>` or `user:<id>`). Under dual control the first
 * release only records its operator (the payout stays held); the same operator again is refused
 * (409 SECOND_OPERATOR_REQUIRED); a different one releases. A payout no longer queued (cancelled
 * meanwhile) cannot be released (409 INVALID_PAYOUT_STATE).
 */
export async function releaseHold(ctx: AppContext, tx: Tx, payoutId: string, actor: OperatorActor): Promise<HoldView> {
  assertOperatorRight(actor, 'screening');
  const by = actor.name;
  const row = await heldRow(tx, payoutId);
  const { dual_control: dualControl } = await repo.readSettings(tx);
  if (dualControl) {
    if (row.release_approved_by === by) throw conflict('SECOND_OPERATOR_REQUIRED', 'Dual control: a second, different operator must release this payout');
    if (row.release_approved_by === null) return holdData((await repo.approveRelease(tx, payoutId, by)) as repo.HoldRow);
  }
  const payout = await getPayout(tx, row.workspace_id, payoutId);
  if (payout.status !== 'queued') throw conflict('INVALID_PAYOUT_STATE', `A payout in status ${payout.status} cannot be released`);
  const released = (await repo.decideHold(tx, payoutId, 'released', by)) as repo.HoldRow;
  await proceedUnlessHeld(ctx, tx, payout);
  return holdData(released);
}

/** Rejects a held payout: it fails with `compliance_rejected` and its funds are released, in one transaction. */
export async function rejectHold(ctx: AppContext, tx: Tx, payoutId: string, actor: OperatorActor): Promise<HoldView> {
  assertOperatorRight(actor, 'screening');
  await heldRow(tx, payoutId);
  const rejected = (await repo.decideHold(tx, payoutId, 'rejected', actor.name)) as repo.HoldRow;
  await moveAnyPayout(ctx, tx, payoutId, 'fail', 'compliance_rejected');
  return holdData(rejected);
}

// ---------------------------------------------------------------------------------------------
// Orders held by a match of their beneficiary

async function heldOrder(tx: Tx, orderId: string): Promise<repo.OrderHoldRow> {
  const row = await repo.findOrderHold(tx, orderId, { lock: true });
  if (!row) throw notFound('Screening hold');
  if (row.status !== 'held') throw conflict('SCREENING_HOLD_DECIDED', `This order's screening hold was already ${row.status}`);
  return row;
}

/** Releases a held order, `by` an operator: the desk may then execute and complete it. */
export async function releaseOrderHold(tx: Tx, orderId: string, actor: OperatorActor): Promise<OrderHoldView> {
  assertOperatorRight(actor, 'screening');
  await heldOrder(tx, orderId);
  return orderHoldData((await repo.decideOrderHold(tx, orderId, 'released', actor.name)) as repo.OrderHoldRow);
}

/** Rejects a held order: it is cancelled (awaiting funds) or failed (funded: `execution_failed`), its held funds returned, in one transaction. */
export async function rejectOrderHold(ctx: AppContext, tx: Tx, orderId: string, actor: OperatorActor): Promise<OrderHoldView> {
  assertOperatorRight(actor, 'screening');
  await heldOrder(tx, orderId);
  const rejected = (await repo.decideOrderHold(tx, orderId, 'rejected', actor.name)) as repo.OrderHoldRow;
  const order = await getAnyOrder(tx, orderId);
  await moveAnyOrder(ctx, tx, orderId, order.status === 'awaiting_funds' ? 'cancel' : 'fail');
  return orderHoldData(rejected);
}
