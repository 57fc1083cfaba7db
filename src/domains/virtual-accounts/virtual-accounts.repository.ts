import type { Sql, Tx } from '../../platform/db/db.js';
import { advisoryKey, maybeOne, one } from '../../platform/db/db.js';
import { listFilters, paginate, type PageRequest } from '../../platform/db/pagination.js';
import type { VirtualAccountStatus } from './virtual-accounts.transitions.js';

/** All SQL of the virtual accounts module. `bank_details` holds sealed JSON (lib/crypto-box). */

export interface VirtualAccountRow {
  id: string;
  workspace_id: string;
  account_id: string;
  currency: string;
  status: VirtualAccountStatus;
  issuer: string;
  bank_details: string | null;
  failure_reason: string | null;
  deactivated_at: Date | null;
  created_at: Date;
  updated_at: Date;
}

export interface RefusalRow {
  code: string;
  detail: string;
  refused_at: Date;
}

export const VIRTUAL_ACCOUNT_COLUMNS =
  'id, workspace_id, account_id, currency, status, issuer, bank_details, failure_reason, deactivated_at, created_at, updated_at';

/** Serialises requests of one owner and currency until the transaction ends. */
export async function lockOwnerCurrency(tx: Tx, accountId: string, currency: string): Promise<void> {
  await tx.query('SELECT pg_advisory_xact_lock($1::bigint)', [advisoryKey(`virtual_account:${accountId}:${currency}`)]);
}

export async function findForOwner(sql: Sql, accountId: string, currency: string): Promise<VirtualAccountRow | undefined> {
  return maybeOne(sql, `SELECT ${VIRTUAL_ACCOUNT_COLUMNS} FROM virtual_accounts WHERE account_id = $1 AND currency = $2`, [accountId, currency]);
}

/** One account of a workspace (any of its owners); with `lock`, held until the transaction ends. */
export async function findInWorkspace(sql: Sql, workspaceId: string, id: string, lock = false): Promise<VirtualAccountRow | undefined> {
  return maybeOne(sql, `SELECT ${VIRTUAL_ACCOUNT_COLUMNS} FROM virtual_accounts WHERE workspace_id = $1 AND id = $2${lock ? ' FOR UPDATE' : ''}`, [workspaceId, id]);
}

export async function findById(sql: Sql, id: string, lock = false): Promise<VirtualAccountRow | undefined> {
  return maybeOne(sql, `SELECT ${VIRTUAL_ACCOUNT_COLUMNS} FROM virtual_accounts WHERE id = $1${lock ? ' FOR UPDATE' : ''}`, [id]);
}

export async function insertVirtualAccount(
  sql: Sql,
  v: { id: string; workspaceId: string; accountId: string; currency: string; status: VirtualAccountStatus; issuer: string; bankDetails: string | null },
): Promise<VirtualAccountRow> {
  return one(
    sql,
    `INSERT INTO virtual_accounts (id, workspace_id, account_id, currency, status, issuer, bank_details)
     VALUES ($1, $2, $3, $4, $5, $6, $7) RETURNING ${VIRTUAL_ACCOUNT_COLUMNS}`,
    [v.id, v.workspaceId, v.accountId, v.currency, v.status, v.issuer, v.bankDetails],
  );
}

/** Compare-and-set of the status; undefined when the account was no longer in `from` (or is deactivated). */
export async function moveStatus(
  sql: Sql,
  id: string,
  from: VirtualAccountStatus,
  to: VirtualAccountStatus,
  change: { bankDetails?: string | null; failureReason?: string | null },
): Promise<VirtualAccountRow | undefined> {
  return maybeOne(
    sql,
    `UPDATE virtual_accounts SET status = $3, bank_details = COALESCE($4, bank_details), failure_reason = $5, updated_at = now()
      WHERE id = $1 AND status = $2 AND deactivated_at IS NULL RETURNING ${VIRTUAL_ACCOUNT_COLUMNS}`,
    [id, from, to, change.bankDetails ?? null, change.failureReason ?? null],
  );
}

export async function deactivate(sql: Sql, id: string): Promise<VirtualAccountRow | undefined> {
  return maybeOne(
    sql,
    `UPDATE virtual_accounts SET deactivated_at = now(), updated_at = now()
      WHERE id = $1 AND deactivated_at IS NULL AND status IN ('pending', 'active') RETURNING ${VIRTUAL_ACCOUNT_COLUMNS}`,
    [id],
  );
}

/** The issuer's last refusal for an owner and currency, if it is younger than `memoMs`. */
export async function recentRefusal(sql: Sql, accountId: string, currency: string, memoMs: number): Promise<RefusalRow | undefined> {
  return maybeOne(
    sql,
    `SELECT code, detail, refused_at FROM virtual_account_refusals
      WHERE account_id = $1 AND currency = $2 AND refused_at > now() - make_interval(secs => $3::double precision / 1000)`,
    [accountId, currency, memoMs],
  );
}

export async function recordRefusal(sql: Sql, r: { accountId: string; currency: string; workspaceId: string; code: string; detail: string }): Promise<void> {
  await sql.query(
    `INSERT INTO virtual_account_refusals (account_id, currency, workspace_id, code, detail) VALUES ($1, $2, $3, $4, $5)
     ON CONFLICT (account_id, currency) DO UPDATE SET code = EXCLUDED.code, detail = EXCLUDED.detail, refused_at = now()`,
    [r.accountId, r.currency, r.workspaceId, r.code, r.detail],
  );
}

export async function clearRefusal(sql: Sql, accountId: string, currency: string): Promise<void> {
  await sql.query('DELETE FROM virtual_account_refusals WHERE account_id = $1 AND currency = $2', [accountId, currency]);
}

/** The owner's usable accounts for the list: active and not deactivated. */
/** An owner's active accounts (not deactivated), newest first, optionally in one currency. */
export function listActiveOfOwner<Item>(
  sql: Sql,
  owner: { workspaceId: string; accountId: string },
  page: PageRequest & { currency?: string | undefined },
  map: (row: VirtualAccountRow) => Item,
) {
  const { where, params, add } = listFilters();
  add('workspace_id = ?', owner.workspaceId);
  add('account_id = ?', owner.accountId);
  add("status = 'active'");
  add('deactivated_at IS NULL');
  if (page.currency) add('currency = ?', page.currency);
  return paginate(sql, page, { object: 'virtual_account.list', from: `SELECT ${VIRTUAL_ACCOUNT_COLUMNS} FROM virtual_accounts`, where, params, map });
}

/** Every workspace's accounts (not deactivated), newest first, optionally of one workspace or status. */
export function listAny<Item>(
  sql: Sql,
  f: PageRequest & { status?: VirtualAccountStatus | undefined; workspaceId?: string | undefined },
  map: (row: VirtualAccountRow) => Item,
) {
  const { where, params, add } = listFilters();
  if (f.status) add('status = ?', f.status);
  if (f.workspaceId) add('workspace_id = ?', f.workspaceId);
  add('deactivated_at IS NULL');
  return paginate(sql, f, { object: 'virtual_account.list', from: `SELECT ${VIRTUAL_ACCOUNT_COLUMNS} FROM virtual_accounts`, where, params, map });
}

/** An active, not deactivated account of the owner in a currency (where deposits land). */
export async function findActiveForOwner(sql: Sql, accountId: string, currency: string): Promise<VirtualAccountRow | undefined> {
  return maybeOne(
    sql,
    `SELECT ${VIRTUAL_ACCOUNT_COLUMNS} FROM virtual_accounts WHERE account_id = $1 AND currency = $2 AND status = 'active' AND deactivated_at IS NULL`,
    [accountId, currency],
  );
}

/** The active, not deactivated accounts in a currency (an inbound bank credit is matched to one by its IBAN). */
export async function listActiveInCurrency(sql: Sql, currency: string): Promise<VirtualAccountRow[]> {
  return sql.query<VirtualAccountRow>(`SELECT ${VIRTUAL_ACCOUNT_COLUMNS} FROM virtual_accounts WHERE currency = $1 AND status = 'active' AND deactivated_at IS NULL`, [currency]);
}
