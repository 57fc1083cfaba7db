import type { Sql } from '../../platform/db/db.js';
import { maybeOne, one } from '../../platform/db/db.js';
import { paginate, type PageRequest } from '../../platform/db/pagination.js';

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

const ACCOUNT_COLUMNS = 'id, workspace_id, parent_account_id, account_type, name, country, status, client_ref, created_at';

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

export async function findAccount(sql: Sql, workspaceId: string, id: string): Promise<AccountRow | undefined> {
  return maybeOne<AccountRow>(sql, `SELECT ${ACCOUNT_COLUMNS} FROM accounts WHERE workspace_id = $1 AND id = $2`, [workspaceId, id]);
}

export async function findAccountByClientRef(sql: Sql, workspaceId: string, clientRef: string): Promise<AccountRow | undefined> {
  return maybeOne<AccountRow>(sql, `SELECT ${ACCOUNT_COLUMNS} FROM accounts WHERE workspace_id = $1 AND client_ref = $2`, [
    workspaceId,
    clientRef,
  ]);
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
