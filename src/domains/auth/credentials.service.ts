import type { Sql, Tx } from '../../platform/db/db.js';
import { conflict, fieldError, forbidden, notFound, validationError } from '../../platform/lib/errors.js';
import type { PageRequest } from '../../platform/db/pagination.js';
import { isUuid, newId } from '../../platform/lib/ids.js';
import { DUMMY_SECRET_HASH, hashSecret, isCurrentHash, randomSecret, verifySecret, type SecretDigestKey } from '../../platform/lib/secrets.js';
import { getWorkspace } from '../accounts/accounts.service.js';
import * as repo from './credentials.repository.js';
import type { CredentialGrantRow, CredentialRow } from './credentials.repository.js';
import { ALL_SCOPES, hasScope, isScope } from './scopes.js';

export type { CredentialGrantRow, CredentialRow } from './credentials.repository.js';

export interface IssuedCredential {
  clientId: string;
  clientSecret: string;
  scopes: string[];
}

/** Creates a credential; the secret is returned here once and stored only as a keyed digest (src/platform/lib/secrets.ts). */
export async function createCredential(
  tx: Tx,
  key: SecretDigestKey,
  workspaceId: string,
  options: { scopes?: readonly string[] | undefined; clientId?: string | undefined; clientSecret?: string | undefined; label?: string | undefined; issuedToUser?: string | undefined } = {},
): Promise<IssuedCredential> {
  const clientId = options.clientId ?? newId();
  const clientSecret = options.clientSecret ?? randomSecret('cs_');
  const scopes = [...(options.scopes ?? ALL_SCOPES)];
  await repo.insertCredential(tx, { clientId, workspaceId, secretHash: hashSecret(clientSecret, key), scopes, label: options.label ?? null, issuedToUser: options.issuedToUser });
  return { clientId, clientSecret, scopes };
}

/** Refuses any scope that is not one of ALL_SCOPES, naming each by its place in the list. */
export function assertKnownScopes(scopes: readonly string[]): void {
  const unknown = scopes.flatMap((s, i) => (isScope(s) ? [] : [{ field: `scopes.${i}`, message: `scopes.${i} "${s}" is not a known scope` }]));
  if (unknown.length) throw validationError(unknown);
}

/**
 * A new credential of an existing workspace (the operator API and a dashboard admin): scopes checked,
 * the secret returned once. `issuedToUser` is the dashboard user it is shown to: the credential is
 * then that person's (see personOf).
 */
export async function issueCredential(
  tx: Tx,
  key: SecretDigestKey,
  owner: WorkspaceActor,
  options: { scopes?: readonly string[] | undefined; label?: string | undefined; issuedToUser?: string | undefined },
): Promise<IssuedCredential> {
  assertWorkspaceRight(owner, 'credentials');
  const { workspaceId } = owner;
  assertKnownScopes(options.scopes ?? []);
  await getWorkspace(tx, workspaceId);
  return createCredential(tx, key, workspaceId, { scopes: options.scopes, label: options.label, issuedToUser: options.issuedToUser });
}

/**
 * The person behind who acted, for rules that tell people apart (maker and checker): a dashboard
 * session (`dashboard:<user id>`) is its user; a credential a dashboard user created is that user
 * (`dashboard:<user id>`); any other credential (the operator's) is itself (its client id).
 */
export async function personsOf(sql: Sql, workspaceId: string, actors: readonly string[]): Promise<string[]> {
  const clientIds = actors.filter(isUuid);
  const holders = clientIds.length > 0 ? await repo.issuedToUsers(sql, workspaceId, clientIds) : new Map<string, string | null>();
  return actors.map((actor) => {
    const user = holders.get(actor);
    return user ? `dashboard:${user}` : actor;
  });
}

/** Replaces a credential's secret hash (bootstrap with a configured secret). */
export async function setCredentialSecret(sql: Sql, key: SecretDigestKey, clientId: string, clientSecret: string): Promise<void> {
  await repo.setSecretHash(sql, clientId, hashSecret(clientSecret, key));
}

/** A credential's workspace and secret digest by client id alone (bootstrap's demo credential), or undefined. */
export async function findCredentialSecret(sql: Sql, clientId: string): Promise<{ workspace_id: string; secret_hash: string } | undefined> {
  return repo.findOwnerAndSecret(sql, clientId);
}

/** A credential as authentication uses it, with its workspace and the named sub-account if that workspace owns it (one round trip). */
export async function readCredentialGrant(sql: Sql, clientId: string, workspaceId: string, subAccountId: string | null): Promise<(CredentialGrantRow & { sub_account_id: string | null }) | undefined> {
  return repo.readGrant(sql, clientId, workspaceId, subAccountId);
}

import { ROTATION_GRACE_SECONDS_MAX } from '../../platform/lib/secrets.js';
import { assertWorkspaceRight, type WorkspaceActor } from '../users/rights.js';

export { ROTATION_GRACE_SECONDS_MAX };

/**
 * `last_used_at` is written at most once per this many seconds per credential, when a token is
 * issued for it (never per API request), so a busy client costs no write per token either.
 */
export const LAST_USED_RESOLUTION_SEC = 60;

/**
 * The credential for a client id and secret, or undefined. An unknown id is checked against a dummy
 * digest, so the answer time does not tell which of the two was wrong. After a rotation the
 * previous secret is accepted too until its expiry (the database clock decides); both digests are
 * always compared, so the time does not tell which one matched. A secret still stored as scrypt
 * (earlier releases) is rehashed on its first successful use.
 */
export async function authenticateClient(sql: Sql, key: SecretDigestKey, clientId: string, clientSecret: string): Promise<CredentialRow | undefined> {
  const row = isUuid(clientId) ? await repo.findWithSecrets(sql, clientId) : undefined;
  const current = await verifySecret(clientSecret, row?.secret_hash ?? DUMMY_SECRET_HASH, key);
  const previousHash = row?.previous_valid ? row.previous_secret_hash : null;
  const previous = await verifySecret(clientSecret, previousHash ?? DUMMY_SECRET_HASH, key);
  if (!row || !(current || (previous && previousHash !== null)) || row.status !== 'active') return undefined;
  const rehash = current && !isCurrentHash(row.secret_hash) ? hashSecret(clientSecret, key) : null;
  await repo.markUsed(sql, clientId, rehash, LAST_USED_RESOLUTION_SEC);
  return row;
}

export interface RotatedCredential {
  clientId: string;
  clientSecret: string;
  previousSecretExpiresAt: string;
}

/**
 * Gives an active credential a new secret (returned here once). The secret it had keeps working
 * for `graceSeconds` (0: it stops at once); a secret replaced by an earlier rotation stops now.
 */
export async function rotateCredential(tx: Tx, key: SecretDigestKey, workspaceId: string, clientId: string, graceSeconds: number): Promise<RotatedCredential> {
  if (!Number.isInteger(graceSeconds) || graceSeconds < 0 || graceSeconds > ROTATION_GRACE_SECONDS_MAX) {
    throw fieldError('graceSeconds', `graceSeconds must be a whole number of seconds from 0 to ${ROTATION_GRACE_SECONDS_MAX} (7 days)`);
  }
  const current = await lockCredential(tx, workspaceId, clientId);
  if (current.status !== 'active') throw conflict('CREDENTIAL_REVOKED', 'A revoked credential cannot be rotated');
  const clientSecret = randomSecret('cs_');
  const previousExpiresAt = await repo.rotateSecret(tx, workspaceId, clientId, hashSecret(clientSecret, key), graceSeconds);
  return { clientId, clientSecret, previousSecretExpiresAt: previousExpiresAt.toISOString() };
}

/** Rotates a credential of an existing workspace (the operator API and a dashboard admin). */
export async function rotateWorkspaceCredential(tx: Tx, key: SecretDigestKey, owner: WorkspaceActor, clientId: string, graceSeconds: number): Promise<RotatedCredential> {
  assertWorkspaceRight(owner, 'credentials');
  const { workspaceId } = owner;
  await getWorkspace(tx, workspaceId);
  return rotateCredential(tx, key, workspaceId, clientId, graceSeconds);
}

/** Revokes a credential of an existing workspace (the operator API and a dashboard admin). */
export async function revokeWorkspaceCredential(tx: Tx, owner: WorkspaceActor, clientId: string): Promise<CredentialRow> {
  assertWorkspaceRight(owner, 'credentials');
  const { workspaceId } = owner;
  await getWorkspace(tx, workspaceId);
  return revokeCredential(tx, workspaceId, clientId);
}

/**
 * Revokes a credential: its tokens are refused from the next request (the status change is
 * announced to every API process by the credentials_auth_changed trigger) and its secrets no
 * longer get a token. Revoking a revoked credential changes nothing.
 */
export async function revokeCredential(tx: Tx, workspaceId: string, clientId: string): Promise<CredentialRow> {
  const current = await lockCredential(tx, workspaceId, clientId);
  if (current.status === 'revoked') return current;
  return repo.revoke(tx, workspaceId, clientId);
}

async function lockCredential(tx: Tx, workspaceId: string, clientId: string): Promise<CredentialRow> {
  const row = isUuid(clientId) ? await repo.findCredential(tx, workspaceId, clientId, true) : undefined;
  if (!row) throw notFound('Credential');
  return row;
}

/** One credential of the workspace (never its secret); another workspace's is not found. */
export async function getCredential(sql: Sql, workspaceId: string, clientId: string): Promise<CredentialRow> {
  const row = isUuid(clientId) ? await repo.findCredential(sql, workspaceId, clientId) : undefined;
  if (!row) throw notFound('Credential');
  return row;
}

export function credentialData(row: CredentialRow) {
  return {
    clientId: row.client_id,
    scopes: row.scopes,
    status: row.status,
    label: row.label,
    createdAt: row.created_at.toISOString(),
    lastUsedAt: row.last_used_at ? row.last_used_at.toISOString() : null,
  };
}

export function listCredentials(sql: Sql, workspaceId: string, page: PageRequest) {
  return repo.listCredentials(sql, workspaceId, page, credentialData);
}

/** Who changes scopes: the scopes it holds, and its client id when it is a credential (a dashboard admin is none). */
export interface ScopesCaller {
  scopes: readonly string[];
  clientId?: string | undefined;
}

/** A credential that removed `write:api_keys` from itself could change no scopes again, its own included. */
function assertKeepsOwnKeyManagement(clientId: string, scopes: readonly string[], caller: ScopesCaller): void {
  if (caller.clientId !== clientId || hasScope(scopes, 'write:api_keys')) return;
  throw fieldError(
    'scopes',
    'A credential cannot remove write:api_keys from itself: it could then change no scopes, its own included. Keep write:api_keys, or make the change with another credential or from the dashboard',
    'OWN_API_KEYS_SCOPE_REQUIRED',
  );
}

/**
 * Replaces a credential's scopes on behalf of a caller. The caller may add or remove only scopes
 * it holds itself (`write:x` covers `read:x`); a scope it lacks stays as the target has it. So
 * `write:api_keys` is not a way to any other scope. A credential may not drop `write:api_keys`
 * from itself.
 */
export async function updateScopes(tx: Tx, workspaceId: string, clientId: string, scopes: string[], caller: ScopesCaller): Promise<CredentialRow> {
  assertKnownScopes(scopes);
  assertKeepsOwnKeyManagement(clientId, scopes, caller);
  const callerScopes = caller.scopes;
  const current = isUuid(clientId) ? await repo.lockScopes(tx, workspaceId, clientId) : undefined;
  if (!current) throw notFound('API key');
  const wanted = [...new Set(scopes)];
  const beyondCaller = scopesChangedBeyond(current.scopes, wanted, callerScopes);
  if (beyondCaller.length) {
    throw forbidden('METHOD_NOT_ENTITLED', `This credential lacks the scope ${beyondCaller.join(', ')}, so it cannot grant or remove it`);
  }
  return repo.setScopes(tx, workspaceId, clientId, wanted);
}

/** The scopes a change from `before` to `after` adds or removes that `held` does not cover. Pure. */
export function scopesChangedBeyond(before: readonly string[], after: readonly string[], held: readonly string[]): string[] {
  const changed = [...after.filter((s) => !before.includes(s)), ...before.filter((s) => !after.includes(s))];
  return [...new Set(changed)].filter((s) => !held.includes(s) && !(isScope(s) && hasScope(held, s)));
}

/** Until when the secret replaced by the last rotation keeps working (ISO time), or null when it no longer does. */
export async function previousSecretWorksUntil(sql: Sql, workspaceId: string, clientId: string): Promise<string | null> {
  return (await repo.previousSecretExpiry(sql, workspaceId, clientId))?.toISOString() ?? null;
}
