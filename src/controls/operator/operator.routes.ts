import type { FastifyInstance, FastifyRequest } from 'fastify';
import { Readable } from 'node:stream';
import { Type } from 'typebox';
import type { AppContext } from '../../platform/context.js';
import { route, type App } from '../../platform/http/routes.js';
import { auditCalls, documentedSuccess } from '../../platform/http/audited.js';
import { runIdempotent } from '../../platform/http/idempotency.js';
import { Country, literals, Page, PageQuery, Timestamp, Uuid } from '../../platform/lib/schemas.js';
import { getWorkspace } from '../../domains/accounts/accounts.service.js';
import { WorkspaceSettingsSchema } from '../../domains/accounts/workspace-terms.js';
import { ApiKeySchema, CredentialParams, RotateBody, RotatedSchema } from '../../domains/auth/credentials.schemas.js';
import { credentialData, issueCredential, revokeWorkspaceCredential, rotateWorkspaceCredential } from '../../domains/auth/credentials.service.js';
import { ALL_SCOPES, CAPABILITIES } from '../../domains/auth/scopes.js';
import * as audits from '../audit/audit.service.js';
import type { AuditDraft } from '../audit/audit.service.js';
import * as operator from './operator.service.js';
import { OPERATOR_KEY_ROLE } from '../../domains/users/rights.js';

const tags = ['Operator'];
const security = [{ operatorKey: [] }];
const auth = { auth: 'operator' as const };

const WorkspaceSchema = Type.Object(
  {
    id: Uuid,
    name: Type.String(),
    country: Country,
    status: Type.String(),
    enabledCurrencies: Type.Array(Type.String()),
    capabilities: Type.Record(Type.String(), Type.Boolean()),
    settings: Type.Record(Type.String(), Type.Unknown()),
    createdAt: Timestamp,
    updatedAt: Timestamp,
  },
  { title: 'Workspace' },
);

const WorkspaceParams = Type.Object({ id: Uuid });
const Enabled = Type.Object({ enabled: Type.Boolean() });

const AuditEntry = Type.Object({
  id: Uuid,
  at: Timestamp,
  operatorKeyId: Type.Union([Uuid, Type.Null()]),
  method: Type.String(),
  path: Type.String(),
  statusCode: Type.Integer(),
  requestId: Type.String(),
  workspaceId: Type.Union([Uuid, Type.Null()]),
  body: Type.Unknown(),
  actor: Type.Union([Type.String({ description: '`console` (the operator console, signed in with operatorKeyId) or `user:<id>` (a dashboard user, or an operator user in the console)' }), Type.Null()]),
});

const AuditQuery = Type.Object({
  ...PageQuery.properties,
  workspaceId: Type.Optional(Uuid),
  method: Type.Optional(Type.String({ pattern: '^[A-Za-z]{3,7}$', description: 'The HTTP method, such as POST' })),
  pathContains: Type.Optional(Type.String({ minLength: 1, maxLength: 200, description: 'A part of the path, case-insensitive' })),
  statusCode: Type.Optional(Type.Integer({ minimum: 100, maximum: 599 })),
  actor: Type.Optional(Type.String({ maxLength: 100, description: '`console`, `user:<id>`, or `api` for calls made with the operator key itself' })),
  from: Type.Optional(Type.String({ format: 'date-time', description: 'Entries at or after this instant' })),
  to: Type.Optional(Type.String({ format: 'date-time', description: 'Entries before this instant' })),
});

/** The entry of an operator call: the key, and the workspace its path names (a move found by id names its own: auditWorkspace). */
function operatorCallDraft(req: FastifyRequest): AuditDraft {
  const params = (req.params ?? {}) as Record<string, string>;
  return {
    operatorKeyId: req.operator?.keyId ?? null,
    method: req.method,
    path: req.url,
    requestId: String(req.id),
    workspaceId: params.workspaceId ?? (req.url.startsWith('/operator/v1/workspaces/') ? params.id : undefined),
    body: req.body,
  };
}

/**
 * Every operator call is in the audit log: a change's entry in the change's own transaction, any
 * other call's before its answer leaves (src/platform/http/audited.ts). Registered before any route.
 */
export function auditOperatorCalls(app: FastifyInstance, ctx: AppContext): void {
  auditCalls(app, ctx, {
    routes: (route) => {
      const config = route.config as { auth?: string; unaudited?: boolean } | undefined;
      return config?.auth === 'operator' && config.unaudited !== true;
    },
    draft: operatorCallDraft,
    changeStatus: documentedSuccess,
  });
}

export function operatorRoutes(app: App, ctx: AppContext): void {
  app.route(createWorkspace(ctx));
  app.route(listWorkspaces(ctx));
  app.route(getWorkspaceRoute(ctx));
  app.route(issueWorkspaceCredential(ctx));
  app.route(listWorkspaceCredentials(ctx));
  app.route(rotateCredential(ctx));
  app.route(revokeCredential(ctx));
  app.route(setWorkspaceCurrency(ctx));
  app.route(setWorkspaceCapability(ctx));
  app.route(updateWorkspaceSettings(ctx));
  app.route(listAudit(ctx));
  app.route(verifyAuditChain(ctx));
  app.route(exportAuditChain(ctx));
}

function createWorkspace(ctx: AppContext) {
  return route.post(
    '/operator/v1/workspaces',
    {
      config: auth,
      schema: {
        tags,
        security,
        summary: 'Create a workspace (its master account, default currencies, every capability on)',
        body: Type.Object({ name: Type.String({ minLength: 2, maxLength: 100 }), country: Country }),
        response: { 201: WorkspaceSchema },
      },
    },
    async (req, reply) => runIdempotent(ctx, req, reply, async (tx) => ({ status: 201, body: operator.workspaceData(await operator.openWorkspace(tx, req.body, OPERATOR_KEY_ROLE)) })),
  );
}

function listWorkspaces(ctx: AppContext) {
  return route.get(
    '/operator/v1/workspaces',
    { config: auth, schema: { tags, security, summary: 'List workspaces', querystring: PageQuery, response: { 200: Page('workspace.list', WorkspaceSchema) } } },
    async (req) => operator.listWorkspaces(ctx.db, req.query),
  );
}

function getWorkspaceRoute(ctx: AppContext) {
  return route.get(
    '/operator/v1/workspaces/:id',
    { config: auth, schema: { tags, security, summary: 'One workspace', params: WorkspaceParams, response: { 200: WorkspaceSchema } } },
    async (req) => operator.workspaceData(await getWorkspace(ctx.db, req.params.id)),
  );
}

function issueWorkspaceCredential(ctx: AppContext) {
  return route.post(
    '/operator/v1/workspaces/:id/credentials',
    {
      config: auth,
      schema: {
        tags,
        security,
        summary: 'Issue a credential; the secret is shown once',
        description: 'A workspace API token can never mint a credential: only the operator does.',
        params: WorkspaceParams,
        body: Type.Object({
          scopes: Type.Optional(Type.Array(Type.String(), { maxItems: 100, description: `Default: every scope (${ALL_SCOPES.length})` })),
          label: Type.Optional(Type.String({ maxLength: 100 })),
        }),
        response: { 201: Type.Object({ clientId: Uuid, clientSecret: Type.String(), scopes: Type.Array(Type.String()) }) },
      },
    },
    async (req, reply) => runIdempotent(ctx, req, reply, async (tx) => ({ status: 201, body: await issueCredential(tx, ctx.box, { workspaceId: req.params.id }, req.body) })),
  );
}

function listWorkspaceCredentials(ctx: AppContext) {
  return route.get(
    '/operator/v1/workspaces/:id/credentials',
    {
      config: auth,
      schema: {
        tags,
        security,
        summary: "A workspace's credentials, with status and last use (never their secrets)",
        params: WorkspaceParams,
        querystring: PageQuery,
        response: { 200: Page('api_key.list', ApiKeySchema) },
      },
    },
    async (req) => operator.workspaceCredentials(ctx.db, req.params.id, req.query),
  );
}

function rotateCredential(ctx: AppContext) {
  return route.post(
    '/operator/v1/workspaces/:id/credentials/:clientId/rotate',
    {
      config: auth,
      schema: {
        tags,
        security,
        summary: "Rotate a credential's secret; the new secret is shown once",
        description:
          'The secret being replaced keeps working at /oauth/token until previousSecretExpiresAt (graceSeconds from now, 0 to 7 days; send {} for the default 0), then is refused. ' +
          'Rotating again during a grace period ends the older secret at once. Tokens already issued stay valid until they expire; revoke to end them. ' +
          'A revoked credential cannot be rotated (409 CREDENTIAL_REVOKED). A workspace API token can never rotate a credential.',
        params: CredentialParams,
        body: RotateBody,
        response: { 200: RotatedSchema },
      },
    },
    async (req, reply) => runIdempotent(ctx, req, reply, async (tx) => ({ status: 200, body: await rotateWorkspaceCredential(tx, ctx.box, { workspaceId: req.params.id }, req.params.clientId, req.body.graceSeconds ?? 0) })),
  );
}

function revokeCredential(ctx: AppContext) {
  return route.delete(
    '/operator/v1/workspaces/:id/credentials/:clientId',
    {
      config: auth,
      schema: {
        tags,
        security,
        summary: 'Revoke a credential: its tokens are refused from the next request, in every API process',
        description: 'Its secrets no longer get a token. Revoking a revoked credential answers it unchanged. A workspace API token can never revoke a credential.',
        params: CredentialParams,
        response: { 200: ApiKeySchema },
      },
    },
    async (req) => credentialData(await ctx.db.tx((tx) => revokeWorkspaceCredential(tx, { workspaceId: req.params.id }, req.params.clientId))),
  );
}

function setWorkspaceCurrency(ctx: AppContext) {
  return route.put(
    '/operator/v1/workspaces/:id/currencies/:code',
    {
      config: auth,
      schema: {
        tags,
        security,
        summary: 'Enable or disable a currency for a workspace',
        params: Type.Object({ id: Uuid, code: Type.String({ pattern: '^[A-Z]{3,10}$' }) }),
        body: Enabled,
        response: { 200: WorkspaceSchema },
      },
    },
    async (req) => operator.workspaceData(await ctx.db.tx((tx) => operator.setCurrency(tx, req.params.id, req.params.code, req.body.enabled, ctx.config.env))),
  );
}

function setWorkspaceCapability(ctx: AppContext) {
  return route.put(
    '/operator/v1/workspaces/:id/capabilities/:name',
    {
      config: auth,
      schema: {
        tags,
        security,
        summary: 'Switch a capability on or off (off answers 403 CAPABILITY_DISABLED)',
        params: Type.Object({ id: Uuid, name: literals(CAPABILITIES) }),
        body: Enabled,
        response: { 200: WorkspaceSchema },
      },
    },
    async (req) => operator.workspaceData(await ctx.db.tx((tx) => operator.setCapability(tx, req.params.id, req.params.name, req.body.enabled))),
  );
}

function updateWorkspaceSettings(ctx: AppContext) {
  return route.put(
    '/operator/v1/workspaces/:id/settings',
    {
      config: auth,
      schema: {
        tags,
        security,
        summary: 'Update workspace settings',
        params: WorkspaceParams,
        body: WorkspaceSettingsSchema,
        response: { 200: WorkspaceSchema },
      },
    },
    async (req) => operator.workspaceData(await ctx.db.tx((tx) => operator.updateSettings(tx, req.params.id, req.body))),
  );
}

function listAudit(ctx: AppContext) {
  return route.get(
    '/operator/v1/audit-log',
    {
      config: auth,
      schema: {
        tags,
        security,
        summary: 'Every operator call (API and console), newest first, with filters',
        querystring: AuditQuery,
        response: { 200: Page('audit_entry.list', AuditEntry) },
      },
    },
    async (req) => operator.listAudit(ctx.db, req.query),
  );
}

const ChainQuery = Type.Object({
  workspaceId: Type.Optional(Uuid),
});

const ChainBreakSchema = Type.Object({
  seq: Type.Integer({ description: 'The entry where the chain breaks (for `missing`, the first one absent)' }),
  entryId: Type.Union([Uuid, Type.Null()]),
  reason: literals(['missing', 'out_of_order', 'other_chain', 'prev_hash_mismatch', 'hash_mismatch', 'head_mismatch'] as const),
  detail: Type.String(),
});

const ChainVerificationSchema = Type.Object(
  {
    object: Type.Literal('audit_chain.verification'),
    chain: Type.String({ description: 'The workspace id, or `operator`' }),
    valid: Type.Boolean(),
    firstSeq: Type.Integer({ description: 'The first entry kept (entries before it were deleted by retention, and the chain records where it was cut)' }),
    checked: Type.Integer({ description: 'Entries found intact before the first break (all of them when valid)' }),
    head: Type.Object({ seq: Type.Integer(), hash: Type.String() }),
    firstBroken: Type.Union([ChainBreakSchema, Type.Null()]),
  },
  { title: 'AuditChainVerification' },
);

function verifyAuditChain(ctx: AppContext) {
  return route.get(
    '/operator/v1/audit-log/verify',
    {
      config: auth,
      schema: {
        tags,
        security,
        summary: "Verify an audit chain (a workspace's, or without workspaceId the operator's): the first broken link, if any",
        description:
          'Each entry carries the hash of the one before it in its chain and a SHA-256 of its own canonical JSON (docs/audit-log.md): a removed, edited or reordered entry breaks the chain at that entry.',
        querystring: ChainQuery,
        response: { 200: ChainVerificationSchema },
      },
    },
    async (req) => audits.verifyAuditChain(ctx.db, req.query.workspaceId),
  );
}

function exportAuditChain(ctx: AppContext) {
  return route.get(
    '/operator/v1/audit-log/export',
    {
      config: auth,
      schema: {
        tags,
        security,
        summary: "An audit chain as JSON Lines (a workspace's, or without workspaceId the operator's), oldest first, streamed",
        description: 'One entry a line: the fields its hash covers and `hash`, so the chain can be verified without Corridor (docs/audit-log.md).',
        querystring: ChainQuery,
        response: { 200: { description: 'JSON Lines', content: { 'application/jsonl': { schema: { type: 'string' } } } } },
      },
    },
    async (req, reply) => {
      const lines = audits.exportAuditChain(ctx.db, req.query.workspaceId);
      return reply.type('application/jsonl; charset=utf-8').header('content-disposition', 'attachment; filename="audit-chain.jsonl"').send(Readable.from(lines));
    },
  );
}
