import type { Sql } from '../../platform/db/db.js';
import { maybeOne, one } from '../../platform/db/db.js';
import { listFilters, paginate, type PageRequest, type PageResult } from '../../platform/db/pagination.js';
import type { AccountScope } from '../accounts/caller.js';

/**
 * All SQL of the beneficiaries module. A beneficiary's personal fields (`personal_data`) and an
 * account's details (`data`) hold sealed JSON (lib/crypto-box); the service seals and opens them.
 */

export type BeneficiaryStatus = 'active' | 'inactive' | 'suspended';

export interface BeneficiaryRow {
  id: string;
  workspace_id: string;
  account_id: string | null;
  type: 'individual' | 'business';
  status: BeneficiaryStatus;
  name: string;
  country: string;
  personal_data: string;
  created_at: Date;
  updated_at: Date;
}

export interface BeneficiaryAccountRow {
  id: string;
  beneficiary_id: string;
  position: number;
  type: string;
  currency: string;
  country: string | null;
  /** Sealed JSON of the account details. */
  data: string;
}

/** The columns of a beneficiary row, optionally qualified by a table alias. */
const beneficiaryColumns = (alias = ''): string => {
  const q = alias ? `${alias}.` : '';
  return `${q}id, ${q}workspace_id, ${q}account_id, ${q}type, ${q}status, ${q}name, ${q}country, ${q}personal_data, ${q}created_at, ${q}updated_at`;
};
const BENEFICIARY_COLUMNS = beneficiaryColumns();
const ACCOUNT_COLUMNS = 'id, beneficiary_id, position, type, currency, country, data';

/** Rows visible to a caller: the workspace's and its sub-accounts' (roll-up), or one sub-account's only. */
const SCOPE = '(workspace_id = $1 AND ($2::uuid IS NULL OR account_id = $2::uuid))';

export interface BeneficiaryColumns {
  type: 'individual' | 'business';
  status: BeneficiaryStatus;
  name: string;
  country: string;
  /** Sealed JSON of the optional personal fields. */
  personalData: string;
}

export async function insertBeneficiary(sql: Sql, b: BeneficiaryColumns & { id: string; scope: AccountScope }): Promise<BeneficiaryRow> {
  return one<BeneficiaryRow>(
    sql,
    `INSERT INTO beneficiaries (id, workspace_id, account_id, type, status, name, country, personal_data)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8)
     RETURNING ${BENEFICIARY_COLUMNS}`,
    [b.id, b.scope.workspaceId, b.scope.subAccountId ?? null, b.type, b.status, b.name, b.country, b.personalData],
  );
}

export async function updateBeneficiary(sql: Sql, id: string, b: BeneficiaryColumns): Promise<BeneficiaryRow> {
  return one<BeneficiaryRow>(
    sql,
    `UPDATE beneficiaries SET type = $2, status = $3, name = $4, country = $5, personal_data = $6, updated_at = now()
      WHERE id = $1 RETURNING ${BENEFICIARY_COLUMNS}`,
    [id, b.type, b.status, b.name, b.country, b.personalData],
  );
}

export async function findBeneficiary(sql: Sql, scope: AccountScope, id: string, options: { lock?: boolean } = {}): Promise<BeneficiaryRow | undefined> {
  return maybeOne<BeneficiaryRow>(
    sql,
    `SELECT ${BENEFICIARY_COLUMNS} FROM beneficiaries WHERE ${SCOPE} AND id = $3${options.lock ? ' FOR UPDATE' : ''}`,
    [scope.workspaceId, scope.subAccountId ?? null, id],
  );
}

/**
 * The active beneficiaries of exactly this account (the master's own, or one sub-account's) whose
 * name, trimmed, with runs of spaces as one and in lower case, is `normalisedName`; the oldest first.
 */
export async function activeBeneficiariesNamed(sql: Sql, scope: AccountScope, normalisedName: string): Promise<BeneficiaryRow[]> {
  return sql.query<BeneficiaryRow>(
    `SELECT ${BENEFICIARY_COLUMNS} FROM beneficiaries
      WHERE workspace_id = $1 AND account_id IS NOT DISTINCT FROM $2::uuid AND status = 'active'
        AND lower(regexp_replace(btrim(name), '\\s+', ' ', 'g')) = $3
      ORDER BY created_at, id LIMIT 20`,
    [scope.workspaceId, scope.subAccountId ?? null, normalisedName],
  );
}

/** Any workspace's beneficiary (operator API). */
export async function findBeneficiaryById(sql: Sql, id: string): Promise<BeneficiaryRow | undefined> {
  return maybeOne<BeneficiaryRow>(sql, `SELECT ${BENEFICIARY_COLUMNS} FROM beneficiaries WHERE id = $1 FOR UPDATE`, [id]);
}

export async function setBeneficiaryStatus(sql: Sql, id: string, status: BeneficiaryStatus): Promise<BeneficiaryRow> {
  return one<BeneficiaryRow>(sql, `UPDATE beneficiaries SET status = $2, updated_at = now() WHERE id = $1 RETURNING ${BENEFICIARY_COLUMNS}`, [id, status]);
}

export async function pageBeneficiaries(
  sql: Sql,
  scope: AccountScope,
  page: PageRequest,
  filter: { status?: BeneficiaryStatus | undefined; nameContains?: string | undefined },
): Promise<PageResult<BeneficiaryRow>> {
  const { where, params, add } = listFilters();
  add('workspace_id = ?', scope.workspaceId);
  if (scope.subAccountId) add('account_id = ?::uuid', scope.subAccountId);
  if (filter.status) add('status = ?', filter.status);
  // The name is kept in clear (the rest is sealed): found by any part of it, case-insensitive.
  if (filter.nameContains) add("(name ILIKE ? OR id::text = ?)", `%${filter.nameContains.replace(/[\\%_]/g, (c) => `\\${c}`)}%`, filter.nameContains.toLowerCase());
  return paginate(sql, page, {
    object: 'beneficiary.list',
    from: `SELECT ${BENEFICIARY_COLUMNS} FROM beneficiaries`,
    where,
    params,
    map: (row: BeneficiaryRow) => row,
  });
}

// ---------------------------------------------------------------------------------------------
// Accounts

export async function insertAccount(
  sql: Sql,
  a: { id: string; beneficiaryId: string; workspaceId: string; position: number; type: string; currency: string; country: string | null; data: string },
): Promise<BeneficiaryAccountRow> {
  return one<BeneficiaryAccountRow>(
    sql,
    `INSERT INTO beneficiary_accounts (id, beneficiary_id, workspace_id, position, type, currency, country, data)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8) RETURNING ${ACCOUNT_COLUMNS}`,
    [a.id, a.beneficiaryId, a.workspaceId, a.position, a.type, a.currency, a.country, a.data],
  );
}

export async function updateAccount(
  sql: Sql,
  a: { id: string; position: number; type: string; currency: string; country: string | null; data: string },
): Promise<BeneficiaryAccountRow> {
  return one<BeneficiaryAccountRow>(
    sql,
    `UPDATE beneficiary_accounts SET position = $2, type = $3, currency = $4, country = $5, data = $6, updated_at = now()
      WHERE id = $1 AND removed_at IS NULL RETURNING ${ACCOUNT_COLUMNS}`,
    [a.id, a.position, a.type, a.currency, a.country, a.data],
  );
}

/** Marks removed every current account of the beneficiary not in `keepIds`. */
export async function removeAccountsExcept(sql: Sql, beneficiaryId: string, keepIds: readonly string[]): Promise<void> {
  await sql.query(
    `UPDATE beneficiary_accounts SET removed_at = now(), updated_at = now()
      WHERE beneficiary_id = $1 AND removed_at IS NULL AND NOT (id = ANY($2::uuid[]))`,
    [beneficiaryId, keepIds],
  );
}

/**
 * Beneficiaries and their live accounts in one round trip, each looked up in its own scope; the
 * answer is in request order, undefined where none is visible (the payout path reads this).
 */
export async function findBeneficiariesWithAccounts(
  sql: Sql,
  keys: readonly (AccountScope & { id: string })[],
  options: { lock?: boolean } = {},
): Promise<({ row: BeneficiaryRow; accounts: BeneficiaryAccountRow[] } | undefined)[]> {
  if (keys.length === 0) return [];
  const rows = await sql.query<BeneficiaryRow & { ord: string; accounts_json: BeneficiaryAccountRow[] }>(
    `SELECT k.ord::text AS ord, ${beneficiaryColumns('b')},
            COALESCE((SELECT json_agg(json_build_object('id', a.id, 'beneficiary_id', a.beneficiary_id, 'position', a.position, 'type', a.type,
                                                        'currency', a.currency, 'country', a.country, 'data', a.data) ORDER BY a.position)
                        FROM beneficiary_accounts a WHERE a.beneficiary_id = b.id AND a.removed_at IS NULL), '[]') AS accounts_json
       FROM unnest($1::uuid[], $2::uuid[], $3::uuid[]) WITH ORDINALITY AS k(workspace_id, sub_account_id, id, ord)
       JOIN beneficiaries b ON b.id = k.id AND b.workspace_id = k.workspace_id AND (k.sub_account_id IS NULL OR b.account_id = k.sub_account_id)
       ${options.lock ? 'FOR SHARE OF b' : ''}`,
    [keys.map((k) => k.workspaceId), keys.map((k) => k.subAccountId ?? null), keys.map((k) => k.id)],
  );
  const byOrd = new Map(rows.map(({ ord, accounts_json: accounts, ...row }) => [Number(ord), { row: row as BeneficiaryRow, accounts }]));
  return keys.map((_, i) => byOrd.get(i + 1));
}

/** The current accounts of each beneficiary, in position order. */
export async function accountsOf(sql: Sql, beneficiaryIds: readonly string[]): Promise<BeneficiaryAccountRow[]> {
  if (beneficiaryIds.length === 0) return [];
  return sql.query<BeneficiaryAccountRow>(
    `SELECT ${ACCOUNT_COLUMNS} FROM beneficiary_accounts
      WHERE beneficiary_id = ANY($1::uuid[]) AND removed_at IS NULL ORDER BY beneficiary_id, position`,
    [beneficiaryIds],
  );
}

/** A current account by its id, with its beneficiary's id, within the caller's scope. */
export async function findAccount(sql: Sql, scope: AccountScope, accountId: string): Promise<BeneficiaryAccountRow | undefined> {
  return maybeOne<BeneficiaryAccountRow>(
    sql,
    `SELECT a.id, a.beneficiary_id, a.position, a.type, a.currency, a.country, a.data
       FROM beneficiary_accounts a JOIN beneficiaries b ON b.id = a.beneficiary_id
      WHERE b.workspace_id = $1 AND ($2::uuid IS NULL OR b.account_id = $2::uuid) AND a.id = $3 AND a.removed_at IS NULL`,
    [scope.workspaceId, scope.subAccountId ?? null, accountId],
  );
}

/** Active beneficiaries of every workspace after `afterId` in id order, at most `limit` (the re-screening after a new list version). */
export async function activeBeneficiariesAfter(sql: Sql, afterId: string | null, limit: number): Promise<BeneficiaryRow[]> {
  return sql.query<BeneficiaryRow>(
    `SELECT ${BENEFICIARY_COLUMNS} FROM beneficiaries WHERE status = 'active' AND ($1::uuid IS NULL OR id > $1::uuid) ORDER BY id LIMIT $2`,
    [afterId, limit],
  );
}
