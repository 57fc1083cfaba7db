import type { FastifyRequest } from 'fastify';
import type { AppContext } from '../../platform/context.js';
import { route, type App } from '../../platform/http/routes.js';
import { AlertPage, AlertParams, AlertSchema, AlertsQuery, ConditionBody, ConditionList, ConditionParams, ConditionSchema } from './alerts.schemas.js';
import type { ConditionSource } from './alert-sources.js';
import * as alerts from './alerts.service.js';

const tags = ['Alerts'];
const security = [{ operatorKey: [] }];
const auth = { auth: 'operator' as const };

const actor = (req: FastifyRequest): string => `key:${req.operator?.keyId ?? 'unknown'}`;

/** Alerts, operator API: what is open and was, and the conditions of `sources` with their thresholds. */
export function alertRoutes(app: App, ctx: AppContext, sources: readonly ConditionSource[]): void {
  app.route(listAlerts(ctx));
  app.route(getAlert(ctx));
  app.route(listConditions(ctx, sources));
  app.route(putCondition(ctx, sources));
}

function listAlerts(ctx: AppContext) {
  return route.get(
    '/operator/v1/alerts',
    { config: auth, schema: { tags, security, summary: 'Alerts, newest first (open and closed)', querystring: AlertsQuery, response: { 200: AlertPage } } },
    async (req) => alerts.listAlerts(ctx.db, req.query),
  );
}

function getAlert(ctx: AppContext) {
  return route.get(
    '/operator/v1/alerts/:id',
    { config: auth, schema: { tags, security, summary: 'An alert', params: AlertParams, response: { 200: AlertSchema } } },
    async (req) => alerts.getAlert(ctx.db, req.params.id),
  );
}

function listConditions(ctx: AppContext, sources: readonly ConditionSource[]) {
  return route.get(
    '/operator/v1/alert-conditions',
    { config: auth, schema: { tags, security, summary: 'The alert conditions and their thresholds', response: { 200: ConditionList } } },
    async () => ({ object: 'alert_condition.list' as const, data: await alerts.listConditions(ctx.db, sources) }),
  );
}

function putCondition(ctx: AppContext, sources: readonly ConditionSource[]) {
  return route.put(
    '/operator/v1/alert-conditions/:id',
    {
      config: auth,
      schema: {
        tags,
        security,
        summary: 'Set an alert condition: its source, threshold, filter, and whether it is on',
        description:
          'Creates the condition under this id or changes it. The threshold is in the source\'s unit; the filter narrows what the source looks at (`{"connector": "bank", "status": "processing"}` for `payouts.stuck`). A disabled condition closes its open alerts at the next evaluation. See docs/operations.md#alerts.',
        params: ConditionParams,
        body: ConditionBody,
        response: { 200: ConditionSchema },
      },
    },
    async (req) => alerts.putCondition(ctx.db, req.params.id, req.body, actor(req), sources),
  );
}
