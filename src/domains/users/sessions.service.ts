import type { Sql } from '../../platform/db/db.js';
import type { CryptoBox } from '../../platform/lib/crypto-box.js';
import { notFound } from '../../platform/lib/errors.js';
import { isUuid } from '../../platform/lib/ids.js';
import { hashSecret, randomSecret, safeEqual } from '../../platform/lib/secrets.js';
import { ownsSubAccount } from '../accounts/accounts.service.js';
import * as repo from './sessions.repository.js';
import type { SessionArea } from './sessions.repository.js';
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

export type { SessionArea } from './sessions.repository.js';

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

/** `last_seen_at` is written at most this often (not on every page). */
const TOUCH_RESOLUTION_MS = 60_000;

export async function createSession(
  sql: Sql,
  box: CryptoBox,
  limits: SessionLimits,
  owner: { area: SessionArea; userId: string; secondFactorPending: boolean } | { area: 'console'; operatorKeyId: string },
): Promise<string> {
  const token = randomSecret('', 32);
  await repo.insertSession(sql, {
    digest: hashSecret(token, box),
    area: owner.area,
    userId: 'userId' in owner ? owner.userId : null,
    operatorKeyId: 'operatorKeyId' in owner ? owner.operatorKeyId : null,
    secondFactorPending: 'userId' in owner ? owner.secondFactorPending : false,
    lifetimeSec: limits.absoluteMs / 1000,
  });
  return token;
}

/** The live session a cookie's token opens, or undefined (unknown, expired, idle too long, its user disabled or its key revoked). */
export async function readSession(sql: Sql, box: CryptoBox, limits: SessionLimits, token: string): Promise<WebSession | undefined> {
  if (!/^[A-Za-z0-9_-]{43}$/.test(token)) return undefined;
  const digest = hashSecret(token, box);
  const row = await repo.findLiveSession(sql, digest, limits.idleMs / 1000);
  if (!row) return undefined;
  if (Date.now() - row.last_seen_at.getTime() > Math.min(TOUCH_RESOLUTION_MS, limits.idleMs / 10)) {
    await repo.touchSession(sql, digest);
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
  await repo.setActingAccount(sql, hashSecret(token, box), accountId);
}

export async function endSession(sql: Sql, box: CryptoBox, token: string): Promise<void> {
  await repo.deleteSession(sql, hashSecret(token, box));
}

/** Every session of a user ends (their password or second factor changed, or they were disabled). */
export async function endUserSessions(sql: Sql, userId: string, exceptToken?: { box: CryptoBox; token: string }): Promise<void> {
  const keep = exceptToken ? hashSecret(exceptToken.token, exceptToken.box) : null;
  await repo.deleteUserSessions(sql, userId, keep);
}

/** Retention: deletes at most `limit` sessions that had ended (expired or idle) before `before`. */
export async function deleteSessionsEndedBefore(sql: Sql, before: Date, limit: number): Promise<number> {
  return repo.deleteSessionsEndedBefore(sql, before, limit);
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
