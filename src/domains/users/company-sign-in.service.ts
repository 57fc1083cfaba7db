import * as oidc from 'openid-client';
import type { Db, Sql } from '../../platform/db/db.js';
import type { CryptoBox } from '../../platform/lib/crypto-box.js';
import { fieldError, notFound } from '../../platform/lib/errors.js';
import { getWorkspace } from '../accounts/accounts.service.js';
import * as repo from './company-sign-in.repository.js';
import type { UserRole, UserRow } from './users.repository.js';
import { WORKSPACE_ROLES } from './rights.js';
import { companyUser, type UserOwner } from './users.service.js';

/**
 * Sign-in for companies: a person signs in to the dashboard (or the console) through their
 * company's OpenID Connect provider, with openid-client's authorization code flow (PKCE, state and
 * nonce checked). The person is found, or provisioned, by their verified email within the owner
 * of the provider (a workspace, or the operator for the console's provider) and their role is read
 * from a claim. Passwords and the second factor stay for everyone else.
 */

/** Which values of the role claim give which role, in order: the first value the person has wins. */
export type RoleMap<Role extends UserRole> = ReadonlyArray<readonly [value: string, role: Role]>;

export interface CompanyProvider<Role extends UserRole = UserRole> {
  issuer: string;
  clientId: string;
  clientSecret: string;
  /** The claim the role is read from; a dotted path reads a nested claim (`realm_access.roles`). */
  roleClaim: string;
  roleMap: RoleMap<Role>;
  /** A plain-HTTP issuer is taken only outside production (a provider on the machine, in tests). */
  allowHttp: boolean;
}

/** What the browser keeps (sealed) between leaving for the provider and coming back. */
export interface PendingSignIn {
  state: string;
  nonce: string;
  codeVerifier: string;
}

const ISSUER_LENGTH_MAX = 500;
const ROLE_MAP_ENTRIES_MAX = 50;
const DOMAIN = /^(?=.{1,253}$)([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z]{2,63}$/;

/** `value=role` entries, one a line or comma-separated; every role one of `roles`. */
export function parseRoleMap<Role extends UserRole>(text: string, roles: readonly Role[], field: string): RoleMap<Role> {
  const entries = text
    .split(/[\n,]/)
    .map((line) => line.trim())
    .filter(Boolean)
    .map((line) => {
      const at = line.lastIndexOf('=');
      const value = line.slice(0, at).trim();
      const role = line.slice(at + 1).trim() as Role;
      if (at <= 0 || value === '') throw fieldError(field, `"${line}" is not value=role`);
      if (!roles.includes(role)) throw fieldError(field, `"${role}" is not a role: roles are ${roles.join(', ')}`);
      return [value, role] as const;
    });
  if (entries.length === 0) throw fieldError(field, 'map at least one claim value to a role (value=role)');
  if (entries.length > ROLE_MAP_ENTRIES_MAX) throw fieldError(field, `at most ${ROLE_MAP_ENTRIES_MAX} entries`);
  return entries;
}

export function roleMapText(map: RoleMap<UserRole>): string {
  return map.map(([value, role]) => `${value}=${role}`).join('\n');
}

/** The claim's values (a string, or a list of them), following a dotted path. */
function claimValues(claims: Record<string, unknown>, name: string): string[] {
  let value: unknown = name in claims ? claims[name] : claims;
  if (!(name in claims)) for (const part of name.split('.')) value = value !== null && typeof value === 'object' ? (value as Record<string, unknown>)[part] : undefined;
  if (typeof value === 'string') return [value];
  return Array.isArray(value) ? value.filter((v): v is string => typeof v === 'string') : [];
}

/** The role the person's claim gives: the first entry of the map whose value they have; undefined for none. */
export function mappedRole<Role extends UserRole>(claims: Record<string, unknown>, claimName: string, map: RoleMap<Role>): Role | undefined {
  const values = new Set(claimValues(claims, claimName));
  return map.find(([value]) => values.has(value))?.[1];
}

export function checkIssuer(issuer: string, allowHttp: boolean, field = 'issuer'): string {
  let url: URL;
  try {
    url = new URL(issuer);
  } catch {
    throw fieldError(field, 'issuer is not a URL');
  }
  if (issuer.length > ISSUER_LENGTH_MAX || url.search || url.hash) throw fieldError(field, 'issuer must be the provider\'s issuer URL, without query or fragment');
  if (url.protocol !== 'https:' && !(allowHttp && url.protocol === 'http:')) throw fieldError(field, 'issuer must be an https URL');
  return issuer.replace(/\/$/, '');
}

/** The provider's settings, from its discovery document (fetched at each sign-in: a provider may rotate its keys and endpoints). */
async function discover(provider: CompanyProvider): Promise<oidc.Configuration> {
  const insecure = provider.allowHttp && provider.issuer.startsWith('http:');
  return oidc.discovery(new URL(provider.issuer), provider.clientId, provider.clientSecret, undefined, insecure ? { execute: [oidc.allowInsecureRequests] } : undefined);
}

/** Where the browser goes to sign in at the provider, and what must come back with it. */
export async function beginSignIn(provider: CompanyProvider, redirectUri: string, loginHint?: string): Promise<{ url: string; pending: PendingSignIn }> {
  const config = await discover(provider);
  const pending = { state: oidc.randomState(), nonce: oidc.randomNonce(), codeVerifier: oidc.randomPKCECodeVerifier() };
  const url = oidc.buildAuthorizationUrl(config, {
    redirect_uri: redirectUri,
    scope: 'openid email profile',
    response_type: 'code',
    code_challenge: await oidc.calculatePKCECodeChallenge(pending.codeVerifier),
    code_challenge_method: 'S256',
    state: pending.state,
    nonce: pending.nonce,
    ...(loginHint ? { login_hint: loginHint } : {}),
  });
  return { url: url.href, pending };
}

/**
 * The person the provider's answer names: the code exchanged (with the PKCE verifier), the ID
 * token's signature, issuer, audience and nonce checked and the state matched (openid-client), its
 * claims with the userinfo endpoint's. Throws on any mismatch.
 */
export async function finishSignIn(provider: CompanyProvider, callbackUrl: URL, pending: PendingSignIn): Promise<Record<string, unknown>> {
  const config = await discover(provider);
  const tokens = await oidc.authorizationCodeGrant(config, callbackUrl, {
    pkceCodeVerifier: pending.codeVerifier,
    expectedState: pending.state,
    expectedNonce: pending.nonce,
    idTokenExpected: true,
  });
  const idClaims = tokens.claims() as Record<string, unknown>;
  const userinfo = config.serverMetadata().userinfo_endpoint ? await oidc.fetchUserInfo(config, tokens.access_token, String(idClaims.sub)) : {};
  return { ...userinfo, ...idClaims };
}

export type CompanySignIn = { user: UserRow } | { refused: string };

/**
 * The user the claims sign in to `owner`: the email verified by the provider (and, for a
 * workspace's provider, of the company's domain), a role the claim maps to, and the email not
 * another owner's.
 */
export async function companySignIn<Role extends UserRole>(
  db: Db,
  box: CryptoBox,
  owner: UserOwner,
  provider: CompanyProvider<Role>,
  claims: Record<string, unknown>,
  emailDomain?: string,
): Promise<CompanySignIn> {
  const email = typeof claims.email === 'string' ? claims.email.trim().toLowerCase() : '';
  if (!email || claims.email_verified !== true) return { refused: 'Your company did not give a verified email address, so Corridor cannot tell who you are.' };
  if (emailDomain !== undefined && email.split('@').pop() !== emailDomain) return { refused: 'Your company signed you in with an email of another domain.' };
  const role = mappedRole(claims, provider.roleClaim, provider.roleMap);
  if (!role) return { refused: 'Your company account has no role in Corridor. Ask your administrator to give you one.' };
  const user = await db.tx((tx) => companyUser(tx, box, owner, email, role));
  return user ? { user } : { refused: 'This account cannot sign in here. Sign in where your account belongs, or ask your administrator.' };
}

// ---- The workspace's provider (the dashboard) ----

export interface ProviderView {
  workspaceId: string;
  issuer: string;
  clientId: string;
  emailDomain: string;
  roleClaim: string;
  roleMap: RoleMap<UserRole>;
  updatedAt: string;
}

function providerView(row: repo.IdentityProviderRow): ProviderView {
  return {
    workspaceId: row.workspace_id,
    issuer: row.issuer,
    clientId: row.client_id,
    emailDomain: row.email_domain,
    roleClaim: row.role_claim,
    roleMap: row.role_map as [string, UserRole][],
    updatedAt: row.updated_at.toISOString(),
  };
}

export async function workspaceProvider(sql: Sql, workspaceId: string): Promise<ProviderView | undefined> {
  const row = await repo.findProvider(sql, workspaceId);
  return row ? providerView(row) : undefined;
}

export interface ProviderInput {
  issuer: string;
  clientId: string;
  /** Empty: keep the secret already set. */
  clientSecret: string;
  emailDomain: string;
  roleClaim: string;
  roleMap: string;
}

/** A workspace admin sets the workspace's provider (the client secret encrypted at rest). */
export async function setWorkspaceProvider(sql: Sql, box: CryptoBox, workspaceId: string, input: ProviderInput, allowHttp: boolean): Promise<ProviderView> {
  await getWorkspace(sql, workspaceId);
  const issuer = checkIssuer(input.issuer.trim(), allowHttp);
  const clientId = input.clientId.trim();
  if (!clientId || clientId.length > 500) throw fieldError('clientId', 'client id is required (at most 500 characters)');
  const emailDomain = input.emailDomain.trim().toLowerCase().replace(/^@/, '');
  if (!DOMAIN.test(emailDomain)) throw fieldError('emailDomain', 'email domain is not a domain (such as example.com)');
  const roleClaim = input.roleClaim.trim();
  if (!/^[A-Za-z0-9_:.\-/]{1,200}$/.test(roleClaim)) throw fieldError('roleClaim', 'role claim is not a claim name');
  const roleMap = parseRoleMap(input.roleMap, WORKSPACE_ROLES, 'roleMap');
  if (new Set(roleMap.map(([value]) => value)).size !== roleMap.length) throw fieldError('roleMap', 'a claim value appears twice');
  if (input.clientSecret.length > 2000) throw fieldError('clientSecret', 'client secret is too long');
  if (await repo.domainTaken(sql, workspaceId, emailDomain)) throw fieldError('emailDomain', 'another workspace signs in with this email domain');
  const fields = { workspaceId, issuer, clientId, emailDomain, roleClaim, roleMap };
  const row = input.clientSecret
    ? await repo.upsertProvider(sql, { ...fields, clientSecretEncrypted: box.encrypt(input.clientSecret) })
    : await repo.updateProvider(sql, fields);
  if (!row) throw fieldError('clientSecret', 'client secret is required');
  return providerView(row);
}

export async function removeWorkspaceProvider(sql: Sql, workspaceId: string): Promise<void> {
  if (!(await repo.deleteProvider(sql, workspaceId))) throw notFound('Identity provider');
}

/** The workspace and provider a person's email names by its domain; undefined when none does. */
export async function providerForEmail(sql: Sql, box: CryptoBox, email: string, allowHttp: boolean): Promise<{ workspaceId: string; emailDomain: string; provider: CompanyProvider } | undefined> {
  const domain = email.trim().toLowerCase().split('@');
  if (domain.length !== 2 || !domain[1]) return undefined;
  const row = await repo.findProviderByDomain(sql, domain[1]);
  return row ? { workspaceId: row.workspace_id, emailDomain: row.email_domain, provider: workspaceRowProvider(box, row, allowHttp) } : undefined;
}

/** The provider of the workspace a sign-in began with (it may have been removed since: undefined). */
export async function providerOfWorkspace(sql: Sql, box: CryptoBox, workspaceId: string, allowHttp: boolean): Promise<{ emailDomain: string; provider: CompanyProvider } | undefined> {
  const row = await repo.findProvider(sql, workspaceId);
  return row ? { emailDomain: row.email_domain, provider: workspaceRowProvider(box, row, allowHttp) } : undefined;
}

function workspaceRowProvider(box: CryptoBox, row: repo.IdentityProviderRow, allowHttp: boolean): CompanyProvider {
  return {
    issuer: row.issuer,
    clientId: row.client_id,
    clientSecret: box.decrypt(row.client_secret_encrypted),
    roleClaim: row.role_claim,
    roleMap: row.role_map as [string, UserRole][],
    allowHttp,
  };
}
