import type { Sql } from '../../platform/db/db.js';
import { maybeOne } from '../../platform/db/db.js';
import type { UserRole } from './users.repository.js';

/** All SQL of the web_sessions table. Tokens cross this boundary only as digests. */

export type SessionArea = 'dashboard' | 'console';

export interface SessionJoinRow {
  area: SessionArea;
  user_id: string | null;
  operator_key_id: string | null;
  second_factor_pending: boolean;
  last_seen_at: Date;
  workspace_id: string | null;
  role: UserRole | null;
  email_encrypted: string | null;
  totp_secret_encrypted: string | null;
  acting_account_id: string | null;
  acting_account_name: string | null;
}

export async function insertSession(
  sql: Sql,
  s: { digest: string; area: SessionArea; userId: string | null; operatorKeyId: string | null; secondFactorPending: boolean; lifetimeSec: number },
): Promise<void> {
  await sql.query(
    `INSERT INTO web_sessions (id_digest, area, user_id, operator_key_id, second_factor_pending, expires_at)
     VALUES ($1, $2, $3, $4, $5, now() + make_interval(secs => $6))`,
    [s.digest, s.area, s.userId, s.operatorKeyId, s.secondFactorPending, s.lifetimeSec],
  );
}

/**
 * The live session with this digest, with its user (active, of an active workspace, of the
 * session's area), its acting sub-account and its operator key (not revoked); undefined when any fails.
 */
export async function findLiveSession(sql: Sql, digest: string, idleSec: number): Promise<SessionJoinRow | undefined> {
  return maybeOne<SessionJoinRow>(
    sql,
    `SELECT s.area, s.user_id, s.operator_key_id, s.second_factor_pending, s.last_seen_at,
            u.workspace_id, u.role, u.email_encrypted, u.totp_secret_encrypted,
            a.id AS acting_account_id, a.name AS acting_account_name
       FROM web_sessions s
       LEFT JOIN dashboard_users u ON u.id = s.user_id AND u.status = 'active'
       LEFT JOIN workspaces w ON w.id = u.workspace_id
       LEFT JOIN accounts a ON a.id = s.acting_account_id AND a.workspace_id = u.workspace_id AND a.account_type = 'sub'
       LEFT JOIN operator_keys k ON k.id = s.operator_key_id AND k.revoked_at IS NULL
      WHERE s.id_digest = $1 AND s.expires_at > now()
        AND s.last_seen_at > now() - make_interval(secs => $2)
        AND (s.user_id IS NULL OR (u.id IS NOT NULL AND (u.workspace_id IS NULL) = (s.area = 'console')
                                   AND (u.workspace_id IS NULL OR w.status = 'active')))
        AND (s.operator_key_id IS NULL OR k.id IS NOT NULL)`,
    [digest, idleSec],
  );
}

export async function touchSession(sql: Sql, digest: string): Promise<void> {
  await sql.query('UPDATE web_sessions SET last_seen_at = now() WHERE id_digest = $1', [digest]);
}

export async function setActingAccount(sql: Sql, digest: string, accountId: string | null): Promise<void> {
  await sql.query('UPDATE web_sessions SET acting_account_id = $2 WHERE id_digest = $1', [digest, accountId]);
}

export async function deleteSession(sql: Sql, digest: string): Promise<void> {
  await sql.query('DELETE FROM web_sessions WHERE id_digest = $1', [digest]);
}

/** Deletes every session of the user but the one with digest `keep` (null: all). */
export async function deleteUserSessions(sql: Sql, userId: string, keep: string | null): Promise<void> {
  await sql.query('DELETE FROM web_sessions WHERE user_id = $1 AND id_digest IS DISTINCT FROM $2', [userId, keep]);
}

/** Deletes at most `limit` sessions that had ended (expired or idle) before `before`; answers how many. */
export async function deleteSessionsEndedBefore(sql: Sql, before: Date, limit: number): Promise<number> {
  const rows = await sql.query(
    `DELETE FROM web_sessions WHERE id_digest = ANY(ARRAY(
       SELECT id_digest FROM web_sessions WHERE expires_at < $1 OR last_seen_at < $1
        LIMIT $2 FOR UPDATE SKIP LOCKED)) RETURNING 1`,
    [before, limit],
  );
  return rows.length;
}
