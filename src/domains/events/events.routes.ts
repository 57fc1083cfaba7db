import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { ServerResponse } from 'node:http';
import type { Static } from 'typebox';
import type { AppContext } from '../../platform/context.js';
import { AppError, renderError } from '../../platform/http/errors.js';
import { EventPage, EventParams, EventQuery, EventSchema, EventStreamHeaders, EventStreamQuery } from './events.schemas.js';
import * as events from './events.service.js';
import { EventStreams, type StreamFilter } from './events.stream.js';

const tags = ['Events'];

/**
 * Events are sent as their modules wrote them (as their webhooks carried them): the response schema,
 * a union of one schema per event type, documents them (test/events/event-union.test.ts checks every
 * type against it) and is not a serializer that would pick a branch per event.
 */
const asWritten = () => (data: unknown) => JSON.stringify(data);

/**
 * The events behind the webhooks, readable so an integrator whose endpoint was down can catch up
 * (or resend a delivery: POST /v1/webhooks/{id}/deliveries/{deliveryId}/resend). With Service-Account-Id,
 * only that sub-account's events.
 */
export function eventRoutes(app: FastifyInstance, ctx: AppContext): void {
  const streams = new EventStreams(ctx);
  const unsubscribe = app.workspaceAuth.onChange((workspaceId) => streams.credentialsChanged(workspaceId));
  app.addHook('preClose', async () => {
    unsubscribe();
    await streams.close();
  });

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
          'Without it, the stream starts now. A `: heartbeat` comment is sent on idle streams (every 15 seconds by default).',
          'Open streams per workspace are limited (10 per API process by default): past it, 429 `EVENT_STREAMS_EXCEEDED`, retryable, with Retry-After.',
          'The credential is checked again before each batch of events is written and whenever its scopes, its status or its workspace change, and the stream closes at the token\'s `exp`.',
          'A stream that may no longer go on ends with one `event: error` message (no `id`) whose `data` is problem details {type, title, status, code, detail, category, retryable, request_id}:',
          '`TOKEN_EXPIRED` (401, retryable: request a new token and reconnect with `Last-Event-ID`; nothing is lost or repeated),',
          '`CREDENTIAL_REVOKED` (401), `METHOD_NOT_ENTITLED` (403, `read:webhooks` removed), `WORKSPACE_SUSPENDED` (403) or `not_account_owner` (403), none retryable.',
          'The SDK\'s `events.stream()` and `corridor listen` renew the token and resume after `TOKEN_EXPIRED`, and stop with the error otherwise.',
        ].join(' '),
        querystring: EventStreamQuery,
        headers: EventStreamHeaders,
        response: {
          200: {
            description: 'Server-Sent Events: `id: evt_…`, `event: <type>`, `data: <Event JSON>`; last, when the credential may no longer read: `event: error`, `data: <problem details JSON>`',
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
      serializerCompiler: asWritten,
    },
    async (req) => events.listEvents(ctx.db, req.auth.workspaceId, { ...req.query, accountId: req.auth.subAccountId }),
  );

  app.get<{ Params: Static<typeof EventParams> }>(
    '/v1/events/:id',
    {
      config: { auth: 'workspace', scope: 'read:webhooks' },
      schema: { tags, summary: 'One event, as its webhooks carried it', params: EventParams, response: { 200: EventSchema } },
      serializerCompiler: asWritten,
    },
    async (req) => events.eventView(await events.getEvent(ctx.db, req.auth.workspaceId, req.params.id, req.auth.subAccountId)),
  );
}

/** How long a client waits before reconnecting after the connection drops (the SSE `retry` field). */
const RECONNECT_MS = 2000;

/** One SSE message: the event id as the SSE id (so Last-Event-ID resumes after it), its type, the event as JSON. */
export function sseFrame(row: events.StreamEventRow): string {
  return `id: ${row.id}\nevent: ${row.type}\ndata: ${JSON.stringify(events.eventView(row))}\n\n`;
}

/** The stream's last message when its caller may no longer read it: `event: error`, the refusal as problem details. */
export function sseErrorFrame(refusal: AppError, req: FastifyRequest): string {
  return `event: error\ndata: ${JSON.stringify(renderError(refusal, req).body)}\n\n`;
}

/** Resolves once the response can take more (or has closed): a slow client holds back only its own stream. */
function drained(raw: ServerResponse): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      raw.off('drain', done);
      raw.off('close', done);
      resolve();
    };
    raw.on('drain', done);
    raw.on('close', done);
  });
}

/**
 * Answers GET /v1/events/stream: finds where to start (after Last-Event-ID, else now), takes one of
 * the workspace's stream slots (429 when none is left), then hands the connection to the stream.
 */
export async function openEventStream(
  ctx: AppContext,
  streams: EventStreams,
  req: FastifyRequest,
  reply: FastifyReply,
  filter: StreamFilter,
  lastEventId: string | undefined,
): Promise<void> {
  const workspaceId = req.auth.workspaceId;
  const cursor = lastEventId ? await events.findStreamCursor(ctx.db, workspaceId, lastEventId) : await events.currentStreamCursor(ctx.db);
  if (!cursor) {
    throw new AppError({ status: 400, code: 'LAST_EVENT_ID_UNKNOWN', message: `No event ${lastEventId} in this workspace to resume after` });
  }
  const raw = reply.raw;
  const sink = {
    send: async (row: events.StreamEventRow) => {
      if (raw.destroyed) return;
      if (!raw.write(sseFrame(row))) await drained(raw);
    },
    heartbeat: () => {
      if (!raw.destroyed) raw.write(': heartbeat\n\n');
    },
    end: () => raw.end(),
    fail: (refusal: AppError) => {
      if (!raw.destroyed) raw.end(sseErrorFrame(refusal, req));
    },
  };
  const auth = req.auth;
  const scope = req.routeOptions.config.scope;
  const access = { check: () => req.server.workspaceAuth.recheck(auth, scope), expiresAtMs: auth.tokenExpiresAtMs };
  const close = streams.open(workspaceId, cursor, filter, sink, access); // throws 429 before anything is sent
  reply.hijack();
  req.raw.socket.setTimeout(0); // the heartbeats keep it alive; the idle-connection timeout is for requests
  raw.writeHead(200, {
    'content-type': 'text/event-stream; charset=utf-8',
    'cache-control': 'no-cache, no-transform',
    connection: 'keep-alive',
    'x-accel-buffering': 'no',
    'x-request-id': String(req.id),
  });
  raw.write(`retry: ${RECONNECT_MS}\n: connected\n\n`);
  raw.on('close', close);
}
