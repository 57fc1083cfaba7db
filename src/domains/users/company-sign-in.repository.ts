import { maybeOne, one, type Sql } from '../../platform/db/db.js';

/** All SQL of workspace_identity_providers: a workspace's OpenID Connect provider for the dashboard. */

export interface IdentityProviderRow {
  workspace_id: string;
  issuer: string;
  client_id: string;
  client_secret_encrypted: string;
  email_domain: string;
  role_claim: string;
  /** [claim value, role] pairs in order (a JSON array: jsonb keeps no key order). */
  role_map: [string, string][];
  created_at: Date;
  updated_at: Date;
}

export function findProvider(sql: Sql, workspaceId: string): Promise<IdentityProviderRow | undefined> {
  return maybeOne<IdentityProviderRow>(sql, 'SELECT * FROM workspace_identity_providers WHERE workspace_id = $1', [workspaceId]);
}

/** The provider of an active workspace whose email domain this is. */
export function findProviderByDomain(sql: Sql, emailDomain: string): Promise<IdentityProviderRow | undefined> {
  return maybeOne<IdentityProviderRow>(
    sql,
    `SELECT p.* FROM workspace_identity_providers p JOIN workspaces w ON w.id = p.workspace_id
      WHERE p.email_domain = $1 AND w.status = 'active'`,
    [emailDomain],
  );
}

export interface ProviderFields {
  workspaceId: string;
  issuer: string;
  clientId: string;
  emailDomain: string;
  roleClaim: string;
  roleMap: ReadonlyArray<readonly [string, string]>;
}

/** Sets the workspace's provider with a (new) client secret. */
export function upsertProvider(sql: Sql, p: ProviderFields & { clientSecretEncrypted: string }): Promise<IdentityProviderRow> {
  return one<IdentityProviderRow>(
    sql,
    `INSERT INTO workspace_identity_providers (workspace_id, issuer, client_id, client_secret_encrypted, email_domain, role_claim, role_map)
     VALUES ($1, $2, $3, $4, $5, $6, $7::jsonb)
     ON CONFLICT (workspace_id) DO UPDATE SET issuer = EXCLUDED.issuer, client_id = EXCLUDED.client_id,
       client_secret_encrypted = EXCLUDED.client_secret_encrypted, email_domain = EXCLUDED.email_domain,
       role_claim = EXCLUDED.role_claim, role_map = EXCLUDED.role_map, updated_at = now()
     RETURNING *`,
    [p.workspaceId, p.issuer, p.clientId, p.clientSecretEncrypted, p.emailDomain, p.roleClaim, JSON.stringify(p.roleMap)],
  );
}

/** Changes the workspace's provider, keeping its client secret; undefined when it has none. */
export function updateProvider(sql: Sql, p: ProviderFields): Promise<IdentityProviderRow | undefined> {
  return maybeOne<IdentityProviderRow>(
    sql,
    `UPDATE workspace_identity_providers SET issuer = $2, client_id = $3, email_domain = $4, role_claim = $5, role_map = $6::jsonb, updated_at = now()
      WHERE workspace_id = $1 RETURNING *`,
    [p.workspaceId, p.issuer, p.clientId, p.emailDomain, p.roleClaim, JSON.stringify(p.roleMap)],
  );
}

export async function deleteProvider(sql: Sql, workspaceId: string): Promise<boolean> {
  const rows = await sql.query('DELETE FROM workspace_identity_providers WHERE workspace_id = $1 RETURNING 1', [workspaceId]);
  return rows.length === 1;
}

export function domainTaken(sql: Sql, workspaceId: string, emailDomain: string): Promise<boolean> {
  return one<{ taken: boolean }>(sql, 'SELECT EXISTS (SELECT 1 FROM workspace_identity_providers WHERE email_domain = $1 AND workspace_id <> $2) AS taken', [
    emailDomain,
    workspaceId,
  ]).then((r) => r.taken);
}
