import type { Sql, Tx } from '../../db/db.js';
import { maybeOne, one } from '../../db/db.js';
import { forbidden, notFound } from '../../http/errors.js';
import { paginate, type PageRequest } from '../../http/pagination.js';
import { isUuid, newId } from '../../lib/ids.js';
import { DUMMY_SECRET_HASH, hashSecret, isCurrentHash, randomSecret, verifySecret, type SecretDigestKey } from '../../lib/secrets.js';
import { ALL_SCOPES, hasScope, isScope } from './scopes.js';

export interface CredentialRow {
  client_id: string;
  workspace_id: string;
  scopes: string[];
  status: string;
  label: string | null;
  created_at: Date;
  updated_at: Date;
  last_used_at: Date | null;
}

const COLUMNS = 'client_id, workspace_id, scopes, status, label, created_at, updated_at, last_used_at';

export interface IssuedCredential {
  clientId: string;
  clientSecret: string;
  scopes: string[];
}

/** Creates a credential; the secret is returned here once and stored only as a keyed digest (src/lib/secrets.ts). */
export async function createCredential(
  tx: Tx,
  key: SecretDigestKey,
  workspaceId: string,
  options: { scopes?: readonly string[] | undefined; clientId?: string | undefined; clientSecret?: string | undefined; label?: string | undefined } = {},
): Promise<IssuedCredential> {
  const clientId = options.clientId ?? newId();
  const clientSecret = options.clientSecret ?? randomSecret('cs_');
  const scopes = [...(options.scopes ?? ALL_SCOPES)];
  await tx.query('INSERT INTO credentials (client_id, workspace_id, secret_hash, scopes, label) VALUES ($1, $2, $3, $4, $5)', [
    clientId,
    workspaceId,
    hashSecret(clientSecret, key),
    scopes,
    options.label ?? null,
  ]);
  return { clientId, clientSecret, scopes };
}

/** Replaces a credential's secret hash (bootstrap with a configured secret). */
export async function setCredentialSecret(sql: Sql, key: SecretDigestKey, clientId: string, clientSecret: string): Promise<void> {
  await sql.query('UPDATE credentials SET secret_hash = $2, updated_at = now() WHERE client_id = $1', [clientId, hashSecret(clientSecret, key)]);
}

/**
 * The credential for a client id and secret, or undefined. An unknown id is checked against a dummy
 * digest, so the answer time does not tell which of the two was wrong. A secret still stored as
 * scrypt (earlier releases) is rehashed on its first successful use.
 */
export async function authenticateClient(sql: Sql, key: SecretDigestKey, clientId: string, clientSecret: string): Promise<CredentialRow | undefined> {
  const row = isUuid(clientId)
    ? await maybeOne<CredentialRow & { secret_hash: string }>(sql, `SELECT ${COLUMNS}, secret_hash FROM credentials WHERE client_id = $1`, [clientId])
    : undefined;
  const ok = await verifySecret(clientSecret, row?.secret_hash ?? DUMMY_SECRET_HASH, key);
  if (!row || !ok || row.status !== 'active') return undefined;
  if (isCurrentHash(row.secret_hash)) {
    await sql.query('UPDATE credentials SET last_used_at = now() WHERE client_id = $1', [clientId]);
  } else {
    await sql.query('UPDATE credentials SET last_used_at = now(), secret_hash = $2 WHERE client_id = $1', [clientId, hashSecret(clientSecret, key)]);
  }
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
  return paginate(sql, page, {
    object: 'api_key.list',
    from: `SELECT ${COLUMNS} FROM credentials`,
    where: ['workspace_id = $1'],
    params: [workspaceId],
    idColumn: 'client_id',
    map: (row: CredentialRow) => credentialData(row),
  });
}

/**
 * Replaces a credential's scopes on behalf of a caller holding `callerScopes`. The caller may add
 * or remove only scopes it holds itself (`write:x` covers `read:x`); a scope it lacks stays as the
 * target has it. So `write:api_keys` is not a way to any other scope.
 */
export async function updateScopes(tx: Tx, workspaceId: string, clientId: string, scopes: string[], callerScopes: readonly string[]): Promise<CredentialRow> {
  const current = isUuid(clientId)
    ? await maybeOne<{ scopes: string[] }>(tx, 'SELECT scopes FROM credentials WHERE workspace_id = $1 AND client_id = $2 FOR UPDATE', [workspaceId, clientId])
    : undefined;
  if (!current) throw notFound('API key');
  const wanted = [...new Set(scopes)];
  const beyondCaller = scopesChangedBeyond(current.scopes, wanted, callerScopes);
  if (beyondCaller.length) {
    throw forbidden('METHOD_NOT_ENTITLED', `This credential lacks the scope ${beyondCaller.join(', ')}, so it cannot grant or remove it`);
  }
  return one<CredentialRow>(
    tx,
    `UPDATE credentials SET scopes = $3, updated_at = now() WHERE workspace_id = $1 AND client_id = $2 RETURNING ${COLUMNS}`,
    [workspaceId, clientId, wanted],
  );
}

/** The scopes a change from `before` to `after` adds or removes that `held` does not cover. Pure. */
export function scopesChangedBeyond(before: readonly string[], after: readonly string[], held: readonly string[]): string[] {
  const changed = [...after.filter((s) => !before.includes(s)), ...before.filter((s) => !after.includes(s))];
  return [...new Set(changed)].filter((s) => !held.includes(s) && !(isScope(s) && hasScope(held, s)));
}
