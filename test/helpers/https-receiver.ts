import fs from 'node:fs';
import type { IncomingHttpHeaders } from 'node:http';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { SIGNATURE_HEADER, TIMESTAMP_HEADER, signPayload } from '../../src/domains/webhooks/signature.js';

/** One request the receiver got. */
export interface Received {
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
  /** Date.now() when the request had arrived in full. */
  at: number;
}

export interface Reply {
  status: number;
  body?: string;
  headers?: Record<string, string>;
  /** Wait this long before answering (a slow or hung receiver). */
  delayMs?: number;
  /** Answer only once this settles (a test reads the sender's state while the request is open). */
  after?: Promise<unknown>;
}

/** How a path answers its n-th request (1-based). */
export type Responder = (req: Received, n: number) => Reply;

/** The certificate and key of the test PKI that test/global-setup.ts made (trusted through NODE_EXTRA_CA_CERTS). */
export function testServerCredentials(): { cert: Buffer; key: Buffer } {
  const dir = process.env.CORRIDOR_TEST_PKI_DIR;
  if (!dir) throw new Error('CORRIDOR_TEST_PKI_DIR is unset: run the tests through vitest (test/global-setup.ts)');
  return { cert: fs.readFileSync(path.join(dir, 'server.pem')), key: fs.readFileSync(path.join(dir, 'server.key')) };
}

/**
 * A real HTTPS server for webhook tests, on 127.0.0.1 and a free port, with a certificate of the
 * throwaway test CA. Records every request; each path answers as told (200 "ok" by default).
 */
export class HttpsReceiver {
  readonly received: Received[] = [];
  private readonly responders = new Map<string, Responder>();
  private readonly counts = new Map<string, number>();
  private readonly timers = new Set<NodeJS.Timeout>();
  private waiters: (() => void)[] = [];

  private constructor(private readonly server: https.Server) {}

  static async start(): Promise<HttpsReceiver> {
    const server = https.createServer({ ...testServerCredentials(), keepAliveTimeout: 10_000 });
    const receiver = new HttpsReceiver(server);
    server.on('request', (req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const received: Received = { path: req.url ?? '/', headers: req.headers, body: Buffer.concat(chunks).toString('utf8'), at: Date.now() };
        receiver.received.push(received);
        const n = (receiver.counts.get(received.path) ?? 0) + 1;
        receiver.counts.set(received.path, n);
        const reply: Reply = (receiver.responders.get(received.path) ?? (() => ({ status: 200, body: 'ok' })))(received, n);
        const send = () => {
          if (!res.destroyed) res.writeHead(reply.status, reply.headers ?? { 'content-type': 'text/plain' }).end(reply.body ?? '');
        };
        if (reply.after) void reply.after.finally(send);
        else if (reply.delayMs) {
          const timer = setTimeout(() => {
            receiver.timers.delete(timer);
            send();
          }, reply.delayMs);
          receiver.timers.add(timer);
        } else send();
        for (const w of receiver.waiters) w();
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return receiver;
  }

  get port(): number {
    return (this.server.address() as AddressInfo).port;
  }

  /** `https://<host>:<port><path>`; the certificate is valid for localhost, rebind.test, 127.0.0.1 and ::1. */
  url(path: string, host = 'localhost'): string {
    return `https://${host}:${this.port}${path}`;
  }

  on(path: string, responder: Responder): this {
    this.responders.set(path, responder);
    return this;
  }

  requests(path: string): Received[] {
    return this.received.filter((r) => r.path === path);
  }

  /** Waits until `path` has received at least `count` requests. */
  waitFor(path: string, count: number, timeoutMs = 15_000): Promise<Received[]> {
    return this.waitUntil(path, (got) => got.length >= count, timeoutMs, `${count} requests`);
  }

  /**
   * Waits until `path` has received requests carrying `count` different bodies' `key` (an event id):
   * delivery is at least once, so a retry after a slow answer on a loaded machine repeats one.
   */
  waitForDistinct(path: string, count: number, key: (r: Received) => string, timeoutMs = 15_000): Promise<Received[]> {
    return this.waitUntil(path, (got) => new Set(got.map(key)).size >= count, timeoutMs, `${count} distinct requests`);
  }

  /** Waits until what `path` has received satisfies `done`. */
  async waitUntil(path: string, done: (got: Received[]) => boolean, timeoutMs = 15_000, what = 'what was awaited'): Promise<Received[]> {
    const deadline = Date.now() + timeoutMs;
    while (!done(this.requests(path))) {
      const left = deadline - Date.now();
      if (left <= 0) throw new Error(`${path}: ${this.requests(path).length} requests, not ${what}, after ${timeoutMs} ms`);
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, Math.min(left, 100));
        this.waiters.push(() => {
          clearTimeout(timer);
          resolve();
        });
      });
      this.waiters = [];
    }
    return this.requests(path);
  }

  async close(): Promise<void> {
    for (const t of this.timers) clearTimeout(t);
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}

/**
 * Whether a delivery carries the server's signature under `secret`, checked with the server's own
 * signer (synchronous, for receivers' handlers and predicates). Integrators verify with the SDK's
 * `verifyWebhook`, the one verifier; test/webhooks/webhooks-guard.test.ts checks that it and this
 * signer agree.
 */
export function signedWith(body: string, headers: IncomingHttpHeaders, secret: string): boolean {
  const signature = headers[SIGNATURE_HEADER];
  const timestamp = headers[TIMESTAMP_HEADER];
  if (typeof signature !== 'string' || typeof timestamp !== 'string' || !/^\d{1,12}$/.test(timestamp)) return false;
  return signPayload(secret, Number(timestamp), body) === signature.toLowerCase();
}
