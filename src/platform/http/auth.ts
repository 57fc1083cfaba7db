import type { FastifyInstance, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import type { Redis } from 'ioredis';
import type { AppContext } from '../context.js';
import { hashSecret } from '../lib/secrets.js';
import { hasScope, type Capability, type Scope } from '../../domains/auth/scopes.js';
import { capabilityRefusal, type Caller } from '../../domains/accounts/caller.js';
import { findOperatorKey } from '../../controls/operator/operator.service.js';
import { AuthFailureLimiter, MemoryFailureStore, RedisFailureStore } from './auth-failures.js';
import { CredentialCache, type CredentialGrant } from './credential-cache.js';
import { AppError, unauthorized } from './errors.js';
import { DomainError, forbidden } from '../lib/errors.js';

export interface OperatorContext {
  keyId: string;
}

declare module 'fastify' {
  interface FastifyContextConfig {
    /** Who may call: a workspace credential (default for /v1, /v2), the operator, or anyone. */
    auth?: 'workspace' | 'operator' | 'none';
    /** An operator route whose calls are not written to the audit log (the metrics scrape, every few seconds, reads nothing personal). */
    unaudited?: boolean;
    scope?: Scope;
    capability?: Capability;
  }
  interface FastifyInstance {
    /** Failed operator and token-endpoint authentication per caller: client address and presented id (AUTH_FAILURE_LIMIT_PER_MINUTE). */
    authFailures: AuthFailureLimiter;
    /** Workspace credentials checked again for requests that stay open (the event stream). */
    workspaceAuth: WorkspaceAuth;
  }
  interface FastifyRequest {
    /** The workspace credential's caller (routes with `auth: 'workspace'`). */
    auth: Caller;
    operator: OperatorContext | undefined;
  }
}

function bearerToken(req: FastifyRequest): string | undefined {
  const header = req.headers.authorization;
  if (!header) return undefined;
  const match = /^Bearer ([A-Za-z0-9._~+/=-]+)$/i.exec(header);
  return match?.[1];
}

/**
 * Why the credential as just read may not make a call needing `scope` and `capability`, or undefined
 * when it may. `gone` is the refusal of a credential that is missing or no longer active.
 */
function grantRefusal(
  read: { grant: CredentialGrant | undefined; ownsSubAccount: boolean },
  subAccountId: string | undefined,
  needs: { scope?: Scope | undefined; capability?: Capability | undefined },
  gone: () => DomainError,
): DomainError | undefined {
  const row = read.grant;
  if (!row || row.status !== 'active') return gone();
  if (row.workspace_status !== 'active') return forbidden('WORKSPACE_SUSPENDED', 'The workspace is suspended');
  if (subAccountId !== undefined && !read.ownsSubAccount) {
    return forbidden('not_account_owner', 'Service-Account-Id names an account this credential does not own');
  }
  if (needs.scope && !hasScope(row.scopes, needs.scope)) {
    return new AppError({ status: 403, code: 'METHOD_NOT_ENTITLED', message: `This credential lacks the scope ${needs.scope}`, scope: needs.scope });
  }
  return needs.capability ? capabilityRefusal({ disabledCapabilities: row.disabled_capabilities }, needs.capability) : undefined;
}

/**
 * Workspace-credential authentication: once per request, and again for a request that stays open
 * (an event stream, which ends with the refusal: `recheck`), told of every change that may alter
 * the answer (`onChange`, from the credential cache's invalidation).
 */
export class WorkspaceAuth {
  constructor(
    private readonly ctx: AppContext,
    private readonly credentials: CredentialCache,
  ) {}

  async authenticate(req: FastifyRequest): Promise<void> {
    const ctx = this.ctx;
    const token = bearerToken(req);
    if (!token) throw unauthorized(req.headers.authorization ? 'Malformed authorization header' : 'Missing bearer token');
    const claims = await ctx.keys.verify(token, ctx.config.publicBaseUrl, ctx.config.audience);
    if (!claims) throw unauthorized('Invalid or expired token');

    const subHeader = req.headers['service-account-id'];
    const subAccountId = typeof subHeader === 'string' && subHeader !== '' ? subHeader : undefined;
    // The credential's current scopes and its workspace, and whether the named sub-account is owned:
    // remembered until a change to any of them is announced (no query on most requests).
    const read = await this.credentials.read(claims.sub, claims.wid, subAccountId);
    const refusal = grantRefusal(read, subAccountId, req.routeOptions.config, () => unauthorized('Invalid or expired token'));
    if (refusal) throw refusal;
    const row = read.grant as CredentialGrant;
    const owned = read.ownsSubAccount && subAccountId !== undefined ? subAccountId : undefined;
    req.auth = {
      workspaceId: row.workspace_id,
      clientId: claims.sub,
      scopes: row.scopes,
      accountId: owned ?? row.workspace_id,
      subAccountId: owned,
      workspace: { terms: row.terms, enabledCurrencies: row.enabled_currencies, disabledCapabilities: row.disabled_capabilities },
      tokenExpiresAtMs: claims.exp === undefined ? undefined : claims.exp * 1000,
    };
  }

  /**
   * Why an open request authenticated as `auth` may no longer go on needing `scope`: its token
   * expired (TOKEN_EXPIRED, retryable with a new token), its credential was revoked
   * (CREDENTIAL_REVOKED), or what authentication refuses now (scope, workspace, sub-account).
   */
  async recheck(auth: Caller, scope: Scope | undefined): Promise<DomainError | undefined> {
    if (auth.tokenExpiresAtMs !== undefined && Date.now() >= auth.tokenExpiresAtMs) {
      return new AppError({ status: 401, code: 'TOKEN_EXPIRED', message: 'The access token expired: request a new one and resume', retryable: true });
    }
    const read = await this.credentials.read(auth.clientId, auth.workspaceId, auth.subAccountId);
    const revoked = () => new AppError({ status: 401, code: 'CREDENTIAL_REVOKED', message: 'The credential was revoked', retryable: false });
    return grantRefusal(read, auth.subAccountId, { scope }, revoked);
  }

  /** Calls `listener` with the workspace whose credentials may have changed (undefined: any). Returns the unsubscribe function. */
  onChange(listener: (workspaceId: string | undefined) => void): () => void {
    return this.credentials.onChange(listener);
  }
}

/** Verified operator keys are remembered briefly (per database) by their digest; a revoked key stops working within OPERATOR_CACHE_MS. */
const operatorCaches = new WeakMap<object, Map<string, { keyId: string; untilMs: number }>>();
const OPERATOR_CACHE_MS = 30_000;
const OPERATOR_CACHE_MAX = 100;

/**
 * The operator key's id, or undefined. `legacyAllowed` is asked only when no current digest
 * matches: whether the keys still stored in the old scrypt form may be tried (memory-hard, so not
 * for a caller past its failures).
 */
export async function authenticateOperatorKey(ctx: AppContext, presented: string, legacyAllowed: () => Promise<boolean>): Promise<string | undefined> {
  const digest = hashSecret(presented, ctx.box);
  let operatorCache = operatorCaches.get(ctx.db);
  if (!operatorCache) operatorCaches.set(ctx.db, (operatorCache = new Map()));
  const cached = operatorCache.get(digest);
  if (cached && cached.untilMs > Date.now()) return cached.keyId;
  const legacyKeysMax = async () => ((await legacyAllowed()) ? ctx.config.limits.legacyOperatorKeysMax : 0);
  const keyId = await findOperatorKey(ctx.db, ctx.box, presented, legacyKeysMax);
  if (!keyId) return undefined;
  if (operatorCache.size >= OPERATOR_CACHE_MAX) operatorCache.clear();
  operatorCache.set(digest, { keyId, untilMs: Date.now() + OPERATOR_CACHE_MS });
  return keyId;
}

/**
 * A wrong operator key is refused at the cost of one digest, and counted for its caller (the
 * address): past its failures that caller is answered 429 and its keys are no longer tried against
 * legacy scrypt hashes. A right key is always accepted, whatever others failed from the same address.
 */
async function authenticateOperator(ctx: AppContext, failures: AuthFailureLimiter, req: FastifyRequest): Promise<void> {
  const token = bearerToken(req);
  const failureKey = `operator:${req.ip}`;
  const keyId = token ? await authenticateOperatorKey(ctx, token, async () => !(await failures.isLimited(failureKey))) : undefined;
  if (!keyId) throw (await failures.recordFailure(failureKey)) ?? unauthorized(token ? 'Invalid operator key' : 'Missing operator key');
  req.operator = { keyId };
}

/** Authenticates every request by its route's `config.auth` before the body is even read. */
export const authPlugin = fp(async (app: FastifyInstance, opts: { ctx: AppContext; redis?: Redis | undefined }) => {
  const { config } = opts.ctx;
  const memory = new MemoryFailureStore(config.limits.authFailureAddressesMax);
  const failures = new AuthFailureLimiter(config.authFailureLimitPerMinute, 60_000, opts.redis ? new RedisFailureStore(opts.redis, memory) : memory);
  app.decorate('authFailures', failures);
  app.decorateRequest('auth', undefined as unknown as Caller);
  app.decorateRequest('operator', undefined);
  const credentials = new CredentialCache(opts.ctx.db, opts.ctx.config.limits.authCacheEntriesMax);
  await credentials.start();
  app.addHook('onClose', async () => credentials.stop());
  const workspaceAuth = new WorkspaceAuth(opts.ctx, credentials);
  app.decorate('workspaceAuth', workspaceAuth);
  app.addHook('onRequest', async (req) => {
    const mode = req.routeOptions.config.auth ?? 'none';
    if (mode === 'workspace') await workspaceAuth.authenticate(req);
    else if (mode === 'operator') await authenticateOperator(opts.ctx, failures, req);
  });
});
