import type { Sql } from '../../platform/db/db.js';
import { notFound } from '../../platform/lib/errors.js';
import { formatAmount } from '../../platform/lib/money.js';
import * as repo from './orders.repository.js';
import type { OrderFilters, OrderRow } from './orders.repository.js';
import { settlementView } from './orders.settlement.js';

/**
 * The order as read back and as carried in every order.* event (spec §Order: exactly these fields),
 * plus `accountId` on reads when a sub-account owns it.
 */
export function orderEventData(row: OrderRow) {
  return {
    id: row.id,
    clientRef: row.client_ref,
    status: row.status,
    fromCurrency: row.from_currency,
    toCurrency: row.to_currency,
    fromAmount: formatAmount(BigInt(row.from_amount_minor), row.from_currency),
    toAmount: formatAmount(BigInt(row.to_amount_minor), row.to_currency),
    rate: row.rate,
    failureReason: row.failure_reason,
    uetr: row.uetr,
    settlement: settlementView(row),
    fundingDeadlineAt: row.funding_deadline_at.toISOString(),
    executionDeadlineAt: row.execution_deadline_at ? row.execution_deadline_at.toISOString() : null,
    fundedAt: row.funded_at ? row.funded_at.toISOString() : null,
    completedAt: row.completed_at ? row.completed_at.toISOString() : null,
    createdAt: row.created_at.toISOString(),
  };
}

export function orderData(row: OrderRow) {
  return {
    ...orderEventData(row),
    funding: row.funding,
    beneficiaryId: row.beneficiary_id,
    ...(row.account_id !== row.workspace_id ? { accountId: row.account_id } : {}),
    updatedAt: row.updated_at.toISOString(),
  };
}
export type OrderView = ReturnType<typeof orderData>;

export async function getOrder(sql: Sql, workspaceId: string, id: string): Promise<OrderRow> {
  const row = await repo.findOrder(sql, workspaceId, id);
  if (!row) throw notFound('Order');
  return row;
}

/** The desk (operator console): any workspace's order. */
export async function getAnyOrder(sql: Sql, id: string): Promise<OrderRow> {
  const row = await repo.findOrderById(sql, id);
  if (!row) throw notFound('Order');
  return row;
}

export type { OrderFilters } from './orders.repository.js';

/** Orders newest first: the workspace's roll-up, or with Service-Account-Id only that sub-account's. */
export function listOrders(sql: Sql, scope: { workspaceId?: string | undefined; subAccountId?: string | undefined }, f: OrderFilters) {
  return repo.listOrders(sql, scope, f, orderData);
}
