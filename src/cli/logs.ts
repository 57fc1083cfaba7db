import type { Corridor } from '../../packages/sdk/src/index.js';

export interface TailOptions {
  corridor: Corridor;
  /** How often the log is read. */
  intervalMs: number;
  method?: string | undefined;
  /** Only answers of 400 and above. */
  failed?: boolean | undefined;
  signal: AbortSignal;
  write: (line: string) => void;
}

type Logged = { id: string; createdAt: string; method: string; path: string; status: number; durationMs: number; requestId: string; idempotencyKey: string | null; caller: string };

/** One request as a line: time, status, method, path, duration, request id, Idempotency-Key, caller. */
export function logLine(r: Logged): string {
  return `${r.createdAt}  ${r.status} ${r.method.padEnd(6)} ${r.path}  ${r.durationMs} ms  ${r.requestId}${r.idempotencyKey ? `  key=${r.idempotencyKey}` : ''}  ${r.caller}`;
}

/** Ids printed lately: a request written late (another API process's batch) still comes once. */
const SEEN_MAX = 2000;

/**
 * `corridor logs tail`: the workspace's API requests as they are logged, one line each, from now on.
 * Reads the newest page of GET /v1/request-logs every `intervalMs` and prints, oldest first, the
 * requests not printed yet (a request another process logs a little later than a newer one is
 * printed when it appears). Until the signal aborts.
 */
export async function tailLogs(options: TailOptions): Promise<void> {
  const seen = new Set<string>();
  const query = { limit: 100, ...(options.method ? { method: options.method as 'GET' } : {}), ...(options.failed ? { failed: true } : {}) };
  let first = true;
  while (!options.signal.aborted) {
    let page;
    try {
      page = await options.corridor.requestLogs.list(query, { signal: options.signal });
    } catch (err) {
      if (options.signal.aborted) break;
      throw err;
    }
    const fresh = (page.data as Logged[]).filter((r) => !seen.has(r.id)).reverse();
    for (const r of fresh) {
      seen.add(r.id);
      if (!first) options.write(logLine(r));
    }
    // Said once the requests before now are known: every later one is printed.
    if (first) options.write(`Tailing the API requests of this workspace${options.method ? ` (${options.method})` : ''}${options.failed ? ' (failed only)' : ''}; Ctrl-C stops`);
    if (seen.size > SEEN_MAX) for (const id of [...seen].slice(0, seen.size - SEEN_MAX)) seen.delete(id);
    first = false;
    await new Promise<void>((resolve) => {
      const timer = setTimeout(done, options.intervalMs);
      function done() {
        clearTimeout(timer);
        options.signal.removeEventListener('abort', done);
        resolve();
      }
      options.signal.addEventListener('abort', done, { once: true });
    });
  }
}
