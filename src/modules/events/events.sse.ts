import type { FastifyReply, FastifyRequest } from 'fastify';
import type { ServerResponse } from 'node:http';
import type { AppContext } from '../../context.js';
import { AppError } from '../../http/errors.js';
import { currentStreamCursor, findStreamCursor, type StreamEventRow } from './events.repository.js';
import { eventView } from './events.service.js';
import type { EventStreams, StreamFilter } from './events.stream.js';

/** How long a client waits before reconnecting after the connection drops (the SSE `retry` field). */
const RECONNECT_MS = 2000;

/** One SSE message: the event id as the SSE id (so Last-Event-ID resumes after it), its type, the event as JSON. */
export function sseFrame(row: StreamEventRow): string {
  return `id: ${row.id}\nevent: ${row.type}\ndata: ${JSON.stringify(eventView(row))}\n\n`;
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
  const cursor = lastEventId ? await findStreamCursor(ctx.db, workspaceId, lastEventId) : await currentStreamCursor(ctx.db);
  if (!cursor) {
    throw new AppError({ status: 400, code: 'LAST_EVENT_ID_UNKNOWN', message: `No event ${lastEventId} in this workspace to resume after` });
  }
  const raw = reply.raw;
  const sink = {
    send: async (row: StreamEventRow) => {
      if (raw.destroyed) return;
      if (!raw.write(sseFrame(row))) await drained(raw);
    },
    heartbeat: () => {
      if (!raw.destroyed) raw.write(': heartbeat\n\n');
    },
    end: () => raw.end(),
  };
  const close = streams.open(workspaceId, cursor, filter, sink); // throws 429 before anything is sent
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
