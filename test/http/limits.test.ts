import net from 'node:net';
import type { AddressInfo } from 'node:net';
import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, newWorkspace, type Caller, type TestApp } from '../helpers/app.js';

const REDIS_URL = process.env.REDIS_URL || 'redis://127.0.0.1:6379';

/** A client address of its own, so counts never mix between tests (or with a shared Redis). */
const freshIp = () => `10.${randomBytes(1)[0]}.${randomBytes(1)[0]}.${1 + (randomBytes(1)[0]! % 250)}`;

async function redisReachable(url: string): Promise<boolean> {
  const client = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 0, enableOfflineQueue: false, connectTimeout: 1000, retryStrategy: () => null });
  client.on('error', () => undefined);
  try {
    await client.connect();
    return (await client.ping()) === 'PONG';
  } catch {
    return false;
  } finally {
    client.disconnect();
  }
}

/** One app for the whole file but the Redis case: a low rate limit and short server timeouts. */
let t: TestApp;
let caller: Caller;
let port: number;
beforeAll(async () => {
  t = await createTestApp({
    env: {
      RATE_LIMIT_PER_SECOND: '5',
      TOKEN_RATE_LIMIT_PER_MINUTE: '3',
      HEADERS_TIMEOUT_MS: '1000',
      REQUEST_TIMEOUT_MS: '1500',
      KEEP_ALIVE_TIMEOUT_MS: '2000',
    },
  });
  caller = await newWorkspace(t.app, { name: 'Limited Ltd' });
  await t.app.listen({ port: 0, host: '127.0.0.1' });
  port = (t.app.server.address() as AddressInfo).port;
});
afterAll(async () => t.close());

const get = (url: string, ip: string, headers: Record<string, string> = {}) =>
  t.app.inject({ method: 'GET', url, remoteAddress: ip, headers: { authorization: `Bearer ${caller.token}`, ...headers } });

/** A POST as the caller, from an address of its own (so it never meets the low rate limit). */
const post = (url: string, payload: string, contentType = 'application/json') =>
  t.app.inject({ method: 'POST', url, remoteAddress: freshIp(), payload, headers: { authorization: `Bearer ${caller.token}`, 'content-type': contentType } });

describe('rate limit per client IP', () => {
  /**
   * Runs `fn` with a client address of its own. The window is one second: when `fn` failed only
   * after running past it (a very slow machine), it runs again with a new address.
   */
  async function inOneWindow(fn: (ip: string) => Promise<void>): Promise<void> {
    for (let attempt = 1; ; attempt++) {
      const started = Date.now();
      try {
        await fn(freshIp());
        return;
      } catch (err) {
        if (attempt >= 3 || Date.now() - started < 900) throw err;
      }
    }
  }

  it('answers the 6th request within a second with 429, Retry-After and RateLimit headers, in the legacy envelope', () =>
    inOneWindow(async (ip) => {
      for (let i = 1; i <= 5; i++) {
        const ok = await get('/v1/accounts', ip);
        expect(ok.statusCode).toBe(200);
        expect(ok.headers['ratelimit-limit']).toBe('5');
        expect(ok.headers['ratelimit-remaining']).toBe(String(5 - i));
        expect(Number(ok.headers['ratelimit-reset'])).toBeGreaterThanOrEqual(0);
      }
      const limited = await get('/v1/accounts', ip);
      expect(limited.statusCode).toBe(429);
      const retryAfter = Number(limited.headers['retry-after']);
      expect(Number.isInteger(retryAfter)).toBe(true);
      expect(retryAfter).toBeGreaterThanOrEqual(0);
      expect(retryAfter).toBeLessThanOrEqual(1);
      expect(limited.headers['ratelimit-limit']).toBe('5');
      expect(limited.headers['ratelimit-remaining']).toBe('0');
      expect(limited.headers['ratelimit-reset']).toBeDefined();
      expect(limited.headers['x-request-id']).toMatch(/^req_/);
      expect(limited.headers['content-type']).toMatch(/^application\/json/);
      expect(limited.json()).toMatchObject({ statusCode: 429, error: 'TOO_MANY_REQUESTS', code: 'RATE_LIMITED', path: '/v1/accounts' });
      expect(limited.json<{ message: string }>().message).toMatch(/rate limit/i);
    }));

  it('answers problem details on problem-details routes', () =>
    inOneWindow(async (ip) => {
      for (let i = 0; i < 5; i++) expect((await get('/v1/api-keys', ip)).statusCode).toBe(200);
      const limited = await get('/v1/api-keys', ip);
      expect(limited.statusCode).toBe(429);
      expect(limited.headers['content-type']).toMatch(/^application\/problem\+json/);
      expect(limited.headers['retry-after']).toBeDefined();
      expect(limited.json()).toMatchObject({ status: 429, code: 'RATE_LIMITED', category: 'rate_limit', retryable: true });
    }));

  it('counts each client IP on its own', () =>
    inOneWindow(async (busy) => {
      for (let i = 0; i < 6; i++) await get('/v1/accounts', busy);
      expect((await get('/v1/accounts', busy)).statusCode).toBe(429);
      const other = await get('/v1/accounts', freshIp());
      expect(other.statusCode).toBe(200);
      expect(other.headers['ratelimit-remaining']).toBe('4');
    }));

  it('lets the client through again once the window has passed', () =>
    inOneWindow(async (ip) => {
      for (let i = 0; i < 6; i++) await get('/v1/accounts', ip);
      const limited = await get('/v1/accounts', ip);
      expect(limited.statusCode).toBe(429);
      await new Promise((r) => setTimeout(r, 1100));
      expect((await get('/v1/accounts', ip)).statusCode).toBe(200);
    }));

  it('limits unknown routes and unauthenticated requests too', () =>
    inOneWindow(async (ip) => {
      const statuses: number[] = [];
      for (let i = 0; i < 6; i++) statuses.push((await t.app.inject({ method: 'GET', url: '/v1/no-such-route', remoteAddress: ip })).statusCode);
      expect(statuses.slice(0, 5).every((s) => s !== 429)).toBe(true);
      expect(statuses[5]).toBe(429);
    }));

  it('does not rate limit the health probes', async () => {
    const ip = freshIp();
    for (let i = 0; i < 12; i++) expect((await t.app.inject({ method: 'GET', url: '/healthz', remoteAddress: ip })).statusCode).toBe(200);
  });

  it('gives the token endpoint its own stricter per-minute limit', async () => {
    const ip = freshIp();
    const token = () =>
      t.app.inject({
        method: 'POST',
        url: '/oauth/token',
        remoteAddress: ip,
        payload: { client_id: caller.clientId, client_secret: caller.clientSecret, audience: 'corridor-api', grant_type: 'client_credentials' },
      });
    for (let i = 1; i <= 3; i++) {
      const ok = await token();
      expect(ok.statusCode).toBe(200);
      expect(ok.headers['ratelimit-limit']).toBe('3');
    }
    const limited = await token();
    expect(limited.statusCode).toBe(429);
    const retryAfter = Number(limited.headers['retry-after']);
    expect(retryAfter).toBeGreaterThan(1); // a per-minute window
    expect(retryAfter).toBeLessThanOrEqual(60);
    expect(limited.headers['ratelimit-limit']).toBe('3');
    expect(limited.headers['cache-control']).toBe('no-store');
    // The token limit is separate from the global one: other routes still answer for this IP.
    expect((await get('/v1/account', ip)).statusCode).toBe(200);
  });
});

describe('shared rate limit in Redis', () => {
  let reachable = false;
  const apps: TestApp[] = [];
  beforeAll(async () => {
    reachable = await redisReachable(REDIS_URL);
    if (!reachable) return;
    const first = await createTestApp({ env: { RATE_LIMIT_PER_SECOND: '1000000', TOKEN_RATE_LIMIT_PER_MINUTE: '4', REDIS_URL } });
    apps.push(first);
    apps.push(await createTestApp({ env: first.env, databaseUrl: first.config.databaseUrl }));
  });
  afterAll(async () => {
    for (const app of apps.reverse()) await app.close();
  });

  it('two API processes with REDIS_URL share one count per client IP', async (testCtx) => {
    if (!reachable) {
      testCtx.skip(`Redis is not reachable at ${REDIS_URL}`);
      return;
    }
    const [a, b] = apps as [TestApp, TestApp];
    // The store connects in the background; until it answers, requests pass uncounted (skipOnError).
    for (const app of [a, b]) {
      const warmIp = freshIp();
      const deadline = Date.now() + 5000;
      for (;;) {
        const res = await app.app.inject({ method: 'POST', url: '/oauth/token', remoteAddress: warmIp, payload: {} });
        if (res.headers['ratelimit-remaining'] !== '4') break;
        if (Date.now() > deadline) throw new Error('the Redis store never answered');
        await new Promise((r) => setTimeout(r, 50));
      }
    }
    const ip = freshIp();
    const attempt = (app: TestApp) => app.app.inject({ method: 'POST', url: '/oauth/token', remoteAddress: ip, payload: {} });
    const statuses: number[] = [];
    const remaining: (string | undefined)[] = [];
    for (const app of [a, b, a, b, a, b]) {
      const res = await attempt(app);
      statuses.push(res.statusCode);
      remaining.push(res.headers['ratelimit-remaining'] as string | undefined);
    }
    // The 5th request overall is refused although each process saw fewer than 5.
    expect(statuses).toEqual([401, 401, 401, 401, 429, 429]);
    expect(remaining.slice(0, 4)).toEqual(['3', '2', '1', '0']);
  });
});

/** Opens a raw connection, sends `text` and nothing more, and waits (at most 8 s) for the server to close it. */
function sendAndWaitForClose(text: string): Promise<{ data: string; closedAfterMs: number }> {
  const started = Date.now();
  return new Promise((resolve, reject) => {
    const socket = net.connect({ port, host: '127.0.0.1' });
    let data = '';
    const guard = setTimeout(() => {
      socket.destroy();
      reject(new Error(`the server kept the connection open for 8 s (received: ${JSON.stringify(data.slice(0, 200))})`));
    }, 8000);
    socket.on('connect', () => socket.write(text));
    socket.on('data', (chunk) => (data += chunk.toString('latin1')));
    socket.on('error', () => undefined);
    socket.on('close', () => {
      clearTimeout(guard);
      resolve({ data, closedAfterMs: Date.now() - started });
    });
  });
}

describe('request size and server timeouts', () => {
  it('refuses a JSON body over 1 MiB with 413', async () => {
    const res = await post('/v1/accounts', JSON.stringify({ name: 'Big', country: 'GB', clientRef: 'x'.repeat(1024 * 1024 + 10) }));
    expect(res.statusCode).toBe(413);
    expect(res.json()).toMatchObject({ statusCode: 413, code: 'PAYLOAD_TOO_LARGE' });
    expect(res.headers['x-request-id']).toBeDefined();
  });

  it('refuses a form-encoded body over 1 MiB with 413', async () => {
    const res = await post('/oauth/token', `grant_type=client_credentials&client_id=${'a'.repeat(1024 * 1024 + 10)}`, 'application/x-www-form-urlencoded');
    expect(res.statusCode).toBe(413);
  });

  it('reads a body just under 1 MiB (validated, not refused for its size)', async () => {
    const res = await post('/v1/accounts', JSON.stringify({ name: 'Big', country: 'GB', clientRef: 'x'.repeat(1000 * 1000) }));
    expect(res.statusCode).toBe(400);
    expect(res.json<{ details: { field: string }[] }>().details.map((d) => d.field)).toEqual(['clientRef']);
  });

  it('configures the HTTP server timeouts from the environment', () => {
    const server = t.app.server;
    expect(server.headersTimeout).toBe(1000);
    expect(server.requestTimeout).toBe(1500);
    expect(server.keepAliveTimeout).toBe(2000);
    expect(server.keepAliveTimeout).toBeGreaterThan(0);
  });

  it('answers 408 and closes a connection that never finishes its headers (slowloris) within a few seconds', async () => {
    const outcome = await sendAndWaitForClose('GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: ');
    expect(outcome.closedAfterMs).toBeGreaterThanOrEqual(900);
    expect(outcome.data).toMatch(/^HTTP\/1\.1 408 /);
  }, 15_000);

  it('answers 408 and closes when the body never arrives within the request timeout', async () => {
    const outcome = await sendAndWaitForClose(
      `POST /v1/accounts HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${caller.token}\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"name":`,
    );
    expect(outcome.closedAfterMs).toBeGreaterThanOrEqual(1400);
    expect(outcome.data).toMatch(/^HTTP\/1\.1 408 /);
  }, 15_000);

  it('closes an idle keep-alive connection after the keep-alive timeout', async () => {
    const outcome = await sendAndWaitForClose('GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: keep-alive\r\n\r\n');
    expect(outcome.data).toMatch(/^HTTP\/1\.1 200/);
    expect(outcome.data).toMatch(/keep-alive/i);
    expect(outcome.closedAfterMs).toBeGreaterThanOrEqual(1500);
  }, 15_000);

  it('still serves a complete request over a real socket', async () => {
    const res = await fetch(`http://127.0.0.1:${port}/healthz`);
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ status: 'ok' });
  });
});
