import { Agent, fetch as undiciFetch } from 'undici';

/** A minimal Server-Sent Events reader over fetch, for tests of GET /v1/events/stream. */
export interface SseMessage {
  id?: string;
  event?: string;
  data?: string;
  comment?: string;
}

export interface SseConnection {
  status: number;
  headers: Headers;
  /** The body when the answer is not a stream (an error). */
  text: () => Promise<string>;
  /** The next message or comment, or undefined when the stream ended; rejects after `timeoutMs`. */
  next: (timeoutMs?: number) => Promise<SseMessage | undefined>;
  /** The next `count` events (comments skipped), within `timeoutMs` in all. */
  events: (count: number, timeoutMs?: number) => Promise<SseMessage[]>;
  close: () => void;
}

export async function openSse(url: string, headers: Record<string, string>): Promise<SseConnection> {
  const controller = new AbortController();
  // A connection of its own, destroyed at close: an aborted fetch on the shared pool can leave the
  // socket open, and the server then waits for it when it closes.
  const agent = new Agent({ connections: 1 });
  const res = await undiciFetch(url, { headers: { accept: 'text/event-stream', ...headers }, signal: controller.signal, dispatcher: agent });
  const errorText = res.status === 200 ? '' : await res.text();
  const reader = res.status === 200 ? res.body?.getReader() : undefined;
  const decoder = new TextDecoder();
  let buffer = '';
  const queue: SseMessage[] = [];
  let ended = false;
  // A read that timed out is still pending: the next wait takes it over, so no chunk is lost.
  let pending: ReturnType<NonNullable<typeof reader>["read"]> | undefined;

  const parse = () => {
    for (let end = buffer.indexOf('\n\n'); end >= 0; end = buffer.indexOf('\n\n')) {
      const block = buffer.slice(0, end);
      buffer = buffer.slice(end + 2);
      const msg: SseMessage = {};
      for (const line of block.split('\n')) {
        const colon = line.indexOf(':');
        const field = colon < 0 ? line : line.slice(0, colon);
        const value = colon < 0 ? '' : line.slice(colon + 1).replace(/^ /, '');
        if (field === '') msg.comment = value;
        else if (field === 'id' || field === 'event') msg[field] = value;
        else if (field === 'data') msg.data = msg.data === undefined ? value : `${msg.data}\n${value}`;
      }
      queue.push(msg);
    }
  };

  const next = async (timeoutMs = 10_000): Promise<SseMessage | undefined> => {
    const deadline = Date.now() + timeoutMs;
    while (queue.length === 0) {
      if (ended || !reader) return undefined;
      const remaining = deadline - Date.now();
      if (remaining <= 0) throw new Error('no SSE message in time');
      let timer: NodeJS.Timeout | undefined;
      pending ??= reader.read();
      const chunk = await Promise.race([
        pending,
        new Promise<'timeout'>((resolve) => {
          timer = setTimeout(() => resolve('timeout'), remaining);
        }),
      ]);
      clearTimeout(timer);
      if (chunk === 'timeout') throw new Error('no SSE message in time');
      pending = undefined;
      if (chunk.done) ended = true;
      else buffer += decoder.decode(chunk.value, { stream: true });
      parse();
    }
    return queue.shift();
  };

  return {
    status: res.status,
    headers: res.headers,
    text: async () => errorText,
    next,
    events: async (count, timeoutMs = 10_000) => {
      // One deadline for all of them: heartbeats arrive in between and must not extend the wait.
      const deadline = Date.now() + timeoutMs;
      const out: SseMessage[] = [];
      while (out.length < count) {
        const msg = await next(Math.max(1, deadline - Date.now()));
        if (!msg) throw new Error(`stream ended after ${out.length} events`);
        if (msg.data !== undefined) out.push(msg);
      }
      return out;
    },
    close: () => {
      controller.abort();
      void agent.destroy().catch(() => undefined);
    },
  };
}
