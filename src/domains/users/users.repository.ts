import { maybeOne, one, type Sql } from '../../platform/db/db.js';
import { paginate, type PageRequest } from '../../platform/db/pagination.js';
import type { OperatorRole, WorkspaceRole } from './rights.js';

/** A workspace's user (the dashboard) has a workspace role; an operator user (the console) an operator role (rights.ts). */
export type UserRole = WorkspaceRole | OperatorRole;
export type UserStatus = 'invited' | 'active' | 'disabled';

export interface UserRow {
  id: string;
  /** Null for an operator user. */
  workspace_id: string | null;
  email_digest: string;
  email_encrypted: string;
  role: UserRole;
  status: UserStatus;
  password_hash: string | null;
  totp_secret_encrypted: string | null;
  totp_last_step: string | null;
  invitation_expires_at: Date | null;
  created_at: Date;
  updated_at: Date;
}

/** An invited user; none when the owner already lists the email (an invitation claims no email elsewhere: migration 0020). */
export async function insertInvitedUser(
  sql: Sql,
  user: { id: string; workspaceId: string | null; emailDigest: string; emailEncrypted: string; role: UserRole; invitationDigest: string; invitationExpiresAt: Date },
): Promise<UserRow | undefined> {
  return maybeOne<UserRow>(
    sql,
    `INSERT INTO dashboard_users (id, workspace_id, email_digest, email_encrypted, role, status, invitation_digest, invitation_expires_at)
     VALUES ($1, $2, $3, $4, $5, 'invited', $6, $7)
     ON CONFLICT DO NOTHING RETURNING *`,
    [user.id, user.workspaceId, user.emailDigest, user.emailEncrypted, user.role, user.invitationDigest, user.invitationExpiresAt],
  );
}

/** A new invitation link for a user who has not accepted yet (the previous link stops working). */
export async function renewInvitation(sql: Sql, workspaceId: string | null, userId: string, digest: string, expiresAt: Date): Promise<UserRow | undefined> {
  return maybeOne<UserRow>(
    sql,
    `UPDATE dashboard_users SET invitation_digest = $3, invitation_expires_at = $4, updated_at = now()
      WHERE workspace_id IS NOT DISTINCT FROM $1 AND id = $2 AND status = 'invited' RETURNING *`,
    [workspaceId, userId, digest, expiresAt],
  );
}

/** Another user (active or disabled) already has the email: an invitation to it cannot be accepted. */
const EMAIL_FREE = `NOT EXISTS (SELECT 1 FROM dashboard_users other WHERE other.email_digest = dashboard_users.email_digest AND other.status <> 'invited')`;

/** The invitation a token opens: unspent, unexpired, and to an email no one has taken since. */
export function findUserByInvitation(sql: Sql, digest: string): Promise<UserRow | undefined> {
  return maybeOne<UserRow>(sql, `SELECT * FROM dashboard_users WHERE invitation_digest = $1 AND status = 'invited' AND invitation_expires_at > now() AND ${EMAIL_FREE}`, [digest]);
}

/** Accepting spends the invitation: the compare-and-set on its digest lets one acceptance through. */
export function activateInvitedUser(sql: Sql, digest: string, passwordHash: string): Promise<UserRow | undefined> {
  return maybeOne<UserRow>(
    sql,
    `UPDATE dashboard_users SET status = 'active', password_hash = $2, invitation_digest = NULL, invitation_expires_at = NULL, updated_at = now()
      WHERE invitation_digest = $1 AND status = 'invited' AND invitation_expires_at > now() AND ${EMAIL_FREE} RETURNING *`,
    [digest, passwordHash],
  );
}

/** The user an email names: the one who took it (active or disabled), else an invitation to it (several owners may have invited it). */
export function findUserByEmail(sql: Sql, emailDigest: string): Promise<UserRow | undefined> {
  return maybeOne<UserRow>(sql, `SELECT * FROM dashboard_users WHERE email_digest = $1 ORDER BY status = 'invited', created_at, id LIMIT 1`, [emailDigest]);
}

export function findUsers(sql: Sql, ids: readonly string[]): Promise<UserRow[]> {
  return sql.query<UserRow>('SELECT * FROM dashboard_users WHERE id = ANY($1::uuid[])', [ids]);
}

export function findUser(sql: Sql, id: string): Promise<UserRow | undefined> {
  return maybeOne<UserRow>(sql, 'SELECT * FROM dashboard_users WHERE id = $1', [id]);
}

/** A user of this workspace, or with null an operator user. */
export function findWorkspaceUser(sql: Sql, workspaceId: string | null, id: string, lock = false): Promise<UserRow | undefined> {
  return maybeOne<UserRow>(sql, `SELECT * FROM dashboard_users WHERE workspace_id IS NOT DISTINCT FROM $1 AND id = $2${lock ? ' FOR UPDATE' : ''}`, [workspaceId, id]);
}

export function updateUser(sql: Sql, id: string, fields: { role?: UserRole; status?: UserStatus }): Promise<UserRow> {
  return one<UserRow>(
    sql,
    `UPDATE dashboard_users SET role = COALESCE($2, role), status = COALESCE($3, status), updated_at = now() WHERE id = $1 RETURNING *`,
    [id, fields.role ?? null, fields.status ?? null],
  );
}

export function setTotp(sql: Sql, id: string, secretEncrypted: string | null, lastStep: number | null): Promise<UserRow> {
  return one<UserRow>(sql, 'UPDATE dashboard_users SET totp_secret_encrypted = $2, totp_last_step = $3, updated_at = now() WHERE id = $1 RETURNING *', [
    id,
    secretEncrypted,
    lastStep,
  ]);
}

/** Records a used TOTP step only if it is newer than the last one (a code is good once, even under concurrency). */
export async function spendTotpStep(sql: Sql, id: string, step: number): Promise<boolean> {
  const rows = await sql.query(
    'UPDATE dashboard_users SET totp_last_step = $2 WHERE id = $1 AND (totp_last_step IS NULL OR totp_last_step < $2) RETURNING 1',
    [id, step],
  );
  return rows.length === 1;
}

/** A workspace's users, or with null the operator users. */
export function listWorkspaceUsers<Item>(sql: Sql, workspaceId: string | null, page: PageRequest, map: (row: UserRow) => Item) {
  return paginate(sql, page, {
    object: 'user.list',
    from: 'SELECT * FROM dashboard_users',
    where: workspaceId === null ? ['workspace_id IS NULL'] : ['workspace_id = $1'],
    params: workspaceId === null ? [] : [workspaceId],
    map,
  });
}

/**
 * A person a company's identity provider vouches for, new to Corridor: an active user without a
 * password (none when the owner already lists the email, or another owner's user took it).
 */
export function insertCompanyUser(sql: Sql, user: { id: string; workspaceId: string | null; emailDigest: string; emailEncrypted: string; role: UserRole }): Promise<UserRow | undefined> {
  return maybeOne<UserRow>(
    sql,
    `INSERT INTO dashboard_users (id, workspace_id, email_digest, email_encrypted, role, status)
     VALUES ($1, $2, $3, $4, $5, 'active')
     ON CONFLICT DO NOTHING RETURNING *`,
    [user.id, user.workspaceId, user.emailDigest, user.emailEncrypted, user.role],
  );
}

/** The owner's invitation to this email, taken up through the company's provider: active, the link spent. */
export function activateCompanyInvitation(sql: Sql, workspaceId: string | null, emailDigest: string, role: UserRole): Promise<UserRow | undefined> {
  return maybeOne<UserRow>(
    sql,
    `UPDATE dashboard_users SET status = 'active', role = $3, invitation_digest = NULL, invitation_expires_at = NULL, updated_at = now()
      WHERE workspace_id IS NOT DISTINCT FROM $1 AND email_digest = $2 AND status = 'invited' AND ${EMAIL_FREE} RETURNING *`,
    [workspaceId, emailDigest, role],
  );
}
