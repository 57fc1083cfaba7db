import type { Sql } from '../../db/db.js';
import { maybeOne, one } from '../../db/db.js';
import { paginate, type PageRequest } from '../../db/pagination.js';

export interface WorkspaceRow {
  id: string;
  name: string;
  country: string;
  status: string;
  enabled_currencies: string[];
  disabled_capabilities: string[];
  settings: Record<string, unknown>;
  created_at: Date;
  updated_at: Date;
}

export interface AccountRow {
  id: string;
  workspace_id: string;
  parent_account_id: string | null;
  account_type: 'master' | 'sub';
  name: string;
  country: string;
  status: string;
  client_ref: string | null;
  created_at: Date;
}

const WORKSPACE_COLUMNS = 'id, name, country, status, enabled_currencies, disabled_capabilities, settings, created_at, updated_at';
const ACCOUNT_COLUMNS = 'id, workspace_id, parent_account_id, account_type, name, country, status, client_ref, created_at';

export const workspaceColumns = WORKSPACE_COLUMNS;
export const accountColumns = ACCOUNT_COLUMNS;

export async function insertWorkspace(
  sql: Sql,
  w: { id: string; name: string; country: string; currencies: readonly string[]; settings: Record<string, unknown> },
): Promise<WorkspaceRow> {
  return one<WorkspaceRow>(
    sql,
    `INSERT INTO workspaces (id, name, country, enabled_currencies, settings) VALUES ($1, $2, $3, $4, $5)
     RETURNING ${WORKSPACE_COLUMNS}`,
    [w.id, w.name, w.country, w.currencies, JSON.stringify(w.settings)],
  );
}

export async function insertAccount(
  sql: Sql,
  a: { id: string; workspaceId: string; parentAccountId: string | null; type: 'master' | 'sub'; name: string; country: string; status: string; clientRef: string | null },
): Promise<AccountRow> {
  return one<AccountRow>(
    sql,
    `INSERT INTO accounts (id, workspace_id, parent_account_id, account_type, name, country, status, client_ref)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8) RETURNING ${ACCOUNT_COLUMNS}`,
    [a.id, a.workspaceId, a.parentAccountId, a.type, a.name, a.country, a.status, a.clientRef],
  );
}

export async function findWorkspace(sql: Sql, id: string): Promise<WorkspaceRow | undefined> {
  return maybeOne<WorkspaceRow>(sql, `SELECT ${WORKSPACE_COLUMNS} FROM workspaces WHERE id = $1`, [id]);
}

export async function findAccount(sql: Sql, workspaceId: string, id: string): Promise<AccountRow | undefined> {
  return maybeOne<AccountRow>(sql, `SELECT ${ACCOUNT_COLUMNS} FROM accounts WHERE workspace_id = $1 AND id = $2`, [workspaceId, id]);
}

export async function findAccountByClientRef(sql: Sql, workspaceId: string, clientRef: string): Promise<AccountRow | undefined> {
  return maybeOne<AccountRow>(sql, `SELECT ${ACCOUNT_COLUMNS} FROM accounts WHERE workspace_id = $1 AND client_ref = $2`, [
    workspaceId,
    clientRef,
  ]);
}

export interface WorkspaceChange {
  currencies?: string[];
  disabledCapabilities?: string[];
  settings?: Record<string, unknown>;
}

export async function updateWorkspace(sql: Sql, id: string, change: WorkspaceChange): Promise<WorkspaceRow | undefined> {
  return maybeOne<WorkspaceRow>(
    sql,
    `UPDATE workspaces SET enabled_currencies = COALESCE($2, enabled_currencies),
            disabled_capabilities = COALESCE($3, disabled_capabilities),
            settings = settings || COALESCE($4::jsonb, '{}'::jsonb), updated_at = now()
      WHERE id = $1 RETURNING ${WORKSPACE_COLUMNS}`,
    [id, change.currencies ?? null, change.disabledCapabilities ?? null, change.settings ? JSON.stringify(change.settings) : null],
  );
}

/** Locks the workspace row for a read-modify-write of its arrays. */
export async function lockWorkspace(sql: Sql, id: string): Promise<WorkspaceRow | undefined> {
  return maybeOne<WorkspaceRow>(sql, `SELECT ${WORKSPACE_COLUMNS} FROM workspaces WHERE id = $1 FOR UPDATE`, [id]);
}

/** Records a sub-account's business identity unless it has one; true when this call set it. */
export async function setAccountBusinessIdentity(sql: Sql, workspaceId: string, accountId: string, identity: Record<string, string>): Promise<boolean> {
  const rows = await sql.query(
    `UPDATE accounts SET business_identity = $3 WHERE workspace_id = $1 AND id = $2 AND account_type = 'sub' AND business_identity IS NULL RETURNING id`,
    [workspaceId, accountId, JSON.stringify(identity)],
  );
  return rows.length > 0;
}

/** Whether a sub-account has a business identity on record. */
export async function accountHasBusinessIdentity(sql: Sql, workspaceId: string, accountId: string): Promise<boolean> {
  const rows = await sql.query(`SELECT 1 FROM accounts WHERE workspace_id = $1 AND id = $2 AND business_identity IS NOT NULL`, [workspaceId, accountId]);
  return rows.length > 0;
}

/** Whether `subAccountId` is one of the workspace's sub-accounts (what Service-Account-Id may name). */
export async function ownsSubAccount(sql: Sql, workspaceId: string, subAccountId: string): Promise<boolean> {
  const row = await maybeOne(sql, `SELECT 1 FROM accounts WHERE id = $1::uuid AND workspace_id = $2::uuid AND account_type = 'sub'`, [subAccountId, workspaceId]);
  return row !== undefined;
}

/** A workspace's sub-accounts, newest first. */
export function listSubAccounts<Item>(sql: Sql, workspaceId: string, page: PageRequest, map: (row: AccountRow) => Item) {
  return paginate(sql, page, {
    object: 'account.list',
    from: `SELECT ${ACCOUNT_COLUMNS} FROM accounts`,
    where: ['workspace_id = $1', "account_type = 'sub'"],
    params: [workspaceId],
    map,
  });
}

/** Every workspace, newest first. */
export function listWorkspaces<Item>(sql: Sql, page: PageRequest, map: (row: WorkspaceRow) => Item) {
  return paginate(sql, page, { object: 'workspace.list', from: `SELECT ${WORKSPACE_COLUMNS} FROM workspaces`, where: [], params: [], map });
}
