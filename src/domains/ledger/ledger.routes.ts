import type { FastifyReply, FastifyRequest } from 'fastify';
import { sendPdfDocument } from '../../platform/http/stored-file.js';
import { Readable } from 'node:stream';
import { Type, type Static } from 'typebox';
import type { AppContext } from '../../platform/context.js';
import { routeWithLegacyAlias } from '../../platform/http/legacy.js';
import type { App } from '../../platform/http/routes.js';
import { getWorkspace, workspacePrimaryCurrency } from '../accounts/accounts.service.js';
import { balancesView, listTransactions } from './balances.service.js';
import { BalancesResponse, StatementQuery, TransactionsPage, TransactionsQuery } from './ledger.schemas.js';
import { statementCsv, statementFileName, statementParties, statementPdf, statementPeriod } from './statements.service.js';

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

  statementRoute(app, ctx);
}

/** The format a statement request asks for: `format`, else the first of application/pdf and text/csv the Accept header names, else CSV. */
function statementFormat(req: FastifyRequest, format: 'csv' | 'pdf' | undefined): 'csv' | 'pdf' {
  if (format) return format;
  const accept = (req.headers.accept ?? '').toLowerCase();
  const pdf = accept.indexOf('application/pdf');
  const csv = accept.indexOf('text/csv');
  return pdf >= 0 && (csv < 0 || pdf < csv) ? 'pdf' : 'csv';
}

function statementRoute(app: App, ctx: AppContext): void {
  app.get(
    '/v1/statements',
    {
      config: { auth: 'workspace', scope: 'read:balances' },
      schema: {
        tags,
        operationId: 'getStatement',
        summary: 'A statement of the account acted on for a period, in one currency, as CSV or PDF',
        description:
          'The opening balance (posted, at the start of `from`), every posted movement in the period with the balance after it, and the closing balance (at the end of `to`), read from the ledger. ' +
          'CSV: a header row (kind, at, transferId, direction, amount, currency, balance, objectType, objectId, description), then one row a line, kind `opening`, `movement` or `closing`. ' +
          "PDF: the same lines as a document naming the workspace (the account holder), the account and the operator, for filing or sending. Pending holds are not movements until they post. 400 naming the field for a day that is not one, `to` before `from`, or a currency the workspace does not hold.",
        querystring: StatementQuery,
        produces: ['text/csv', 'application/pdf'],
        response: {
          200: {
            description: 'The statement, as an attachment named statement-{currency}-{from}-{to}.csv or .pdf',
            content: { 'text/csv': { schema: Type.String() }, 'application/pdf': { schema: Type.String({ format: 'binary' }) } },
          },
        },
      },
    },
    async function sendStatement(req: FastifyRequest, reply: FastifyReply) {
      const query = req.query as Static<typeof StatementQuery>;
      const workspace = await getWorkspace(ctx.db, req.auth.workspaceId);
      const period = statementPeriod(query, workspace.enabled_currencies);
      const accountId = req.auth.accountId;
      reply.header('vary', 'accept');
      if (statementFormat(req, query.format) === 'pdf') {
        const parties = await statementParties(ctx, { workspaceId: req.auth.workspaceId, accountId });
        return sendPdfDocument(reply, statementFileName(period, 'pdf'), statementPdf(ctx.db, accountId, period, parties));
      }
      return reply.type('text/csv; charset=utf-8').header('content-disposition', `attachment; filename="${statementFileName(period, 'csv')}"`).header('x-content-type-options', 'nosniff').send(Readable.from(statementCsv(ctx.db, accountId, period)));
    },
  );
}
