import type { FastifyRequest } from 'fastify';
import type { Static } from 'typebox';
import type { AppContext } from '../../platform/context.js';
import { route, type App } from '../../platform/http/routes.js';
import { renderError } from '../../platform/http/errors.js';
import { runIdempotent } from '../../platform/http/idempotency.js';
import { IdParams } from '../../platform/lib/schemas.js';
import type { BankDetails } from '../../connectors/issuer.js';
import {
  MoveBody,
  OperatorVirtualAccountListQuery,
  OperatorVirtualAccountPage,
  RequirementsQuery,
  RequirementsSchema,
  VirtualAccountListQuery,
  VirtualAccountPage,
  VirtualAccountRequest,
  VirtualAccountSchema,
} from './virtual-accounts.schemas.js';
import {
  assertVirtualAccountCurrency,
  findVirtualAccountInWorkspace,
  listAnyVirtualAccounts,
  listVirtualAccounts,
  moveAnyVirtualAccount,
  moveVirtualAccount,
  requestVirtualAccount,
  requirements,
  virtualAccountData,
} from './virtual-accounts.service.js';
import { VIRTUAL_ACCOUNT_MOVES, type VirtualAccountMove } from './virtual-accounts.transitions.js';

const tags = ['Virtual accounts'];

/** A move's body is optional: a POST without one is validated as an empty object. */
const emptyBodyIsObject = async (req: FastifyRequest) => {
  req.body ??= {};
};

const MOVE_SUMMARY = {
  approve: 'Approve a pending account out of band: active, with its bank details (virtual_account.active except NGN)',
  fail: 'Refuse a pending account after issuance: failed (virtual_account.failed for XOF, XAF, GHS, USD only)',
  deactivate: 'Deactivate a pending or active account: it leaves the list and a new request answers 409 VIRTUAL_ACCOUNT_DEACTIVATED',
} as const;

export function virtualAccountRoutes(app: App, ctx: AppContext): void {
  app.route(requestVirtualAccountRoute(ctx));
  app.route(listVirtualAccountsRoute(ctx));
  app.route(requirementsRoute(ctx));
  for (const move of VIRTUAL_ACCOUNT_MOVES) {
    if (ctx.config.env === 'sandbox') app.route(sandboxMoveVirtualAccount(ctx, move));
    app.route(operatorMoveVirtualAccount(ctx, move));
  }
  app.route(listAnyVirtualAccountsRoute(ctx));
}

function requestVirtualAccountRoute(ctx: AppContext) {
  return route.post(
    '/v1/virtual-accounts',
    {
      config: { auth: 'workspace', scope: 'write:virtual_accounts', capability: 'virtual_accounts' },
      schema: {
        tags,
        summary: 'Request a virtual account in a currency (idempotent per account and currency)',
        description: [
          'Answers the account acted on (the workspace, or the `Service-Account-Id` sub-account) has in the currency: 201 when this request created it, 200 for the one it already has (pending, active or failed).',
          'XOF, XAF, GHS, USD: `pending`, then `active` (`virtual_account.active`) or `failed` (`virtual_account.failed`) out of band.',
          'EUR, GBP: approved before creation, so `active` at once (`virtual_account.active`); the issuer\'s refusal is a 422 `VIRTUAL_ACCOUNT_REFUSED` on this request.',
          'NGN: no event; 422 `VIRTUAL_ACCOUNT_SELF_SERVE_UNSUPPORTED` in production.',
          'Refusals: 409 `KYB_INCOMPLETE` (no approved application with its documents and terms at the current version; nothing reaches the issuer), 409 `VIRTUAL_ACCOUNT_VERIFICATION_REQUIRED` (repeated until verification passes; a repeat within 10 minutes of the last refusal is answered from it without asking the issuer), 409 `VIRTUAL_ACCOUNT_DEACTIVATED`.',
          'Sandbox: an account holder name (the workspace or sub-account name) containing "verify" gets VERIFICATION_REQUIRED until an approved application of the account carries a proof_of_address, and for EUR, GBP, NGN one containing "refuse" gets VIRTUAL_ACCOUNT_REFUSED.',
          'Bank details are never in this answer or in events: read them from GET /v1/virtual-accounts once active.',
        ].join(' '),
        body: VirtualAccountRequest,
        response: { 200: VirtualAccountSchema, 201: VirtualAccountSchema },
      },
    },
    async (req, reply) => {
      assertVirtualAccountCurrency(ctx.config, req.body.currency, req.auth.workspace.enabledCurrencies);
      return runIdempotent(ctx, req, reply, async (tx) => {
        const result = await requestVirtualAccount(ctx, tx, req.auth, req.body.currency);
        if (result.kind === 'account') return { status: result.created ? 201 : 200, body: virtualAccountData(result.row) };
        // The issuer's refusal is remembered (the memo commits with this answer).
        const rendered = renderError(result.error, req);
        return { status: rendered.status, body: rendered.body, contentType: rendered.contentType };
      });
    },
  );
}

function listVirtualAccountsRoute(ctx: AppContext) {
  return route.get(
    '/v1/virtual-accounts',
    {
      config: { auth: 'workspace', scope: 'read:virtual_accounts' },
      schema: {
        tags,
        summary: 'Active virtual accounts of the account acted on, with their bank details (the only place they are read)',
        description: 'Pending, failed and deactivated accounts are absent. Without `Service-Account-Id`, the master account\'s own accounts.',
        querystring: VirtualAccountListQuery,
        response: { 200: VirtualAccountPage },
      },
    },
    async (req) => listVirtualAccounts(ctx, ctx.db, req.auth, req.query),
  );
}

function requirementsRoute(ctx: AppContext) {
  return route.get(
    '/v1/virtual-accounts/requirements',
    {
      config: { auth: 'workspace', scope: 'read:virtual_accounts' },
      schema: {
        tags,
        summary: 'Documents and terms acceptance still outstanding before a virtual account can be requested',
        querystring: RequirementsQuery,
        response: { 200: RequirementsSchema },
      },
    },
    async (req) => {
      assertVirtualAccountCurrency(ctx.config, req.query.currency, req.auth.workspace.enabledCurrencies);
      return requirements(ctx, ctx.db, req.auth, req.query.currency);
    },
  );
}

const moveSchema = { params: IdParams, body: MoveBody, response: { 200: VirtualAccountSchema } };
const moveInput = (body: Static<typeof MoveBody> | undefined) => ({ reason: body?.reason, details: body?.details as BankDetails | undefined });

function sandboxMoveVirtualAccount(ctx: AppContext, move: VirtualAccountMove) {
  return route.post(
    `/v1/sandbox/virtual-accounts/:id/${move}`,
    {
      config: { auth: 'workspace', scope: 'write:virtual_accounts' },
      preValidation: emptyBodyIsObject,
      schema: { tags: ['Sandbox'], summary: `Simulate the issuer: ${MOVE_SUMMARY[move]} (sandbox only)`, ...moveSchema },
    },
    async (req, reply) =>
      runIdempotent(ctx, req, reply, async (tx) => {
        const row = await moveVirtualAccount(ctx, tx, () => findVirtualAccountInWorkspace(tx, req.auth.workspaceId, req.params.id, true), move, moveInput(req.body));
        return { status: 200, body: virtualAccountData(row) };
      }),
  );
}

function operatorMoveVirtualAccount(ctx: AppContext, move: VirtualAccountMove) {
  return route.post(
    `/operator/v1/virtual-accounts/:id/${move}`,
    {
      config: { auth: 'operator' },
      preValidation: emptyBodyIsObject,
      schema: { tags: ['Operator'], security: [{ operatorKey: [] }], summary: `As the issuer: ${MOVE_SUMMARY[move]} (audited)`, ...moveSchema },
    },
    async (req, reply) =>
      runIdempotent(ctx, req, reply, async (tx) => ({ status: 200, body: virtualAccountData(await moveAnyVirtualAccount(ctx, tx, req.params.id, move, moveInput(req.body))) })),
  );
}

function listAnyVirtualAccountsRoute(ctx: AppContext) {
  return route.get(
    '/operator/v1/virtual-accounts',
    {
      config: { auth: 'operator' },
      schema: {
        tags: ['Operator'],
        security: [{ operatorKey: [] }],
        summary: "Virtual accounts of every workspace, newest first (not deactivated): `status=pending` is the queue to approve or refuse (the console's page)",
        querystring: OperatorVirtualAccountListQuery,
        response: { 200: OperatorVirtualAccountPage },
      },
    },
    async (req) => listAnyVirtualAccounts(ctx.db, req.query),
  );
}
