import { CorridorError, errorFromResponse, networkError } from './errors.js';

export interface CorridorOptions {
  /** The API base address, e.g. `http://127.0.0.1:8080`. */
  baseUrl: string;
  clientId: string;
  clientSecret: string;
  /** The token audience (Corridor's CORRIDOR_AUDIENCE; default `corridor-api`). */
  audience?: string;
  /** Token endpoint; default `<baseUrl>/oauth/token`. */
  tokenUrl?: string;
  /** Retries after the first attempt, per logical call (default 3). */
  maxRetries?: number;
  /** First backoff delay; doubled per retry, with full jitter (default 500 ms). */
  retryBaseDelayMs?: number;
  /** Largest backoff delay (default 20 s). */
  retryMaxDelayMs?: number;
  /** A `Retry-After` longer than this is not waited for: the error is thrown (default 60 s). */
  retryAfterMaxMs?: number;
  /** The cached token is renewed this long before it expires (default 60 s). */
  tokenRenewBeforeMs?: number;
  /** Deadline of each attempt (default 60 s; streams are not subject to it). */
  timeoutMs?: number;
  /** A fetch implementation (default: the global one). */
  fetch?: typeof fetch;
}

export type HttpMethod = 'get' | 'post' | 'put' | 'patch' | 'delete';

export interface RequestOptions {
  /** Idempotency-Key of a POST; generated once per call when not given, and reused on its retries. */
  idempotencyKey?: string;
  /** Extra headers. */
  headers?: Record<string, string>;
  signal?: AbortSignal;
}

export interface RawRequest {
  method: HttpMethod;
  path: string;
  query?: Record<string, unknown> | undefined;
  body?: unknown;
  options?: RequestOptions | undefined;
  /** Answer as a stream (no per-attempt deadline; the body is not read). */
  stream?: boolean;
}

interface CachedToken {
  value: string;
  renewAtMs: number;
}

const sleep = (ms: number, signal?: AbortSignal): Promise<void> =>
  new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const timer = setTimeout(done, ms);
    function done() {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }
    function onAbort() {
      clearTimeout(timer);
      reject(signal?.reason);
    }
    signal?.addEventListener('abort', onAbort, { once: true });
  });

/** A random Idempotency-Key (a UUID v4) from the platform's Web Crypto. */
export function newIdempotencyKey(): string {
  return globalThis.crypto.randomUUID();
}

/**
 * What every call goes through: the cached token (one per credential, renewed shortly before it
 * expires, concurrent calls sharing one renewal), the Idempotency-Key of a POST, and the spec's Retry
 * rules (network errors and `retryable: true`; without problem details only 429, 502, 503, 504),
 * with exponential backoff, full jitter and `Retry-After`, at most `maxRetries` times.
 */
export class Transport {
  readonly baseUrl: string;
  /** The credential's client id. */
  readonly clientId: string;
  private readonly fetchFn: typeof fetch;
  private readonly settings: Required<Omit<CorridorOptions, 'fetch' | 'tokenUrl' | 'audience'>> & { tokenUrl: string; audience: string };
  private token: CachedToken | undefined;
  private renewal: Promise<string> | undefined;

  constructor(options: CorridorOptions) {
    this.baseUrl = options.baseUrl.replace(/\/+$/, '');
    this.clientId = options.clientId;
    this.fetchFn = options.fetch ?? ((input, init) => globalThis.fetch(input, init));
    this.settings = {
      baseUrl: this.baseUrl,
      clientId: options.clientId,
      clientSecret: options.clientSecret,
      audience: options.audience ?? 'corridor-api',
      tokenUrl: options.tokenUrl ?? `${this.baseUrl}/oauth/token`,
      maxRetries: options.maxRetries ?? 3,
      retryBaseDelayMs: options.retryBaseDelayMs ?? 500,
      retryMaxDelayMs: options.retryMaxDelayMs ?? 20_000,
      retryAfterMaxMs: options.retryAfterMaxMs ?? 60_000,
      tokenRenewBeforeMs: options.tokenRenewBeforeMs ?? 60_000,
      timeoutMs: options.timeoutMs ?? 60_000,
    };
  }

  /** The current access token: the cached one, or one renewal shared by every caller waiting for it. */
  async accessToken(): Promise<string> {
    if (this.token && Date.now() < this.token.renewAtMs) return this.token.value;
    this.renewal ??= this.requestToken().finally(() => {
      this.renewal = undefined;
    });
    return this.renewal;
  }

  /** Forgets the cached token `value` (it was refused: revoked, or the server's keys changed); without `value`, whichever is cached (it expired under an open stream). */
  dropToken(value?: string): void {
    if (value === undefined || this.token?.value === value) this.token = undefined;
  }

  private async requestToken(): Promise<string> {
    const { clientId, clientSecret, audience, tokenUrl, tokenRenewBeforeMs } = this.settings;
    const res = await this.withRetries(undefined, () =>
      this.fetchFn(tokenUrl, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json' },
        body: JSON.stringify({ grant_type: 'client_credentials', client_id: clientId, client_secret: clientSecret, audience }),
        signal: AbortSignal.timeout(this.settings.timeoutMs),
      }),
    );
    const body = (await res.json()) as { access_token: string; expires_in: number };
    const lifetimeMs = body.expires_in * 1000;
    // Renewed shortly before it expires; a short-lived token is renewed at half its life.
    this.token = { value: body.access_token, renewAtMs: Date.now() + Math.max(lifetimeMs / 2, lifetimeMs - tokenRenewBeforeMs) };
    return body.access_token;
  }

  /** One logical call: the answer of a success, or the CorridorError of the last attempt. */
  async request(req: RawRequest, accountId?: string): Promise<Response> {
    const url = this.url(req.path, req.query);
    const idempotencyKey = req.method === 'post' ? (req.options?.idempotencyKey ?? newIdempotencyKey()) : undefined;
    let tokenRetried = false;
    for (;;) {
      const token = await this.accessToken();
      try {
        return await this.withRetries(req.options?.signal, () => {
          const headers: Record<string, string> = { accept: req.stream ? 'text/event-stream' : 'application/json', authorization: `Bearer ${token}`, ...req.options?.headers };
          if (accountId) headers['service-account-id'] = accountId;
          if (idempotencyKey) headers['idempotency-key'] = idempotencyKey;
          if (req.body !== undefined) headers['content-type'] = 'application/json';
          const signals = [req.options?.signal, req.stream ? undefined : AbortSignal.timeout(this.settings.timeoutMs)].filter((s): s is AbortSignal => s !== undefined);
          return this.fetchFn(url, {
            method: req.method.toUpperCase(),
            headers,
            ...(req.body === undefined ? {} : { body: JSON.stringify(req.body) }),
            ...(signals.length ? { signal: signals.length === 1 ? signals[0] : AbortSignal.any(signals) } : {}),
          });
        });
      } catch (err) {
        // A token refused once (revoked, keys rotated) is renewed and the call sent once more.
        if (err instanceof CorridorError && err.status === 401 && !tokenRetried) {
          tokenRetried = true;
          this.dropToken(token);
          continue;
        }
        throw err;
      }
    }
  }

  /** PUTs bytes to a signed upload URL: no token, no retries (a used URL refuses a second file). */
  async putFile(url: string, file: Uint8Array | ArrayBuffer | Blob, contentType: string, signal?: AbortSignal): Promise<Response> {
    const signals = [signal, AbortSignal.timeout(this.settings.timeoutMs)].filter((s): s is AbortSignal => s !== undefined);
    return this.fetchFn(url, { method: 'PUT', headers: { 'content-type': contentType }, body: file as Blob, signal: signals.length === 1 ? signals[0] : AbortSignal.any(signals) });
  }

  private url(path: string, query: Record<string, unknown> | undefined): string {
    const url = new URL(this.baseUrl + path);
    for (const [k, v] of Object.entries(query ?? {})) {
      if (v === undefined || v === null) continue;
      url.searchParams.set(k, Array.isArray(v) ? v.join(',') : String(v));
    }
    return url.toString();
  }

  /** Runs `attempt` until it answers 2xx, retrying what the Retry rules allow; throws the CorridorError otherwise. */
  private async withRetries(signal: AbortSignal | undefined, attempt: () => Promise<Response>): Promise<Response> {
    const { maxRetries } = this.settings;
    for (let retry = 0; ; retry++) {
      let error: CorridorError;
      try {
        const res = await attempt();
        if (res.ok) return res;
        error = errorFromResponse(res.status, res.headers, await res.text());
      } catch (err) {
        if (signal?.aborted) throw err;
        error = networkError(err);
      }
      if (!error.retryable || retry >= maxRetries) throw error;
      const delayMs = this.delayMs(retry, error);
      if (delayMs === undefined) throw error;
      await sleep(delayMs, signal);
    }
  }

  /** Exponential backoff with full jitter, never shorter than Retry-After; undefined when Retry-After is too long to wait. */
  private delayMs(retry: number, error: CorridorError): number | undefined {
    const { retryBaseDelayMs, retryMaxDelayMs, retryAfterMaxMs } = this.settings;
    const backoff = Math.random() * Math.min(retryMaxDelayMs, retryBaseDelayMs * 2 ** retry);
    if (error.retryAfterS === undefined) return backoff;
    const retryAfterMs = error.retryAfterS * 1000;
    return retryAfterMs > retryAfterMaxMs ? undefined : Math.max(retryAfterMs, backoff);
  }
}
