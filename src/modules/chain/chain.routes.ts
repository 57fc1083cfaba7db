import type { AppContext } from '../../context.js';
import type { FastifyRequest } from 'fastify';
import { route, type App } from '../../http/routes.js';
import { runIdempotent } from '../../http/idempotency.js';
import { ChainDepositListQuery, ChainDepositPage, ChainDepositParams, ChainDepositSchema, ChainList } from './chain.schemas.js';
import { configuredChains, decideChainDeposit, listChainDeposits } from './chain.service.js';

/** Who decides: the operator key (the console signs in with one). */
const actor = (req: FastifyRequest): string => `key:${req.operator?.keyId ?? 'unknown'}`;

const operator = { tags: ['Operator'], security: [{ operatorKey: [] }] };

/** The operator's read-only view of the chain connector: its chains and hot wallets, and the transfers its watcher took. */
export function chainRoutes(app: App, ctx: AppContext): void {
  app.route(listDeposits(ctx));
  app.route(listChains(ctx));
  app.route(decideDeposit(ctx, 'release'));
  app.route(decideDeposit(ctx, 'reject'));
}

function decideDeposit(ctx: AppContext, decision: 'release' | 'reject') {
  return route.post(
    `/operator/v1/chain/deposits/:id/${decision}`,
    {
      config: { auth: 'operator' },
      schema: {
        ...operator,
        summary:
          decision === 'release'
            ? 'Release a held chain deposit: it is credited to its owner now (409 CHAIN_DEPOSIT_NOT_CREDITABLE when it still cannot be)'
            : 'Reject a held chain deposit: it is never credited; the tokens stay on the deposit address for the operator to deal with',
        description: 'Only a held transfer is decided (409 CHAIN_DEPOSIT_DECIDED otherwise); the decision and its operator are kept on it.',
        params: ChainDepositParams,
        response: { 200: ChainDepositSchema },
      },
    },
    async (req, reply) => runIdempotent(ctx, req, reply, async (tx) => ({ status: 200, body: await decideChainDeposit(ctx, tx, req.params.id, decision, actor(req)) })),
  );
}

function listDeposits(ctx: AppContext) {
  return route.get(
    '/operator/v1/chain/deposits',
    {
      config: { auth: 'operator' },
      schema: {
        ...operator,
        summary:
          'The Transfer logs the deposit watcher took, newest first: credited (with their deposit), or held for the operator (a token Corridor does not take, or a currency the owner has no virtual account in), never credited',
        querystring: ChainDepositListQuery,
        response: { 200: ChainDepositPage },
      },
    },
    async (req) => listChainDeposits(ctx.db, req.query),
  );
}

function listChains(ctx: AppContext) {
  return route.get(
    '/operator/v1/chain/chains',
    {
      config: { auth: 'operator' },
      schema: {
        ...operator,
        summary: "The chains the connectors file configures, each with its hot wallet's address (to fund) and whether it receives deposits",
        response: { 200: ChainList },
      },
    },
    async () => ({ data: await configuredChains(ctx.db, ctx.connectors) }),
  );
}
