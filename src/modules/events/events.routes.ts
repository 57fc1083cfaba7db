import type { FastifyInstance } from 'fastify';
import type { Static } from 'typebox';
import type { AppContext } from '../../context.js';
import { EventPage, EventParams, EventQuery, EventSchema } from './events.schemas.js';
import * as events from './events.service.js';

const tags = ['Events'];

/**
 * The events behind the webhooks, readable so an integrator whose endpoint was down can catch up
 * (deliveries are not replayed on demand). With Service-Account-Id, only that sub-account's events.
 */
export function eventRoutes(app: FastifyInstance, ctx: AppContext): void {
  app.get<{ Querystring: Static<typeof EventQuery> }>(
    '/v1/events',
    {
      config: { auth: 'workspace', scope: 'read:webhooks' },
      schema: {
        tags,
        summary: 'Events of the workspace and its sub-accounts, newest first, by type and creation time',
        querystring: EventQuery,
        response: { 200: EventPage },
      },
    },
    async (req) => events.listEvents(ctx.db, req.auth.workspaceId, { ...req.query, accountId: req.auth.subAccountId }),
  );

  app.get<{ Params: Static<typeof EventParams> }>(
    '/v1/events/:id',
    {
      config: { auth: 'workspace', scope: 'read:webhooks' },
      schema: { tags, summary: 'One event, as its webhooks carried it', params: EventParams, response: { 200: EventSchema } },
    },
    async (req) => events.eventView(await events.getEvent(ctx.db, req.auth.workspaceId, req.params.id, req.auth.subAccountId)),
  );
}
