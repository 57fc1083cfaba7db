import type { Sql } from '../../platform/db/db.js';
import { maybeOne, one } from '../../platform/db/db.js';
import { paginate, type PageRequest } from '../../platform/db/pagination.js';

/** All SQL of the credentials table. Secrets cross this boundary only as digests. */

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

export async function insertCredential(
  sql: Sql,
  c: { clientId: string; workspaceId: string; secretHash: string; scopes: readonly string[]; label: string | null; issuedToUser?: string | null | undefined },
): Promise<void> {
  await sql.query('INSERT INTO credentials (client_id, workspace_id, secret_hash, scopes, label, issued_to_user) VALUES ($1, $2, $3, $4, $5, $6)', [
    c.clientId,
    c.workspaceId,
    c.secretHash,
    c.scopes,
    c.label,
    c.issuedToUser ?? null,
  ]);
}

/** The dashboard user each credential's secret was shown to (null: the operator's), by client id. */
export async function issuedToUsers(sql: Sql, workspaceId: string, clientIds: readonly string[]): Promise<Map<string, string | null>> {
  const rows = await sql.query<{ client_id: string; issued_to_user: string | null }>(
    'SELECT client_id, issued_to_user FROM credentials WHERE workspace_id = $1 AND client_id = ANY($2::uuid[])',
    [workspaceId, clientIds],
  );
  return new Map(rows.map((r) => [r.client_id, r.issued_to_user]));
}

export async function setSecretHash(sql: Sql, clientId: string, secretHash: string): Promise<void> {
  await sql.query('UPDATE credentials SET secret_hash = $2, updated_at = now() WHERE client_id = $1', [clientId, secretHash]);
}

export type CredentialWithSecrets = CredentialRow & { secret_hash: string; previous_secret_hash: string | null; previous_valid: boolean };

/** A credential with its secret digests, and whether the previous one is still inside its grace period (the database clock decides). */
export async function findWithSecrets(sql: Sql, clientId: string): Promise<CredentialWithSecrets | undefined> {
  return maybeOne<CredentialWithSecrets>(
    sql,
    `SELECT ${COLUMNS}, secret_hash, previous_secret_hash, coalesce(previous_secret_expires_at > now(), false) AS previous_valid
       FROM credentials WHERE client_id = $1`,
    [clientId],
  );
}

/** Notes a use at most once per `resolutionSec` (always when `rehash` replaces the secret digest). */
export async function markUsed(sql: Sql, clientId: string, rehash: string | null, resolutionSec: number): Promise<void> {
  await sql.query(
    `UPDATE credentials SET last_used_at = now(), secret_hash = coalesce($2, secret_hash)
      WHERE client_id = $1 AND ($2::text IS NOT NULL OR last_used_at IS NULL OR last_used_at < now() - make_interval(secs => $3))`,
    [clientId, rehash, resolutionSec],
  );
}

/** The current secret becomes the previous one for `graceSeconds`; answers when that ends. */
export async function rotateSecret(sql: Sql, workspaceId: string, clientId: string, secretHash: string, graceSeconds: number): Promise<Date> {
  const row = await one<{ previous_secret_expires_at: Date }>(
    sql,
    `UPDATE credentials
        SET previous_secret_hash = secret_hash, previous_secret_expires_at = now() + make_interval(secs => $4),
            secret_hash = $3, updated_at = now()
      WHERE workspace_id = $1 AND client_id = $2 RETURNING previous_secret_expires_at`,
    [workspaceId, clientId, secretHash, graceSeconds],
  );
  return row.previous_secret_expires_at;
}

export async function revoke(sql: Sql, workspaceId: string, clientId: string): Promise<CredentialRow> {
  return one<CredentialRow>(
    sql,
    `UPDATE credentials SET status = 'revoked', revoked_at = now(), previous_secret_hash = NULL, previous_secret_expires_at = NULL, updated_at = now()
      WHERE workspace_id = $1 AND client_id = $2 RETURNING ${COLUMNS}`,
    [workspaceId, clientId],
  );
}

export async function findCredential(sql: Sql, workspaceId: string, clientId: string, forUpdate = false): Promise<CredentialRow | undefined> {
  return maybeOne<CredentialRow>(sql, `SELECT ${COLUMNS} FROM credentials WHERE workspace_id = $1 AND client_id = $2${forUpdate ? ' FOR UPDATE' : ''}`, [
    workspaceId,
    clientId,
  ]);
}

/** A credential's workspace and secret digest, by client id alone (bootstrap's demo credential). */
export async function findOwnerAndSecret(sql: Sql, clientId: string): Promise<{ workspace_id: string; secret_hash: string } | undefined> {
  return maybeOne(sql, 'SELECT workspace_id, secret_hash FROM credentials WHERE client_id = $1', [clientId]);
}

export async function lockScopes(sql: Sql, workspaceId: string, clientId: string): Promise<{ scopes: string[] } | undefined> {
  return maybeOne<{ scopes: string[] }>(sql, 'SELECT scopes FROM credentials WHERE workspace_id = $1 AND client_id = $2 FOR UPDATE', [workspaceId, clientId]);
}

export async function setScopes(sql: Sql, workspaceId: string, clientId: string, scopes: readonly string[]): Promise<CredentialRow> {
  return one<CredentialRow>(sql, `UPDATE credentials SET scopes = $3, updated_at = now() WHERE workspace_id = $1 AND client_id = $2 RETURNING ${COLUMNS}`, [
    workspaceId,
    clientId,
    scopes,
  ]);
}

export function listCredentials<Item>(sql: Sql, workspaceId: string, page: PageRequest, map: (row: CredentialRow) => Item) {
  return paginate(sql, page, { object: 'api_key.list', from: `SELECT ${COLUMNS} FROM credentials`, where: ['workspace_id = $1'], params: [workspaceId], idColumn: 'client_id', map });
}

/** A credential as authentication uses it, with its workspace. */
export interface CredentialGrantRow {
  scopes: string[];
  status: string;
  workspace_id: string;
  workspace_status: string;
  disabled_capabilities: string[];
  enabled_currencies: string[];
  settings: Record<string, unknown>;
}

/** One round trip: the credential's current scopes, its workspace, and the named sub-account if that workspace owns it. */
export async function readGrant(sql: Sql, clientId: string, workspaceId: string, subAccountId: string | null): Promise<(CredentialGrantRow & { sub_account_id: string | null }) | undefined> {
  return maybeOne(
    sql,
    `SELECT c.scopes, c.status, c.workspace_id, w.status AS workspace_status, w.disabled_capabilities, w.enabled_currencies, w.settings,
            (SELECT a.id FROM accounts a
              WHERE a.id = $3::uuid AND a.workspace_id = c.workspace_id AND a.account_type = 'sub') AS sub_account_id
       FROM credentials c JOIN workspaces w ON w.id = c.workspace_id
      WHERE c.client_id = $1::uuid AND c.workspace_id = $2::uuid`,
    [clientId, workspaceId, subAccountId],
  );
}

/** Until when a rotated credential's previous secret still works (the database clock decides), or null when it does not. */
export async function previousSecretExpiry(sql: Sql, workspaceId: string, clientId: string): Promise<Date | null> {
  const row = await maybeOne<{ previous_secret_expires_at: Date }>(
    sql,
    `SELECT previous_secret_expires_at FROM credentials
      WHERE workspace_id = $1 AND client_id = $2 AND status = 'active' AND previous_secret_expires_at > now()`,
    [workspaceId, clientId],
  );
  return row?.previous_secret_expires_at ?? null;
}
