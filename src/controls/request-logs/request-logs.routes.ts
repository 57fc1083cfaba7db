import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { AppContext } from '../../platform/context.js';
import { route, type App } from '../../platform/http/routes.js';
import { IdParams } from '../../platform/lib/schemas.js';
import { RequestLogPage, RequestLogQuery, RequestLogSchema } from './request-logs.schemas.js';
import * as requestLogs from './request-logs.service.js';

const tags = ['Request logs'];
const LIST = '/v1/request-logs';

/** A workspace's recent API requests (the dashboard's Request logs page and `corridor logs tail` read them). */
export function requestLogRoutes(app: App, ctx: AppContext): void {
  app.route(
    route.get(
      LIST,
      {
        config: { auth: 'workspace', scope: 'read:request_logs' },
        schema: {
          tags,
          summary: "The workspace's recent API requests, newest first, bodies redacted",
          description: `Each API request made with a credential of the workspace: method, path, status, request id, Idempotency-Key, caller, duration and the bodies with secrets and personal data redacted. Written in batches (about a second behind) and kept RETENTION_REQUEST_LOGS_DAYS days (7 by default). Reading this list is not itself logged. \`corridor logs tail\` follows it.`,
          querystring: RequestLogQuery,
          response: { 200: RequestLogPage },
        },
      },
      async (req) => requestLogs.listRequestLogs(ctx.db, req.auth.workspaceId, req.query),
    ),
  );
  app.route(
    route.get(
      `${LIST}/:id`,
      {
        config: { auth: 'workspace', scope: 'read:request_logs' },
        schema: { tags, summary: 'One logged request', params: IdParams, response: { 200: RequestLogSchema } },
      },
      async (req) => requestLogs.getRequestLog(ctx.db, req.auth.workspaceId, req.params.id),
    ),
  );
}

/** Whether an answered request is logged: a workspace credential's API call, except reading the request logs. */
function logged(req: FastifyRequest): boolean {
  const url = req.routeOptions.url;
  if (!url || req.routeOptions.config.auth === 'none' || req.routeOptions.config.web) return false;
  if (!(url.startsWith('/v1/') || url.startsWith('/v2/'))) return false;
  if (url.startsWith(LIST) && req.method === 'GET') return false;
  return req.auth?.workspaceId !== undefined;
}

const answers = new WeakMap<FastifyRequest, string>();

/**
 * Records every logged request when its answer has gone (onResponse): appended to the recorder's
 * buffer, no database write on the request's path. The JSON answer is kept from onSend.
 */
export function recordRequests(app: FastifyInstance, recorder: requestLogs.RequestLogRecorder): void {
  app.addHook('onSend', async (req, _reply, payload) => {
    if (typeof payload === 'string' && logged(req)) answers.set(req, payload);
    return payload;
  });
  app.addHook('onResponse', async (req, reply) => {
    if (!logged(req)) return;
    const key = req.headers['idempotency-key'];
    recorder.record({
      workspaceId: req.auth.workspaceId,
      accountId: req.auth.accountId,
      requestId: String(req.id),
      method: req.method,
      url: req.url,
      status: reply.statusCode,
      durationMs: reply.elapsedTime,
      idempotencyKey: typeof key === 'string' ? key : undefined,
      caller: req.auth.clientId,
      requestBody: req.body,
      responseText: answers.get(req),
      startedAt: new Date(Date.now() - reply.elapsedTime),
    });
  });
}
