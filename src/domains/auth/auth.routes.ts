import type { FastifyReply, FastifyRequest } from 'fastify';
import { Type, type Static } from 'typebox';
import type { AppContext } from '../../platform/context.js';
import { route, type App } from '../../platform/http/routes.js';
import { Page, PageQuery, Uuid } from '../../platform/lib/schemas.js';
import { isUuid, newId } from '../../platform/lib/ids.js';
import { ApiKeySchema } from './credentials.schemas.js';
import { authenticateClient, credentialData, listCredentials, updateScopes } from './credentials.service.js';
import { ALL_SCOPES } from './scopes.js';

const TokenBody = Type.Object({
  client_id: Type.Optional(Type.String({ maxLength: 200 })),
  client_secret: Type.Optional(Type.String({ maxLength: 500 })),
  audience: Type.Optional(Type.String({ maxLength: 500 })),
  grant_type: Type.Optional(Type.String({ maxLength: 100 })),
});

const TokenResponse = Type.Object({
  access_token: Type.String({ description: 'JWT signed with Ed25519 (alg EdDSA)' }),
  token_type: Type.Literal('Bearer'),
  expires_in: Type.Integer({ examples: [86400] }),
});

const OAuthError = Type.Object({
  error: Type.Union([Type.Literal('access_denied'), Type.Literal('invalid_grant'), Type.Literal('invalid_audience')]),
  error_description: Type.String(),
  error_uri: Type.Optional(Type.String({ format: 'uri', description: 'The entry of the error in the catalogue (GET /docs/errors#<error>)' })),
});

const Jwks = Type.Object(
  {
    keys: Type.Array(
      Type.Object(
        { kty: Type.String(), crv: Type.String(), x: Type.String(), kid: Type.String(), alg: Type.String(), use: Type.String() },
        { additionalProperties: true },
      ),
    ),
  },
  { title: 'JWKS' },
);

const AuthServerMetadata = Type.Object(
  {
    issuer: Type.String(),
    token_endpoint: Type.String(),
    jwks_uri: Type.String(),
    grant_types_supported: Type.Array(Type.String()),
    token_endpoint_auth_methods_supported: Type.Array(Type.String()),
    token_endpoint_auth_signing_alg_values_supported: Type.Array(Type.String()),
    response_types_supported: Type.Array(Type.String()),
    scopes_supported: Type.Array(Type.String()),
  },
  { title: 'AuthorizationServerMetadata' },
);

const ScopesBody = Type.Object({
  scopes: Type.Array(Type.String({ pattern: '^(read|write):[a-z_]+$' }), {
    maxItems: 100,
    examples: [['read:payouts', 'write:payouts', 'read:balances']],
    description: `Each of the form <action>:<resource>; action read or write (write includes read). Known: ${ALL_SCOPES.join(', ')}`,
  }),
});

const ScopesUpdated = Type.Object({ message: Type.Literal('Scopes updated'), clientId: Uuid, scopes: Type.Array(Type.String()) });

/** Said on every /v1 credential route: a workspace token manages scopes only. */
const NO_MINTING =
  'A workspace API token can never create, rotate or revoke a credential: there is no such route under /v1. The operator does it (POST /operator/v1/workspaces/{id}/credentials, .../{clientId}/rotate, DELETE .../{clientId}; audited).';

/** HTTP Basic client authentication (RFC 6749 §2.3.1): form-encoded id and secret. */
function basicCredentials(req: FastifyRequest): { id: string; secret: string } | undefined {
  const match = /^Basic ([A-Za-z0-9+/=]+)$/i.exec(req.headers.authorization ?? '');
  if (!match?.[1]) return undefined;
  const decoded = Buffer.from(match[1], 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  if (colon < 0) return undefined;
  try {
    return {
      id: decodeURIComponent(decoded.slice(0, colon).replace(/\+/g, ' ')),
      secret: decodeURIComponent(decoded.slice(colon + 1).replace(/\+/g, ' ')),
    };
  } catch {
    return undefined;
  }
}

function oauthError(reply: FastifyReply, status: number, error: Static<typeof OAuthError>['error'], description: string, basic: boolean) {
  if (basic && status === 401) reply.header('www-authenticate', 'Basic realm="corridor", charset="UTF-8"');
  // RFC 6749 §5.2's error_uri: the catalogue entry, as doc_url on the API's errors.
  const catalogue = (reply.server as unknown as { errorCatalogueUrl?: string }).errorCatalogueUrl;
  return reply.code(status).send({ error, error_description: description, ...(catalogue ? { error_uri: `${catalogue}#${error}` } : {}) });
}

export function authRoutes(app: App, ctx: AppContext): void {
  app.route(issueToken(app, ctx));
  app.route(jwks(ctx));
  app.route(authServerMetadata(ctx));
  app.route(listApiKeys(ctx));
  app.route(updateApiKeyScopes(ctx));
}

function issueToken(app: App, ctx: AppContext) {
  const { config } = ctx;
  return route.post(
    '/oauth/token',
    {
      config: { auth: 'none', rateLimit: { max: config.tokenRateLimitPerMinute, timeWindow: 60_000 } },
      // Set before the body is parsed, so refusals from parsing and validation carry it too.
      onRequest: async (_req, reply) => {
        reply.header('cache-control', 'no-store').header('pragma', 'no-cache');
      },
      schema: {
        tags: ['Authentication'],
        summary: 'Exchange client credentials for an access token (OAuth 2.0 client credentials)',
        description:
          'JSON body with client_id, client_secret, audience and grant_type; or application/x-www-form-urlencoded with HTTP Basic client authentication. The token is valid 86400 s: cache it. The body is at most 8 KiB (413). A right secret is always accepted; past AUTH_FAILURE_LIMIT_PER_MINUTE failures in a minute from one address for one client_id, that caller\'s failures are answered 429 with Retry-After.',
        body: TokenBody,
        response: { 200: TokenResponse, 400: OAuthError, 401: OAuthError },
      },
    },
    async (req, reply) => {
      reply.header('cache-control', 'no-store').header('pragma', 'no-cache');
      const basic = basicCredentials(req);
      const body = req.body ?? {};
      const clientId = basic?.id ?? body.client_id ?? '';
      const clientSecret = basic?.secret ?? body.client_secret ?? '';
      // A right secret is always accepted; failures are counted per caller (address and client id),
      // and a caller past its failures is answered 429 instead of 401.
      const credential = clientId && clientSecret ? await authenticateClient(ctx.db, ctx.box, clientId, clientSecret) : undefined;
      if (!credential) {
        const limited = await app.authFailures.recordFailure(`token:${req.ip}:${isUuid(clientId) ? clientId : '-'}`);
        if (limited) throw limited;
        return oauthError(reply, 401, 'access_denied', 'Unauthorized', basic !== undefined);
      }
      if (body.grant_type !== 'client_credentials') {
        return oauthError(reply, 400, 'invalid_grant', 'grant_type must be client_credentials', false);
      }
      if ((body.audience ?? config.audience) !== config.audience) {
        return oauthError(reply, 400, 'invalid_audience', `audience must be ${config.audience}`, false);
      }
      const accessToken = await ctx.keys.sign(
        { sub: credential.client_id, wid: credential.workspace_id, jti: newId() },
        config.publicBaseUrl,
        config.audience,
        config.limits.tokenLifetimeSec,
      );
      return { access_token: accessToken, token_type: 'Bearer' as const, expires_in: config.limits.tokenLifetimeSec };
    },
  );
}

function jwks(ctx: AppContext) {
  return route.get(
    '/.well-known/jwks.json',
    { config: { auth: 'none' }, schema: { tags: ['Authentication'], summary: 'Public keys that sign access tokens', response: { 200: Jwks } } },
    async () => ctx.keys.jwks(),
  );
}

function authServerMetadata(ctx: AppContext) {
  const { config } = ctx;
  return route.get(
    '/.well-known/oauth-authorization-server',
    { config: { auth: 'none' }, schema: { tags: ['Authentication'], summary: 'Authorization server metadata (RFC 8414)', response: { 200: AuthServerMetadata } } },
    async () => ({
      issuer: config.publicBaseUrl,
      token_endpoint: `${config.publicBaseUrl}/oauth/token`,
      jwks_uri: `${config.publicBaseUrl}/.well-known/jwks.json`,
      grant_types_supported: ['client_credentials'],
      token_endpoint_auth_methods_supported: ['client_secret_basic', 'client_secret_post'],
      token_endpoint_auth_signing_alg_values_supported: ['EdDSA'],
      response_types_supported: ['token'],
      scopes_supported: ALL_SCOPES,
    }),
  );
}

function listApiKeys(ctx: AppContext) {
  return route.get(
    '/v1/api-keys',
    {
      config: { auth: 'workspace', scope: 'read:api_keys' },
      schema: {
        tags: ['API keys'],
        summary: "The workspace's credentials (never their secrets)",
        description: NO_MINTING,
        querystring: PageQuery,
        response: { 200: Page('api_key.list', ApiKeySchema) },
      },
    },
    async (req) => listCredentials(ctx.db, req.auth.workspaceId, req.query),
  );
}

function updateApiKeyScopes(ctx: AppContext) {
  return route.put(
    '/v1/api-keys/:clientId/scopes',
    {
      config: { auth: 'workspace', scope: 'write:api_keys' },
      schema: {
        tags: ['API keys'],
        summary: "Replace a credential's scopes; applies to its next request",
        description: `The caller may add or remove only scopes it holds itself (write:x covers read:x); anything else is 403 METHOD_NOT_ENTITLED naming the scope. A credential may not remove write:api_keys from itself (it could then change no scopes again): 400 with field scopes, code OWN_API_KEYS_SCOPE_REQUIRED. ${NO_MINTING}`,
        params: Type.Object({ clientId: Type.String({ maxLength: 100 }) }),
        body: ScopesBody,
        response: { 200: ScopesUpdated },
      },
    },
    async (req) => {
      const row = await ctx.db.tx((tx) => updateScopes(tx, req.auth.workspaceId, req.params.clientId, req.body.scopes, req.auth));
      return { message: 'Scopes updated' as const, clientId: row.client_id, scopes: credentialData(row).scopes };
    },
  );
}
