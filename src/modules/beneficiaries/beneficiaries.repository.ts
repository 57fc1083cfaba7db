import type { Sql } from '../../db/db.js';
import { maybeOne, one } from '../../db/db.js';
import { paginate, type PageRequest, type PageResult } from '../../http/pagination.js';

/** All SQL of the beneficiaries module. */

export type BeneficiaryStatus = 'active' | 'inactive' | 'suspended';

export interface BeneficiaryRow {
  id: string;
  workspace_id: string;
  account_id: string | null;
  type: 'individual' | 'business';
  status: BeneficiaryStatus;
  name: string;
  country: string;
  address: string | null;
  address_line2: string | null;
  city: string | null;
  country_subdivision: string | null;
  date_of_birth: string | null;
  email: string | null;
  middle_name: string | null;
  notes: string | null;
  postcode: string | null;
  registration_number: string | null;
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
  data: Record<string, unknown>;
}

/** The optional columns, by their wire name. */
export const OPTIONAL_COLUMNS = {
  address: 'address',
  addressLine2: 'address_line2',
  city: 'city',
  countrySubdivision: 'country_subdivision',
  dateOfBirth: 'date_of_birth',
  email: 'email',
  middleName: 'middle_name',
  notes: 'notes',
  postcode: 'postcode',
  registrationNumber: 'registration_number',
} as const;
export type OptionalField = keyof typeof OPTIONAL_COLUMNS;

const BENEFICIARY_COLUMNS = `id, workspace_id, account_id, type, status, name, country, address, address_line2, city,
  country_subdivision, to_char(date_of_birth, 'YYYY-MM-DD') AS date_of_birth, email, middle_name, notes, postcode,
  registration_number, created_at, updated_at`;
const ACCOUNT_COLUMNS = 'id, beneficiary_id, position, type, currency, country, data';

/** Rows visible to a caller: the workspace's and its sub-accounts' (roll-up), or one sub-account's only. */
const SCOPE = '(workspace_id = $1 AND ($2::uuid IS NULL OR account_id = $2::uuid))';

export interface Scope {
  workspaceId: string;
  /** The Service-Account-Id sub-account: only its beneficiaries are visible and it owns new ones. */
  subAccountId: string | undefined;
}

export interface BeneficiaryColumns {
  type: 'individual' | 'business';
  status: BeneficiaryStatus;
  name: string;
  country: string;
  optional: Partial<Record<OptionalField, string | null>>;
}

const optionalValues = (c: BeneficiaryColumns): (string | null)[] =>
  (Object.keys(OPTIONAL_COLUMNS) as OptionalField[]).map((k) => c.optional[k] ?? null);

export async function insertBeneficiary(sql: Sql, b: BeneficiaryColumns & { id: string; scope: Scope }): Promise<BeneficiaryRow> {
  return one<BeneficiaryRow>(
    sql,
    `INSERT INTO beneficiaries (id, workspace_id, account_id, type, status, name, country, ${Object.values(OPTIONAL_COLUMNS).join(', ')})
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12::date, $13, $14, $15, $16, $17)
     RETURNING ${BENEFICIARY_COLUMNS}`,
    [b.id, b.scope.workspaceId, b.scope.subAccountId ?? null, b.type, b.status, b.name, b.country, ...optionalValues(b)],
  );
}

export async function updateBeneficiary(sql: Sql, id: string, b: BeneficiaryColumns): Promise<BeneficiaryRow> {
  const sets = Object.values(OPTIONAL_COLUMNS).map((column, i) => `${column} = $${i + 6}${column === 'date_of_birth' ? '::date' : ''}`);
  return one<BeneficiaryRow>(
    sql,
    `UPDATE beneficiaries SET type = $2, status = $3, name = $4, country = $5, ${sets.join(', ')}, updated_at = now()
      WHERE id = $1 RETURNING ${BENEFICIARY_COLUMNS}`,
    [id, b.type, b.status, b.name, b.country, ...optionalValues(b)],
  );
}

export async function findBeneficiary(sql: Sql, scope: Scope, id: string, options: { lock?: boolean } = {}): Promise<BeneficiaryRow | undefined> {
  return maybeOne<BeneficiaryRow>(
    sql,
    `SELECT ${BENEFICIARY_COLUMNS} FROM beneficiaries WHERE ${SCOPE} AND id = $3${options.lock ? ' FOR UPDATE' : ''}`,
    [scope.workspaceId, scope.subAccountId ?? null, id],
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
  scope: Scope,
  page: PageRequest,
  filter: { status?: BeneficiaryStatus | undefined },
): Promise<PageResult<BeneficiaryRow>> {
  const where = [SCOPE];
  const params: unknown[] = [scope.workspaceId, scope.subAccountId ?? null];
  if (filter.status) {
    params.push(filter.status);
    where.push(`status = $${params.length}`);
  }
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
  a: { id: string; beneficiaryId: string; workspaceId: string; position: number; type: string; currency: string; country: string | null; data: Record<string, unknown> },
): Promise<BeneficiaryAccountRow> {
  return one<BeneficiaryAccountRow>(
    sql,
    `INSERT INTO beneficiary_accounts (id, beneficiary_id, workspace_id, position, type, currency, country, data)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8::jsonb) RETURNING ${ACCOUNT_COLUMNS}`,
    [a.id, a.beneficiaryId, a.workspaceId, a.position, a.type, a.currency, a.country, JSON.stringify(a.data)],
  );
}

export async function updateAccount(
  sql: Sql,
  a: { id: string; position: number; type: string; currency: string; country: string | null; data: Record<string, unknown> },
): Promise<BeneficiaryAccountRow> {
  return one<BeneficiaryAccountRow>(
    sql,
    `UPDATE beneficiary_accounts SET position = $2, type = $3, currency = $4, country = $5, data = $6::jsonb, updated_at = now()
      WHERE id = $1 AND removed_at IS NULL RETURNING ${ACCOUNT_COLUMNS}`,
    [a.id, a.position, a.type, a.currency, a.country, JSON.stringify(a.data)],
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

/** The current accounts of each beneficiary, in position order. */
/** A beneficiary and its live accounts in one round trip (the payout path reads this per request). */
export async function findBeneficiaryWithAccounts(sql: Sql, scope: Scope, id: string): Promise<{ row: BeneficiaryRow; accounts: BeneficiaryAccountRow[] } | undefined> {
  const found = await maybeOne<BeneficiaryRow & { accounts_json: BeneficiaryAccountRow[] }>(
    sql,
    `SELECT ${BENEFICIARY_COLUMNS},
            COALESCE((SELECT json_agg(json_build_object('id', a.id, 'beneficiary_id', a.beneficiary_id, 'position', a.position, 'type', a.type,
                                                        'currency', a.currency, 'country', a.country, 'data', a.data) ORDER BY a.position)
                        FROM beneficiary_accounts a WHERE a.beneficiary_id = beneficiaries.id AND a.removed_at IS NULL), '[]') AS accounts_json
       FROM beneficiaries WHERE ${SCOPE} AND id = $3`,
    [scope.workspaceId, scope.subAccountId ?? null, id],
  );
  if (!found) return undefined;
  const { accounts_json: accounts, ...row } = found;
  return { row: row as BeneficiaryRow, accounts };
}

export async function accountsOf(sql: Sql, beneficiaryIds: readonly string[]): Promise<BeneficiaryAccountRow[]> {
  if (beneficiaryIds.length === 0) return [];
  return sql.query<BeneficiaryAccountRow>(
    `SELECT ${ACCOUNT_COLUMNS} FROM beneficiary_accounts
      WHERE beneficiary_id = ANY($1::uuid[]) AND removed_at IS NULL ORDER BY beneficiary_id, position`,
    [beneficiaryIds],
  );
}

/** A current account by its id, with its beneficiary's id, within the caller's scope. */
export async function findAccount(sql: Sql, scope: Scope, accountId: string): Promise<BeneficiaryAccountRow | undefined> {
  return maybeOne<BeneficiaryAccountRow>(
    sql,
    `SELECT a.id, a.beneficiary_id, a.position, a.type, a.currency, a.country, a.data
       FROM beneficiary_accounts a JOIN beneficiaries b ON b.id = a.beneficiary_id
      WHERE b.workspace_id = $1 AND ($2::uuid IS NULL OR b.account_id = $2::uuid) AND a.id = $3 AND a.removed_at IS NULL`,
    [scope.workspaceId, scope.subAccountId ?? null, accountId],
  );
}
