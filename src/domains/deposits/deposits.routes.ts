import type { FastifyRequest } from 'fastify';
import type { AppContext } from '../../platform/context.js';
import { route, type App } from '../../platform/http/routes.js';
import { runIdempotent } from '../../platform/http/idempotency.js';
import { IdParams } from '../../platform/lib/schemas.js';
import { DepositListQuery, DepositMoveBody, DepositPage, DepositSchema, OperatorDepositBody, OperatorDepositListQuery, OperatorDepositPage, SandboxDepositBody } from './deposits.schemas.js';
import { creditDeposit, depositData, findDeposit, getDeposit, listAnyDeposits, listDeposits, moveAnyDeposit, requestMove, simulateDeposit } from './deposits.service.js';
import { DEPOSIT_MOVES, type DepositMove } from './deposits.transitions.js';

const tags = ['Deposits'];
const SANDBOX_MOVES: DepositMove[] = ['complete', 'fail'];

const emptyBodyIsObject = async (req: FastifyRequest) => {
  req.body ??= {};
};

const RECEIVE_DESCRIPTION = [
  'Lands only in a currency the workspace has enabled; on a virtual account rail (bank_transfer, mobile_money, paybill, account_credit) only into an active virtual account of the owner (409 VIRTUAL_ACCOUNT_REQUIRED / VIRTUAL_ACCOUNT_NOT_ACTIVE / VIRTUAL_ACCOUNT_DEACTIVATED otherwise); crypto and mpesa_stk_push credit the balance directly.',
  '`outcome` (default completed): completed credits the balance by creditedAmount and fires deposit.completed once; failed fires deposit.failed and credits nothing; in_review waits for complete or fail; pending and processing wait.',
].join(' ');

const MOVE_SUMMARY: Record<DepositMove, string> = {
  complete: 'Funds credited (from pending, processing or in_review): completed, deposit.completed once',
  fail: 'Payer declined, returned before credit, or rejected in review: failed, deposit.failed (a credit that landed is taken back)',
  review: 'Hold for compliance review (also after the credit landed): in_review, no event',
  reverse: 'A completed deposit reversed: failed, the credit taken back, no deposit.failed',
  refund: 'Refund a completed deposit: refunding, the credit taken back, no event',
  refunded: 'The refund went out: refunded, no event',
};

export function depositRoutes(app: App, ctx: AppContext): void {
  app.route(listDepositsRoute(ctx));
  app.route(getDepositRoute(ctx));
  if (ctx.config.env === 'sandbox') {
    app.route(simulateDepositRoute(ctx));
    for (const move of SANDBOX_MOVES) app.route(sandboxMoveDeposit(ctx, move));
  }
  app.route(listAnyDepositsRoute(ctx));
  app.route(creditDepositRoute(ctx));
  for (const move of DEPOSIT_MOVES) app.route(operatorMoveDeposit(ctx, move));
}

function listDepositsRoute(ctx: AppContext) {
  return route.get(
    '/v1/deposits',
    {
      config: { auth: 'workspace', scope: 'read:deposits' },
      schema: {
        tags,
        summary: 'Deposits newest first; filter by status and virtual account',
        description: 'Without Service-Account-Id, the whole workspace\'s deposits; with it, that sub-account\'s.',
        querystring: DepositListQuery,
        response: { 200: DepositPage },
      },
    },
    async (req) => listDeposits(ctx.db, req.auth, req.query),
  );
}

function getDepositRoute(ctx: AppContext) {
  return route.get(
    '/v1/deposits/:id',
    { config: { auth: 'workspace', scope: 'read:deposits' }, schema: { tags, summary: 'One deposit', params: IdParams, response: { 200: DepositSchema } } },
    async (req) => depositData(await getDeposit(ctx.db, req.auth, req.params.id)),
  );
}

function simulateDepositRoute(ctx: AppContext) {
  return route.post(
    '/v1/sandbox/deposits',
    {
      config: { auth: 'workspace', scope: 'write:deposits', capability: 'deposits' },
      schema: { tags: ['Sandbox'], summary: 'Simulate an inbound payment to the account acted on (sandbox only)', description: RECEIVE_DESCRIPTION, body: SandboxDepositBody, response: { 201: DepositSchema } },
    },
    async (req, reply) =>
      runIdempotent(ctx, req, reply, async (tx) => {
        const row = await simulateDeposit(tx, req.auth, req.body);
        return { status: 201, body: depositData(row) };
      }),
  );
}

function sandboxMoveDeposit(ctx: AppContext, move: DepositMove) {
  return route.post(
    `/v1/sandbox/deposits/:id/${move}`,
    {
      config: { auth: 'workspace', scope: 'write:deposits', capability: 'deposits' },
      preValidation: emptyBodyIsObject,
      schema: { tags: ['Sandbox'], summary: `${MOVE_SUMMARY[move]} (sandbox only)`, params: IdParams, body: DepositMoveBody, response: { 200: DepositSchema } },
    },
    async (req, reply) =>
      runIdempotent(ctx, req, reply, async (tx) => {
        const row = await requestMove(tx, () => findDeposit(tx, req.auth.workspaceId, req.params.id, { lock: true }), move, req.body?.reason);
        return { status: 200, body: depositData(row) };
      }),
  );
}

function listAnyDepositsRoute(ctx: AppContext) {
  return route.get(
    '/operator/v1/deposits',
    {
      config: { auth: 'operator' },
      schema: { tags: ['Operator'], security: [{ operatorKey: [] }], summary: "Deposits of every workspace, newest first (filter by status, workspaceId; the console's Deposits page)", querystring: OperatorDepositListQuery, response: { 200: OperatorDepositPage } },
    },
    async (req) => listAnyDeposits(ctx.db, req.query),
  );
}

function creditDepositRoute(ctx: AppContext) {
  return route.post(
    '/operator/v1/deposits',
    {
      config: { auth: 'operator' },
      schema: { tags: ['Operator'], security: [{ operatorKey: [] }], summary: 'Credit an inbound payment to an account (audited)', description: RECEIVE_DESCRIPTION, body: OperatorDepositBody, response: { 201: DepositSchema } },
    },
    async (req, reply) => runIdempotent(ctx, req, reply, async (tx) => ({ status: 201, body: depositData(await creditDeposit(tx, req.body)) })),
  );
}

function operatorMoveDeposit(ctx: AppContext, move: DepositMove) {
  return route.post(
    `/operator/v1/deposits/:id/${move}`,
    {
      config: { auth: 'operator' },
      preValidation: emptyBodyIsObject,
      schema: { tags: ['Operator'], security: [{ operatorKey: [] }], summary: `${MOVE_SUMMARY[move]} (any workspace's deposit, audited)`, params: IdParams, body: DepositMoveBody, response: { 200: DepositSchema } },
    },
    async (req, reply) => runIdempotent(ctx, req, reply, async (tx) => ({ status: 200, body: depositData(await moveAnyDeposit(tx, req.params.id, move, req.body?.reason)) })),
  );
}
