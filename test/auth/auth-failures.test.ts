import { randomBytes, randomUUID, scryptSync } from 'node:crypto';
import type { LightMyRequestResponse } from 'fastify';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bootstrap } from '../../src/cli/bootstrap.js';
import { createTestApp, newWorkspace, OPERATOR_KEY, type Caller, type TestApp } from '../helpers/app.js';

/** Wrong operator keys and client secrets are cheap to refuse, and failures from one address are limited. */

const FAILURES_MAX = 5;
let t: TestApp;
let caller: Caller;

beforeAll(async () => {
  t = await createTestApp({ env: { AUTH_FAILURE_LIMIT_PER_MINUTE: String(FAILURES_MAX) } });
  caller = await newWorkspace(t.app, { name: 'Guarded Ltd' });
});
afterAll(async () => t.close());

/** A client address of its own, so failure counts never mix between tests. */
const freshIp = () => `10.${randomBytes(1)[0]}.${randomBytes(1)[0]}.${1 + (randomBytes(1)[0]! % 250)}`;

const asOperator = (key: string, ip: string) =>
  t.app.inject({ method: 'GET', url: '/operator/v1/workspaces', remoteAddress: ip, headers: { authorization: `Bearer ${key}` } });

const tokenFor = (clientId: string, clientSecret: string, ip: string) =>
  t.app.inject({
    method: 'POST',
    url: '/oauth/token',
    remoteAddress: ip,
    payload: { client_id: clientId, client_secret: clientSecret, audience: 'corridor-api', grant_type: 'client_credentials' },
  });

/** The stored form the first releases wrote: `scrypt$N$r$p$salt$hash`. */
function legacyScryptHash(secret: string): string {
  const salt = randomBytes(16);
  const key = scryptSync(secret, salt, 32, { N: 16384, r: 8, p: 1 });
  return ['scrypt', 16384, 8, 1, salt.toString('base64url'), key.toString('base64url')].join('$');
}

function expect429(res: LightMyRequestResponse): void {
  expect(res.statusCode).toBe(429);
  const retryAfter = Number(res.headers['retry-after']);
  expect(retryAfter).toBeGreaterThanOrEqual(1);
  expect(retryAfter).toBeLessThanOrEqual(60);
}

describe('wrong credentials are cheap to refuse', () => {
  // What makes a refusal cheap is the digest kind (keyed HMAC, next test), not a timing: tests assert no durations.
  it('refuses 20 wrong operator keys and 20 wrong client secrets from fresh addresses with 401, and the right ones still work', async () => {
    for (let i = 0; i < 20; i++) expect((await asOperator(`op_${randomBytes(32).toString('base64url')}`, freshIp())).statusCode).toBe(401);
    for (let i = 0; i < 20; i++) expect((await tokenFor(caller.clientId, `cs_${randomBytes(32).toString('base64url')}`, freshIp())).statusCode).toBe(401);
    expect((await asOperator(OPERATOR_KEY, freshIp())).statusCode).toBe(200);
    expect((await tokenFor(caller.clientId, caller.clientSecret, freshIp())).statusCode).toBe(200);
  });

  it('stores new client secrets and operator keys as keyed HMAC-SHA256 digests, never scrypt', async () => {
    const [cred] = await t.ctx.db.query<{ secret_hash: string }>('SELECT secret_hash FROM credentials WHERE client_id = $1', [caller.clientId]);
    expect(cred?.secret_hash).toMatch(/^hmac-sha256\$[A-Za-z0-9_-]{43}$/);
    expect(cred?.secret_hash).not.toContain(caller.clientSecret);
    const keys = await t.ctx.db.query<{ key_hash: string }>('SELECT key_hash FROM operator_keys WHERE revoked_at IS NULL');
    expect(keys.length).toBeGreaterThan(0);
    for (const k of keys) expect(k.key_hash).toMatch(/^hmac-sha256\$/);
  });

  it('keeps a credential stored as scrypt working, and rehashes it on its first successful use', async () => {
    const legacy = await newWorkspace(t.app, { name: 'Legacy Ltd' });
    await t.ctx.db.query('UPDATE credentials SET secret_hash = $2 WHERE client_id = $1', [legacy.clientId, legacyScryptHash(legacy.clientSecret)]);
    expect((await tokenFor(legacy.clientId, 'cs_wrong', freshIp())).statusCode).toBe(401);
    expect((await tokenFor(legacy.clientId, legacy.clientSecret, freshIp())).statusCode).toBe(200);
    const [row] = await t.ctx.db.query<{ secret_hash: string }>('SELECT secret_hash FROM credentials WHERE client_id = $1', [legacy.clientId]);
    expect(row?.secret_hash).toMatch(/^hmac-sha256\$/);
    expect((await tokenFor(legacy.clientId, legacy.clientSecret, freshIp())).statusCode).toBe(200);
  });

  it('keeps an operator key stored as scrypt working, and rehashes it on its first successful use', async () => {
    const key = `op_legacy_${randomBytes(16).toString('hex')}`;
    const id = randomUUID();
    await t.ctx.db.query("INSERT INTO operator_keys (id, key_hash, label) VALUES ($1, $2, 'legacy')", [id, legacyScryptHash(key)]);
    expect((await asOperator(key, freshIp())).statusCode).toBe(200);
    const [row] = await t.ctx.db.query<{ key_hash: string }>('SELECT key_hash FROM operator_keys WHERE id = $1', [id]);
    expect(row?.key_hash).toMatch(/^hmac-sha256\$/);
    expect((await asOperator(key, freshIp())).statusCode).toBe(200);
    await t.ctx.db.query('UPDATE operator_keys SET revoked_at = now() WHERE id = $1', [id]);
  });
  it('rehashes a bootstrap operator key stored as scrypt at the next start', async () => {
    await t.ctx.db.query("UPDATE operator_keys SET key_hash = $1 WHERE label = 'bootstrap' AND revoked_at IS NULL", [legacyScryptHash(OPERATOR_KEY)]);
    await bootstrap(t.ctx);
    const rows = await t.ctx.db.query<{ key_hash: string }>("SELECT key_hash FROM operator_keys WHERE label = 'bootstrap' AND revoked_at IS NULL");
    expect(rows).toHaveLength(1);
    expect(rows[0]?.key_hash).toMatch(/^hmac-sha256\$/);
    expect((await asOperator(OPERATOR_KEY, freshIp())).statusCode).toBe(200);
  });
});

describe('failed authentication per caller: client address and presented id (AUTH_FAILURE_LIMIT_PER_MINUTE)', () => {
  it(`slows only the caller that fails: after ${FAILURES_MAX} wrong operator keys from one address, its wrong keys get 429 (retryable, Retry-After) and the right key from there is still answered`, async () => {
    const ip = freshIp();
    for (let i = 0; i < FAILURES_MAX; i++) expect((await asOperator(`op_wrong_${i}`, ip)).statusCode).toBe(401);
    const limited = await asOperator('op_wrong_again', ip);
    expect429(limited);
    expect(limited.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect(limited.json()).toMatchObject({ status: 429, code: 'RATE_LIMITED', category: 'rate_limit', retryable: true });
    expect((await asOperator(OPERATOR_KEY, ip)).statusCode).toBe(200);
    // A POST refused for too many failures was not carried out: retryable all the same (no Idempotency-Key needed).
    const post = await t.app.inject({ method: 'POST', url: '/operator/v1/workspaces', remoteAddress: ip, headers: { authorization: 'Bearer op_wrong_post' }, payload: { name: 'Never' } });
    expect429(post);
    expect(post.json()).toMatchObject({ status: 429, retryable: true });
  });

  it(`never refuses a right client secret for other callers' failures: ${FAILURES_MAX * 2} wrong secrets for one client id (and unknown ids) from an address leave another client, and the right secret of that client, answered there`, async () => {
    const ip = freshIp();
    const victim = await newWorkspace(t.app, { name: 'Shared NAT Ltd' });
    for (let i = 0; i < FAILURES_MAX * 2; i++) {
      await tokenFor(victim.clientId, `cs_wrong_${i}`, ip);
      await tokenFor(randomUUID(), 'cs_unknown', ip);
    }
    expect((await tokenFor(caller.clientId, caller.clientSecret, ip)).statusCode).toBe(200);
    expect((await tokenFor(victim.clientId, victim.clientSecret, ip)).statusCode).toBe(200);
  });

  it(`answers 429 with Retry-After to the caller (address and client id) past ${FAILURES_MAX} failed token requests; the same client id from another address is a 401`, async () => {
    const ip = freshIp();
    for (let i = 0; i < FAILURES_MAX; i++) expect((await tokenFor(caller.clientId, `cs_wrong_${i}`, ip)).statusCode).toBe(401);
    const limited = await tokenFor(caller.clientId, 'cs_wrong_again', ip);
    expect429(limited);
    expect(limited.headers['cache-control']).toBe('no-store');
    expect((await tokenFor(caller.clientId, 'cs_wrong_elsewhere', freshIp())).statusCode).toBe(401);
  });

  it('does not count successes: many right answers from one address stay answered', async () => {
    const ip = freshIp();
    for (let i = 0; i < FAILURES_MAX * 2; i++) {
      expect((await asOperator(OPERATOR_KEY, ip)).statusCode).toBe(200);
      expect((await tokenFor(caller.clientId, caller.clientSecret, ip)).statusCode).toBe(200);
    }
  });
});

describe('failed authentication counted in Redis (REDIS_URL)', () => {
  const REDIS_URL = process.env.REDIS_URL || 'redis://127.0.0.1:6379';
  let redis: Redis | undefined;
  const apps: TestApp[] = [];
  beforeAll(async () => {
    const client = new Redis(REDIS_URL, { lazyConnect: true, maxRetriesPerRequest: 0, enableOfflineQueue: false, connectTimeout: 1000, retryStrategy: () => null });
    client.on('error', () => undefined);
    try {
      await client.connect();
      redis = client;
    } catch {
      client.disconnect();
      return;
    }
    const first = await createTestApp({ env: { AUTH_FAILURE_LIMIT_PER_MINUTE: '3', REDIS_URL } });
    apps.push(first);
    apps.push(await createTestApp({ env: first.env, databaseUrl: first.config.databaseUrl }));
  });
  afterAll(async () => {
    for (const app of apps.reverse()) await app.close();
    redis?.disconnect();
  });

  it('two API processes share one count per client address', async (testCtx) => {
    if (!redis) {
      testCtx.skip(`Redis is not reachable at ${REDIS_URL}`);
      return;
    }
    const [a, b] = apps as [TestApp, TestApp];
    const wrongToken = (app: TestApp, ip: string) =>
      app.app.inject({ method: 'POST', url: '/oauth/token', remoteAddress: ip, payload: { client_id: randomUUID(), client_secret: 'cs_wrong', grant_type: 'client_credentials' } });
    // Each app's connection to Redis opens in the background (meanwhile it counts in memory): wait until it writes there.
    for (const app of [a, b]) {
      const deadline = Date.now() + 5000;
      for (;;) {
        const warmIp = freshIp();
        await wrongToken(app, warmIp);
        if ((await redis.keys(`corridor-auth-failures:*${warmIp}*`)).length > 0) break;
        if (Date.now() > deadline) throw new Error('the app never counted in Redis');
        await new Promise((r) => setTimeout(r, 50));
      }
    }
    const ip = freshIp();
    const wrongKey = (app: TestApp) => app.app.inject({ method: 'GET', url: '/operator/v1/workspaces', remoteAddress: ip, headers: { authorization: 'Bearer op_wrong' } });
    const statuses: number[] = [];
    for (const app of [a, b, a, b, a]) statuses.push((await wrongKey(app)).statusCode);
    // The 4th failure overall is refused although neither process saw 3 of its own.
    expect(statuses).toEqual([401, 401, 401, 429, 429]);
    // The right key from there is answered all the same.
    const operatorFromThere = await b.app.inject({ method: 'GET', url: '/operator/v1/workspaces', remoteAddress: ip, headers: { authorization: `Bearer ${OPERATOR_KEY}` } });
    expect(operatorFromThere.statusCode).toBe(200);
  });
});
