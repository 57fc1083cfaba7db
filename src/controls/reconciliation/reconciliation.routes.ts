import type { FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import type { AppContext } from '../../platform/context.js';
import { route, type App } from '../../platform/http/routes.js';
import { runIdempotent } from '../../platform/http/idempotency.js';
import { IdParams } from '../../platform/lib/schemas.js';
import {
  ExceptionListQuery, ExceptionPage, ExceptionSchema, IgnoreBody, LineList, LineSchema, MatchBody, ResolveBody, StatementListQuery, StatementPage, StatementSchema,
} from './reconciliation.schemas.js';
import { getStatement, ignoreLine, listExceptions, listStatements, matchLine, resolveException, statementCsv, statementLines, type Decider } from './reconciliation.service.js';

const tags = ['Operator'];
const security = [{ operatorKey: [] }];
const config = { auth: 'operator' as const };

/** Who decided, for the line or exception (the call itself is in the audit log). */
/** The operator key decides: every right (rights.ts). */
const decidedBy = (req: FastifyRequest): Decider => ({ name: req.operator ? `operator_key:${req.operator.keyId}` : null, role: undefined });

export function reconciliationRoutes(app: App, ctx: AppContext): void {
  app.route(listStatementsRoute(ctx));
  app.route(getStatementRoute(ctx));
  app.route(statementLinesRoute(ctx));
  app.route(statementCsvRoute(ctx));
  app.route(matchLineRoute(ctx));
  app.route(ignoreLineRoute(ctx));
  app.route(listExceptionsRoute(ctx));
  app.route(resolveExceptionRoute(ctx));
}

function listStatementsRoute(ctx: AppContext) {
  return route.get(
    '/operator/v1/reconciliation/statements',
    { config, schema: { tags, security, summary: "Bank statements (camt.053) newest first, each with its reconciliation: lines by status, Corridor's closing balance and the difference", querystring: StatementListQuery, response: { 200: StatementPage } } },
    async (req) => listStatements(ctx.db, req.query),
  );
}

function getStatementRoute(ctx: AppContext) {
  return route.get(
    '/operator/v1/reconciliation/statements/:id',
    { config, schema: { tags, security, summary: 'One bank statement with its reconciliation', params: IdParams, response: { 200: StatementSchema } } },
    async (req) => getStatement(ctx.db, req.params.id),
  );
}

function statementLinesRoute(ctx: AppContext) {
  return route.get(
    '/operator/v1/reconciliation/statements/:id/lines',
    { config, schema: { tags, security, summary: 'The lines of a statement in order: matched (to which payout or deposit), unmatched, or ignored (by whom, why)', params: IdParams, response: { 200: LineList } } },
    async (req) => ({ object: 'bank_statement_line.list' as const, data: await statementLines(ctx.db, req.params.id) }),
  );
}

function statementCsvRoute(ctx: AppContext) {
  return route.get(
    '/operator/v1/reconciliation/statements/:id/lines.csv',
    {
      config,
      schema: {
        tags,
        security,
        summary: 'The lines of a statement as CSV: one row a line, with the payout or deposit it matched or why it was ignored',
        params: IdParams,
        produces: ['text/csv'],
        response: { 200: { description: 'CSV, a header row then one row a line', content: { 'text/csv': { schema: Type.String() } } } },
      },
    },
    async (req, reply) => {
      const csv = await statementCsv(ctx.db, req.params.id);
      return reply.type('text/csv; charset=utf-8').header('content-disposition', `attachment; filename="statement-${req.params.id}.csv"`).header('x-content-type-options', 'nosniff').send(csv);
    },
  );
}

function matchLineRoute(ctx: AppContext) {
  return route.post(
    '/operator/v1/reconciliation/lines/:id/match',
    { config, schema: { tags, security, summary: 'Match an unmatched line to a movement of the same account, direction, amount and currency (audited)', params: IdParams, body: MatchBody, response: { 200: LineSchema } } },
    async (req, reply) => runIdempotent(ctx, req, reply, async (tx) => ({ status: 200, body: await matchLine(tx, req.params.id, req.body.movementId, decidedBy(req)) })),
  );
}

function ignoreLineRoute(ctx: AppContext) {
  return route.post(
    '/operator/v1/reconciliation/lines/:id/ignore',
    { config, schema: { tags, security, summary: 'Ignore an unmatched line with the reason (a bank fee booked elsewhere, an internal transfer; audited)', params: IdParams, body: IgnoreBody, response: { 200: LineSchema } } },
    async (req, reply) => runIdempotent(ctx, req, reply, async (tx) => ({ status: 200, body: await ignoreLine(tx, req.params.id, req.body.reason, decidedBy(req)) })),
  );
}

function listExceptionsRoute(ctx: AppContext) {
  return route.get(
    '/operator/v1/reconciliation/exceptions',
    { config, schema: { tags, security, summary: 'Inbound entries that matched nothing (nothing posted), newest first', querystring: ExceptionListQuery, response: { 200: ExceptionPage } } },
    async (req) => listExceptions(ctx.db, req.query),
  );
}

function resolveExceptionRoute(ctx: AppContext) {
  return route.post(
    '/operator/v1/reconciliation/exceptions/:id/resolve',
    { config, schema: { tags, security, summary: 'Close an exception with what was done about it (audited)', params: IdParams, body: ResolveBody, response: { 200: ExceptionSchema } } },
    async (req, reply) => runIdempotent(ctx, req, reply, async (tx) => ({ status: 200, body: await resolveException(tx, req.params.id, req.body.resolution, decidedBy(req)) })),
  );
}
