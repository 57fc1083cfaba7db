import type { FastifyRequest } from 'fastify';
import type { Static } from 'typebox';
import type { AppContext } from '../../platform/context.js';
import { routeWithLegacyAlias } from '../../platform/http/legacy.js';
import type { App } from '../../platform/http/routes.js';
import { getWorkspace, workspacePrimaryCurrency } from '../accounts/accounts.service.js';
import { balancesView, listTransactions } from './balances.service.js';
import { BalancesResponse, TransactionsPage, TransactionsQuery } from './ledger.schemas.js';

const tags = ['Ledger'];

export function ledgerRoutes(app: App, ctx: AppContext): void {
  routeWithLegacyAlias(app, {
    method: 'GET',
    url: '/v1/ledger/balances',
    config: { auth: 'workspace', scope: 'read:balances' },
    schema: {
      tags,
      summary: 'Balances of the account acted on, one entry per currency it holds',
      description:
        'totalBalance = posted credits − posted debits; pendingOut = pending debits (holds); pendingIn = pending credits; balance (available) = totalBalance − pendingOut. totalValueEur converts totalBalance at current mid rates (rounded toward zero).',
      response: { 200: BalancesResponse },
    },
    handler: async (req: FastifyRequest) => {
      const workspace = await getWorkspace(ctx.db, req.auth.workspaceId);
      return balancesView(ctx.db, {
        accountId: req.auth.accountId,
        clientId: req.auth.clientId,
        enabledCurrencies: workspace.enabled_currencies,
        primaryCurrency: workspacePrimaryCurrency(workspace),
        rates: ctx.rates,
      });
    },
  });

  routeWithLegacyAlias(app, {
    method: 'GET',
    url: '/v1/ledger/transactions',
    config: { auth: 'workspace', scope: 'read:balances' },
    schema: {
      tags,
      summary: 'The movement feed behind the balances, newest first; each entry names the object that caused it',
      querystring: TransactionsQuery,
      response: { 200: TransactionsPage },
    },
    handler: async (req: FastifyRequest) => listTransactions(ctx.db, req.auth.accountId, req.query as Static<typeof TransactionsQuery>),
  });
}
