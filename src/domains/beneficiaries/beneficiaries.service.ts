import { isUuid } from '../../platform/lib/ids.js';
import type { Static } from 'typebox';
import type { Sql, Tx } from '../../platform/db/db.js';
import { conflict, notFound, validationError, type FieldError } from '../../platform/lib/errors.js';
import type { PageRequest } from '../../platform/db/pagination.js';
import { assert } from '../../platform/lib/assert.js';
import type { CryptoBox } from '../../platform/lib/crypto-box.js';
import { newId } from '../../platform/lib/ids.js';
import type { RecipientType } from '../corridors/catalog.js';
import { normaliseIban } from '../../platform/lib/bank-account.js';
import { checkRecipient, type Recipient } from '../corridors/recipient-validation.js';
import { isPastDate } from '../corridors/sender-validation.js';
import * as repo from './beneficiaries.repository.js';
import type { BeneficiaryAccountRow, BeneficiaryRow, BeneficiaryStatus } from './beneficiaries.repository.js';
import type { CreateBeneficiaryBody, UpdateBeneficiaryBody } from './beneficiaries.schemas.js';
import type { AccountScope } from '../accounts/caller.js';
import { assertWorkspaceRight } from '../users/rights.js';

export type { BeneficiaryStatus } from './beneficiaries.repository.js';

export interface BeneficiaryAccountView {
  id: string;
  type: string;
  currency: string;
  country?: string;
  data: Record<string, unknown>;
}

/** A beneficiary as the API shows it (and as recipient validation reads it). */
export interface BeneficiaryView {
  id: string;
  accountId?: string;
  type: RecipientType;
  status: BeneficiaryStatus;
  name: string;
  country: string;
  accounts: BeneficiaryAccountView[];
  address?: string;
  addressLine2?: string;
  city?: string;
  countrySubdivision?: string;
  dateOfBirth?: string;
  email?: string;
  middleName?: string;
  notes?: string;
  postcode?: string;
  registrationNumber?: string;
  createdAt: string;
  updatedAt: string;
}

type CreateBody = Static<typeof CreateBeneficiaryBody>;
type UpdateBody = Static<typeof UpdateBeneficiaryBody>;

/** An account item as sent: `id` only matters on update. */
export interface AccountInput {
  id?: string | undefined;
  type: string;
  currency: string;
  country?: string | undefined;
  data: Record<string, unknown>;
}

/** The full form of a beneficiary (POST /v1/beneficiaries without `id`, or a payout's full beneficiary). */
export interface BeneficiaryInput {
  type?: RecipientType | undefined;
  name: string;
  country: string;
  accounts: readonly AccountInput[];
  address?: string | undefined;
  addressLine2?: string | undefined;
  city?: string | undefined;
  countrySubdivision?: string | undefined;
  dateOfBirth?: string | undefined;
  email?: string | undefined;
  middleName?: string | undefined;
  notes?: string | undefined;
  postcode?: string | undefined;
  registrationNumber?: string | undefined;
}

export interface ValidationOptions {
  /** Prefix of every error `field`: '' for a beneficiary body (default), 'beneficiary.' inside a payout body. */
  fieldPrefix?: string | undefined;
  today?: string | undefined;
}

/** The optional personal fields, sealed together at rest (everything but name, country, type and status, which lists show). */
const OPTIONAL_FIELDS = [
  'address',
  'addressLine2',
  'city',
  'countrySubdivision',
  'dateOfBirth',
  'email',
  'middleName',
  'notes',
  'postcode',
  'registrationNumber',
] as const;
type OptionalField = (typeof OPTIONAL_FIELDS)[number];
type OptionalValues = Partial<Record<OptionalField, string>>;

/** The optional fields a beneficiary has, in their listed order. */
function presentOptional(values: Partial<Record<OptionalField, string | null | undefined>>): OptionalValues {
  const present: OptionalValues = {};
  for (const field of OPTIONAL_FIELDS) {
    const value = values[field];
    if (value !== null && value !== undefined) present[field] = value;
  }
  return present;
}

// ---------------------------------------------------------------------------------------------
// Views

function accountView(box: CryptoBox, row: BeneficiaryAccountRow): BeneficiaryAccountView {
  return { id: row.id, type: row.type, currency: row.currency, ...(row.country ? { country: row.country } : {}), data: box.openJson<Record<string, unknown>>(row.data) };
}

export function beneficiaryView(box: CryptoBox, row: BeneficiaryRow, accounts: readonly BeneficiaryAccountRow[]): BeneficiaryView {
  const optional = presentOptional(box.openJson<OptionalValues>(row.personal_data));
  return {
    id: row.id,
    ...(row.account_id ? { accountId: row.account_id } : {}),
    type: row.type,
    status: row.status,
    name: row.name,
    country: row.country,
    accounts: accounts.filter((a) => a.beneficiary_id === row.id).map((a) => accountView(box, a)),
    ...optional,
    createdAt: row.created_at.toISOString(),
    updatedAt: row.updated_at.toISOString(),
  };
}

async function withAccounts(sql: Sql, box: CryptoBox, row: BeneficiaryRow): Promise<BeneficiaryView> {
  return beneficiaryView(box, row, await repo.accountsOf(sql, [row.id]));
}

// ---------------------------------------------------------------------------------------------
// Validation

/** The details as stored: IBANs without spaces and upper-cased, BICs upper-cased. */
function normaliseData(type: string, data: Record<string, unknown>): Record<string, unknown> {
  const out = { ...data };
  if (type === 'iban' && typeof out.iban === 'string') out.iban = normaliseIban(out.iban);
  for (const key of ['bic', 'swiftCode']) if (typeof out[key] === 'string') out[key] = (out[key] as string).toUpperCase();
  return out;
}

/** Field rules that hold on every corridor (generic validation errors, without a code). */
function fieldRuleErrors(b: BeneficiaryInput, prefix: string, today: string): FieldError[] {
  const errors: FieldError[] = [];
  const type = b.type ?? 'individual';
  if (b.dateOfBirth !== undefined) {
    if (type === 'business') errors.push({ field: `${prefix}dateOfBirth`, message: `${prefix}dateOfBirth is not accepted for a business beneficiary` });
    else if (!isPastDate(b.dateOfBirth, today)) errors.push({ field: `${prefix}dateOfBirth`, message: `${prefix}dateOfBirth must be a past date in the form YYYY-MM-DD` });
  }
  if (b.registrationNumber !== undefined && type !== 'business') {
    errors.push({ field: `${prefix}registrationNumber`, message: `${prefix}registrationNumber is accepted for a business beneficiary only` });
  }
  return errors;
}

/**
 * Every check of a beneficiary as it would be saved, in the spec's order: the field rules, then for
 * each account its corridor (the provider that would pay it without a route): the corridor-required
 * recipient fields of all accounts, then the structure of all accounts. Throws the first failing stage
 * as a 400 validation error.
 */
export function assertValidBeneficiary(b: BeneficiaryInput, options: ValidationOptions = {}): void {
  const prefix = options.fieldPrefix ?? '';
  const fieldErrors = fieldRuleErrors(b, prefix, options.today ?? new Date().toISOString().slice(0, 10));
  if (fieldErrors.length) throw validationError(fieldErrors);
  const recipient: Recipient = { ...b, accounts: b.accounts.map((a) => ({ ...a, data: a.data })) };
  const required = new Map<string, FieldError>();
  const structure = new Map<string, FieldError>();
  b.accounts.forEach((account, index) => {
    const check = checkRecipient(recipient, { currency: account.currency, accountIndex: index, fieldPrefix: prefix, purpose: 'beneficiary' });
    for (const e of check.required) if (!required.has(`${e.field}|${e.code}`)) required.set(`${e.field}|${e.code}`, e);
    for (const e of check.structure) if (!structure.has(`${e.field}|${e.code}`)) structure.set(`${e.field}|${e.code}`, e);
  });
  if (required.size) throw validationError([...required.values()]);
  if (structure.size) throw validationError([...structure.values()]);
}

function columnsOf(box: CryptoBox, b: BeneficiaryInput, status: BeneficiaryStatus): repo.BeneficiaryColumns {
  return { type: b.type ?? 'individual', status, name: b.name, country: b.country, personalData: box.sealJson(presentOptional(b)) };
}

// ---------------------------------------------------------------------------------------------
// Commands

/**
 * Validates and saves a beneficiary with its accounts (ids assigned here), owned by the scope's
 * sub-account or by the workspace. Throws a 400 validation error naming the failing fields.
 */
export async function createBeneficiary(tx: Tx, box: CryptoBox, scope: AccountScope, input: BeneficiaryInput, options: ValidationOptions = {}): Promise<BeneficiaryView> {
  assertWorkspaceRight(scope, 'beneficiaries');
  const b: BeneficiaryInput = { ...input, accounts: input.accounts.map((a) => ({ ...a, data: normaliseData(a.type, a.data) })) };
  assertValidBeneficiary(b, options);
  const row = await repo.insertBeneficiary(tx, { id: newId(), scope, ...columnsOf(box, b, 'active') });
  const accounts: BeneficiaryAccountRow[] = [];
  for (const [position, a] of b.accounts.entries()) {
    accounts.push(
      await repo.insertAccount(tx, {
        id: newId(),
        beneficiaryId: row.id,
        workspaceId: scope.workspaceId,
        position,
        type: a.type,
        currency: a.currency,
        country: a.country ?? null,
        data: box.sealJson(a.data),
      }),
    );
  }
  return beneficiaryView(box, row, accounts);
}

/** POST /v1/beneficiaries: `id` references an existing beneficiary (200), otherwise one is created (201). */
export async function createOrReference(tx: Tx, box: CryptoBox, scope: AccountScope, body: CreateBody): Promise<{ status: 200 | 201; beneficiary: BeneficiaryView }> {
  if (body.id !== undefined) return { status: 200, beneficiary: await getBeneficiary(tx, box, scope.workspaceId, body.id, scope) };
  const { id: _id, accounts, name, country, ...rest } = body;
  // The schema requires these without `id`; a body reaching here without them is a bug in the schema.
  assert(accounts !== undefined && name !== undefined && country !== undefined, 'beneficiary body lacks accounts, name or country');
  return { status: 201, beneficiary: await createBeneficiary(tx, box, scope, { ...rest, name, country, accounts }) };
}

function merge(current: BeneficiaryView, patch: UpdateBody): BeneficiaryInput {
  const merged: BeneficiaryInput = {
    type: patch.type ?? current.type,
    name: patch.name ?? current.name,
    country: patch.country ?? current.country,
    accounts: patch.accounts ?? current.accounts,
  };
  for (const field of OPTIONAL_FIELDS) {
    const value = field in patch ? patch[field] : current[field];
    if (value !== null && value !== undefined) merged[field] = value;
  }
  return merged;
}

function accountIdErrors(patch: UpdateBody, current: BeneficiaryView): FieldError[] {
  const known = new Set(current.accounts.map((a) => a.id));
  const seen = new Set<string>();
  const errors: FieldError[] = [];
  (patch.accounts ?? []).forEach((a, i) => {
    if (a.id === undefined) return;
    if (!known.has(a.id)) errors.push({ field: `accounts.${i}.id`, message: `accounts.${i}.id does not name an account of this beneficiary` });
    else if (seen.has(a.id)) errors.push({ field: `accounts.${i}.id`, message: `accounts.${i}.id appears twice` });
    seen.add(a.id);
  });
  return errors;
}

/**
 * PUT /v1/beneficiaries/{id}: a partial update (absent keeps, null clears an optional field). The
 * result is validated as a whole, as on create. `accounts`, when given, replaces the list: items
 * carrying an existing `id` keep it, the others get new ids, and the accounts left out are removed.
 */
export async function updateBeneficiary(tx: Tx, box: CryptoBox, scope: AccountScope, id: string, patch: UpdateBody): Promise<BeneficiaryView> {
  const row = await repo.findBeneficiary(tx, scope, id, { lock: true });
  if (!row) throw notFound('Beneficiary');
  const current = await withAccounts(tx, box, row);
  if (row.status === 'suspended' && patch.status !== undefined) {
    throw conflict('BENEFICIARY_SUSPENDED', 'The beneficiary is suspended; its status is changed by the operator only');
  }
  const idErrors = accountIdErrors(patch, current);
  if (idErrors.length) throw validationError(idErrors);
  const merged = merge(current, patch);
  const b: BeneficiaryInput = { ...merged, accounts: merged.accounts.map((a) => ({ ...a, data: normaliseData(a.type, a.data) })) };
  assertValidBeneficiary(b);
  const updated = await repo.updateBeneficiary(tx, id, columnsOf(box, b, patch.status ?? row.status));
  if (patch.accounts) {
    await repo.removeAccountsExcept(tx, id, b.accounts.flatMap((a) => (a.id ? [a.id] : [])));
    for (const [position, a] of b.accounts.entries()) {
      const fields = { position, type: a.type, currency: a.currency, country: a.country ?? null, data: box.sealJson(a.data) };
      if (a.id) await repo.updateAccount(tx, { id: a.id, ...fields });
      else await repo.insertAccount(tx, { id: newId(), beneficiaryId: id, workspaceId: scope.workspaceId, ...fields });
    }
  }
  return withAccounts(tx, box, updated);
}

/** DELETE /v1/beneficiaries/{id}: the beneficiary becomes inactive (kept for the payouts that name it). */
export async function deactivateBeneficiary(tx: Tx, box: CryptoBox, scope: AccountScope, id: string): Promise<BeneficiaryView> {
  const row = await repo.findBeneficiary(tx, scope, id, { lock: true });
  if (!row) throw notFound('Beneficiary');
  if (row.status === 'suspended') throw conflict('BENEFICIARY_SUSPENDED', 'The beneficiary is suspended; its status is changed by the operator only');
  return withAccounts(tx, box, row.status === 'inactive' ? row : await repo.setBeneficiaryStatus(tx, id, 'inactive'));
}

/** Operator: set any status (e.g. suspend) of any workspace's beneficiary. */
export async function setStatusAsOperator(tx: Tx, box: CryptoBox, id: string, status: BeneficiaryStatus): Promise<BeneficiaryView> {
  const row = await repo.findBeneficiaryById(tx, id);
  if (!row) throw notFound('Beneficiary');
  return withAccounts(tx, box, await repo.setBeneficiaryStatus(tx, id, status));
}

// ---------------------------------------------------------------------------------------------
// Queries

/**
 * One beneficiary of the workspace (404 otherwise, including another workspace's). With
 * `subAccountId`, only that sub-account's beneficiaries are visible; without, the workspace's own and
 * its sub-accounts'.
 */
export async function getBeneficiary(
  sql: Sql,
  box: CryptoBox,
  workspaceId: string,
  id: string,
  options: { subAccountId?: string | undefined } = {},
): Promise<BeneficiaryView> {
  const [found] = await findBeneficiaries(sql, box, [{ workspaceId, subAccountId: options.subAccountId, id }]);
  if (!found) throw notFound('Beneficiary');
  return found;
}

/**
 * Many beneficiaries in one round trip, each in its own scope; undefined where none is visible. With
 * `lock`, the rows are share-locked until the caller's transaction ends, so none is deactivated or
 * changed before a payout to it commits.
 */
export async function findBeneficiaries(
  sql: Sql,
  box: CryptoBox,
  keys: readonly (AccountScope & { id: string })[],
  options: { lock?: boolean } = {},
): Promise<(BeneficiaryView | undefined)[]> {
  const valid = keys.map((k) => isUuid(k.id));
  const found = await repo.findBeneficiariesWithAccounts(sql, keys.filter((_, i) => valid[i]), options);
  let next = 0;
  return keys.map((_, i) => {
    if (!valid[i]) return undefined;
    const f = found[next++];
    return f && beneficiaryView(box, f.row, f.accounts);
  });
}

/** A page of beneficiaries, newest first: a roll-up over the workspace and its sub-accounts, or one sub-account's. */
export async function listBeneficiaries(sql: Sql, box: CryptoBox, scope: AccountScope, query: PageRequest & { status?: BeneficiaryStatus | undefined; nameContains?: string | undefined }) {
  const page = await repo.pageBeneficiaries(sql, scope, query, { status: query.status, nameContains: query.nameContains });
  const accounts = await repo.accountsOf(sql, page.data.map((r) => r.id));
  return { ...page, data: page.data.map((row) => beneficiaryView(box, row, accounts)) };
}

/** A name as beneficiaries are matched by it: Unicode-normalised, trimmed, runs of spaces as one, lower case. */
export const matchingName = (name: string): string => name.normalize('NFKC').trim().replace(/\s+/g, ' ').toLowerCase();

/** An account's identity for matching: the IBAN in electronic form, or the account number with its routing number or sort code (digits and letters only). */
function accountIdentity(data: Record<string, unknown>): string | undefined {
  const text = (k: string) => (typeof data[k] === 'string' ? (data[k] as string).replace(/[^0-9A-Za-z]/g, '').toUpperCase() : '');
  if (typeof data.iban === 'string' && data.iban.trim()) return `iban:${normaliseIban(data.iban).toUpperCase()}`;
  if (text('accountNumber')) return `account:${text('accountNumber')}:${text('routingNumber')}:${text('sortCode')}`;
  return undefined;
}

/**
 * The saved beneficiary a full one describes, if any: active, of exactly this account, of the same
 * name (as `matchingName` compares it) and with an account of the same currency and the same IBAN, or
 * account number and routing number or sort code. Two such beneficiaries: the oldest (the list shows both).
 * A bulk import pays it instead of saving the person again.
 */
export async function matchingBeneficiary(sql: Sql, box: CryptoBox, scope: AccountScope, wanted: { name: string; currency: string; data: Record<string, unknown> }): Promise<BeneficiaryView | undefined> {
  const identity = accountIdentity(wanted.data);
  if (!identity || !wanted.name.trim()) return undefined;
  const rows = await repo.activeBeneficiariesNamed(sql, scope, matchingName(wanted.name));
  if (!rows.length) return undefined;
  const accounts = await repo.accountsOf(sql, rows.map((r) => r.id));
  return rows
    .map((row) => beneficiaryView(box, row, accounts))
    .find((b) => matchingName(b.name) === matchingName(wanted.name) && b.accounts.some((a) => a.currency === wanted.currency.toUpperCase() && accountIdentity(a.data) === identity));
}

/** A beneficiary account by its server-assigned id, with its beneficiary and its index in `accounts`. */
export async function getBeneficiaryAccount(
  sql: Sql,
  box: CryptoBox,
  scope: AccountScope,
  accountId: string,
): Promise<{ beneficiary: BeneficiaryView; account: BeneficiaryAccountView; accountIndex: number }> {
  const accountRow = await repo.findAccount(sql, scope, accountId);
  if (!accountRow) throw notFound('Beneficiary account');
  const beneficiary = await getBeneficiary(sql, box, scope.workspaceId, accountRow.beneficiary_id, scope);
  const accountIndex = beneficiary.accounts.findIndex((a) => a.id === accountId);
  const account = beneficiary.accounts[accountIndex];
  if (!account) throw notFound('Beneficiary account');
  return { beneficiary, account, accountIndex };
}

/** What screening reads of a beneficiary: its owner, name, kind, country and date of birth. */
export interface ScreenedBeneficiary {
  id: string;
  workspaceId: string;
  type: RecipientType;
  name: string;
  middleName?: string | undefined;
  country: string;
  dateOfBirth?: string | undefined;
}

/** Active beneficiaries of every workspace after `afterId` in id order, at most `limit` (re-screening after a new list version). */
export async function activeBeneficiariesAfter(sql: Sql, box: CryptoBox, afterId: string | null, limit: number): Promise<ScreenedBeneficiary[]> {
  const rows = await repo.activeBeneficiariesAfter(sql, afterId, limit);
  return rows.map((row) => {
    const personal = box.openJson<OptionalValues>(row.personal_data);
    return { id: row.id, workspaceId: row.workspace_id, type: row.type, name: row.name, middleName: personal.middleName, country: row.country, dateOfBirth: personal.dateOfBirth };
  });
}
