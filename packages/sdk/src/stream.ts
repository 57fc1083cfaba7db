import { CorridorError, errorFromResponse } from './errors.js';

/** One message of a Server-Sent Events stream. */
export interface SseMessage {
  id: string | undefined;
  event: string | undefined;
  data: string;
}

/** Splits a text/event-stream body into messages (comments and heartbeats are skipped). */
export async function* readSse(body: ReadableStream<Uint8Array>): AsyncGenerator<SseMessage, void, undefined> {
  const reader = body.getReader();
  const decoder = new TextDecoder();
  let buffer = '';
  try {
    for (;;) {
      const chunk = await reader.read();
      if (chunk.done) return;
      buffer += decoder.decode(chunk.value, { stream: true }).replace(/\r\n?/g, '\n');
      for (let end = buffer.indexOf('\n\n'); end >= 0; end = buffer.indexOf('\n\n')) {
        const block = buffer.slice(0, end);
        buffer = buffer.slice(end + 2);
        let id: string | undefined;
        let event: string | undefined;
        const data: string[] = [];
        for (const line of block.split('\n')) {
          if (line === '' || line.startsWith(':')) continue;
          const colon = line.indexOf(':');
          const field = colon < 0 ? line : line.slice(0, colon);
          const value = colon < 0 ? '' : line.slice(colon + 1).replace(/^ /, '');
          if (field === 'id') id = value;
          else if (field === 'event') event = value;
          else if (field === 'data') data.push(value);
        }
        if (data.length) yield { id, event, data: data.join('\n') };
      }
    }
  } finally {
    await reader.cancel().catch(() => undefined);
  }
}

export interface StreamOptions<T extends string = string> {
  /** Resume after this event id (every later event, none twice). Default: from now. */
  lastEventId?: string;
  /** Only events of these types (the client's `events.stream` takes only the API's event types). */
  types?: T[];
  signal?: AbortSignal;
  /** Reconnections in a row without receiving anything before giving up (default 10). */
  reconnectsMax?: number;
  /** Delay before reconnecting after a dropped connection (default 1 s, doubled per failure up to 30 s). */
  reconnectDelayMs?: number;
  /** Told before each reconnection: why the connection ended (undefined: the server closed it; TOKEN_EXPIRED: the token did) and the wait. */
  onReconnect?: (reason: unknown, delayMs: number, lastEventId: string | undefined) => void;
}

/** The code of the stream's `event: error` that a new token fixes: the stream is resumed at once with one. */
const TOKEN_EXPIRED = 'TOKEN_EXPIRED';

/** The refusal an `event: error` message carries (problem details: the token expired, the credential was revoked or lost its scope). */
function streamError(data: string): CorridorError {
  let status = 0;
  try {
    status = Number((JSON.parse(data) as { status?: unknown }).status) || 0;
  } catch {
    // not JSON: kept as the error's text
  }
  return errorFromResponse(status, new Headers({ 'content-type': 'application/problem+json' }), data);
}

/**
 * Follows a stream of events, reconnecting after a dropped connection with `Last-Event-ID` set to
 * the last event received: no event is missed or received twice. `open` opens one connection.
 * When the server ends the stream with `event: error`: TOKEN_EXPIRED calls `renewToken` and
 * reconnects at once; any other refusal (CREDENTIAL_REVOKED, METHOD_NOT_ENTITLED) is thrown.
 */
export async function* followEvents<E extends { id: string }>(
  open: (lastEventId: string | undefined, signal: AbortSignal | undefined) => Promise<ReadableStream<Uint8Array>>,
  options: StreamOptions = {},
  renewToken: () => void = () => undefined,
): AsyncGenerator<E, void, undefined> {
  let lastEventId = options.lastEventId;
  const reconnectsMax = options.reconnectsMax ?? 10;
  const baseDelayMs = options.reconnectDelayMs ?? 1000;
  let failures = 0;
  for (;;) {
    let reason: unknown;
    let expired = false;
    try {
      const body = await open(lastEventId, options.signal);
      for await (const msg of readSse(body)) {
        if (msg.event === 'error') throw streamError(msg.data);
        const event = JSON.parse(msg.data) as E;
        failures = 0;
        lastEventId = msg.id ?? event.id;
        yield event;
      }
    } catch (err) {
      if (options.signal?.aborted) return;
      expired = err instanceof CorridorError && err.code === TOKEN_EXPIRED;
      // A refusal that sending again cannot fix (bad token scope, revoked credential, unknown Last-Event-ID) ends the stream.
      if (err instanceof CorridorError && err.status !== 0 && !err.retryable) throw err;
      if (expired) renewToken();
      else if (++failures > reconnectsMax) throw err;
      reason = err;
    }
    if (options.signal?.aborted) return;
    const delayMs = expired ? 0 : Math.min(30_000, baseDelayMs * 2 ** Math.max(0, failures - 1));
    options.onReconnect?.(reason, delayMs, lastEventId);
    await new Promise((resolve) => setTimeout(resolve, delayMs));
  }
}
