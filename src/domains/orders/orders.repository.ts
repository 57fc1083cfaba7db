import type { Sql } from '../../platform/db/db.js';
import { advisoryKey, maybeOne, one } from '../../platform/db/db.js';
import { listFilters, paginate, type PageRequest } from '../../platform/db/pagination.js';
import type { OrderStatus, SettlementStatus } from './orders.transitions.js';

/** All SQL of the orders module, one exported function per statement. */

export interface OrderRow {
  id: string;
  workspace_id: string;
  account_id: string;
  client_ref: string | null;
  status: OrderStatus;
  funding: 'balance' | 'settlement';
  from_currency: string;
  to_currency: string;
  from_amount_minor: string;
  to_amount_minor: string;
  rate: string;
  beneficiary_id: string | null;
  delivery_rail: string | null;
  hold_transfer_id: string | null;
  failure_reason: 'execution_failed' | 'review_expired' | null;
  uetr: string | null;
  settlement_id: string | null;
  settlement_method: 'bank_transfer' | 'crypto' | null;
  settlement_reference: string | null;
  settlement_status: SettlementStatus | null;
  settlement_instructions: Record<string, string> | null;
  proof_upload_key: string | null;
  proof_submitted_at: Date | null;
  funding_deadline_at: Date;
  execution_deadline_at: Date | null;
  funded_at: Date | null;
  completed_at: Date | null;
  created_at: Date;
  updated_at: Date;
}

export const ORDER_COLUMNS = `id, workspace_id, account_id, client_ref, status, funding, from_currency, to_currency,
  from_amount_minor::text AS from_amount_minor, to_amount_minor::text AS to_amount_minor, rate, beneficiary_id, delivery_rail,
  hold_transfer_id, failure_reason, uetr, settlement_id, settlement_method, settlement_reference, settlement_status,
  settlement_instructions, proof_upload_key, proof_submitted_at, funding_deadline_at, execution_deadline_at, funded_at,
  completed_at, created_at, updated_at`;

export interface NewOrder {
  id: string;
  workspaceId: string;
  accountId: string;
  clientRef: string | null;
  status: OrderStatus;
  funding: 'balance' | 'settlement';
  fromCurrency: string;
  toCurrency: string;
  fromAmountMinor: bigint;
  toAmountMinor: bigint;
  rate: string;
  beneficiaryId: string | null;
  deliveryRail: string | null;
  holdTransferId: string | null;
  settlement: { id: string; method: 'bank_transfer' | 'crypto'; reference: string; instructions: Record<string, string> } | null;
  fundingWindowMs: number;
  /** Set for an order funded at creation (from the balance). */
  executionWindowMs: number | null;
}

export async function insertOrder(sql: Sql, o: NewOrder): Promise<OrderRow> {
  return one<OrderRow>(
    sql,
    `INSERT INTO orders (id, workspace_id, account_id, client_ref, status, funding, from_currency, to_currency, from_amount_minor,
                         to_amount_minor, rate, beneficiary_id, delivery_rail, hold_transfer_id, settlement_id, settlement_method,
                         settlement_reference, settlement_status, settlement_instructions, funding_deadline_at,
                         execution_deadline_at, funded_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9::numeric, $10::numeric, $11, $12, $13, $14, $15, $16, $17,
             CASE WHEN $15::uuid IS NULL THEN NULL ELSE 'pending' END, $18::jsonb,
             now() + make_interval(secs => $19::double precision / 1000),
             CASE WHEN $20::bigint IS NULL THEN NULL ELSE now() + make_interval(secs => $20::double precision / 1000) END,
             CASE WHEN $20::bigint IS NULL THEN NULL ELSE now() END)
     RETURNING ${ORDER_COLUMNS}`,
    [
      o.id, o.workspaceId, o.accountId, o.clientRef, o.status, o.funding, o.fromCurrency, o.toCurrency, o.fromAmountMinor.toString(),
      o.toAmountMinor.toString(), o.rate, o.beneficiaryId, o.deliveryRail, o.holdTransferId, o.settlement?.id ?? null,
      o.settlement?.method ?? null, o.settlement?.reference ?? null, o.settlement ? JSON.stringify(o.settlement.instructions) : null,
      o.fundingWindowMs, o.executionWindowMs,
    ],
  );
}

export async function findOrder(sql: Sql, workspaceId: string, id: string): Promise<OrderRow | undefined> {
  return maybeOne<OrderRow>(sql, `SELECT ${ORDER_COLUMNS} FROM orders WHERE workspace_id = $1 AND id = $2`, [workspaceId, id]);
}

export async function findOrderById(sql: Sql, id: string): Promise<OrderRow | undefined> {
  return maybeOne<OrderRow>(sql, `SELECT ${ORDER_COLUMNS} FROM orders WHERE id = $1`, [id]);
}

export interface MoveChange {
  failureReason?: string | null;
  funded?: { executionWindowMs: number };
  completed?: { toAmountMinor: bigint; rate: string; uetr: string | null };
  settlementStatus?: SettlementStatus | null;
}

/** The compare-and-set of every move: only from the status the caller read. */
export async function moveStatus(sql: Sql, id: string, from: OrderStatus, to: OrderStatus, change: MoveChange = {}): Promise<OrderRow | undefined> {
  return maybeOne<OrderRow>(
    sql,
    `UPDATE orders SET status = $3, updated_at = now(),
            failure_reason = COALESCE($4, failure_reason),
            funded_at = CASE WHEN $5::bigint IS NULL THEN funded_at ELSE now() END,
            execution_deadline_at = CASE WHEN $5::bigint IS NULL THEN execution_deadline_at
                                         ELSE now() + make_interval(secs => $5::double precision / 1000) END,
            funding_deadline_at = CASE WHEN $6::boolean THEN LEAST(funding_deadline_at, now()) ELSE funding_deadline_at END,
            completed_at = CASE WHEN $7::numeric IS NULL THEN completed_at ELSE now() END,
            to_amount_minor = COALESCE($7::numeric, to_amount_minor),
            rate = COALESCE($8, rate),
            uetr = COALESCE($9, uetr),
            settlement_status = COALESCE($10, settlement_status)
      WHERE id = $1 AND status = $2
      RETURNING ${ORDER_COLUMNS}`,
    [
      id, from, to, change.failureReason ?? null, change.funded?.executionWindowMs ?? null, to === 'expired',
      change.completed?.toAmountMinor.toString() ?? null, change.completed?.rate ?? null, change.completed?.uetr ?? null,
      change.settlementStatus ?? null,
    ],
  );
}

/** The hold of an order funded after its creation, in the transaction of the move that funded it. */
export async function setHoldTransfer(sql: Sql, id: string, holdTransferId: string): Promise<void> {
  await sql.query('UPDATE orders SET hold_transfer_id = $2 WHERE id = $1', [id, holdTransferId]);
}

/** A settlement that arrives after its order expired or was cancelled: received once (compare-and-set). */
export async function receiveLateSettlement(sql: Sql, id: string): Promise<OrderRow | undefined> {
  return maybeOne<OrderRow>(
    sql,
    `UPDATE orders SET settlement_status = 'received', updated_at = now()
      WHERE id = $1 AND status IN ('expired', 'cancelled') AND settlement_status IN ('expired', 'cancelled')
      RETURNING ${ORDER_COLUMNS}`,
    [id],
  );
}

/** Registers a proof of payment on an order still awaiting funds. */
export async function setProof(sql: Sql, id: string, uploadKey: string): Promise<OrderRow | undefined> {
  return maybeOne<OrderRow>(
    sql,
    `UPDATE orders SET proof_upload_key = $2, proof_submitted_at = now(), settlement_status = 'proof_submitted', updated_at = now()
      WHERE id = $1 AND status = 'awaiting_funds' AND settlement_status IN ('pending', 'proof_submitted')
      RETURNING ${ORDER_COLUMNS}`,
    [id, uploadKey],
  );
}

/**
 * Serialises orders of one (workspace, clientRef) across transactions, so the duplicate check and the
 * insert act as one; then answers whether an order already has that clientRef.
 */
export async function lockAndFindClientRef(sql: Sql, workspaceId: string, clientRef: string): Promise<boolean> {
  await sql.query('SELECT pg_advisory_xact_lock($1::bigint)', [advisoryKey(`order-client-ref:${workspaceId}:${clientRef}`)]);
  const row = await maybeOne<{ id: string }>(sql, 'SELECT id FROM orders WHERE workspace_id = $1 AND client_ref = $2', [workspaceId, clientRef]);
  return row !== undefined;
}

export interface OrderFilters extends PageRequest {
  status?: string | undefined;
  clientRef?: string | undefined;
  /** Part of the client reference (case-insensitive), or the id. */
  search?: string | undefined;
}

/** Orders newest first: a workspace's roll-up, or a sub-account's. */
export function listOrders<Item>(
  sql: Sql,
  scope: { workspaceId?: string | undefined; subAccountId?: string | undefined },
  f: OrderFilters,
  map: (row: OrderRow) => Item,
) {
  const { where, params, add } = listFilters();
  if (scope.workspaceId) add('workspace_id = ?', scope.workspaceId);
  if (scope.subAccountId) add('account_id = ?', scope.subAccountId);
  if (f.status) add('status = ?', f.status);
  if (f.clientRef) add('client_ref = ?', f.clientRef);
  if (f.search) add('(client_ref ILIKE ? OR id::text = ?)', `%${f.search.replace(/[\\%_]/g, (c) => `\\${c}`)}%`, f.search.toLowerCase());
  return paginate(sql, f, { object: 'order.list', from: `SELECT ${ORDER_COLUMNS} FROM orders`, where, params, map });
}
