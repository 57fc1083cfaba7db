import { randomUUID } from 'node:crypto';
import type { AppContext } from '../../platform/context.js';
import type { Tx } from '../../platform/db/db.js';
import { conflict, fieldError, notFound } from '../../platform/lib/errors.js';
import { enqueue, LIFECYCLE_JOB_ATTEMPTS_MAX } from '../../platform/jobs/queue.js';
import { assert } from '../../platform/lib/assert.js';
import { isUuid } from '../../platform/lib/ids.js';
import { formatRate, parseAmount, parseRate } from '../../platform/lib/money.js';
import { recordEvent } from '../events/events.service.js';
import { ledger } from '../ledger/ledger.service.js';
import { orderEventData } from './orders.read.js';
import * as repo from './orders.repository.js';
import type { OrderRow } from './orders.repository.js';
import { FAILURE_REASON, MOVE_EVENT, MOVE_FROM, MOVE_TARGET, canMove, type OrderMove } from './orders.transitions.js';
import { assertCapability, type Caller } from '../accounts/caller.js';
import { attributed } from '../../controls/audit/audit.service.js';
import { assertOrderNotHeld, withdrawOrderHold } from '../../controls/screening/screening.service.js';

export const ORDER_DEADLINE_JOB = 'order.deadline';

/** What the desk reports when it completes an order (absent: the amounts priced at creation). */
export interface CompletionInput {
  toAmount?: string | undefined;
  rate?: string | undefined;
  uetr?: string | undefined;
}

type Completion = { toAmountMinor: bigint; rate: string; uetr: string | null };

/** Schedules the look at an order's funding or execution deadline, in the caller's transaction. */
export async function scheduleDeadline(tx: Tx, orderId: string, deadline: 'funding' | 'execution', at: Date): Promise<void> {
  await enqueue(tx, { kind: ORDER_DEADLINE_JOB, payload: { orderId, deadline }, runAt: at, uniqueKey: `order-deadline:${orderId}:${deadline}`, maxAttempts: LIFECYCLE_JOB_ATTEMPTS_MAX });
}

export async function recordOrderEvent(tx: Tx, row: OrderRow, type: string): Promise<void> {
  await recordEvent(tx, {
    workspaceId: row.workspace_id,
    accountId: row.account_id === row.workspace_id ? undefined : row.account_id,
    type,
    data: orderEventData(row),
  });
}

const customerOf = (row: OrderRow) => ({ customer: row.account_id, workspaceId: row.workspace_id });

/** The final figures of a completion: the desk's toAmount and rate (both or neither), and the UETR of a wire delivery. */
export function decideCompletion(row: OrderRow, input: CompletionInput): Completion {
  if ((input.toAmount === undefined) !== (input.rate === undefined)) {
    throw fieldError(input.toAmount === undefined ? 'toAmount' : 'rate', 'give toAmount and rate together, or neither (the amounts priced at creation)');
  }
  const toAmountMinor = input.toAmount === undefined ? BigInt(row.to_amount_minor) : parseAmount(input.toAmount, row.to_currency, 'toAmount');
  const rate = input.rate === undefined ? row.rate : formatRate(parseRate(input.rate, 'rate'));
  const wire = row.delivery_rail !== null && row.delivery_rail !== 'crypto';
  if (input.uetr !== undefined && !wire) throw fieldError('uetr', 'uetr applies only to a wire delivery to a beneficiary');
  if (input.uetr !== undefined && !isUuid(input.uetr)) throw fieldError('uetr', 'uetr must be a UUID');
  return { toAmountMinor, rate, uetr: wire ? (input.uetr ?? randomUUID()) : null };
}

/** The ledger side of a move, in the transaction of the move itself. */
async function postForMove(tx: Tx, row: OrderRow, moved: OrderRow, move: OrderMove): Promise<void> {
  const reference = { type: 'order', id: row.id };
  switch (move) {
    case 'confirm-funds': {
      // The settlement arrived: credited to the balance, then held for the desk as a balance-funded order is.
      await ledger.transfer(tx, { debit: { system: 'deposit_suspense' }, credit: customerOf(row), currency: row.from_currency, amountMinor: BigInt(row.from_amount_minor), reference, description: 'Order settlement received' });
      const holdId = await ledger.hold(tx, { debit: customerOf(row), credit: { system: 'fx_desk' }, currency: row.from_currency, amountMinor: BigInt(row.from_amount_minor), reference, description: 'Order funds held for the desk' });
      await repo.setHoldTransfer(tx, row.id, holdId);
      moved.hold_transfer_id = holdId;
      return;
    }
    case 'complete': {
      assert(row.hold_transfer_id !== null, 'a funded order has its hold');
      await ledger.post(tx, row.hold_transfer_id);
      const toAmountMinor = BigInt(moved.to_amount_minor);
      await ledger.transfer(tx, {
        debit: { system: 'fx_desk' },
        credit: moved.delivery_rail ? { system: 'provider_clearing', code: moved.delivery_rail } : customerOf(row),
        currency: row.to_currency,
        amountMinor: toAmountMinor,
        reference,
        description: moved.delivery_rail ? 'Order delivered to the beneficiary' : 'Order delivered to the balance',
      });
      return;
    }
    case 'fail':
    case 'review-expire':
    case 'cancel':
      if (row.hold_transfer_id) await ledger.void(tx, row.hold_transfer_id);
      return;
    case 'execute':
    case 'expire':
      return;
  }
}

/**
 * Applies a move to an order as one compare-and-set with its ledger posting, its event and its next
 * deadline, in the caller's transaction. Returns undefined when the order is no longer in a state the
 * move starts from (someone else moved it first).
 */
export async function applyMove(ctx: AppContext, tx: Tx, row: OrderRow, move: OrderMove, completion?: Completion): Promise<OrderRow | undefined> {
  const to = MOVE_TARGET[move];
  if (!MOVE_FROM[move].includes(row.status)) return undefined;
  assert(canMove(row.status, to), `order transition ${row.status} → ${to} is in the table`);
  const settled = row.settlement_id !== null;
  const moved = await repo.moveStatus(tx, row.id, row.status, to, {
    failureReason: FAILURE_REASON[move] ?? null,
    ...(move === 'confirm-funds' ? { funded: { executionWindowMs: ctx.config.orderExecutionWindowMs }, settlementStatus: 'received' as const } : {}),
    ...(move === 'complete' ? { completed: completion } : {}),
    ...(settled && move === 'expire' ? { settlementStatus: 'expired' as const } : {}),
    ...(settled && move === 'cancel' && row.status === 'awaiting_funds' ? { settlementStatus: 'cancelled' as const } : {}),
  });
  if (!moved) return undefined;
  if (move !== 'confirm-funds' && move !== 'execute' && move !== 'complete') await withdrawOrderHold(tx, row.id);
  await postForMove(tx, row, moved, move);
  const event = MOVE_EVENT[move];
  if (event) await recordOrderEvent(tx, moved, event);
  if (move === 'confirm-funds' && moved.execution_deadline_at) await scheduleDeadline(tx, moved.id, 'execution', moved.execution_deadline_at);
  return moved;
}

/**
 * Funds confirmed for an order that expired or was cancelled while awaiting them: the spec's "a later
 * transfer credits the balance". Credited once; the order keeps its status and emits nothing.
 */
async function creditLateSettlement(tx: Tx, row: OrderRow): Promise<OrderRow | undefined> {
  const received = await repo.receiveLateSettlement(tx, row.id);
  if (!received) return undefined;
  await ledger.transfer(tx, {
    debit: { system: 'deposit_suspense' },
    credit: customerOf(row),
    currency: row.from_currency,
    amountMinor: BigInt(row.from_amount_minor),
    reference: { type: 'order', id: row.id },
    description: `Order settlement received after the order was ${row.status}: credited to the balance`,
  });
  return received;
}

/** The desk (operator API and console): a move on any workspace's order. */
export function moveAnyOrder(ctx: AppContext, tx: Tx, id: string, move: OrderMove, input: CompletionInput = {}): Promise<OrderRow> {
  return requestMove(ctx, tx, async () => attributed(await repo.findOrderById(tx, id)), move, input);
}

/** A move asked for through the API (cancel, sandbox, operator): 404 unknown, 409 from a state it cannot start from. */
export async function requestMove(
  ctx: AppContext,
  tx: Tx,
  find: () => Promise<OrderRow | undefined>,
  move: OrderMove,
  input: CompletionInput = {},
): Promise<OrderRow> {
  const row = await find();
  if (!row) throw notFound('Order');
  if (move === 'confirm-funds' && row.funding !== 'settlement') throw conflict('ORDER_NOT_SETTLEMENT_FUNDED', 'The order is funded from the balance: there is no settlement to confirm');
  if (move === 'confirm-funds' && (row.status === 'expired' || row.status === 'cancelled')) {
    const late = await creditLateSettlement(tx, row);
    if (late) return late;
  }
  if ((move === 'execute' || move === 'complete') && MOVE_FROM[move].includes(row.status)) await assertOrderNotHeld(tx, row.id);
  const completion = move === 'complete' && MOVE_FROM.complete.includes(row.status) ? decideCompletion(row, input) : undefined;
  const moved = await applyMove(ctx, tx, row, move, completion);
  if (!moved) throw conflict('INVALID_ORDER_STATE', `An order in status ${row.status} cannot be moved to ${MOVE_TARGET[move]} this way`);
  return moved;
}

/** The caller cancels its workspace's order (API and dashboard): refused while the orders capability is off. */
export function cancelOwnOrder(ctx: AppContext, tx: Tx, caller: Pick<Caller, 'workspaceId' | 'workspace'>, id: string): Promise<OrderRow> {
  assertCapability(caller.workspace, 'orders');
  return moveOwnOrder(ctx, tx, caller.workspaceId, id, 'cancel');
}

/** A move of a workspace's own order (cancel, or a sandbox simulation of the desk): another workspace's order is a 404. */
export function moveOwnOrder(ctx: AppContext, tx: Tx, workspaceId: string, id: string, move: OrderMove, input: CompletionInput = {}): Promise<OrderRow> {
  return requestMove(ctx, tx, () => repo.findOrder(tx, workspaceId, id), move, input);
}
