import type { Sql, Tx } from '../../platform/db/db.js';
import { conflict, notFound } from '../../platform/lib/errors.js';
import type { PageRequest } from '../../platform/db/pagination.js';
import { DEFAULT_CURRENCIES } from '../../platform/lib/currencies.js';
import { newId } from '../../platform/lib/ids.js';
import { recordEvent } from '../events/events.service.js';
import * as repo from './accounts.repository.js';
import type { AccountRow } from './accounts.repository.js';
import * as workspaces from './workspaces.repository.js';
import type { WorkspaceRow } from './workspaces.repository.js';

export type { AccountRow } from './accounts.repository.js';
export type { WorkspaceRow } from './workspaces.repository.js';
import { parseWorkspaceTerms, type WorkspaceSettings, type WorkspaceTerms } from './workspace-terms.js';

const PRIMARY_CURRENCY_BY_COUNTRY: Record<string, string> = { GB: 'GBP', US: 'USD', NG: 'NGN', GH: 'GHS' };
const EURO_COUNTRIES = new Set('AT BE CY DE EE ES FI FR GR HR IE IT LT LU LV MT NL PT SI SK'.split(' '));

export function primaryCurrencyFor(country: string): string {
  return PRIMARY_CURRENCY_BY_COUNTRY[country] ?? (EURO_COUNTRIES.has(country) ? 'EUR' : 'USD');
}

/** The workspace's primary currency: set by the operator, else derived from its country. */
export function workspacePrimaryCurrency(workspace: WorkspaceRow): string {
  return parseWorkspaceTerms(workspace.settings).primaryCurrency ?? primaryCurrencyFor(workspace.country);
}

/** A workspace and its master account (same id), with the default currencies and every capability. */
export async function createWorkspace(tx: Tx, input: { name: string; country: string; id?: string }): Promise<WorkspaceRow> {
  const id = input.id ?? newId();
  const settings: WorkspaceSettings = { primaryCurrency: primaryCurrencyFor(input.country), travelRuleScreening: true };
  const workspace = await workspaces.insertWorkspace(tx, { id, name: input.name, country: input.country, currencies: DEFAULT_CURRENCIES, settings });
  await repo.insertAccount(tx, {
    id,
    workspaceId: id,
    parentAccountId: null,
    type: 'master',
    name: input.name,
    country: input.country,
    status: 'active',
    clientRef: null,
  });
  return workspace;
}

export function accountData(row: AccountRow) {
  return {
    id: row.id,
    parentAccountId: row.parent_account_id ?? undefined,
    accountType: row.account_type,
    status: row.status,
    country: row.country,
    name: row.name,
    clientRef: row.client_ref ?? undefined,
    createdAt: row.created_at.toISOString(),
  };
}

/** A sub-account, `pending` on create, with its `account.created` event in the same transaction. */
export async function createSubAccount(
  tx: Tx,
  workspaceId: string,
  input: { name: string; country: string; clientRef?: string | undefined },
): Promise<AccountRow> {
  if (input.clientRef && (await repo.findAccountByClientRef(tx, workspaceId, input.clientRef))) {
    throw conflict('DUPLICATE_CLIENT_REF', 'An account with this clientRef already exists');
  }
  const row = await repo.insertAccount(tx, {
    id: newId(),
    workspaceId,
    parentAccountId: workspaceId,
    type: 'sub',
    name: input.name,
    country: input.country,
    status: 'pending',
    clientRef: input.clientRef ?? null,
  });
  const data = accountData(row);
  await recordEvent(tx, {
    workspaceId,
    accountId: row.id,
    type: 'account.created',
    data: { id: data.id, parentAccountId: data.parentAccountId, accountType: data.accountType, status: data.status, country: data.country, createdAt: data.createdAt },
  });
  return row;
}

export async function getAccount(sql: Sql, workspaceId: string, id: string): Promise<AccountRow> {
  const row = await repo.findAccount(sql, workspaceId, id);
  if (!row) throw notFound('Account');
  return row;
}

export async function getWorkspace(sql: Sql, id: string): Promise<WorkspaceRow> {
  const row = await workspaces.findWorkspace(sql, id);
  if (!row) throw notFound('Workspace');
  return row;
}

/** The workspace, locked for a read-modify-write of its arrays and settings until the transaction ends. */
export async function lockWorkspace(tx: Tx, id: string): Promise<WorkspaceRow> {
  const row = await workspaces.lockWorkspace(tx, id);
  if (!row) throw notFound('Workspace');
  return row;
}

/** Replaces the workspace's currencies or disabled capabilities, or merges into its settings (the one writer of a workspace). */
export async function changeWorkspace(tx: Tx, id: string, change: workspaces.WorkspaceChange): Promise<WorkspaceRow> {
  const row = await workspaces.updateWorkspace(tx, id, change);
  if (!row) throw notFound('Workspace');
  return row;
}

/** Every workspace, newest first. */
export function listWorkspaces<Item>(sql: Sql, page: PageRequest, map: (row: WorkspaceRow) => Item) {
  return workspaces.listWorkspaces(sql, page, map);
}

/** Whether `subAccountId` is one of the workspace's sub-accounts (what Service-Account-Id may name). */
export const ownsSubAccount = repo.ownsSubAccount;

export function listSubAccounts(sql: Sql, workspaceId: string, page: PageRequest) {
  return repo.listSubAccounts(sql, workspaceId, page, accountData);
}

/**
 * Puts a business identity on record for the workspace (settings.businessIdentity: the originator of
 * payouts sent without senderInfo), unless the operator already set one; or, with `subAccountId`, on
 * that sub-account, unless it has one. Used when a business application is approved. Answers whether
 * it was recorded.
 */
export async function recordBusinessIdentity(tx: Tx, workspaceId: string, identity: Record<string, string>, subAccountId?: string): Promise<boolean> {
  if (subAccountId !== undefined) return repo.setAccountBusinessIdentity(tx, workspaceId, subAccountId, identity);
  const row = await workspaces.lockWorkspace(tx, workspaceId);
  if (!row) throw notFound('Workspace');
  const current = row.settings.businessIdentity;
  if (typeof current === 'object' && current !== null) return false;
  await workspaces.updateWorkspace(tx, workspaceId, { settings: { businessIdentity: identity } });
  return true;
}

/** Whether the account acted on has a business identity on record: the workspace's, or a sub-account's own. */
export async function hasOriginatorOnRecord(sql: Sql, workspace: { id: string; terms: WorkspaceTerms }, subAccountId: string | undefined): Promise<boolean> {
  if (workspace.terms.businessIdentity !== undefined) return true;
  return subAccountId !== undefined && repo.accountHasBusinessIdentity(sql, workspace.id, subAccountId);
}
