import type { AppContext } from '../../context.js';
import { route, type App } from '../../http/routes.js';
import { ChainDepositListQuery, ChainDepositPage, ChainList } from './chain.schemas.js';
import { configuredChains, listChainDeposits } from './chain.service.js';

const operator = { tags: ['Operator'], security: [{ operatorKey: [] }] };

/** The operator's read-only view of the chain connector: its chains and hot wallets, and the transfers its watcher took. */
export function chainRoutes(app: App, ctx: AppContext): void {
  app.route(listDeposits(ctx));
  app.route(listChains(ctx));
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
    async () => ({ data: configuredChains(ctx.connectors) }),
  );
}
