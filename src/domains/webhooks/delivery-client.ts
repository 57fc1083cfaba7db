import fs from 'node:fs';
import net from 'node:net';
import tls from 'node:tls';
import { Agent, buildConnector } from 'undici';
import { BlockedAddressError, blockedAddressReason, guardedLookup, type Resolver } from './ssrf-guard.js';
import { signedHeaders, type Signing } from './signature.js';

export interface DeliveryClientOptions {
  timeoutMs: number;
  excerptBytesMax: number;
  allowPrivateNetworks: boolean;
  /** PEM of extra CAs to trust besides the system store and NODE_EXTRA_CA_CERTS. */
  caFile?: string | undefined;
  /** Name resolution (tests substitute one to play DNS rebinding). */
  resolve?: Resolver | undefined;
}

export interface AttemptRequest {
  url: string;
  /** The exact JSON text sent and signed. */
  body: string;
  /** The event id: Standard Webhooks' `webhook-id`, the same on every attempt. */
  eventId: string;
  signing: Signing;
}

export interface AttemptResult {
  ok: boolean;
  at: Date;
  endedAt: Date;
  durationMs: number;
  responseStatus: number | null;
  error: string | null;
  responseExcerpt: string | null;
}

const USER_AGENT = 'Corridor-Webhooks/1.0';

/**
 * A TLS context trusting the system roots, NODE_EXTRA_CA_CERTS and `caFile` (a `ca` replaces the
 * default store, so it carries all three). Built once: a `ca` option on each connection would
 * parse every root certificate again per handshake.
 */
function secureContextWith(caFile: string): tls.SecureContext {
  const extra = process.env.NODE_EXTRA_CA_CERTS;
  const ca = [...tls.rootCertificates, ...(extra ? [fs.readFileSync(extra, 'utf8')] : []), fs.readFileSync(caFile, 'utf8')];
  return tls.createSecureContext({ ca });
}

/**
 * Connects like undici's own connector, except that, with the guard on, a literal address is checked
 * before connecting and a host name is resolved by a lookup that refuses non-public addresses.
 */
function connector(options: DeliveryClientOptions): buildConnector.connector {
  const guard = !options.allowPrivateNetworks;
  const lookup = guard || options.resolve ? guardedLookup(options.resolve, guard) : undefined;
  const base = buildConnector({
    timeout: options.timeoutMs,
    ...(lookup ? { lookup } : {}),
    ...(options.caFile ? { secureContext: secureContextWith(options.caFile) } : {}),
  } as buildConnector.BuildOptions);
  if (!guard) return base;
  return (opts, callback) => {
    const host = opts.hostname.replace(/^\[(.*)\]$/, '$1');
    const reason = net.isIP(host) ? blockedAddressReason(host) : undefined;
    if (reason) return callback(new BlockedAddressError(host, host, reason), null);
    return base(opts, callback);
  };
}

function describeError(err: unknown, timedOut: boolean, timeoutMs: number): string {
  if (timedOut) return `timeout: no response within ${timeoutMs} ms`;
  const e = err as { code?: string; message?: string; cause?: { code?: string; message?: string } };
  const inner = e.cause && (e.cause.code || e.cause.message) ? e.cause : e;
  const text = [inner.code, inner.message].filter(Boolean).join(': ') || String(err);
  return clean(text).slice(0, 500);
}

/** Text safe for jsonb: no NUL characters. */
const clean = (text: string): string => text.replaceAll('\u0000', '');

/**
 * Sends webhook attempts: one POST per call, signed with a fresh timestamp, over kept-alive
 * connections. Success is a 2xx status within the deadline; redirects are not followed (a 3xx is a
 * failure); at most `excerptBytesMax` of the response body is read.
 */
export class DeliveryClient {
  private readonly agent: Agent;

  constructor(private readonly options: DeliveryClientOptions) {
    this.agent = new Agent({
      connect: connector(options),
      keepAliveTimeout: 4_000,
      keepAliveMaxTimeout: 60_000,
      headersTimeout: options.timeoutMs,
      bodyTimeout: options.timeoutMs,
      maxRedirections: 0,
      pipelining: 1,
    });
  }

  async send(request: AttemptRequest): Promise<AttemptResult> {
    const { timeoutMs } = this.options;
    const at = new Date();
    const started = performance.now();
    const timestamp = Math.floor(at.getTime() / 1000);
    const controller = new AbortController();
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      controller.abort();
    }, timeoutMs);
    let responseStatus: number | null = null;
    let excerpt: string | null = null;
    let error: string | null = null;
    try {
      const url = new URL(request.url);
      const res = await this.agent.request({
        origin: url.origin,
        path: `${url.pathname}${url.search}`,
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          'user-agent': USER_AGENT,
          ...signedHeaders(request.signing, request.eventId, timestamp, request.body),
        },
        body: request.body,
        signal: controller.signal,
      });
      responseStatus = res.statusCode;
      excerpt = await readExcerpt(res.body, this.options.excerptBytesMax);
      if (responseStatus >= 300 && responseStatus < 400) error = 'redirect not followed';
    } catch (err) {
      if (responseStatus === null) error = describeError(err, timedOut, timeoutMs);
    } finally {
      clearTimeout(timer);
    }
    const durationMs = Math.round(performance.now() - started);
    return {
      ok: responseStatus !== null && responseStatus >= 200 && responseStatus < 300,
      at,
      endedAt: new Date(at.getTime() + durationMs),
      durationMs,
      responseStatus,
      error,
      responseExcerpt: excerpt,
    };
  }

  async close(): Promise<void> {
    await this.agent.close();
  }
}

/**
 * The first `bytesMax` bytes of a response body as text. A longer body is not read further (its
 * connection is dropped rather than drained); a body cut off by the deadline keeps what arrived.
 */
async function readExcerpt(body: AsyncIterable<Buffer> & { destroy(): void }, bytesMax: number): Promise<string | null> {
  const chunks: Buffer[] = [];
  let size = 0;
  try {
    for await (const chunk of body) {
      chunks.push(chunk);
      size += chunk.length;
      if (size >= bytesMax) {
        body.destroy();
        break;
      }
    }
  } catch {
    // Aborted or reset while reading: the status has arrived, keep the part of the body that did.
  }
  if (size === 0) return null;
  return clean(Buffer.concat(chunks).subarray(0, bytesMax).toString('utf8'));
}
