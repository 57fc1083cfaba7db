import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import type { AppContext } from '../../platform/context.js';
import { ping } from '../../platform/db/db.js';
import { AppError } from '../../platform/http/errors.js';
import { metricsText } from '../metrics/sample.js';

const Status = Type.Object({ status: Type.Literal('ok') });

export function serviceRoutes(app: FastifyInstance, ctx: AppContext): void {
  app.get(
    '/healthz',
    { config: { auth: 'none', rateLimit: false }, schema: { tags: ['Service'], summary: 'The process is up', response: { 200: Status } } },
    async () => ({ status: 'ok' as const }),
  );
  app.get(
    '/readyz',
    { config: { auth: 'none', rateLimit: false }, schema: { tags: ['Service'], summary: 'The database answers', response: { 200: Status } } },
    async () => {
      try {
        await ping(ctx.db);
      } catch {
        throw new AppError({
          status: 503,
          code: 'NOT_READY',
          message: 'The database does not answer',
          problem: true,
          retryable: true,
          headers: { 'retry-after': String(ctx.config.limits.unavailableRetryAfterSec) },
        });
      }
      return { status: 'ok' as const };
    },
  );
  // Prometheus metrics of this process (docs/operations.md#metrics): the operator key as a bearer token, not audited.
  app.get(
    '/operator/v1/metrics',
    {
      config: { auth: 'operator', unaudited: true, rateLimit: false },
      schema: {
        tags: ['Operator'],
        security: [{ operatorKey: [] }],
        summary: "This process's Prometheus metrics in the text exposition format (docs/operations.md#metrics); not audited, not rate limited",
        produces: ['text/plain'],
        response: { 200: { description: 'Prometheus text exposition format 0.0.4', content: { 'text/plain': { schema: Type.String() } } } },
      },
    },
    async (_req, reply) => {
      const { contentType, text } = await metricsText(ctx);
      return reply.type(contentType).send(text);
    },
  );
}
