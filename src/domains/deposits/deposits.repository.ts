import type { Sql } from '../../platform/db/db.js';
import { maybeOne, one } from '../../platform/db/db.js';
import { listFilters, paginate, type PageRequest } from '../../platform/db/pagination.js';
import type { DepositStatus } from './deposits.transitions.js';

export interface DepositRow {
  id: string;
  workspace_id: string;
  account_id: string;
  virtual_account_id: string | null;
  client_ref: string;
  rail: string;
  currency: string;
  status: DepositStatus;
  amount_minor: string;
  fee_minor: string;
  credit_transfer_id: string | null;
  fee_transfer_id: string | null;
  credited_at: Date | null;
  credit_reversed_at: Date | null;
  failure_reason: string | null;
  created_at: Date;
  updated_at: Date;
  completed_at: Date | null;
  chain_details: ChainDetails | null;
}

/** Where an on-chain deposit came from. */
export interface ChainDetails {
  chain: string;
  txHash: string;
  fromAddress: string;
  blockNumber: string;
}

export const DEPOSIT_COLUMNS = `id, workspace_id, account_id, virtual_account_id, client_ref, rail, currency, status,
  amount_minor::text AS amount_minor, fee_minor::text AS fee_minor, credit_transfer_id, fee_transfer_id, credited_at, credit_reversed_at, failure_reason,
  created_at, updated_at, completed_at, chain_details`;

export async function insertDeposit(
  sql: Sql,
  d: { id: string; workspaceId: string; accountId: string; virtualAccountId: string | null; clientRef: string; rail: string; currency: string; amountMinor: bigint; feeMinor: bigint; chainDetails?: ChainDetails | undefined },
): Promise<DepositRow> {
  return one(
    sql,
    `INSERT INTO deposits (id, workspace_id, account_id, virtual_account_id, client_ref, rail, currency, status, amount_minor, fee_minor, chain_details)
     VALUES ($1, $2, $3, $4, $5, $6, $7, 'pending', $8, $9, $10::jsonb) RETURNING ${DEPOSIT_COLUMNS}`,
    [d.id, d.workspaceId, d.accountId, d.virtualAccountId, d.clientRef, d.rail, d.currency, d.amountMinor.toString(), d.feeMinor.toString(), d.chainDetails ? JSON.stringify(d.chainDetails) : null],
  );
}

/** One deposit of a workspace (with `accountId`, of that sub-account only); with `lock`, held until the transaction ends. */
export async function findDeposit(sql: Sql, workspaceId: string, id: string, options: { accountId?: string | undefined; lock?: boolean } = {}): Promise<DepositRow | undefined> {
  return maybeOne(
    sql,
    `SELECT ${DEPOSIT_COLUMNS} FROM deposits WHERE workspace_id = $1 AND id = $2 AND ($3::uuid IS NULL OR account_id = $3::uuid)${options.lock ? ' FOR UPDATE' : ''}`,
    [workspaceId, id, options.accountId ?? null],
  );
}

/** Records the pending transfers of a new deposit. */
export async function setTransfers(sql: Sql, id: string, creditTransferId: string | null, feeTransferId: string | null): Promise<DepositRow> {
  return one(sql, `UPDATE deposits SET credit_transfer_id = $2, fee_transfer_id = $3 WHERE id = $1 RETURNING ${DEPOSIT_COLUMNS}`, [id, creditTransferId, feeTransferId]);
}

export async function findDepositById(sql: Sql, id: string, lock = false): Promise<DepositRow | undefined> {
  return maybeOne(sql, `SELECT ${DEPOSIT_COLUMNS} FROM deposits WHERE id = $1${lock ? ' FOR UPDATE' : ''}`, [id]);
}

/** Compare-and-set of the status, with what the move changes about the credit. */
export async function moveStatus(
  sql: Sql,
  id: string,
  from: DepositStatus,
  to: DepositStatus,
  change: { credited?: boolean; creditReversed?: boolean; failureReason?: string | null },
): Promise<DepositRow | undefined> {
  return maybeOne(
    sql,
    `UPDATE deposits SET status = $3, updated_at = now(),
            credited_at = CASE WHEN $4 THEN now() ELSE credited_at END,
            credit_reversed_at = CASE WHEN $5 THEN now() ELSE credit_reversed_at END,
            completed_at = CASE WHEN $3 = 'completed' THEN COALESCE(completed_at, now()) ELSE completed_at END,
            failure_reason = COALESCE($6, failure_reason)
      WHERE id = $1 AND status = $2 RETURNING ${DEPOSIT_COLUMNS}`,
    [id, from, to, change.credited ?? false, change.creditReversed ?? false, change.failureReason ?? null],
  );
}

export interface DepositFilters extends PageRequest {
  status?: string | undefined;
  virtualAccountId?: string | undefined;
}

/** Deposits newest first: a workspace's (or a sub-account's), or without a workspace every workspace's. */
export function listDeposits<Item>(
  sql: Sql,
  scope: { workspaceId?: string | undefined; subAccountId?: string | undefined },
  f: DepositFilters,
  map: (row: DepositRow) => Item,
) {
  const { where, params, add } = listFilters();
  if (scope.workspaceId) add('workspace_id = ?::uuid', scope.workspaceId);
  if (scope.subAccountId) add('account_id = ?::uuid', scope.subAccountId);
  if (f.status) add('status = ?', f.status);
  if (f.virtualAccountId) add('virtual_account_id = ?::uuid', f.virtualAccountId);
  return paginate(sql, f, { object: 'deposit.list', from: `SELECT ${DEPOSIT_COLUMNS} FROM deposits`, where, params, map });
}
