import type { Config } from '../../platform/config.js';
import type { Db, Sql, Tx } from '../../platform/db/db.js';
import { conflict, fieldError, notFound } from '../../platform/lib/errors.js';
import type { PageRequest } from '../../platform/db/pagination.js';
import type { CryptoBox } from '../../platform/lib/crypto-box.js';
import { isUuid, newId } from '../../platform/lib/ids.js';
import { hashPassword, hashSecret, randomSecret, verifyPassword } from '../../platform/lib/secrets.js';
import { passwordWeakness } from '../../platform/lib/password-strength.js';
import { matchTotp, newTotpSecret } from '../../platform/lib/totp.js';
import { getWorkspace } from '../accounts/accounts.service.js';
import { endUserSessions } from './sessions.service.js';
import * as repo from './users.repository.js';
import type { UserRole, UserRow } from './users.repository.js';
import { assertOperatorRight, assertWorkspaceRight, isOperatorRole, isWorkspaceRole, OPERATOR_ROLES, WORKSPACE_ROLES, type OperatorRole, type WorkspaceRole } from './rights.js';

export type { UserRole } from './users.repository.js';
/** Whose users: a workspace's (they sign in to its dashboard), or with null the operator's own (the console). */
export type UserOwner = string | null;
export const PASSWORD_LENGTH_MIN = 12;
export const PASSWORD_LENGTH_MAX = 200;
const EMAIL = /^[^\s@]{1,64}@[^\s@]{1,255}\.[^\s@]{1,63}$/;

export interface UserView {
  id: string;
  /** Null for an operator user. */
  workspaceId: string | null;
  email: string;
  role: UserRole;
  status: repo.UserStatus;
  twoFactor: boolean;
  invitationExpiresAt: string | null;
  createdAt: string;
}

export interface Invitation {
  user: UserView;
  /** The single-use link the person opens to set their password (shown once: only its digest is kept). */
  invitationUrl: string;
}

export function userData(box: CryptoBox, row: UserRow): UserView {
  return {
    id: row.id,
    workspaceId: row.workspace_id,
    email: box.decrypt(row.email_encrypted),
    role: row.role,
    status: row.status,
    twoFactor: row.totp_secret_encrypted !== null,
    invitationExpiresAt: row.invitation_expires_at?.toISOString() ?? null,
    createdAt: row.created_at.toISOString(),
  };
}

function normalEmail(email: string): string {
  const normal = email.trim().toLowerCase();
  if (!EMAIL.test(normal) || normal.length > 320) throw fieldError('email', 'email is not an email address');
  return normal;
}

const emailDigest = (box: CryptoBox, email: string): string => box.hmac('dashboard-user-email', email).toString('base64url');

export interface InvitationOptions {
  baseUrl: string;
  invitationTtlMs: number;
}

/** Where invitation links point and how long they work (PUBLIC_BASE_URL, DASHBOARD_INVITATION_TTL_MS). */
export function invitationOptions(config: Config): InvitationOptions {
  return { baseUrl: config.publicBaseUrl, invitationTtlMs: config.web.invitationTtlMs };
}

/** A path's user id: anything but a UUID names no user. */
function userIdOf(id: string): string {
  if (!isUuid(id)) throw notFound('User');
  return id;
}

/** The face a user signs in to: a workspace's user the dashboard, an operator user the console. */
export function areaOf(user: { workspaceId: string | null }): 'dashboard' | 'console' {
  return user.workspaceId === null ? 'console' : 'dashboard';
}

export function invitationLink(baseUrl: string, owner: UserOwner, token: string): string {
  return `${baseUrl}/${areaOf({ workspaceId: owner })}/invitation?token=${token}`;
}

const userExists = () => conflict('USER_EXISTS', 'A user with this email already exists');

/** A role for a user of this owner: a workspace role for a workspace's user, an operator role for an operator user. */
function roleFor(owner: UserOwner, role: unknown): UserRole {
  if (owner === null ? isOperatorRole(role) : isWorkspaceRole(role)) return role as UserRole;
  throw fieldError('role', `role must be one of ${(owner === null ? OPERATOR_ROLES : WORKSPACE_ROLES).join(', ')}`);
}

/**
 * Who manages users: the operator (its key, or an operator user whose role has the `workspaces`
 * right), or a workspace's user whose role has the `workspace` right, for that workspace only.
 */
export type UserManager = { operator: OperatorRole | undefined } | { workspaceRole: WorkspaceRole };

/** Refuses a manager without the right to manage users (403 ROLE_NOT_PERMITTED). */
export function assertManagesUsers(manager: UserManager): void {
  if ('operator' in manager) assertOperatorRight({ role: manager.operator }, 'workspaces');
  else assertWorkspaceRight({ role: manager.workspaceRole }, 'workspace');
}

/** The operator key: every right. */
export const OPERATOR_KEY: UserManager = { operator: undefined };

/**
 * The operator (API or console) or a workspace admin invites a person; the link is returned since
 * there is no mail server. With a null owner the person is an operator user (an operator role,
 * `administrator` when none is given, as every operator user was before roles).
 */
export async function inviteUser(
  tx: Tx,
  box: CryptoBox,
  options: InvitationOptions,
  workspaceId: UserOwner,
  input: { email: string; role?: string | undefined },
  inviter: { seesEveryOwner: boolean; manager: UserManager } = { seesEveryOwner: true, manager: OPERATOR_KEY },
): Promise<Invitation> {
  assertManagesUsers(inviter.manager);
  const role = roleFor(workspaceId, workspaceId === null ? (input.role ?? 'administrator') : input.role);
  const email = normalEmail(input.email);
  if (workspaceId !== null) await getWorkspace(tx, workspaceId);
  // The operator sees every workspace: told the email is taken. A workspace admin is not told that
  // an email belongs elsewhere: the invitation is made as for any email and cannot be accepted.
  if (inviter.seesEveryOwner && (await repo.findUserByEmail(tx, emailDigest(box, email)))) throw userExists();
  const token = randomSecret('inv_');
  const row = await repo.insertInvitedUser(tx, {
    id: newId(),
    workspaceId,
    emailDigest: emailDigest(box, email),
    emailEncrypted: box.encrypt(email),
    role,
    invitationDigest: hashSecret(token, box),
    invitationExpiresAt: new Date(Date.now() + options.invitationTtlMs),
  });
  if (!row) throw userExists();
  return { user: userData(box, row), invitationUrl: invitationLink(options.baseUrl, workspaceId, token) };
}

/** A fresh link for an invitation not yet accepted; the earlier link stops working. */
export async function reinviteUser(sql: Sql, box: CryptoBox, options: InvitationOptions, workspaceId: UserOwner, userId: string, manager: UserManager = OPERATOR_KEY): Promise<Invitation> {
  assertManagesUsers(manager);
  const token = randomSecret('inv_');
  const row = await repo.renewInvitation(sql, workspaceId, userIdOf(userId), hashSecret(token, box), new Date(Date.now() + options.invitationTtlMs));
  if (!row) {
    if (await repo.findWorkspaceUser(sql, workspaceId, userId)) throw conflict('USER_NOT_INVITED', 'This user has already accepted their invitation');
    throw notFound('User');
  }
  return { user: userData(box, row), invitationUrl: invitationLink(options.baseUrl, workspaceId, token) };
}

/** The invitation a link's token opens, while it is unspent and unexpired. */
export async function findInvitation(sql: Sql, box: CryptoBox, token: string): Promise<UserView | undefined> {
  if (!/^inv_[A-Za-z0-9_-]{43}$/.test(token)) return undefined;
  const row = await repo.findUserByInvitation(sql, hashSecret(token, box));
  return row ? userData(box, row) : undefined;
}

/** A password a person chooses: long enough, not their email, not easy to guess (zxcvbn), typed twice alike. */
export function checkNewPassword(password: string, confirmation: string, email: string): void {
  if (password.length < PASSWORD_LENGTH_MIN) throw fieldError('password', `The password must have at least ${PASSWORD_LENGTH_MIN} characters`);
  if (password.length > PASSWORD_LENGTH_MAX) throw fieldError('password', `The password must have at most ${PASSWORD_LENGTH_MAX} characters`);
  if (password.toLowerCase().includes(email.split('@')[0]!.toLowerCase()) && email.split('@')[0]!.length >= 4) {
    throw fieldError('password', 'The password must not contain your email address');
  }
  const weakness = passwordWeakness(password, [email, ...email.split(/[@.]/)]);
  if (weakness) throw fieldError('password', weakness, 'PASSWORD_TOO_WEAK');
  if (password !== confirmation) throw fieldError('confirmation', 'The two passwords differ');
}

/** Sets the password and spends the invitation (once, even when two tabs submit together). */
export async function acceptInvitation(db: Db, box: CryptoBox, token: string, password: string, confirmation: string): Promise<UserView> {
  const invited = await findInvitation(db, box, token);
  if (!invited) throw notFound('Invitation');
  checkNewPassword(password, confirmation, invited.email);
  const row = await repo.activateInvitedUser(db, hashSecret(token, box), await hashPassword(password));
  if (!row) throw notFound('Invitation');
  return userData(box, row);
}

/**
 * The user an email and password sign in to `area`, or undefined: one answer for an unknown email,
 * a wrong password, a disabled user and a user of the other face (the password is checked all the same).
 */
export async function checkPassword(sql: Sql, box: CryptoBox, area: 'dashboard' | 'console', email: string, password: string): Promise<UserRow | undefined> {
  const normal = email.trim().toLowerCase();
  const found = normal.length <= 320 ? await repo.findUserByEmail(sql, emailDigest(box, normal)) : undefined;
  const row = found?.status === 'active' && areaOf({ workspaceId: found.workspace_id }) === area ? found : undefined;
  const ok = await verifyPassword(password.slice(0, PASSWORD_LENGTH_MAX), row?.password_hash ?? undefined);
  return ok ? row : undefined;
}

/** Checks a TOTP code of a user with a second factor; a code is good once. */
export async function checkSecondFactor(sql: Sql, box: CryptoBox, userId: string, code: string): Promise<boolean> {
  const row = await repo.findUser(sql, userId);
  if (!row?.totp_secret_encrypted) return false;
  const step = matchTotp(box.decrypt(row.totp_secret_encrypted), code.replace(/\s/g, ''), Date.now(), row.totp_last_step === null ? null : Number(row.totp_last_step));
  return step !== undefined && (await repo.spendTotpStep(sql, userId, step));
}

/** A new TOTP secret to enrol: kept by the page (sealed) until a code from it is confirmed. */
export function newSecondFactor(): string {
  return newTotpSecret();
}

/** Turns the second factor on once the person shows a code from their app; other sessions end. */
export async function enableSecondFactor(tx: Tx, box: CryptoBox, userId: string, secret: string, code: string, keep: { token: string }): Promise<void> {
  const step = matchTotp(secret, code.replace(/\s/g, ''), Date.now(), null);
  if (step === undefined) throw fieldError('code', 'The code does not match: check the time on your device and try the current code');
  await repo.setTotp(tx, userId, box.encrypt(secret), step);
  await endUserSessions(tx, userId, { box, token: keep.token });
}

export async function disableSecondFactor(sql: Sql, userId: string): Promise<void> {
  await repo.setTotp(sql, userId, null, null);
}

/** The emails of these users (dashboard or operator users), by id: to name them where only their id is kept (the audit log). */
export async function userEmails(sql: Sql, box: CryptoBox, ids: readonly string[]): Promise<Map<string, string>> {
  const valid = [...new Set(ids)].filter(isUuid);
  if (valid.length === 0) return new Map();
  return new Map((await repo.findUsers(sql, valid)).map((row) => [row.id, box.decrypt(row.email_encrypted)]));
}

export async function listUsers(sql: Sql, box: CryptoBox, workspaceId: UserOwner, page: PageRequest) {
  return repo.listWorkspaceUsers(sql, workspaceId, page, (row) => userData(box, row));
}

/**
 * An admin changes another user's role or disables them (a disabled user's sessions end at once).
 * Nobody changes themselves, so a workspace (or the operator) never loses its last admin by accident.
 * A role change takes effect on the user's next request (sessions read the role each time).
 */
export async function changeUser(
  tx: Tx,
  box: CryptoBox,
  workspaceId: UserOwner,
  actor: { userId: string | undefined; manager: UserManager },
  userId: string,
  change: { role?: string; status?: 'active' | 'disabled' },
): Promise<UserView> {
  assertManagesUsers(actor.manager);
  const role = change.role === undefined ? undefined : roleFor(workspaceId, change.role);
  const actingUserId = actor.userId;
  if (change.status !== undefined && change.status !== 'active' && change.status !== 'disabled') throw fieldError('status', 'status must be active or disabled');
  const row = await repo.findWorkspaceUser(tx, workspaceId, userIdOf(userId), true);
  if (!row) throw notFound('User');
  if (userId === actingUserId) throw conflict('CANNOT_CHANGE_SELF', 'You cannot change your own role or disable yourself');
  if (change.status === 'active' && row.status !== 'disabled') throw conflict('USER_NOT_DISABLED', 'Only a disabled user can be enabled again');
  if (change.status !== undefined && row.status === 'invited') throw conflict('USER_NOT_ACTIVE', 'An invited user has not signed in yet');
  const updated = await repo.updateUser(tx, userId, { role, status: change.status });
  if (change.status === 'disabled') await endUserSessions(tx, userId);
  return userData(box, updated);
}

/**
 * The user a company's identity provider signs in to `owner` (a workspace, or with null the
 * console) by a verified email: found there (its role set to the one the provider's claim maps to),
 * or provisioned (an invitation to the email there is taken up). Undefined when the email belongs
 * to another owner's user or to a disabled user: a provider never opens another workspace.
 */
export async function companyUser(tx: Tx, box: CryptoBox, owner: UserOwner, email: string, role: UserRole): Promise<UserRow | undefined> {
  const normal = normalEmail(email);
  const digest = emailDigest(box, normal);
  const found = await repo.findUserByEmail(tx, digest);
  if (found && found.status !== 'invited') {
    if (found.workspace_id !== owner || found.status !== 'active') return undefined;
    return found.role === role ? found : repo.updateUser(tx, found.id, { role });
  }
  return (
    (await repo.activateCompanyInvitation(tx, owner, digest, role)) ??
    (await repo.insertCompanyUser(tx, { id: newId(), workspaceId: owner, emailDigest: digest, emailEncrypted: box.encrypt(normal), role }))
  );
}
