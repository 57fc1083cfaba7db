import type { Sql, Tx } from '../../platform/db/db.js';
import { fieldError, validationError, type FieldError } from '../../platform/lib/errors.js';
import type { PageRequest } from '../../platform/db/pagination.js';
import { currencyInfo } from '../../platform/lib/currencies.js';
import { newId } from '../../platform/lib/ids.js';
import { parseSignedAmount } from '../../platform/lib/money.js';
import { hashSecret, verifySecret, type SecretDigestKey } from '../../platform/lib/secrets.js';
import { changeWorkspace, createWorkspace, getAccount, getWorkspace, listWorkspaces as listAllWorkspaces, lockWorkspace, type WorkspaceRow } from '../../domains/accounts/accounts.service.js';
import { assertValidSettings, type WorkspaceSettings } from '../../domains/accounts/workspace-terms.js';
import { listCredentials } from '../../domains/auth/credentials.service.js';
import { CAPABILITIES, type Capability } from '../../domains/auth/scopes.js';
import { balanceEntry } from '../../domains/ledger/balances.service.js';
import { moveFromSystem } from '../../domains/ledger/funding.service.js';
import { balancesOf } from '../../domains/ledger/ledger.service.js';
import * as keys from './operator-keys.repository.js';
import { assertOperatorRight, type OperatorActor } from '../../domains/users/rights.js';

export function workspaceData(row: WorkspaceRow) {
  return {
    id: row.id,
    name: row.name,
    country: row.country,
    status: row.status,
    enabledCurrencies: [...row.enabled_currencies].sort(),
    capabilities: Object.fromEntries(CAPABILITIES.map((c) => [c, !row.disabled_capabilities.includes(c)])),
    settings: row.settings,
    createdAt: row.created_at.toISOString(),
    updatedAt: row.updated_at.toISOString(),
  };
}

export function listWorkspaces(sql: Sql, page: PageRequest) {
  return listAllWorkspaces(sql, page, workspaceData);
}

export const WORKSPACE_NAME_LENGTH = { min: 2, max: 100 } as const;

/** A new workspace (its master account, default currencies, every capability on). */
export async function openWorkspace(tx: Tx, input: { name: string; country: string }, actor: Pick<OperatorActor, 'role'>): Promise<WorkspaceRow> {
  assertOperatorRight(actor, 'workspaces');
  const errors: FieldError[] = [];
  if (input.name.length < WORKSPACE_NAME_LENGTH.min || input.name.length > WORKSPACE_NAME_LENGTH.max) {
    errors.push({ field: 'name', message: `name must have ${WORKSPACE_NAME_LENGTH.min} to ${WORKSPACE_NAME_LENGTH.max} characters` });
  }
  if (!/^[A-Z]{2}$/.test(input.country)) errors.push({ field: 'country', message: 'country must be an ISO 3166-1 alpha-2 code such as GB' });
  if (errors.length) throw validationError(errors);
  return createWorkspace(tx, input);
}

// ---------------------------------------------------------------------------------------------
// Credentials of a workspace, as the operator manages them (API and console)

export async function workspaceCredentials(sql: Sql, workspaceId: string, page: PageRequest) {
  await getWorkspace(sql, workspaceId);
  return listCredentials(sql, workspaceId, page);
}


// ---------------------------------------------------------------------------------------------
// Balances

export const ADJUSTMENT_REASON_LENGTH = { min: 3, max: 500 } as const;

/**
 * Adjusts a workspace's (or sub-account's) balance: one balanced transfer with the operator
 * adjustments account; a positive amount credits, a negative one debits. `referenceId` names the
 * request that asked.
 */
export async function adjustBalance(
  tx: Tx,
  workspaceId: string,
  input: { currency: string; amount: string; reason: string; accountId?: string | undefined },
  referenceId: string,
  actor: Pick<OperatorActor, 'role'>,
) {
  assertOperatorRight(actor, 'credits');
  const { currency, reason } = input;
  if (!currencyInfo(currency)) throw fieldError('currency', `currency ${currency} is not supported`, 'UNSUPPORTED_CURRENCY');
  if (reason.length < ADJUSTMENT_REASON_LENGTH.min || reason.length > ADJUSTMENT_REASON_LENGTH.max) {
    throw fieldError('reason', `reason must have ${ADJUSTMENT_REASON_LENGTH.min} to ${ADJUSTMENT_REASON_LENGTH.max} characters`);
  }
  const amountMinor = parseSignedAmount(input.amount, currency, 'amount');
  const workspace = await getWorkspace(tx, workspaceId);
  const accountId = input.accountId ?? workspace.id;
  await getAccount(tx, workspace.id, accountId);
  await moveFromSystem(tx, { workspaceId: workspace.id, accountId, currency, amountMinor, system: 'operator_adjustments', reference: { type: 'adjustment', id: referenceId }, description: reason });
  const entry = (await balancesOf(tx, accountId)).find((b) => b.currency === currency);
  return entry && balanceEntry(entry, workspace.enabled_currencies);
}

/** A workspace's balances (its master account), as the API's balance entries. */
export async function workspaceBalances(sql: Sql, workspaceId: string) {
  const workspace = await getWorkspace(sql, workspaceId);
  return (await balancesOf(sql, workspace.id)).map((b) => balanceEntry(b, workspace.enabled_currencies));
}

/** Enables or disables a currency; sandbox-only currencies are refused in production. */
export async function setCurrency(tx: Tx, id: string, code: string, enabled: boolean, env: 'sandbox' | 'production'): Promise<WorkspaceRow> {
  const info = currencyInfo(code);
  if (!info) throw fieldError('code', `code ${code} is not a supported currency`, 'UNSUPPORTED_CURRENCY');
  if (enabled && info.availability === 'sandbox_only' && env === 'production') {
    throw fieldError('code', `code ${code} exists only in the sandbox`, 'CURRENCY_SANDBOX_ONLY');
  }
  const row = await lockWorkspace(tx, id);
  const set = new Set(row.enabled_currencies);
  if (enabled) set.add(code);
  else set.delete(code);
  return changeWorkspace(tx, id, { currencies: [...set] });
}

export async function setCapability(tx: Tx, id: string, name: Capability, enabled: boolean): Promise<WorkspaceRow> {
  if (!CAPABILITIES.includes(name)) throw fieldError('name', `${String(name)} is not a capability (${CAPABILITIES.join(', ')})`);
  const row = await lockWorkspace(tx, id);
  const disabled = new Set(row.disabled_capabilities);
  if (enabled) disabled.delete(name);
  else disabled.add(name);
  return changeWorkspace(tx, id, { disabledCapabilities: [...disabled] });
}

/** Merges the settings into the workspace's, refusing amounts that do not fit their currency (400 naming each field). */
export async function updateSettings(tx: Tx, id: string, settings: WorkspaceSettings): Promise<WorkspaceRow> {
  assertValidSettings(settings);
  await lockWorkspace(tx, id);
  return changeWorkspace(tx, id, { settings });
}

/** Adds an operator key, stored only as a keyed digest (src/platform/lib/secrets.ts). */
export async function createOperatorKey(sql: Sql, digestKey: SecretDigestKey, key: string, label: string): Promise<string> {
  const id = newId();
  await keys.insertKey(sql, id, hashSecret(key, digestKey), label);
  return id;
}

/** Replaces an operator key's hash from an earlier release (scrypt) with its digest; the key must be the right one. */
export async function rehashOperatorKey(sql: Sql, digestKey: SecretDigestKey, id: string, key: string): Promise<void> {
  await keys.replaceLegacyHash(sql, id, hashSecret(key, digestKey));
}

/** Revokes an operator key: it stops working at once. */
export async function revokeOperatorKey(sql: Sql, id: string): Promise<void> {
  await keys.revokeKey(sql, id);
}

/**
 * The active operator key a presented key is, or undefined. One digest and one lookup: a wrong key
 * costs microseconds. Keys still stored as scrypt (earlier releases, other than the bootstrap key,
 * which is rehashed at start) are tried after that and rehashed when one matches.
 */
/**
 * The active operator key presented, by its digest; else among keys still stored in the legacy
 * scrypt form, at most `legacyKeysMax()` of them (asked only when no digest matched: a caller past
 * its failures is given 0, so a wrong key never costs memory-hard hashes then).
 */
export async function findOperatorKey(sql: Sql, digestKey: SecretDigestKey, presented: string, legacyKeysMax: () => Promise<number>): Promise<string | undefined> {
  const digest = hashSecret(presented, digestKey);
  const current = await keys.findActiveByHash(sql, digest);
  if (current) return current;
  const legacyMax = await legacyKeysMax();
  if (legacyMax <= 0) return undefined;
  const legacy = await keys.activeLegacyKeys(sql, legacyMax);
  for (const row of legacy) {
    if (await verifySecret(presented, row.key_hash, digestKey)) {
      await rehashOperatorKey(sql, digestKey, row.id, presented);
      return row.id;
    }
  }
  return undefined;
}

export { deleteAuditBefore, listAudit, writeAudit, type AuditEntry, type AuditFilters } from '../audit/audit.service.js';
