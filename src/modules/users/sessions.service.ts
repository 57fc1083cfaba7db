import { maybeOne, type Sql } from '../../db/db.js';
import type { CryptoBox } from '../../lib/crypto-box.js';
import { notFound } from '../../lib/errors.js';
import { isUuid } from '../../lib/ids.js';
import { hashSecret, randomSecret, safeEqual } from '../../lib/secrets.js';
import { ownsSubAccount } from '../accounts/accounts.repository.js';
import type { UserRole } from './users.repository.js';

/**
 * Web sessions of the dashboard and the operator console. The cookie carries a random 256-bit
 * token; the database keeps only its digest. A session ends at its absolute expiry, after
 * `idleMs` without a request, or at sign-out; a new one is issued at every sign-in and after the
 * second factor (a token planted before sign-in never becomes a signed-in session).
 */
export interface SessionLimits {
  idleMs: number;
  absoluteMs: number;
}

export type SessionArea = 'dashboard' | 'console';

export interface WebSession {
  area: SessionArea;
  /** The signed-in person: a workspace's user (dashboard sessions) or an operator user (console sessions, workspaceId null). */
  user: { id: string; workspaceId: string | null; role: UserRole; email: string; twoFactor: boolean } | undefined;
  /** The operator key the console was opened with (console sessions opened with a key). */
  operatorKeyId: string | undefined;
  /** Signed in with the password; the TOTP code is still to come (only the second-factor page opens). */
  secondFactorPending: boolean;
  /** The sub-account a dashboard session acts on (as Service-Account-Id), or undefined for the master account. */
  actingAccount: { id: string; name: string } | undefined;
}

interface SessionJoinRow {
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

/** `last_seen_at` is written at most this often (not on every page). */
const TOUCH_RESOLUTION_MS = 60_000;

export async function createSession(
  sql: Sql,
  box: CryptoBox,
  limits: SessionLimits,
  owner: { area: SessionArea; userId: string; secondFactorPending: boolean } | { area: 'console'; operatorKeyId: string },
): Promise<string> {
  const token = randomSecret('', 32);
  await sql.query(
    `INSERT INTO web_sessions (id_digest, area, user_id, operator_key_id, second_factor_pending, expires_at)
     VALUES ($1, $2, $3, $4, $5, now() + make_interval(secs => $6))`,
    [
      hashSecret(token, box),
      owner.area,
      'userId' in owner ? owner.userId : null,
      'operatorKeyId' in owner ? owner.operatorKeyId : null,
      'userId' in owner ? owner.secondFactorPending : false,
      limits.absoluteMs / 1000,
    ],
  );
  return token;
}

/** The live session a cookie's token opens, or undefined (unknown, expired, idle too long, its user disabled or its key revoked). */
export async function readSession(sql: Sql, box: CryptoBox, limits: SessionLimits, token: string): Promise<WebSession | undefined> {
  if (!/^[A-Za-z0-9_-]{43}$/.test(token)) return undefined;
  const digest = hashSecret(token, box);
  const row = await maybeOne<SessionJoinRow>(
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
    [digest, limits.idleMs / 1000],
  );
  if (!row) return undefined;
  if (Date.now() - row.last_seen_at.getTime() > Math.min(TOUCH_RESOLUTION_MS, limits.idleMs / 10)) {
    await sql.query('UPDATE web_sessions SET last_seen_at = now() WHERE id_digest = $1', [digest]);
  }
  return {
    area: row.area,
    user:
      row.user_id !== null
        ? {
            id: row.user_id,
            workspaceId: row.workspace_id,
            role: row.role as UserRole,
            email: box.decrypt(row.email_encrypted as string),
            twoFactor: row.totp_secret_encrypted !== null,
          }
        : undefined,
    operatorKeyId: row.operator_key_id ?? undefined,
    secondFactorPending: row.second_factor_pending,
    actingAccount: row.acting_account_id !== null ? { id: row.acting_account_id, name: row.acting_account_name as string } : undefined,
  };
}

/**
 * The account a dashboard session acts on from now: one of the workspace's sub-accounts, or with
 * null its master account. Another workspace's account, or no account, is refused as not found.
 */
export async function setActingAccount(sql: Sql, box: CryptoBox, token: string, workspaceId: string, accountId: string | null): Promise<void> {
  if (accountId !== null) {
    if (!isUuid(accountId) || !(await ownsSubAccount(sql, workspaceId, accountId))) throw notFound('Account');
  }
  await sql.query('UPDATE web_sessions SET acting_account_id = $2 WHERE id_digest = $1', [hashSecret(token, box), accountId]);
}

export async function endSession(sql: Sql, box: CryptoBox, token: string): Promise<void> {
  await sql.query('DELETE FROM web_sessions WHERE id_digest = $1', [hashSecret(token, box)]);
}

/** Every session of a user ends (their password or second factor changed, or they were disabled). */
export async function endUserSessions(sql: Sql, userId: string, exceptToken?: { box: CryptoBox; token: string }): Promise<void> {
  const keep = exceptToken ? hashSecret(exceptToken.token, exceptToken.box) : null;
  await sql.query('DELETE FROM web_sessions WHERE user_id = $1 AND id_digest IS DISTINCT FROM $2', [userId, keep]);
}

/** Retention: deletes at most `limit` sessions that had ended (expired or idle) before `before`. */
export async function deleteSessionsEndedBefore(sql: Sql, before: Date, limit: number): Promise<number> {
  const rows = await sql.query(
    `DELETE FROM web_sessions WHERE id_digest = ANY(ARRAY(
       SELECT id_digest FROM web_sessions WHERE expires_at < $1 OR last_seen_at < $1
        LIMIT $2 FOR UPDATE SKIP LOCKED)) RETURNING 1`,
    [before, limit],
  );
  return rows.length;
}

/**
 * The CSRF token of a page's forms: an HMAC of the session's token (or, before sign-in, of the
 * browser's pre-session cookie), so it needs no storage and a page of another origin cannot know it.
 */
export function csrfToken(box: CryptoBox, seed: string): string {
  return box.hmac('csrf', seed).toString('base64url');
}

export function csrfTokenMatches(box: CryptoBox, seed: string, presented: unknown): boolean {
  return typeof presented === 'string' && safeEqual(csrfToken(box, seed), presented);
}
