import { randomBytes } from 'node:crypto';
import type { LightMyRequestResponse } from 'fastify';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { totpCode, totpStep } from '../../src/platform/lib/totp.js';
import { createTestApp, newWorkspace, operator, type TestApp } from '../helpers/app.js';
import { WebClient } from '../helpers/web-client.js';

/**
 * Issue 19.4: the sign-in limit (SIGN_IN_FAILURES_PER_15_MIN) holds under concurrency, because the
 * attempt is reserved before the password is checked; the same for the second factor, and turning
 * the second factor off takes the password again under the same limit.
 */

const LIMIT = 5;
const PASSWORD = 'a long enough passphrase';
const REDIS_URL = process.env.REDIS_URL || 'redis://127.0.0.1:6379';
const freshIp = () => `10.${randomBytes(1)[0]}.${randomBytes(1)[0]}.${1 + (randomBytes(1)[0]! % 250)}`;
const email = () => `u${randomBytes(6).toString('hex')}@example.com`;

async function redisClient(): Promise<Redis | undefined> {
  const client = new Redis(REDIS_URL, { lazyConnect: true, maxRetriesPerRequest: 0, enableOfflineQueue: false, connectTimeout: 1000, retryStrategy: () => null });
  client.on('error', () => undefined);
  try {
    await client.connect();
    return client;
  } catch {
    client.disconnect();
    return undefined;
  }
}

/** A form POST as a browser would send it, from an address of the test's choosing (sent, not awaited). */
function postFrom(t: TestApp, client: WebClient, url: string, form: Record<string, string>, remoteAddress: string): Promise<LightMyRequestResponse> {
  return t.app.inject({
    method: 'POST',
    url,
    remoteAddress,
    headers: { cookie: [...client.cookies].map(([k, v]) => `${k}=${v}`).join('; '), 'content-type': 'application/x-www-form-urlencoded', origin: client.origin },
    payload: new URLSearchParams({ _csrf: client.csrf, ...form }).toString(),
  });
}

/** An invited dashboard user who has set PASSWORD; the signed-in client. */
async function newUser(t: TestApp, workspaceId: string): Promise<{ email: string; client: WebClient }> {
  const address = email();
  const res = await operator(t.app, 'POST', `/operator/v1/workspaces/${workspaceId}/users`, { email: address, role: 'admin' });
  const client = new WebClient(t.app);
  const { done } = await client.acceptInvitation(res.json<{ invitationUrl: string }>().invitationUrl, PASSWORD);
  expect(done?.statusCode).toBe(303);
  return { email: address, client };
}

/** Turns the second factor on for a signed-in client; its secret. */
async function withSecondFactor(client: WebClient): Promise<string> {
  await client.get('/dashboard/account');
  const begun = await client.post('/dashboard/account/second-factor/begin', {});
  const secret = /id="totp-secret">([A-Z2-7]+)</.exec(begun.body)?.[1] as string;
  const sealed = /name="sealed" value="([^"]+)"/.exec(begun.body)?.[1] as string;
  expect((await client.post('/dashboard/account/second-factor/enable', { sealed, code: totpCode(secret, totpStep(Date.now())) })).statusCode).toBe(303);
  await client.get('/dashboard/account');
  return secret;
}

const count = (statuses: number[], status: number) => statuses.filter((s) => s === status).length;

/** The same cases against the in-process counts and against Redis. */
function limitCases(name: string, env: () => Record<string, string> | undefined) {
  describe(`sign-in limits (${name})`, () => {
    let t: TestApp | undefined;
    let workspaceId: string;

    beforeAll(async () => {
      const extra = env();
      if (!extra) return;
      t = await createTestApp({ env: { SIGN_IN_FAILURES_PER_15_MIN: String(LIMIT), ...extra } });
      workspaceId = (await newWorkspace(t.app)).workspaceId;
      if (extra.REDIS_URL) await untilCountedInRedis(t);
    });
    afterAll(async () => t?.close());

    it(`39 wrong passwords and then the right one, sent at once, sign nobody in and check at most ${LIMIT} passwords`, async (testCtx) => {
      if (!t) return testCtx.skip(`Redis is not reachable at ${REDIS_URL}`);
      const app = t;
      const user = await newUser(app, workspaceId);
      const client = new WebClient(app.app);
      await client.get('/dashboard/sign-in');
      const attempts = [...Array.from({ length: 39 }, (_, i) => `wrong password number ${i}`), PASSWORD];
      const answers = await Promise.all(attempts.map((password) => postFrom(app, client, '/dashboard/sign-in', { email: user.email, password }, freshIp())));
      const statuses = answers.map((a) => a.statusCode);
      expect(count(statuses, 303)).toBe(0);
      // A 401 is a password checked and found wrong; a 429 was refused before any check.
      expect(count(statuses, 401)).toBeLessThanOrEqual(LIMIT);
      expect(count(statuses, 401) + count(statuses, 429)).toBe(40);
      const limited = answers.find((a) => a.statusCode === 429);
      expect(Number(limited?.headers['retry-after'])).toBeGreaterThan(0);
    });

    it(`39 wrong codes and then the right one, sent at once, do not pass the second factor and check at most ${LIMIT} codes`, async (testCtx) => {
      if (!t) return testCtx.skip(`Redis is not reachable at ${REDIS_URL}`);
      const app = t;
      const user = await newUser(app, workspaceId);
      const secret = await withSecondFactor(user.client);
      const client = new WebClient(app.app);
      await client.get('/dashboard/sign-in');
      const signedIn = await postFrom(app, client, '/dashboard/sign-in', { email: user.email, password: PASSWORD }, freshIp());
      expect(signedIn.headers.location).toMatch(/^\/dashboard\/second-factor/);
      for (const c of signedIn.cookies as { name: string; value: string }[]) client.cookies.set(c.name, c.value);
      await client.get('/dashboard/second-factor');
      const right = totpCode(secret, totpStep(Date.now()) + 1);
      const codes = [...Array.from({ length: 39 }, (_, i) => String((Number(right) + 1 + i) % 1_000_000).padStart(6, '0')), right];
      const answers = await Promise.all(codes.map((code) => postFrom(app, client, '/dashboard/second-factor', { code }, freshIp())));
      const statuses = answers.map((a) => a.statusCode);
      expect(count(statuses, 303)).toBe(0);
      expect(count(statuses, 401)).toBeLessThanOrEqual(LIMIT);
      expect(count(statuses, 401) + count(statuses, 429)).toBe(40);
    });

    it('turning the second factor off takes the password again, and wrong codes or passwords there are limited', async (testCtx) => {
      if (!t) return testCtx.skip(`Redis is not reachable at ${REDIS_URL}`);
      const user = await newUser(t, workspaceId);
      const secret = await withSecondFactor(user.client);
      const step = totpStep(Date.now()) + 1;
      const noPassword = await user.client.post('/dashboard/account/second-factor/disable', { code: totpCode(secret, step) });
      expect(noPassword.statusCode).toBe(400);
      const wrongPassword = await user.client.post('/dashboard/account/second-factor/disable', { password: 'not my password at all', code: totpCode(secret, step) });
      expect(wrongPassword.statusCode).toBe(400);
      expect(wrongPassword.body).toContain('The password is not right');
      const statuses: number[] = [];
      for (let i = 0; i < 12; i++) {
        statuses.push((await user.client.post('/dashboard/account/second-factor/disable', { password: PASSWORD, code: String(100000 + i) })).statusCode);
      }
      // The missing and the wrong password above were two of the attempts.
      expect(statuses.slice(0, LIMIT - 2)).toEqual(Array(LIMIT - 2).fill(400));
      expect(statuses.slice(LIMIT - 2)).toEqual(Array(12 - LIMIT + 2).fill(429));
      // Still on: the right password and code are refused too while the limit lasts.
      expect((await user.client.post('/dashboard/account/second-factor/disable', { password: PASSWORD, code: totpCode(secret, step) })).statusCode).toBe(429);
      expect((await user.client.get('/dashboard/account')).body).toContain('On (authenticator app)');
    });

    it('the right password and code turn the second factor off', async (testCtx) => {
      if (!t) return testCtx.skip(`Redis is not reachable at ${REDIS_URL}`);
      const user = await newUser(t, workspaceId);
      const secret = await withSecondFactor(user.client);
      const off = await user.client.post('/dashboard/account/second-factor/disable', { password: PASSWORD, code: totpCode(secret, totpStep(Date.now()) + 1) });
      expect(off.statusCode).toBe(303);
      expect((await user.client.get('/dashboard/account')).body).toContain('Off');
    });
  });
}

/** The app's connection to Redis opens in the background (meanwhile it counts in memory): wait until it counts there. */
async function untilCountedInRedis(t: TestApp): Promise<void> {
  const redis = (await redisClient()) as Redis;
  try {
    const client = new WebClient(t.app);
    await client.get('/dashboard/sign-in');
    const deadline = Date.now() + 5000;
    for (;;) {
      const ip = freshIp();
      await postFrom(t, client, '/dashboard/sign-in', { email: email(), password: 'wrong password here' }, ip);
      if (await redis.exists(`corridor-auth-failures:signin:address:${ip}`)) return;
      if (Date.now() > deadline) throw new Error('the app never counted in Redis');
      await new Promise((r) => setTimeout(r, 50));
    }
  } finally {
    redis.disconnect();
  }
}

limitCases('in memory', () => ({}));

let redisReachable = false;
beforeAll(async () => {
  const client = await redisClient();
  redisReachable = client !== undefined;
  client?.disconnect();
});
limitCases('in Redis', () => (redisReachable ? { REDIS_URL } : undefined));
