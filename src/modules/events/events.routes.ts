import type { FastifyInstance } from 'fastify';
import type { Static } from 'typebox';
import type { AppContext } from '../../context.js';
import { EventPage, EventParams, EventQuery, EventSchema, EventStreamHeaders, EventStreamQuery } from './events.schemas.js';
import * as events from './events.service.js';
import { EventStreams } from './events.stream.js';
import { openEventStream } from './events.sse.js';

const tags = ['Events'];

/**
 * The events behind the webhooks, readable so an integrator whose endpoint was down can catch up
 * (deliveries are not replayed on demand). With Service-Account-Id, only that sub-account's events.
 */
export function eventRoutes(app: FastifyInstance, ctx: AppContext): void {
  const streams = new EventStreams(ctx);
  app.addHook('preClose', async () => streams.close());

  app.get<{ Querystring: Static<typeof EventStreamQuery>; Headers: Static<typeof EventStreamHeaders> }>(
    '/v1/events/stream',
    {
      config: { auth: 'workspace', scope: 'read:webhooks' },
      schema: {
        tags,
        summary: 'The events as they commit, as Server-Sent Events',
        description: [
          'A `text/event-stream` of the workspace\'s events (with Service-Account-Id, that sub-account\'s) as they commit, in any API process.',
          'Each event is one SSE message: `id` is the event id, `event` its type, `data` the event as GET /v1/events/{id} returns it.',
          'Reconnect with `Last-Event-ID` set to the last id received to get every later event, none twice (an unknown id answers 400).',
          'Without it, the stream starts now. A `: heartbeat` comment is sent on idle streams every 15 seconds.',
          'Open streams per workspace are limited (10 per API process by default): past it, 429 `EVENT_STREAMS_EXCEEDED`.',
        ].join(' '),
        querystring: EventStreamQuery,
        headers: EventStreamHeaders,
        response: {
          200: {
            description: 'Server-Sent Events: `id: evt_…`, `event: <type>`, `data: <Event JSON>`',
            content: { 'text/event-stream': { schema: { type: 'string' } } },
          },
        },
      },
    },
    async (req, reply) => {
      const types = req.query.types?.split(',');
      await openEventStream(ctx, streams, req, reply, { accountId: req.auth.subAccountId, types }, req.headers['last-event-id']);
    },
  );

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
