import type { Sql } from '../../db/db.js';
import { notFound } from '../../lib/errors.js';
import { listFilters, paginate, type PageRequest } from '../../db/pagination.js';
import { formatAmount } from '../../lib/money.js';
import * as repo from './payouts.repository.js';
import type { PayoutRow } from './payouts.repository.js';

/** The payout as read back by its owner. */
export function payoutData(row: PayoutRow) {
  return {
    id: row.id,
    clientRef: row.client_ref,
    amount: formatAmount(BigInt(row.amount_minor), row.currency),
    currency: row.currency,
    status: row.status,
    route: row.route,
    fee: formatAmount(BigInt(row.fee_minor), row.funding_currency),
    feeCurrency: row.funding_currency,
    beneficiaryId: row.beneficiary_id,
    ...(row.account_id !== row.workspace_id ? { accountId: row.account_id } : {}),
    ...(row.quote_id ? { quoteId: row.quote_id } : {}),
    ...(row.purpose ? { purpose: row.purpose } : {}),
    ...(row.reference ? { reference: row.reference } : {}),
    ...(row.metadata ? { metadata: row.metadata } : {}),
    failureReason: row.failure_reason,
    createdAt: row.created_at.toISOString(),
    updatedAt: row.updated_at.toISOString(),
    completedAt: row.completed_at ? row.completed_at.toISOString() : null,
  };
}

export async function getPayout(sql: Sql, workspaceId: string, id: string): Promise<PayoutRow> {
  const row = await repo.findPayout(sql, workspaceId, id);
  if (!row) throw notFound('Payout');
  return row;
}

export interface PayoutFilters extends PageRequest {
  clientRef?: string | undefined;
  status?: string | undefined;
  createdFrom?: string | undefined;
  createdTo?: string | undefined;
  /** The provider settling it (`manual`: the operator's queue). */
  provider?: string | undefined;
}

/**
 * Payouts newest first. Without Service-Account-Id, the workspace's whole roll-up; with it, only
 * that sub-account's; without a workspace (the operator), every workspace's.
 */
export function listPayouts(sql: Sql, scope: { workspaceId?: string | undefined; subAccountId?: string | undefined }, f: PayoutFilters) {
  const { where, params, add } = listFilters();
  if (scope.workspaceId) add('workspace_id = ?', scope.workspaceId);
  if (f.provider) add('provider = ?', f.provider);
  if (scope.subAccountId) add('account_id = ?', scope.subAccountId);
  if (f.clientRef) add('client_ref = ?', f.clientRef);
  if (f.status) add('status = ?', f.status);
  if (f.createdFrom) add('created_at >= ?::timestamptz', f.createdFrom);
  if (f.createdTo) add('created_at < ?::timestamptz', f.createdTo);
  return paginate(sql, f, {
    object: 'payout.list',
    from: `SELECT ${repo.PAYOUT_COLUMNS} FROM payouts`,
    where,
    params,
    map: (row: PayoutRow) => (scope.workspaceId ? payoutData(row) : { ...payoutData(row), workspaceId: row.workspace_id }),
  });
}
